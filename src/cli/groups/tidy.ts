import type { GroupSpec } from '../command.js';

const PLAN_HELP = `Usage: stw tidy plan [PATH] --base SELECTOR [--ref NAME]... [--state-dir DIR] [--json]

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
  --json            Print the plan as JSON (schema: schemas/tidy-plan-v1.schema.json)
  -h, --help        Show this help

Decisions:
  delete only when the branch's commit is an ancestor of (or equal to) the base
  commit by native git ancestry and nothing blocks it. Reasons: integrated,
  not-integrated, is-base (the base ref, or a branch at the base commit),
  checked-out (in the main or a linked worktree, locked or prunable included),
  worktree-head (a detached worktree's HEAD is its commit), uncertain (shallow
  repository, missing objects, changed while observed), unsupported (symbolic
  branch ref, or a tip that is not a commit).
  Not evaluated: squash/patch equivalence, pull requests, remotes. No network.
  Replace objects and grafts are ignored.

Bounds: 10 s in total, 64 KiB of git output per call, 1 MiB plan, 1024 entries,
4096-byte paths and selectors. Exceeding one refuses or reports incomplete.

Exit codes: 0 complete plan (even if it retains everything), 1 refused, incomplete
or failed (the JSON still says which in "status"), 2 invalid usage.

Example:
  stw tidy plan . --base refs/heads/main --ref refs/heads/finished-task --json`;

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
  ],
};
