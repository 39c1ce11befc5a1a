import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import picomatch from 'picomatch';
import { globProblem, ruleMatcher } from '../../../src/hygiene/scan/lifecycle-glob.js';
import { fc } from '../../helpers/property.js';

describe('lifecycle glob: the linear-time matcher', () => {
  it('agrees with picomatch (dot files included) on the syntax it takes (property)', () => {
    // Segments drawn from the syntax both take, over a small alphabet so that matches happen.
    const atom = fc.constantFrom('a', 'b', '.', '-', '*', '?', '[ab]', '[^a]', '[a-b]', '\\*');
    const segment = fc.oneof(
      { weight: 6, arbitrary: fc.array(atom, { minLength: 1, maxLength: 4 }).map((atoms) => atoms.join('')) },
      { weight: 1, arbitrary: fc.constant('**') },
      { weight: 1, arbitrary: fc.constant('{a,b*}') },
    );
    const pattern = fc.array(segment, { minLength: 1, maxLength: 4 }).map((segments) => segments.join('/'));
    // Names git can list: never `.` or `..`.
    const name = fc.stringMatching(/^[ab.*-]{1,5}$/).filter((n) => n !== '.' && n !== '..');
    const path = fc.array(name, { minLength: 1, maxLength: 4 }).map((names) => names.join('/'));
    fc.assert(
      fc.property(pattern, fc.array(path, { minLength: 1, maxLength: 8 }), (glob, paths) => {
        // `**` inside a segment (two `*` atoms side by side) is refused, as tested below.
        fc.pre(globProblem(glob) === undefined);
        const ours = ruleMatcher(glob);
        const theirs = picomatch(glob, { dot: true });
        for (const candidate of paths)
          assert.equal(ours(candidate), theirs(candidate), `${glob} on ${candidate}`);
      }),
      { numRuns: 400 },
    );
  });

  it('a file name under any folder (**/*NAME, **/NAME: answered without the automaton) agrees with picomatch (property)', () => {
    const name = fc.stringMatching(/^[ab.-]{1,4}$/);
    const glob = fc.tuple(fc.boolean(), name).map(([star, n]) => `**/${star ? '*' : ''}${n}`);
    const segmentName = fc.stringMatching(/^[ab.*-]{1,5}$/).filter((n) => n !== '.' && n !== '..');
    const path = fc.array(segmentName, { minLength: 1, maxLength: 4 }).map((names) => names.join('/'));
    fc.assert(
      fc.property(glob, fc.array(path, { minLength: 1, maxLength: 8 }), (pattern, paths) => {
        const ours = ruleMatcher(pattern);
        const theirs = picomatch(pattern, { dot: true });
        for (const candidate of paths)
          assert.equal(ours(candidate), theirs(candidate), `${pattern} on ${candidate}`);
      }),
      { numRuns: 400 },
    );
    assert.equal(ruleMatcher('**/*.md')('a/b/.md'), true);
    assert.equal(ruleMatcher('**/*.md')('a.md/b'), false);
    assert.equal(ruleMatcher('**/CLAUDE.md')('x/CLAUDE.md'), true);
    assert.equal(ruleMatcher('**/CLAUDE.md')('xCLAUDE.md'), false);
  });

  it('matches the forms lifecycle rules use', () => {
    const cases: [string, string, boolean][] = [
      ['runs/*', 'runs/2026-11-01', true],
      ['runs/*', 'runs/a/b', false],
      ['runs/**', 'runs', true],
      ['runs/**', 'runs/a/b', true],
      ['runs/**', 'runsx', false],
      ['**/tmp', 'tmp', true],
      ['**/tmp', 'a/b/tmp', true],
      ['a/**/b', 'a/b', true],
      ['a/**/b', 'a/x/y/b', true],
      ['a/**/b', 'a/xb', false],
      ['scratch-*.md', 'scratch-1.md', true],
      ['{plans,specs}/*.md', 'specs/x.md', true],
      ['./notes/*.txt', 'notes/a.txt', true],
      ['[!a]x', 'bx', true],
      ['[!a]x', 'ax', false],
      ['a\\*', 'a*', true],
      ['a\\*', 'ab', false],
    ];
    for (const [glob, path, expected] of cases)
      assert.equal(ruleMatcher(glob)(path), expected, `${glob} ${path}`);
  });

  it('a pattern built to backtrack is matched in linear time', () => {
    const hostile = ruleMatcher(`runs/${'*a'.repeat(60)}*c`);
    const started = performance.now();
    assert.equal(hostile(`runs/${'a'.repeat(5000)}`), false);
    assert.equal(hostile(`runs/${'a'.repeat(70)}c`), true);
    // A backtracking matcher needs more steps here than there are atoms in the universe.
    assert.ok(performance.now() - started < 5000);
  });

  it('refuses what it does not take, in words that say what to write instead', () => {
    assert.match(globProblem('**.md')!, /"\*\*" must be a whole path segment/);
    assert.match(globProblem('@(a|b)')!, /extended globs/);
    assert.match(globProblem('!runs/*')!, /leading "!"/);
    assert.match(globProblem('[[:digit:]]')!, /POSIX classes/);
    assert.match(globProblem('{1..3}')!, /brace ranges/);
    assert.match(globProblem('a[b')!, /no closing "\]"/);
    assert.match(globProblem('[z-a]')!, /reversed/);
    assert.match(globProblem('x'.repeat(513))!, /at most 512/);
    assert.match(globProblem('{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}')!, /more than 64 alternatives/);
    assert.throws(() => ruleMatcher('@(a|b)'), /extended globs/);
  });
});
