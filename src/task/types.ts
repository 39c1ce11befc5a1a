/**
 * Owned-task records: what `stw task create` writes to the private store and what a
 * retirement plan later proves ownership with (docs/tasks.md).
 */
import { RefusalError } from '../core/errors.js';
import type { RepositoryBinding } from '../tidy/types.js';

/**
 * The creation record's format; bumped only with a migration story. 1 carried an unkeyed
 * hash and no repository binding: such a record refuses (`task-record-outdated`).
 */
export const TASK_RECORD_FORMAT = 2;

/**
 * Task and owner ids: printable ASCII that is safe as a file name and inside a branch
 * name — letters, digits, `.`, `_`, `-`, starting and ending with a letter or digit, no
 * `..`, at most 128 bytes.
 */
const ID_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,126}[A-Za-z0-9])?$/;

export function isValidTaskId(id: string): boolean {
  return ID_PATTERN.test(id) && !id.includes('..');
}

/** Refuses an id that is not a bounded printable identifier (RefusalError `invalid-id`). */
export function checkId(label: '--task' | '--owner', id: string): void {
  if (!isValidTaskId(id))
    throw new RefusalError(
      'invalid-id',
      `${label} ${JSON.stringify(id.length > 140 ? `${id.slice(0, 140)}…` : id)} is not a bounded printable identifier (1-128 of A-Z a-z 0-9 . _ -, starting and ending with a letter or digit, no "..")`,
    );
}

/** A physical identity: device and inode, as decimal strings (they may exceed 2^53). */
export interface PhysicalIdentity {
  dev: string;
  ino: string;
}

/** The repository a task was created from. */
export interface TaskSource {
  /** The PATH given, resolved through symlinks. */
  path: string;
  toplevel: string | null;
  git_dir: string;
  common_dir: string;
  /** The common dir's device and inode: a different repository at the same path differs. */
  common_dir_identity: PhysicalIdentity;
  object_format: 'sha1' | 'sha256';
}

/** What every creation plan records, whatever the backend. Immutable. */
interface TaskCreationPlanCommon {
  task_id: string;
  owner: string;
  created_at: string;
  tool_version: string;
  source: TaskSource;
  /** git: `ref` is the full ref (or null for an object id); jj: the bookmark name. */
  base: { selector: string; ref: string | null; oid: string };
  /** The commit the task starts from: the base commit (git: the branch start; jj: the working-copy commit's parent). */
  start_oid: string;
  /** The destination's canonical absolute path. */
  destination: string;
}

/** The creation plan of a Git task: a linked worktree on a new branch, locked. */
export interface GitTaskCreationPlan extends TaskCreationPlanCommon {
  backend: 'git';
  /** Full branch name, e.g. refs/heads/stw/task/<task_id>. */
  branch: string;
  /** The worktree lock's reason text: the lock SourceSteward owns and alone may remove. */
  lock_reason: string;
}

/**
 * The creation plan of a jj task: a jj workspace (`jj workspace add`) whose new
 * working-copy commit has the base commit as its only parent. jj has no branch to make
 * and no worktree lock; the workspace name is the registration.
 */
export interface JjTaskCreationPlan extends TaskCreationPlanCommon {
  backend: 'jj';
  /** The jj workspace name, e.g. stw-task-<task_id>. */
  workspace: string;
}

export type TaskCreationPlan = GitTaskCreationPlan | JjTaskCreationPlan;

export interface StoredTaskRecord {
  record_format: 2;
  task: TaskCreationPlan;
  /** The repository the task was created from (docs/tidy.md, "Stored plans"). */
  binding: RepositoryBinding;
  /** `hmac-sha256:<hex>` of the compact JSON of `{task, binding}` under the plan key. */
  integrity: string;
}

/** What creation observed once the worktree existed: the registration it proves ownership with. */
export interface TaskRegistration {
  /** The linked worktree's admin dir, `<common>/worktrees/<name>`. */
  admin_dir: string;
  admin_dir_identity: PhysicalIdentity;
  /** The text of `<admin>/gitdir` (the worktree's `.git` path), trailing newline removed. */
  gitdir: string;
  /** The text of `<destination>/.git` (`gitdir: <admin>`), trailing newline removed. */
  dotgit: string;
  /** The text of `<admin>/locked` (null when not locked); as created, the lock reason. */
  lock: string | null;
}

/** What Git creation observed once the worktree existed. */
export interface TaskCreatedFacts {
  destination_identity: PhysicalIdentity;
  /** The destination's parent directory: the folder removal ends in. */
  parent_identity: PhysicalIdentity;
  registration: TaskRegistration;
  /** The branch tip right after creation (= start_oid). */
  head: string;
}

/** A jj workspace as `jj workspace list` shows it; commit and change ids stay separate. */
export interface JjWorkspaceFacts {
  name: string;
  root: string;
  /** The working-copy commit (40 hex). */
  commit_id: string;
  /** Its change id (32 letters k-z). */
  change_id: string;
  /** Its parents' commit ids. */
  parents: string[];
}

/** The workspace on disk: `<destination>/.jj` and the `.jj/repo` pointer file jj wrote. */
export interface JjTaskRegistration {
  jj_dir_identity: PhysicalIdentity;
  /** The text of `<destination>/.jj/repo` (the path of the shared repository directory). */
  repo_pointer: string;
}

/** What jj creation observed once the workspace existed. */
export interface JjTaskCreatedFacts {
  destination_identity: PhysicalIdentity;
  parent_identity: PhysicalIdentity;
  workspace: JjWorkspaceFacts;
  registration: JjTaskRegistration;
  /** The operation jj was at once the workspace was observed (128 hex). */
  operation_id: string;
}

export type AnyTaskCreatedFacts = TaskCreatedFacts | JjTaskCreatedFacts;

/** The creation journal, `DIR/tasks/<task_id>.jsonl`: intent → created → completed. */
export type TaskJournalRecord =
  | { type: 'intent'; task_id: string; at: string }
  | ({ type: 'created'; task_id: string; at: string } & AnyTaskCreatedFacts)
  | { type: 'completed'; task_id: string; at: string }
  | { type: 'failed'; task_id: string; at: string; reason: string; message: string };

/** The lock reason task create writes; retirement removes a lock only with exactly this text. */
export function lockReasonFor(taskId: string, owner: string): string {
  return `sourcesteward task ${taskId} (owner ${owner}); retire with stw tidy plan --task`;
}

/** The jj workspace name for a task. */
export function taskWorkspaceName(taskId: string): string {
  return `stw-task-${taskId}`;
}

/** The default branch for a task. */
export function defaultTaskBranch(taskId: string): string {
  return `refs/heads/stw/task/${taskId}`;
}
