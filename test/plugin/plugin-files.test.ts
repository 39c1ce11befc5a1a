/**
 * The Claude Code plugin's files, without Claude Code (that is `npm run test:plugin`):
 * manifest versions, the hook's behaviour as a shell command, and that each skill's
 * `allowed-tools` lets run exactly the `stw` commands its instructions name, except the
 * one that commits, which Claude Code asks the user to allow (docs/trust.md, "The plugin").
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parse } from 'yaml';
import { PLUGIN_CHECK_COMMAND } from '../../src/hygiene/state/reminder.js';
import { makeRepo, makeTempDir, type TestRepo, testEnv } from '../helpers/git-repo.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { stwBinDir } from './claude-code.js';

const PLUGIN_DIR = join(REPO_ROOT, 'plugin');
const readJson = (...parts: string[]) => JSON.parse(readFileSync(join(...parts), 'utf8'));
const manifest = readJson(PLUGIN_DIR, '.claude-plugin', 'plugin.json');
const repos: TestRepo[] = [];
after(() => {
  for (const repo of repos) repo.cleanup();
});

interface Skill {
  name: string;
  frontmatter: Record<string, unknown>;
  body: string;
  allowed: string[];
}

function readSkill(name: string): Skill {
  const text = readFileSync(join(PLUGIN_DIR, 'skills', name, 'SKILL.md'), 'utf8');
  const match = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(text);
  assert.ok(match, `${name}: frontmatter`);
  const frontmatter = parse(match[1] as string) as Record<string, unknown>;
  const allowed = String(frontmatter['allowed-tools'] ?? '')
    .split(/,\s*/)
    .filter((rule) => rule !== '');
  return { name, frontmatter, body: match[2] as string, allowed };
}

const skills = readdirSync(join(PLUGIN_DIR, 'skills')).sort().map(readSkill);
const skill = (name: string) => skills.find((s) => s.name === name) as Skill;

/** Does a Claude Code `Bash(…)` rule (a trailing ` *` matches any rest) allow `command`? */
function allows(rules: string[], command: string): boolean {
  return rules.some((rule) => {
    const inner = /^Bash\((.*)\)$/.exec(rule)?.[1];
    if (inner === undefined) return false;
    return inner.endsWith(' *') ? command.startsWith(inner.slice(0, -1)) : command === inner;
  });
}

/** A `clean` (or `sweep`, or `apply`) that writes: not a dry run. */
const commits = (command: string) =>
  /^stw hygiene (clean|sweep|apply)\b/.test(command) && !command.includes('--dry-run');

