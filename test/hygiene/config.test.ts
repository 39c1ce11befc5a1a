import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError } from '../../src/core/errors.js';
import { loadConfig, parseConfig } from '../../src/hygiene/config.js';
import { readStaleAfterDays } from '../../src/hygiene/state/reminder.js';
import { DEFAULT_CONFIG } from '../../src/hygiene/types.js';
import { makeTempDir } from '../helpers/git-repo.js';

function configError(text: string): ConfigError {
  try {
    parseConfig(text);
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
        'classifier: anthropic',
        'archive: { dir: docs/archive }',
        'lifecycle:',
        '  rules:',
        '    - { name: runs, match: "runs/*", type: directory, lifetime: temporary }',
        '    - { name: keepers, match: "keep/*", type: file, lifetime: keep, retain_recent: 5 }',
      ].join('\n'),
    );
    assert.equal(config.reminder.stale_after_days, 14);
    assert.deepEqual(config.classifier, { provider: 'anthropic' });
    assert.equal(config.archive.dir, 'docs/archive');
    assert.deepEqual(config.scan, DEFAULT_CONFIG.scan);
    assert.equal(config.context.budget_tokens, 2000);
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

  it('takes classifier: as a name or as provider settings, naming a bad key', () => {
    assert.deepEqual(parseConfig('classifier: openai\n').classifier, { provider: 'openai' });
    assert.deepEqual(
      parseConfig(
        'classifier:\n  provider: openai\n  model: qwen3:8b\n  base_url: http://127.0.0.1:11434/v1\n  max_concurrency: 2\n  timeout_s: 30\n',
      ).classifier,
      {
        provider: 'openai',
        model: 'qwen3:8b',
        base_url: 'http://127.0.0.1:11434/v1',
        max_concurrency: 2,
        timeout_s: 30,
      },
    );
    assert.match(
      configError('classifier: { provider: openai, temperature: 0 }\n').message,
      /classifier\.temperature: unknown key/,
    );
    assert.match(
      configError('classifier: { provider: openai, max_concurrency: 0 }\n').message,
      /classifier\.max_concurrency: must be >= 1/,
    );
    assert.match(configError('classifier: { model: x }\n').message, /classifier\.provider: is required/);
    assert.match(
      configError('classifier: { provider: openai, base_url: localhost:8080 }\n').message,
      /classifier\.base_url/,
    );
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
      configError('classifier: gpt\n').message,
      /^\.dochygiene\.yml: classifier: must be one of "rules"/,
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
