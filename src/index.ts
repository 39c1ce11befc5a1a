/**
 * SourceSteward's library API. Every function here returns data and never prints;
 * the `stw` CLI is a thin layer over it.
 */
export { type Clock, clockFromEnv, fixedClock, formatInstant, systemClock } from './core/clock.js';
export { Deadline } from './core/deadline.js';
export {
  ConfigError,
  exitCodeFor,
  OperationalError,
  RefusalError,
  StwError,
  UsageError,
  ValidationError,
} from './core/errors.js';
export { Journal, readJournal, writeFileAtomic, writeFileExclusive } from './core/fs-atomic.js';
export { git, gitArgv, hardenedGitEnv, listWorktrees, parseWorktreeList } from './core/git.js';
export { escapeText, quote } from './core/quote.js';
export { type RunOptions, type RunResult, run } from './core/run.js';
export {
  type ApplyOptions,
  type ApplyResult,
  applyEditsToText,
  applyReport,
  type EntryOutcome,
  type FileOutcome,
} from './hygiene/apply/applier.js';
export {
  type CleanOptions,
  type CleanPlan,
  type CleanResult,
  clean,
  cleanupMessage,
  type PlanCleanOptions,
  planClean,
} from './hygiene/apply/clean.js';
export { applyGated, type GatedApplyResult } from './hygiene/apply/gate.js';
export { type SweepOptions, type SweepResult, sweep } from './hygiene/apply/sweep.js';
export {
  type CheckOptions,
  type CheckResult,
  type CheckSummary,
  readProposalsFile,
  runCheck,
  summarizeReport,
} from './hygiene/check.js';
export {
  type CategoryFilter,
  findProposalConflicts,
  parseCategoryFilter,
  parseProposals,
} from './hygiene/classify/proposals.js';
export { classifyWithRules, type PathExists, type ReadText } from './hygiene/classify/rules.js';
export {
  CONFIG_FILE,
  LIFECYCLE_RULE_DEFAULTS,
  loadConfig,
  loadUserConfig,
  parseConfig,
  parseUserConfig,
  type UserConfig,
} from './hygiene/config.js';
export { findRepoRoot, resolveProjectRoot } from './hygiene/project.js';
export { assignEntryIds, type FinalizeInput, finalizeReport } from './hygiene/report/finalize.js';
export { renderReportMarkdown } from './hygiene/report/report-md.js';
export {
  countLines,
  REPORT_SCHEMA_FILE,
  type ValidateReportOptions,
  validateReport,
} from './hygiene/report/validate.js';
export { type ClearedCache, clearScanCache } from './hygiene/scan/cache/index.js';
export { type ScanOptions, scan } from './hygiene/scan/index.js';
export {
  decideReminder,
  localDay,
  type ReminderDecision,
  readStaleAfterDays,
} from './hygiene/state/reminder.js';
export {
  GITIGNORE_LINE,
  parseState,
  STATE_DIR,
  StateStore,
  type WriteReportFaults,
} from './hygiene/state/store.js';
export { refuseUserOnlyKeys, USER_ONLY_KEYS, type UserOnlyKey, userConfigPath } from './hygiene/trust.js';
export { type CreateTaskOptions, createTask, type TaskCreateResult } from './task/create.js';
export { type ListTasksOptions, listTasks, type TaskListResult } from './task/list.js';
export {
  applyTidyPlan,
  type RecoveryEntry,
  TIDY_APPLY_LIMITATIONS,
  type TidyApplyAction,
  type TidyApplyOptions,
  type TidyApplyProgress,
  type TidyApplyResult,
  type TidyApplyStatus,
} from './tidy/apply.js';
export type { Backend, BackendInfo } from './tidy/backends/backend.js';
export { gitBackend } from './tidy/backends/git/backend.js';
export { blockersFor, decideGitTargets, planWorktrees } from './tidy/backends/git/decide.js';
export { type GitObservation, observeGit } from './tidy/backends/git/observe.js';
export { jjBackend } from './tidy/backends/jj/backend.js';
export { BACKENDS, loadBackend, selectBackend } from './tidy/backends/registry.js';
export { type PlanOptions, type PlanResult, planTidy } from './tidy/plan.js';
export { effectsFor } from './tidy/plan-effects.js';
export {
  applyRetirement,
  type RetirementApplyOptions,
  type RetirementApplyResult,
} from './tidy/retire/apply.js';
export { planRetirement, type RetirementPlanOptions, type RetirementPlanResult } from './tidy/retire/plan.js';
export type { RetirementRecord, TidyPlanV2 } from './tidy/retire/types.js';
export { checkStateDir, readPlanRecord, type StoredPlan, writePlanRecord } from './tidy/store.js';
export {
  boundsFromEnv,
  DEFAULT_APPLY_BOUNDS,
  DEFAULT_PLAN_BOUNDS,
  type PlanTarget,
  REASON_CODES,
  type ReasonCode,
  type TidyBounds,
  type TidyPlanV1,
} from './tidy/types.js';
