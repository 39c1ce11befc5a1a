/**
 * `tidy plan` on the jj backend. It checks the jj on PATH against the supported range
 * first: a missing jj refuses `not-found`, one outside the range `unsupported`, and
 * neither falls back to Git (a colocated repository's Git view is not jj's truth).
 */

import { RefusalError } from '../core/errors.js';
import { probeJj } from '../core/jj.js';
import type { ObserveContext, TidyPlanV1 } from './types.js';

/** Records the backend on `plan`, then throws the refusal (see below). */
export async function planJj(plan: TidyPlanV1, ctx: ObserveContext, env: NodeJS.ProcessEnv): Promise<never> {
  plan.backend.name = 'jj';
  plan.limits = [];
  const probe = await probeJj({ deadline: ctx.deadline, env, signal: ctx.signal });
  if (probe.kind !== 'supported') throw new RefusalError(probe.kind, probe.message);
  plan.backend.version = probe.version;
  // Observation at a pinned operation is the next layer of this backend; until it is
  // built the jj backend refuses rather than read the repository through Git.
  throw new RefusalError(
    'unsupported',
    `tidy plan on the jj backend is not available in this build (jj ${probe.version} found); use --backend git to plan a colocated repository's Git branches`,
  );
}
