import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { COMMIT_STATE_TEMPLATE } from '../../src/tidy/backends/jj/observe.js';
import {
  parseBookmarkList,
  parseCommitState,
  parseOperationId,
  parseWorkspaceList,
} from '../../src/tidy/backends/jj/observe-parse.js';
import { IncompleteObservationError } from '../../src/tidy/types.js';
import { type JjRepo, makeJjRepo } from './helpers.js';

/** Every parser input below is captured from the pinned jj at one pinned operation. */
describe('jj output parsers, on output captured from the pinned jj', () => {
  let repo: JjRepo;
  let a: string;
  let b: string;
  let c: string;
  let op: string;
  const at = (args: string[]) => repo.jj(['--ignore-working-copy', `--at-op=${op}`, ...args]);
  before(() => {
    // Not colocated: in a colocated repository jj's export to Git settles a concurrent
    // bookmark change instead of leaving the conflict in the view.
    repo = makeJjRepo({ colocate: false });
    a = repo.commit('a', { 'a.txt': 'a\n' });
    b = repo.commit('b', { 'b.txt': 'b\n' });
    repo.jj(['new', 'root()']);
    c = repo.commit('c', { 'c.txt': 'c\n' });
    repo.jj(['edit', b]);
    repo.jj(['new', b]);
    repo.jj(['bookmark', 'create', 'solo', '-r', a]);
    // A conflicted bookmark: two concurrent operations set it to unrelated commits (jj
    // settles a race between an ancestor and its descendant on the descendant).
    const beforeConflict = repo.jj(['op', 'log', '--no-graph', '-n1', '-T', 'id']);
    repo.jj(['bookmark', 'create', 'split', '-r', a]);
    repo.jj(['--ignore-working-copy', `--at-op=${beforeConflict}`, 'bookmark', 'create', 'split', '-r', c]);
    repo.jj(['bookmark', 'list']); // resolves the divergent operations
    op = repo.jj(['op', 'log', '--no-graph', '-n1', '-T', 'id ++ "\\n"']).trim();
  });
  after(() => {
    repo.cleanup();
  });

  it('parses the current operation id and rejects anything else', () => {
    const out = repo.jj(['op', 'log', '--no-graph', '-n1', '-T', 'id ++ "\\n"']);
    assert.equal(parseOperationId(out), out.trim());
    assert.throws(() => parseOperationId(`${out}${out}`), IncompleteObservationError);
    assert.throws(() => parseOperationId(out.slice(0, 40)), IncompleteObservationError);
  });

  it('parses local, conflicted and git-remote bookmarks', () => {
    const out = at(['bookmark', 'list', '--all-remotes', '-T', 'json(self) ++ "\\n"']);
    const parsed = parseBookmarkList(out, 1024);
    const local = Object.fromEntries(parsed.local.map((bookmark) => [bookmark.name, bookmark.targets]));
    assert.deepEqual(local['solo'], [a]);
    // A conflict is the sides of a merge: added targets with the removed base between
    // them (null: the bookmark was absent before both creations).
    assert.equal(local['split']?.length, 3, `split is conflicted: ${out}`);
    assert.equal(local['split']?.[1], null);
    assert.deepEqual([...(local['split'] ?? [])].filter((side) => side !== null).sort(), [a, c].sort());
    // Remote entries (here only the backing Git repository's pseudo-remote "git", if any)
    // are kept apart from local bookmarks; every line is accounted for.
    assert.ok(parsed.remote.every((entry) => entry.remote === 'git'));
    assert.equal(parsed.local.length + parsed.remote.length, out.split('\n').length - 1);
    assert.throws(() => parseBookmarkList(out.slice(0, -1), 1024), IncompleteObservationError);
    assert.throws(() => parseBookmarkList(out, 1), /more than 1 entries/);
  });

  it('parses workspaces with commit and change ids kept apart', () => {
    repo.jj(['workspace', 'add', '--name', 'second', `${repo.dir}-second`]);
    const now = repo.jj(['op', 'log', '--no-graph', '-n1', '-T', 'id ++ "\\n"']).trim();
    const out = repo.jj([
      '--ignore-working-copy',
      `--at-op=${now}`,
      'workspace',
      'list',
      '-T',
      'json(self) ++ "\\n"',
    ]);
    const workspaces = parseWorkspaceList(out, 1024);
    assert.deepEqual(
      workspaces.map((workspace) => workspace.name),
      ['default', 'second'],
    );
    for (const workspace of workspaces) {
      assert.match(workspace.commit_id, /^[0-9a-f]{40}$/);
      assert.match(workspace.change_id, /^[k-z]{32}$/);
      assert.deepEqual(workspace.parents, [b]);
    }
    assert.throws(() => parseWorkspaceList('{"name":"x"}\n', 1024), IncompleteObservationError);
  });

  it('parses one commit state (empty, conflict, parents) and rejects another commit or a bad line', () => {
    const out = at(['log', '--no-graph', '-r', `present(commit_id(${b}))`, '-T', COMMIT_STATE_TEMPLATE]);
    const state = parseCommitState(out, b);
    assert.equal(state?.commit_id, b);
    assert.match(state?.change_id ?? '', /^[k-z]{32}$/);
    assert.equal(state?.empty, false);
    assert.equal(state?.conflict, false);
    assert.deepEqual(state?.parents, [a]);
    const wc = repo.ids('@');
    const empty = parseCommitState(
      at(['log', '--no-graph', '-r', `present(commit_id(${wc.commit}))`, '-T', COMMIT_STATE_TEMPLATE]),
      wc.commit,
    );
    assert.equal(empty?.empty, true);
    assert.equal(empty?.change_id, wc.change);
    const absent = at([
      'log',
      '--no-graph',
      '-r',
      `present(commit_id(${'0'.repeat(39)}1))`,
      '-T',
      COMMIT_STATE_TEMPLATE,
    ]);
    assert.equal(parseCommitState(absent, `${'0'.repeat(39)}1`), null);
    assert.throws(() => parseCommitState(out, a), IncompleteObservationError);
    assert.throws(() => parseCommitState(out.slice(0, -1), b), IncompleteObservationError);
    assert.throws(() => parseCommitState(`${out}${out}`, b), IncompleteObservationError);
  });
});
