import { type PlanEffect, type PlanTarget, recoveryRefFor } from './types.js';

/**
 * One delete-ref effect per delete target, in target order; recovery names need a plan
 * id (Git: a private ref, jj: a bookmark — `recoveryName`).
 */
export function effectsFor(
  targets: readonly PlanTarget[],
  planId: string,
  recoveryName: (planId: string, actionId: number) => string = recoveryRefFor,
): PlanEffect[] {
  return targets
    .filter(
      (target): target is PlanTarget & { oid: string } => target.decision === 'delete' && target.oid !== null,
    )
    .map((target, index) => ({
      action_id: index + 1,
      type: 'delete-ref' as const,
      ref: target.ref,
      old_oid: target.oid,
      recovery_ref: planId === '' ? null : recoveryName(planId, index + 1),
    }));
}
