import type { GroupSpec } from '../command.js';

const PLAN_HELP = `Usage: stw tidy plan [PATH] --base SELECTOR [--ref NAME]... [--refs-from FILE|-]
                     [--equivalence-checks N] [--state-dir DIR] [--backend git|jj] [--json]
       stw tidy plan [PATH] --base SELECTOR --state-dir DIR --task ID --owner ID
                     --remove-registration [--remove-files ABS_PATH] [--json]

Decide, for local branches, whether each is provably integrated into an explicit base
(delete) or must stay (retain), with the evidence and blockers behind every decision.
Planning deletes nothing: a delete decision is eligibility, not authorization.

Arguments:
  PATH              The repository: main worktree, linked worktree or a subdirectory
                    (default: the current directory)

Options:
  --base SELECTOR   Required. A full ref name (refs/heads/main) or a full object id.
                    Short names (main), abbreviated ids and revsets are usage errors
                    (exit 2) whose hint names the full refs that match; the base is
                    never guessed.
  --ref NAME        A full local branch name (refs/heads/topic), taken literally; no
                    globs or revsets. Repeatable. Without --ref every local branch is
                    selected (at most 1024 entries, branches and worktrees together;
                    more refuses, saying how many there are). Unknown, duplicate or
                    non-branch names refuse the plan.
  --refs-from FILE  More literal full names, one per line or NUL-separated; '-' reads
                    standard input. No globs or revsets, exactly like --ref. E.g.
                    git for-each-ref --merged=refs/heads/main --format='%(refname)' \\
                      refs/heads/ | head -n 1000 | stw tidy plan --refs-from - ...
  --equivalence-checks N
                    Look for squash/rebase evidence on at most N not-integrated
                    branches, newest tips first (default 16, 0 for none, at most
                    1024); the rest are reported as skipped. Evidence only, never a
                    delete decision.
  --state-dir DIR   Store the plan immutably under DIR/plans/<plan_id>.json so that
                    'stw tidy apply' can use it. DIR must already exist, be a real
                    directory owned by you with mode 0700, and lie outside the
                    repository, its git dir and every worktree. The record is bound
                    to the repository (git dir path, device/inode, root commits) and
                    authenticated with a key kept outside DIR, in
                    $XDG_STATE_HOME/sourcesteward/key (created on first use, 0600).
                    Without --state-dir nothing is written anywhere and plan_id is "".
  --backend git|jj  Override the backend. By default the nearest directory at or
                    above PATH holding .jj/ or .git decides; .jj/ (colocated or not)
                    means jj. The jj backend needs jj >=0.45.0 <0.46.0 on PATH: a
                    missing jj refuses not-found, another version unsupported, and
                    there is no fallback to git. On jj, --base and --ref are bookmark
                    names (main, topic), taken literally, and the repository is
                    observed at one pinned operation without snapshotting the working
                    copy (docs/tidy.md, "jj repositories").
  --json            Print the plan as JSON (schema: schemas/tidy-plan-v1.schema.json)
  -h, --help        Show this help

Decisions:
  delete only when the branch's commit is an ancestor of (or equal to) the base
  commit by native git ancestry and nothing blocks it. Reasons: integrated,
  not-integrated, is-base (the base ref, or a branch at the base commit),
  checked-out (in the main or a linked worktree, locked or prunable included; also
  the branch a rebase or bisect in progress there started from, though git lists
  that worktree as detached — the blocker says "rebase in progress" or "bisect in
  progress"; in a bare repository, the branch HEAD names), worktree-head (a
  detached HEAD is its commit), uncertain (shallow repository, missing objects, a
  worktree HEAD git cannot read or unreadable rebase/bisect state — every target
  then — or changed while observed), unsupported (symbolic branch ref, or a tip that is not a commit).
  Not evaluated: pull requests, remotes. No network. Replace objects and grafts are
  ignored.

Squash evidence (evidence.equivalence, never permission):
  For a not-integrated branch, whether its changes are already in the base: its
  cumulative change since the merge base has the patch-id of one base commit
  (patch-id: that commit is the squash; whitespace counts, so a change of
  indentation is a change; needs git 2.39), or merging it into the base is clean
  and changes nothing (merge-tree). The branch stays retain/not-integrated; the
  output says "squash-merged as X? the changes are in the base; delete by hand
  after review". The test merge's objects go to a temporary object directory,
  never into the repository. Skipped, and said so, beyond the bounds or on any
  doubt.

Decisions on jj (bookmarks; deleting one never abandons its change):
  integrated / not-integrated (jj log -r 'bookmarks(exact:"NAME") &
  ::bookmarks(exact:"BASE")'), is-base, workspace-revision (a workspace's working
  copy is the commit or sits on it), conflicted (several targets), remote-associated
  (the same name on a real remote, tracked or not; not the git pseudo-remote),
  uncertain (shallow backing repository), unsupported (stw-recovery/... bookmarks,
  which are never selected implicitly). The plan records the operation id it was
  observed at; commit, change and operation ids are separate fields.

Owned task retirement (the second form; exclusive with --ref; docs/tasks.md):
  --task ID         A task recorded by 'stw task create' in --state-dir (required)
  --owner ID        Its owner, exactly as recorded (required)
  --remove-registration
                    Required: retire the worktree registration. Alone, a git plan
                    retains as unsupported: git cannot forget a present worktree while
                    keeping its files. On jj it forgets exactly the task workspace
                    (jj workspace forget) and keeps its files.
  --remove-files ABS_PATH
                    Also remove the files; must equal the recorded destination.
  Prints schema v2 (schemas/tidy-plan-v2.schema.json): plan null and a retirement
  record binding ownership (creation plan and completed journal), the source's and
  destination's device/inode, integration by native ancestry, the registration, and
  the full manifest (every path with type, mode, device/inode, size and blob id; 64 KiB
  per file, 1024 entries). Any blocker retains: the source or current worktree,
  another registration or directory at the path, dirty, untracked or ignored files,
  conflicts, operations in progress, symlinks, special files, sparse or transformed
  trees, a lock it did not write, unsupported metadata, exceeded bounds, a process
  working inside it, a branch not integrated. Unknown task, other owner, incomplete
  ownership, another repository or another --remove-files path refuse (exit 1).
  A jj task (a workspace) is planned at one pinned operation without snapshotting:
  its working-copy commit must be empty with one integrated parent and the same stored
  tree, and the disk must match that tree file for file (compared with the stored tree
  in the backing Git repository, so the user's workspaces are never snapshotted);
  --base is a bookmark name.

Bounds: 10 s in total, 64 KiB of git output per call, 1 MiB plan, 1024 entries,
4096-byte paths and selectors. Exceeding one refuses or reports incomplete.

Exit codes: 0 complete plan (even if it retains everything), 1 refused, incomplete
or failed (the JSON still says which in "status"), 2 invalid usage (a short --base or
--ref included). A refusal prints one line and a hint on stderr, no plan.

Example:
  stw tidy plan . --base refs/heads/main --ref refs/heads/finished-task --json`;

