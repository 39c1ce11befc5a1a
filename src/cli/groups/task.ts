import type { GroupSpec } from '../command.js';

const CREATE_HELP = `Usage: stw task create [PATH] --base SELECTOR --task ID --owner ID --dest ABS_PATH --state-dir DIR [--branch NAME] [--backend git|jj] [--json]

Create a linked worktree for a task on a new branch from an explicit base (on jj: a jj
workspace), and record that SourceSteward made it, so that 'stw tidy plan --task' can
later retire it safely.

Arguments:
  PATH              The source repository: main worktree, linked worktree or a
                    subdirectory (default: the current directory)

Options:
  --base SELECTOR   Required. A full ref name (refs/heads/main) or a full object id:
                    the new branch starts at its commit. Never guessed. On jj: a
                    bookmark name (main).
  --task ID         Required. The task id: 1-128 of A-Z a-z 0-9 . _ -, starting and
                    ending with a letter or digit, no "..". Unique in the store.
  --owner ID        Required. Who owns the task (same form as --task). Retirement
                    needs the same owner.
  --dest ABS_PATH   Required. Where the worktree goes: an absolute, canonical path that
                    does not exist yet, whose parent is an existing real directory (no
                    symbolic link on the way), outside the repository, its git dir,
                    every worktree and the store.
  --state-dir DIR   Required. The private store (existing, yours, mode 0700, outside the
                    repository). The task is recorded in DIR/tasks/<ID>.json (creation
                    plan, written once) and DIR/tasks/<ID>.jsonl (creation journal).
  --branch NAME     The new branch's short name (default: stw/task/<ID>); it must not
                    exist yet. Git only (refused on jj).
  --backend git|jj  Override the backend chosen from the nearest .jj/ or .git at or
                    above PATH (.jj/, colocated or not, means jj; no fallback).
                    --backend git in a jj repository is refused (unsupported).
  --json            Print the result as JSON (docs/tasks.md)
  -h, --help        Show this help

What it does, in order: checks everything above; writes the creation plan (task, owner,
source repository and its common dir's device/inode, base, branch, start commit,
destination); journals the intent; runs 'git worktree add --lock --reason <text> -b
<branch> <dest> <commit>' with hooks off and no system or global git config; reads the
new worktree back (device/inode of the destination and its parent, the .git file, the
admin dir and its lock) and journals it, then journals completion. The lock keeps
'git worktree prune/remove' away; retirement removes only a lock with exactly this text.
On jj (jj >=0.45.0 <0.46.0 on PATH, else not-found/unsupported), the task is a jj
workspace named stw-task-<ID>: 'jj workspace add --name stw-task-<ID> -r
commit_id(<base commit>) --sparse-patterns full <dest>' (like every jj command that
writes, it snapshots the workspace PATH is in first), read back at the operation it
ended at (workspace root, an empty working-copy commit whose only parent is the base,
its commit and change ids, the operation id, the .jj metadata) and journaled.
SIGINT/SIGTERM or the deadline before the intent stops it with nothing made (failed:
cancelled, deadline); once the intent is journaled, the add and its read-back finish.

Exit codes: 0 created and recorded, 1 refused or failed (the JSON says which in
"status"), 2 invalid usage.

Example:
  stw task create . --base refs/heads/main --task fix-123 --owner alice \\
    --dest /work/tasks/fix-123 --state-dir ~/.stw-state`;

const LIST_HELP = `Usage: stw task list --state-dir DIR [--json]

List the tasks recorded in the private store, each with what the store knows (owner,
branch or jj workspace, start commit, destination, whether its creation journal
completed) and what the repository shows now (destination present, absent or replaced
by another directory; worktree registered or missing, its branch, HEAD and lock; the
branch's commit; on jj the workspace and its working-copy commit at the current
operation, read without snapshotting). Read-only.

Options:
  --state-dir DIR   Required. The private store (mode 0700, owned by you)
  --json            Print the list as JSON (docs/tasks.md)
  -h, --help        Show this help

Exit codes: 0 listed (a task whose records fail their checks is listed with the
problem), 1 refused (store checks), 2 invalid usage.`;

export const taskGroup: GroupSpec = {
  name: 'task',
  summary: 'Owned task worktrees and jj workspaces: create and list (retire with stw tidy plan --task)',
  description:
    'Task commands create worktrees (jj: workspaces) for a task and record their ownership in a private\n' +
    "store, so that 'stw tidy plan --task ... --remove-registration --remove-files' can\n" +
    'later retire them safely. See docs/tasks.md.',
  commands: [
    {
      name: 'create',
      summary: 'Create a locked task worktree on a new branch and record its ownership',
      help: CREATE_HELP,
      load: () => import('../commands/task-create.js'),
    },
    {
      name: 'list',
      summary: 'List recorded tasks with their creation state and what the repository shows now',
      help: LIST_HELP,
      load: () => import('../commands/task-list.js'),
    },
  ],
};
