/**
 * Tidy plan schema v2 (schemas/tidy-plan-v2.schema.json): owned task retirement. A v2
 * plan has `plan: null` and, for a complete observation, a `retirement` record that
 * binds ownership, identities, integration, registration, the full physical manifest,
 * the selected actions with their decisions, the ordered native effects, blockers and
 * recovery limits. Reference cleanup keeps schema v1 unchanged. See docs/tasks.md.
 */
import type {
  JjTaskRegistration,
  JjWorkspaceFacts,
  PhysicalIdentity,
  TaskRegistration,
} from '../../task/types.js';
import type { PlanBackend, PlanBase, PlanRefusal, PlanRepository, PlanStatus } from '../types.js';
import type { ManifestEntry } from './manifest.js';

export const PLAN_V2_SCHEMA_FILE = 'tidy-plan-v2.schema.json';
export const APPLY_V2_SCHEMA_FILE = 'tidy-apply-v2.schema.json';

/** Why a retirement is retained; a closed set, each blocker naming its path or reason. */
export const RETIREMENT_BLOCKER_CODES = [
  'unsupported',
  'source-worktree',
  'current-worktree',
  'foreign-worktree',
  'destination-replaced',
  'destination-missing',
  'registration-changed',
  'not-integrated',
  'uncertain',
  'dirty',
  'untracked',
  'ignored',
  'conflict',
  'operation-in-progress',
  'symlink',
  'special-file',
  'transformed',
  'lock-not-owned',
  'unsupported-metadata',
  'bound-exceeded',
  'activity',
  'unreferenced-commit',
] as const;
export type RetirementBlockerCode = (typeof RETIREMENT_BLOCKER_CODES)[number];

export interface RetirementBlocker {
  code: RetirementBlockerCode;
  /** The blocking path (absolute), or null when the reason is not a path. */
  path: string | null;
  message: string;
}

export type RetirementActionName = 'remove-registration' | 'remove-files';

/** One selected action and its decision. */
export interface RetirementAction {
  action: RetirementActionName;
  decision: 'retire' | 'retain';
  /** Blocker codes that retain this action (empty when it retires). */
  reasons: RetirementBlockerCode[];
}

export type RetirementEffectType =
  | 'pin-recovery-ref'
  | 'remove-files'
  | 'remove-own-lock'
  | 'remove-registration';

/** One native effect apply performs, in order. Present only when the retirement retires. */
export interface RetirementEffect {
  effect_id: number;
  type: RetirementEffectType;
  /** What exactly it does, in one line (a fixed command or the confined removal). */
  description: string;
  /** pin-recovery-ref: the recovery ref and the commit it pins. */
  recovery_ref?: string;
  oid?: string;
  /** remove-files: the destination and the number of manifest entries. */
  root?: string;
  entries?: number;
  /** remove-own-lock / remove-registration: the admin dir, and the exact lock text removed. */
  admin_dir?: string;
  lock?: string;
  /** remove-registration on jj: the workspace `jj workspace forget` forgets. */
  workspace?: string;
}

/** What a jj retirement plan observed at its pinned operation. */
export interface JjRetirementFacts {
  operation_id: string;
  workspace: { recorded: JjWorkspaceFacts; observed: JjWorkspaceFacts | null };
  /** The working-copy commit at that operation; null when jj does not list the workspace. */
  working_copy: {
    commit_id: string;
    change_id: string;
    parents: string[];
    empty: boolean;
    conflict: boolean;
    /** Stored tree ids (backing Git repository) of the commit and of its one parent; null when not read. */
    tree_id: string | null;
    parent_tree_id: string | null;
  } | null;
  /** How the disk was compared with the stored tree. */
  disk_comparison: string;
}

export interface RetirementRecord {
  task: {
    task_id: string;
    owner: string;
    created_at: string;
    /** The creation plan record and its integrity, as stored. */
    record: string;
    record_integrity: string;
    /** The creation journal: intent → created → completed. */
    journal: string;
  };
  selection: { remove_registration: boolean; remove_files: string | null };
  /** The expected source: the repository the task was created from. */
  source: {
    path: string;
    common_dir: string;
    common_dir_identity: PhysicalIdentity;
    object_format: 'sha1' | 'sha256';
  };
  /** The expected target: the recorded destination, its identity and the task branch. */
  target: {
    destination: string;
    destination_identity: PhysicalIdentity;
    parent_identity: PhysicalIdentity;
    /** The task branch (git); null on jj, where a task is a workspace. */
    branch: string | null;
    start_oid: string;
    /** The branch's commit now (jj: the working-copy commit); null when it is missing. */
    tip_oid: string | null;
  };
  integration: {
    base_oid: string;
    tip_oid: string | null;
    /** true/false by native ancestry; null when not established. */
    ancestor_of_base: boolean | null;
    method: string;
  };
  /** The registration as recorded at creation and as observed now. */
  registration: {
    recorded: TaskRegistration | JjTaskRegistration;
    /** null when the destination's registration could not be read. */
    observed: TaskRegistration | JjTaskRegistration | null;
    listed: boolean;
    /** The lock is exactly the one task create wrote. */
    lock_owned: boolean;
  };
  manifest: {
    root: string;
    complete: boolean;
    max_entries: number;
    max_file_bytes: number;
    entries: ManifestEntry[];
  };
  /** jj only: the operation observed, the workspace and its working-copy commit (ids kept distinct). */
  jj?: JjRetirementFacts;
  decision: 'retire' | 'retain';
  actions: RetirementAction[];
  effects: RetirementEffect[];
  blockers: RetirementBlocker[];
  recovery: { ref: string | null; oid: string | null; limits: string[] };
  limits: string[];
}

export interface TidyPlanV2 {
  schema_version: 2;
  status: PlanStatus;
  plan_id: string;
  created_at: string;
  tool_version: string;
  backend: PlanBackend;
  repository: PlanRepository | null;
  base: PlanBase;
  /** Always null in v2: reference cleanup is schema v1. */
  plan: null;
  /** Present for a complete observation; absent when planning failed early. */
  retirement?: RetirementRecord;
  refusal: PlanRefusal | null;
}

/** What every retirement plan says it cannot promise. */
export const RETIREMENT_LIMITS: readonly string[] = [
  'native ancestry only: squash/patch equivalence and forge state are not evaluated; no network',
  'activity is known only from processes whose working directory is visible in /proc; an editor or agent holding files open elsewhere is not seen',
  'the manifest is a sample: apply re-reads it before each action and removes only entries that still match',
  'removal is not a transaction: sampled checks cannot exclude every external change (ABA races)',
];

export const RECOVERY_LIMITS: readonly string[] = [
  "the recovery ref keeps the task branch's commit; untracked and ignored content is not backed up (retirement retains a task that has any)",
  'there is no automatic rollback: files and registrations are not restored',
  'recovery refs stay after success; review them before removing any',
];

/** A retirement record of a Git task: a branch and a worktree registration. */
export type GitRetirementRecord = RetirementRecord & {
  target: RetirementRecord['target'] & { branch: string };
  registration: RetirementRecord['registration'] & {
    recorded: TaskRegistration;
    observed: TaskRegistration | null;
  };
};

/** Whether a record is a Git task's (the Git apply protocol's input). */
export function isGitRetirementRecord(record: RetirementRecord): record is GitRetirementRecord {
  return (
    record.target.branch !== null && 'admin_dir' in record.registration.recorded && record.jj === undefined
  );
}