/** The `stw …` commands an instruction text tells Claude to run (in backticks). */
function commandsNamed(body: string): string[] {
  // A redirection is not part of the command a Bash rule matches (its target is an Edit rule).
  return [...body.matchAll(/`(stw hygiene [^`]+)`/g)].map((m) =>
    (m[1] as string).replace(/<[^>]+>/g, 'X').replace(/\s*>.*$/, ''),
  );
}

describe('plugin manifests', () => {
  it('plugin.json carries the package version, and the marketplace lists the plugin', () => {
    const pkg = readJson(REPO_ROOT, 'package.json');
    assert.equal(manifest.version, pkg.version);
    assert.equal(manifest.license, pkg.license);
    const market = readJson(REPO_ROOT, '.claude-plugin', 'marketplace.json');
    assert.deepEqual(
      market.plugins.map((p: Record<string, unknown>) => [p['name'], p['source']]),
      [[manifest.name, './plugin']],
    );
    assert.ok(market.owner?.name, 'marketplace owner');
  });

  it('the reminder names the command as users type it: /<plugin name>:hygiene check', () => {
    assert.equal(PLUGIN_CHECK_COMMAND, `/${manifest.name}:hygiene check`);
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    assert.ok(readme.includes(`/plugin install ${manifest.name}@sourcesteward`));
    assert.ok(readme.includes(PLUGIN_CHECK_COMMAND));
  });
});

describe('SessionStart hook', () => {
  const hooks = readJson(PLUGIN_DIR, 'hooks', 'hooks.json').hooks;
  const [entry] = hooks.SessionStart;
  const [hook] = entry.hooks;
  const runHook = (cwd: string, path: string) =>
    spawnSync('/bin/sh', ['-c', hook.command], {
      cwd,
      env: testEnv({ PATH: path, STW_NOW: '2026-11-29T10:00:00Z' }),
      encoding: 'utf8',
    });

  it('runs stw hygiene remind on startup and resume, as a command with a timeout', () => {
    assert.deepEqual(Object.keys(hooks), ['SessionStart']);
    assert.equal(entry.matcher, 'startup|resume');
    assert.equal(hook.type, 'command');
    assert.match(hook.command, /stw hygiene remind/);
    assert.ok(hook.timeout > 0 && hook.timeout <= 10);
  });

  it('with stw: the one banner line; without stw or with a failing one: silent, exit 0', () => {
    const repo = makeRepo();
    repos.push(repo);
    const scratch = makeTempDir();
    const banner = runHook(repo.dir, `${stwBinDir(scratch)}:/usr/bin:/bin`);
    assert.equal(banner.status, 0);
    assert.deepEqual(Object.keys(JSON.parse(banner.stdout)), ['systemMessage']);
    assert.equal(banner.stdout.split('\n').length, 2, 'one line');

    const noStw = spawnSync('/bin/sh', ['-c', 'command -v stw'], { env: { PATH: '/usr/bin:/bin' } });
    assert.notEqual(noStw.status, 0, 'precondition: no stw installed in /usr/bin or /bin');
    const missing = runHook(makeRepo().dir, '/usr/bin:/bin');
    assert.deepEqual([missing.status, missing.stdout, missing.stderr], [0, '', '']);

    const broken = join(makeTempDir(), 'stw');
    writeFileSync(broken, '#!/bin/sh\necho "stw: something broke" >&2\nexit 3\n');
    chmodSync(broken, 0o755);
    const failing = runHook(repo.dir, `${join(broken, '..')}:/usr/bin:/bin`);
    assert.deepEqual([failing.status, failing.stdout, failing.stderr], [0, '', '']);
  });
});

describe('skills', () => {
  it('the routing skill runs only when asked; the skills it hands off to stay invocable', () => {
    assert.deepEqual(
      skills.map((s) => s.name),
      ['hygiene', 'hygiene-check', 'hygiene-clean'],
    );
    assert.equal(skill('hygiene').frontmatter['disable-model-invocation'], true);
    for (const name of ['hygiene-check', 'hygiene-clean'])
      assert.equal(skill(name).frontmatter['disable-model-invocation'], undefined, name);
    for (const s of skills) {
      const description = String(s.frontmatter['description']);
      assert.ok(description.length > 0 && description.length <= 110, `${s.name}: a short description`);
    }
  });

  it('allowed-tools: only stw hygiene commands, their temp files and the plugin skills', () => {
    const permitted = [
      /^Bash\(stw hygiene (status|context|scan|check|clean)\b[^()]*\)$/,
      /^Edit\(\/\/tmp\/stw-(scan|proposals|generated)-\*\.json\)$/,
      /^Read\(\/\/tmp\/stw-scan-\*\.json\)$/,
      /^Skill\(stw:hygiene-(check|clean)\)$/,
    ];
    for (const s of skills)
      for (const rule of s.allowed)
        assert.ok(
          permitted.some((p) => p.test(rule)),
          `${s.name}: ${rule} is broader than needed`,
        );
  });

  it("no skill pre-approves a command that commits or approves on the user's behalf", () => {
    for (const s of skills)
      for (const command of [
        'stw hygiene clean --json --yes',
        'stw hygiene clean --json --approve 1a2b3c4d',
        'stw hygiene clean --json',
        'stw hygiene clean --yes',
        'stw hygiene clean --dry-run --json --yes',
        'stw hygiene sweep --yes',
        'stw hygiene apply --report .dochygiene/report.json --only 1a2b3c4d',
      ])
        assert.equal(allows(s.allowed, command), false, `${s.name} allows \`${command}\``);
    // The commit step is named, and left to Claude Code's permission prompt.
    assert.ok(commandsNamed(skill('hygiene-clean').body).some(commits));
  });

  it('every stw command a skill tells Claude to run is allowed there and in the routing skill', () => {
    // Claude Code versions differ on whether a skill invoked through the Skill tool gets its
    // own allowed-tools, so the routing skill allows what its nested skills run. The one
    // command that commits is the exception: the user allows it when it runs.
    for (const s of skills) {
      const named = commandsNamed(s.body);
      assert.ok(named.length > 0, `${s.name} names stw commands`);
      for (const command of named.filter((c) => !commits(c))) {
        assert.ok(allows(s.allowed, command), `${s.name}: \`${command}\` is not allowed`);
        assert.ok(allows(skill('hygiene').allowed, command), `hygiene: \`${command}\` is not allowed`);
      }
    }
    for (const s of skills.slice(1))
      for (const rule of s.allowed)
        assert.ok(skill('hygiene').allowed.includes(rule), `hygiene lacks ${rule}`);
    for (const nested of ['hygiene-check', 'hygiene-clean'])
      assert.ok(skill('hygiene').allowed.includes(`Skill(${manifest.name}:${nested})`));
  });

  it('the clean skill points its subagent at workflows/distill.md inside the plugin', () => {
    assert.match(skill('hygiene-clean').body, /\$\{CLAUDE_PLUGIN_ROOT\}\/workflows\/distill\.md/);
    const distill = readFileSync(join(PLUGIN_DIR, 'workflows', 'distill.md'), 'utf8');
    for (const rule of [/rule/, /command/, /path/, /history/, /session notes/, /repetition/, /budget/])
      assert.match(distill, rule);
  });
});
