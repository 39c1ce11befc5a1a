#!/usr/bin/env node
// The `stw` executable. `stw hygiene remind` is the Claude Code SessionStart hook and runs at
// every session start, so it goes straight to its command module, before the command table,
// help texts and error rendering of main.js are loaded (README, "Claude Code plugin"). Every
// other invocation, `stw hygiene remind --help` included, is main.js's. Both load their
// modules through Node's compile cache where Node has one (startup.ts).
import { enableCompileCache, reexecForScan } from './startup.js';

const argv = process.argv.slice(2);
// Before any other module is loaded, so that they all come from the compile cache.
enableCompileCache();

if (argv.length === 2 && argv[0] === 'hygiene' && argv[1] === 'remind') {
  const [{ run }, { clockFromEnv }] = await Promise.all([
    import('./commands/hygiene-remind.js'),
    import('../core/clock.js'),
  ]);
  // The hook answers 0 on every path; a malformed STW_NOW is read (and reported) inside it.
  process.exitCode = await run({
    argv: [],
    cwd: process.cwd(),
    env: process.env,
    streams: { stdout: process.stdout, stderr: process.stderr },
    isInteractive: false,
    clock: { now: () => clockFromEnv(process.env).now() },
    signal: new AbortController().signal,
  });
} else {
  // A check whose inputs are all as they were is answered before anything else loads, and
  // before the re-exec below would start a second process (check-replay.ts).
  const replayed =
    argv[0] === 'hygiene' && argv[1] === 'check'
      ? await (await import('./check-replay.js')).replay(argv)
      : undefined;
  if (replayed !== undefined) {
    process.exitCode = replayed;
    // As main.js ends: flush, then exit even if a stray handle remains.
    process.stdout.write('', () => process.exit(replayed));
  } else {
    // A command that scans runs with a smaller young generation where Node's default is larger (startup.ts).
    reexecForScan(argv);
    await import('./main.js');
  }
}
