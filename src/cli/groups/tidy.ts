import type { GroupSpec } from '../command.js';

const PLAN_HELP = `Usage: stw tidy plan [PATH] --base SELECTOR [--ref NAME]... [--refs-from FILE|-]
                     [--state-dir DIR] [--json]
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
  --state-dir DIR   Store the plan immutably under DIR/plans/<plan_id>.json so that
                    'stw tidy apply' can use it. DIR must already exist, be a real
                    directory owned by you with mode 0700, and lie outside the
                    repository, its git dir and every worktree. The record is bound
                    to the repository (git dir path, device/inode, root commits) and
                    authenticated with a key kept outside DIR, in
                    $XDG_STATE_HOME/sourcesteward/key (created on first use, 0600).
                    Without --state-dir nothing is written anywhere and plan_id is "".
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
  Not evaluated: squash/patch equivalence, pull requests, remotes. No network.
  Replace objects and grafts are ignored.

Owned task retirement (the second form; exclusive with --ref; docs/tasks.md):
  --task ID         A task recorded by 'stw task create' in --state-dir (required)
  --owner ID        Its owner, exactly as recorded (required)
  --remove-registration
                    Required: retire the worktree registration. Alone, a git plan
                    retains as unsupported: git cannot forget a present worktree while
                    keeping its files.
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
next action and reports what completed. 64 KiB of git output per call, 1 MiB plan.

A stored retirement plan (schema v2, from 'stw tidy plan --task') is applied with its
own protocol (docs/tasks.md): per effect — pin refs/stw-recovery/<plan_id>/1 at the
branch's commit, remove the verified files, remove the lock task create wrote, 'git
worktree remove' the emptied path — a full recheck (ownership, integration,
registration, the manifest or its removal), a journal intent, the effect, an
inspection. Files are removed through confined directory handles, never following a
link, only while type, mode, identity and content still match; anything unexpected is
kept with its folders. An interrupted or uncertain removal is partial and needs manual
review (never retried blindly). JSON: schemas/tidy-apply-v2.schema.json.

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
one's commit, plan and action, and — from the plans and journals stored in DIR — the
branch it preserves, when it was pinned, and the command that restores the branch.
Without --state-dir the branch is unknown and the time is the loose ref file's, if any.
Removes nothing.

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