const APPLY_HELP = `Usage: stw tidy apply --plan ID --state-dir DIR --authorize [--json]

Delete the branches a stored plan marked delete, after re-checking each one, with a
recovery ref pinned first and a durable journal. Everything comes from the stored,
immutable plan: there is no repository path, base or branch on this command line.

Options:
  --plan ID         The plan id printed by 'stw tidy plan --state-dir DIR'
  --state-dir DIR   The private state directory the plan was stored in (mode 0700,
                    owned by you, outside the repository and its worktrees)
  --authorize       Required: you reviewed this exact plan and authorize its effects.
                    Without it nothing is read or written and the command refuses.
  --json            Print the result as JSON (schema: schemas/tidy-apply-v1.schema.json,
                    or tidy-apply-v2 for a retirement plan)
  -h, --help        Show this help

In plan order, in batches (1, then doubling up to 256 while all goes well; back to 1
after any failure):
  1. revalidate: the repository is observed once per run — base still at the planned
     commit, the same worktrees with the same HEADs, each branch at its planned commit,
     still integrated and not held by a worktree (a rebase or bisect in progress
     included) — and observed again whenever a cheap file check of worktree HEADs,
     registrations and rebase/bisect state changes. A changed or newly held branch is
     refused (stale-proof) and left untouched; a moved base or a changed worktree
     refuses the rest of the plan.
  2. journal each intent (fsync) in DIR/journals/<plan_id>.jsonl
  3. one git ref transaction: verify the base ref, create each
     refs/stw-recovery/<plan_id>/<action_id> at the branch's exact commit, and delete
     each branch only if it is still at that commit — all or nothing
  4. journal the outcomes, verify (branch gone, recovery ref at the commit), journal it
No hooks run; nothing is fetched, pushed or garbage-collected. Recovery refs stay.

On jj (a plan made with the jj backend), one action at a time, never batched:
  1. revalidate at a fresh operation: the current operation must be the plan's (or the
     last one this apply made and verified) — any other operation refuses the rest of
     the plan as stale-proof, naming what it changed — and the bookmark must still be
     at its commit and decide delete
  2. journal the intent with that operation id
  3. jj bookmark create stw-recovery/<plan_id>/<action_id> -r commit_id(<commit>)
  4. jj bookmark delete exact:"NAME" (both with --ignore-working-copy)
  5. check each new operation's parent is the one before it, and the whole bookmark
     and workspace delta is exactly the planned one; anything else is reported
     (manual-review-required) and stops the run
  6. journal the outcome, verify, journal it
jj has no per-bookmark compare-and-swap: a jj delete is not atomic, and these checks
detect a concurrent change rather than prevent it. The change is never abandoned;
nothing is pushed or fetched. Restore with the printed command, e.g.
  jj bookmark create finished-task -r 'bookmarks(exact:"stw-recovery/<plan_id>/1")'

Refused as well: a plan record edited by hand (its HMAC fails: tampered-plan), and a
plan whose repository was replaced or moved (repository-changed).

Restore a deleted branch with the command printed for it, e.g.
  git update-ref refs/heads/finished-task refs/stw-recovery/<plan_id>/1 ''
(full names work for any branch, even one named HEAD; '' refuses to overwrite a
branch created since; non-ASCII names are spelled with printf escapes to paste as is)
Not covered: untracked or ignored files, worktree registrations and files, the
branch's reflog and config; there is no general undo.

Re-running: actions recorded as done are verified again, never repeated. A run that
was interrupted after journaling an intent is resolved by inspecting the repository;
a state with more than one possible history is refused (manual-review-required).

Bounds: 60 s in total; on the deadline or SIGINT/SIGTERM the run stops before the
next action and reports what completed. On jj an action starts only with 2 s of the
deadline left (or twice the run's longest action), and one the deadline stops inside is
failed (deadline) for the next run to inspect. 64 KiB of git output per call, 1 MiB plan.

A stored retirement plan (schema v2, from 'stw tidy plan --task') is applied with its
own protocol (docs/tasks.md): per effect — pin refs/stw-recovery/<plan_id>/1 at the
branch's commit, remove the verified files, remove the lock task create wrote, 'git
worktree remove' the emptied path — a full recheck (ownership, integration,
registration, the manifest or its removal), a journal intent, the effect, an
inspection. Files are removed through confined directory handles, never following a
link, only while type, mode, identity and content still match; anything unexpected is
kept with its folders. An interrupted or uncertain removal is partial and needs manual
review (never retried blindly). On jj the effects are: the recovery bookmark
stw-recovery/<plan_id>/1 at the working-copy commit, 'jj workspace forget <name>'
(files stay), then the confined removal when selected; the current operation must be
the plan's (or the last verified effect's), and each jj effect's operation must follow
it directly with exactly its own change. The change is never abandoned, nothing is
pushed or fetched. JSON: schemas/tidy-apply-v2.schema.json.

Exit codes: 0 every action done and verified (or nothing to do), 1 refused, partial,
failed or cancelled (the JSON says which in "status"), 2 invalid usage.

Example:
  stw tidy apply --plan 0123456789abcdef0123456789abcdef --state-dir ~/.stw-state --authorize`;

