import type { GroupSpec } from '../command.js';

const PLAN_HELP = `Usage: stw tidy plan [PATH] --base SELECTOR [--ref NAME]... [--state-dir DIR]
                     [--backend git|jj] [--json]

Decide, for local branches, whether each is provably integrated into an explicit base
(delete) or must stay (retain), with the evidence and blockers behind every decision.
Planning deletes nothing: a delete decision is eligibility, not authorization.

Arguments:
  PATH              The repository: main worktree, linked worktree or a subdirectory
                    (default: the current directory)

Options:
  --base SELECTOR   Required. A full ref name (refs/heads/main) or a full object id.
                    Short names (main), abbreviated ids and revsets are refused; the
                    base is never guessed.
  --ref NAME        A full local branch name (refs/heads/topic), taken literally; no
                    globs or revsets. Repeatable. Without --ref every local branch is
                    selected (at most 1024). Unknown, duplicate or non-branch names
                    refuse the plan.
  --state-dir DIR   Store the plan immutably under DIR/plans/<plan_id>.json so that
                    'stw tidy apply' can use it. DIR must already exist, be a real
                    directory owned by you with mode 0700, and lie outside the
                    repository, its git dir and every worktree. Without it nothing is
                    written anywhere and plan_id is "".
  --backend git|jj  Override the backend. By default the nearest directory at or
                    above PATH holding .jj/ or .git decides; .jj/ (colocated or not)
                    means jj. The jj backend needs jj >=0.45.0 <0.46.0 on PATH: a
                    missing jj refuses not-found, another version unsupported, and
                    there is no fallback to git. This build's jj backend then refuses
                    unsupported: planning jj bookmarks is not available yet.
  --json            Print the plan as JSON (schema: schemas/tidy-plan-v1.schema.json)
  -h, --help        Show this help

Decisions:
  delete only when the branch's commit is an ancestor of (or equal to) the base
  commit by native git ancestry and nothing blocks it. Reasons: integrated,
  not-integrated, is-base (the base ref, or a branch at the base commit),
  checked-out (in the main or a linked worktree, locked or prunable included; also
  the branch a rebase or bisect in progress there started from, though git lists
  that worktree as detached — the blocker says "rebase in progress" or "bisect in
  progress"), worktree-head (a detached worktree's HEAD is its commit), uncertain
  (shallow repository, missing objects, unreadable rebase/bisect state, changed
  while observed), unsupported (symbolic branch ref, or a tip that is not a commit).
  Not evaluated: squash/patch equivalence, pull requests, remotes. No network.
  Replace objects and grafts are ignored.

Bounds: 10 s in total, 64 KiB of git output per call, 1 MiB plan, 1024 entries,
4096-byte paths and selectors. Exceeding one refuses or reports incomplete.

Exit codes: 0 complete plan (even if it retains everything), 1 refused, incomplete
or failed (the JSON still says which in "status"), 2 invalid usage.

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
  --json            Print the result as JSON (schema: schemas/tidy-apply-v1.schema.json)
  -h, --help        Show this help

For each delete action, in plan order:
  1. revalidate against a fresh observation: the base still at the planned commit,
     the same worktrees with the same HEADs, the branch at its planned commit,
     still integrated and not held by a worktree (a rebase or bisect in progress
     included). A changed or newly held branch is refused (stale-proof) and left
     untouched; a moved base or a changed worktree refuses the rest of the plan.
  2. journal the intent (fsync) in DIR/journals/<plan_id>.jsonl
  3. one git ref transaction: create refs/stw-recovery/<plan_id>/<action_id> at the
     branch's exact commit, and delete the branch only if it is still at that commit
  4. journal the outcome, verify (branch gone, recovery ref at the commit), journal it
No hooks run; nothing is fetched, pushed or garbage-collected. Recovery refs stay.

Restore a deleted branch with the command printed for it, e.g.
  git branch finished-task refs/stw-recovery/<plan_id>/1
Not covered: untracked or ignored files, worktree registrations and files, the
branch's reflog and config; there is no general undo.

Re-running: actions recorded as done are verified again, never repeated. A run that
was interrupted after journaling an intent is resolved by inspecting the repository;
a state with more than one possible history is refused (manual-review-required).

Bounds: 60 s in total; on the deadline or SIGINT/SIGTERM the run stops before the
next action and reports what completed. 64 KiB of git output per call, 1 MiB plan.

Exit codes: 0 every action done and verified (or nothing to do), 1 refused, partial,
failed or cancelled (the JSON says which in "status"), 2 invalid usage.

Example:
  stw tidy apply --plan 0123456789abcdef0123456789abcdef --state-dir ~/.stw-state --authorize`;

export const tidyGroup: GroupSpec = {
  name: 'tidy',
  summary: 'Plan and apply evidence-based deletion of integrated branches',
  description:
    'Tidy decides which local branches are provably integrated into an explicit base,\n' +
    'and deletes them only under explicit authorization, with a recovery ref pinned first\n' +
    'and a durable journal.',
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
  ],
};
