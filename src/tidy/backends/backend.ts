/**
 * The one interface every version-control backend implements (ARCHITECTURE.md, "Adding a
 * backend"): what the registry knows without loading it (`BackendInfo`: names, marker,
 * vocabulary) and what it does once loaded (`Backend`: plan, the apply protocols,
 * retirement, task creation and the task's current state). Nothing outside
 * `src/tidy/backends/` asks which backend it is; it asks the registry for this.
 */
import type { Deadline } from '../../core/deadline.js';
import type { CreateTaskOptions, TaskCreateResult } from '../../task/create.js';
import type { TaskListEntry } from '../../task/list.js';
import type { LoadedTask } from '../../task/store.js';
import type { TaskCreationPlan } from '../../task/types.js';
import type { DeleteRunInputs } from '../apply.js';
import type { PlanOptions } from '../plan.js';
import type { PreparedRetirement, RetirementApplyOptions } from '../retire/apply.js';
import type { RetirementSelection } from '../retire/decide.js';
import type { TidyPlanV2 } from '../retire/types.js';
import type { BackendName, ObserveContext, RepositoryBinding, TidyBounds, TidyPlanV1 } from '../types.js';

/** What the rest of the tool needs to know about a backend without loading it. */
export interface BackendInfo {
  name: BackendName;
  /** How the backend is written in running text ("Git", "jj"). */
  displayName: string;
  /** What a selectable ref is called: a Git branch, a jj bookmark. */
  refNoun: { one: string; many: string };
  /** What a base or explicit selector is called in the plan's human output. */
  selectorNoun: string;
  /** What a recovery pin is called. */
  pinNoun: string;
  /** What a task's checkout is called. */
  checkoutNoun: string;
  /** The recovery pin of one action of a plan. */
  recoveryName(planId: string, actionId: number): string;
  /** Whether a stored plan must carry the operation it was observed at (jj's `plan.jj`). */
  plansAtOperation: boolean;
  /** The entry that marks a repository of this backend; lower `order` is looked for first in a directory. */
  marker: { name: string; directoryOnly: boolean; order: number };
  /** Whether `task create --backend OTHER` may make another backend's checkout in this backend's repository. */
  allowsForeignTasks: boolean;
  /** The string fields a task record of this backend carries besides the common ones. */
  taskRecordFields: readonly string[];
  /** Whether a `created` journal record carries this backend's facts of the new checkout. */
  isCreatedFacts(facts: Record<string, unknown>): boolean;
  /** The task's checkout in one phrase of `task list` ("branch … from …"). */
  describeTask(task: TaskCreationPlan): string;
  /** The task's checkout on one line of `task create`'s output ("branch: … at …"). */
  describeCreatedTask(task: TaskCreationPlan): string;
  /** One line of what the repository shows of the task's checkout now (`task list`). */
  describeTaskNow(now: TaskListEntry['now']): string;
  /** The backend's code. */
  load(): Promise<Backend>;
}

/** `tidy plan` on one backend. */
export interface TidyPlanRequest {
  options: PlanOptions;
  /** PATH, absolute. */
  path: string;
  /** Explicit selectors; undefined selects every local branch or bookmark. */
  explicit: string[] | undefined;
  /** The store, when the plan is to be stored (its directory already checked private). */
  stateDir: string | undefined;
  deadline: Deadline;
  bounds: TidyBounds;
  counter: { calls: number };
  /** Refuses a plan too large to store. */
  checkRecordSize(plan: TidyPlanV1): void;
}

/** Retirement planning for one task on one backend. */
export interface RetirementPlanRequest {
  path: string;
  base: string;
  stateDir: string;
  selection: RetirementSelection;
  key: Buffer;
  env: NodeJS.ProcessEnv;
}

/** A stored retirement plan, authenticated, to be checked against store and repository. */
export interface RetirementPrepareInputs {
  plan: TidyPlanV2;
  binding: RepositoryBinding;
  key: Buffer;
  options: RetirementApplyOptions;
  bounds: TidyBounds;
  deadline: Deadline;
}

/** `task create` after the common checks (ids, bounds, a private store). */
export interface TaskCreateInputs {
  /** The store, absolute and already checked private. */
  stateDir: string;
  observe: ObserveContext;
  now: () => string;
  result: TaskCreateResult;
}

/** `task list`: the current state of one task's checkout, with lists shared across tasks. */
export interface TaskObserveInputs {
  ctx: ObserveContext;
  env: NodeJS.ProcessEnv;
  /** Per repository (common dir) and backend: one listing for all its tasks. */
  cache: Map<string, Promise<unknown>>;
}

/** One loaded backend. */
export interface Backend {
  readonly info: BackendInfo;
  /** Observes, decides and fills `plan`; returns the stored record's path (null when not stored). */
  planTidy(plan: TidyPlanV1, request: TidyPlanRequest): Promise<string | null>;
  /** Runs a stored delete plan's actions on the engine; fills `inputs.result`. */
  applyDeletes(inputs: DeleteRunInputs): Promise<void>;
  /** Observes and decides one task's retirement, fills `plan` and stores it; returns the record's path. */
  planRetirement(
    plan: TidyPlanV2,
    loaded: LoadedTask,
    request: RetirementPlanRequest,
    ctx: ObserveContext,
  ): Promise<string>;
  /** Checks a stored retirement plan against the store and the repository, and makes its protocol. */
  prepareRetirement(inputs: RetirementPrepareInputs): Promise<PreparedRetirement>;
  /** Makes and records one task checkout. Refusals before creation are thrown. */
  createTask(options: CreateTaskOptions, inputs: TaskCreateInputs): Promise<TaskCreateResult>;
  /** Fills `entry.now`'s registration and checkout fields from the repository. */
  observeTask(task: TaskCreationPlan, entry: TaskListEntry, inputs: TaskObserveInputs): Promise<void>;
}