const SHOW_HELP = `Usage: stw tidy show --plan ID --state-dir DIR [--json]

Print a stored plan as 'stw tidy plan' printed it, after the same checks apply makes:
the state directory private, the record authentic (its HMAC under the plan key) and
valid. Changes nothing.

Options:
  --plan ID         The plan id printed by 'stw tidy plan --state-dir DIR'
  --state-dir DIR   The private state directory the plan was stored in
  --json            Print the plan as JSON (schema: schemas/tidy-plan-v1.schema.json)
  -h, --help        Show this help

Exit codes: 0 shown, 1 refused (unknown, tampered or older plan, unsafe store or key),
2 invalid usage.`;

const PINS_HELP = `Usage: stw tidy pins [PATH] [--state-dir DIR] [--json]

List the recovery refs (refs/stw-recovery/<plan_id>/<action_id>) in a repository: each
one's commit, plan and action, the branch it preserves, when it was pinned, and the
command that restores the branch. Each pin describes itself: its reflog message, written
by the transaction that made it, names its plan, action and branch, so no state
directory is needed. With --state-dir the stored plan (authenticated) and its journal
are read as well: the branch comes from the plan and the time from the journal. A pin
made before pins described themselves has no branch without --state-dir. Removes
nothing. Git recovery refs only: on jj, recovery pins are bookmarks; list them with
jj bookmark list 'glob:stw-recovery/*'.

Arguments:
  PATH              The repository (default: the current directory)

Options:
  --state-dir DIR   The private state directory the plans were stored in
  --json            Print the listing as JSON
  -h, --help        Show this help

Exit codes: 0 listed, 1 refused or failed, 2 invalid usage.`;

export const tidyGroup: GroupSpec = {
  name: 'tidy',
  summary: 'Plan and apply evidence-based deletion of integrated branches and owned task worktrees',
  description:
    'Tidy decides which local branches are provably integrated into an explicit base,\n' +
    'and deletes them only under explicit authorization, with a recovery ref pinned first\n' +
    "and a durable journal. It also retires task worktrees made by 'stw task create'\n" +
    '(--task), removing only files it verified.',
  commands: [
    {
      name: 'plan',
      summary: 'Decide delete/retain for local branches against an explicit base, with evidence',
      help: PLAN_HELP,
      load: () => import('../commands/tidy-plan.js'),
    },
    {
      name: 'apply',
      summary: 'Delete the branches of a reviewed stored plan, with recovery refs and a journal',
      help: APPLY_HELP,
      load: () => import('../commands/tidy-apply.js'),
    },
    {
      name: 'show',
      summary: 'Print a stored plan, authenticated, as tidy plan printed it',
      help: SHOW_HELP,
      load: () => import('../commands/tidy-show.js'),
    },
    {
      name: 'pins',
      summary: 'List recovery refs with their plan, branch, time and restore command',
      help: PINS_HELP,
      load: () => import('../commands/tidy-pins.js'),
    },
  ],
};
