// Live regression check of a model classifier against the classifier goldens. Run by hand:
//   npm run eval:classifier -- --classifier anthropic [--model NAME]
// Never part of CI or `npm test`: it calls the live provider (keys from the environment).
// For each test/fixtures/classifier/<case>/ it checks input/ with the model and prints
// agreement with expected.json on the stable fields (path, class, subtype, op_type, kind,
// safety_tier). Op prose and anchors are advisory and not compared.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const root = join(import.meta.dirname, '..');
const { runCheck } = await import(join(root, 'dist/src/hygiene/check.js'));
const { fixedClock } = await import(join(root, 'dist/src/core/clock.js'));

const { values } = parseArgs({
  options: { classifier: { type: 'string' }, model: { type: 'string' } },
  strict: true,
});
if (values.classifier !== 'anthropic' && values.classifier !== 'openai') {
  console.error('usage: npm run eval:classifier -- --classifier anthropic|openai [--model NAME]');
  process.exit(2);
}

const golden = join(root, 'test/fixtures/classifier');
const stable = (e) =>
  [
    e.path,
    e.category.class,
    e.category.subtype,
    e.op_type,
    e.exact_edit?.kind ?? 'generative',
    e.safety_tier,
  ].join(' ');
const git = (cwd, args) =>
  execFileSync('git', args, {
    cwd,
    stdio: 'pipe',
    env: {
      ...process.env,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_AUTHOR_NAME: 'eval',
      GIT_AUTHOR_EMAIL: 'eval@example.invalid',
      GIT_COMMITTER_NAME: 'eval',
      GIT_COMMITTER_EMAIL: 'eval@example.invalid',
      GIT_AUTHOR_DATE: '2026-01-15T00:00:00Z',
      GIT_COMMITTER_DATE: '2026-01-15T00:00:00Z',
    },
  });

let agreed = 0;
let expectedTotal = 0;
let extra = 0;
for (const name of readdirSync(golden, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort()) {
  const expected = JSON.parse(readFileSync(join(golden, name, 'expected.json'), 'utf8'));
  const dir = mkdtempSync(join(tmpdir(), 'stw-eval-'));
  try {
    cpSync(join(golden, name, 'input'), dir, { recursive: true });
    git(dir, ['init', '-q', '-b', 'main']);
    git(dir, ['add', '-A']);
    git(dir, ['commit', '-q', '-m', 'fixture']);
    const result = await runCheck({
      cwd: dir,
      classifier: values.classifier,
      ...(values.model ? { model: values.model } : {}),
      env: process.env,
      clock: fixedClock('2026-02-01T00:00:00Z'),
      onNotice: (line) => console.error(`  ${line}`),
    });
    const want = expected.entries.map(stable);
    const got = result.report.entries.map(stable);
    const hits = want.filter((line) => got.includes(line)).length;
    agreed += hits;
    expectedTotal += want.length;
    extra += got.filter((line) => !want.includes(line)).length;
    const m = result.model;
    console.log(
      `${name}: ${hits}/${want.length} expected entries agree` +
        (m
          ? ` (${m.requests} requests, ${m.input_tokens}+${m.output_tokens} tokens, ${m.dropped} dropped)`
          : ''),
    );
    for (const line of want.filter((l) => !got.includes(l))) console.log(`  missing: ${line}`);
    for (const line of got.filter((l) => !want.includes(l))) console.log(`  extra:   ${line}`);
  } catch (error) {
    console.error(`${name}: ${error.message}`);
    process.exitCode = 1;
    if (error.code === 'missing-api-key') break;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
if (expectedTotal > 0)
  console.log(
    `agreement on stable fields: ${agreed}/${expectedTotal} (${Math.round((100 * agreed) / expectedTotal)}%), ${extra} extra entries`,
  );
