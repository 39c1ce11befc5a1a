import { open } from 'node:fs/promises';
import { resolve } from 'node:path';
import { RefusalError, UsageError } from '../../core/errors.js';
import { Output, type Style } from '../../core/output.js';
import { escapeText, quote } from '../../core/quote.js';
import { BACKEND_NAMES, backendInfo, isBackendName } from '../../tidy/backends/registry.js';
import { planTidy } from '../../tidy/plan.js';
import { parseRefList, refListByteLimit } from '../../tidy/ref-list.js';
import { boundsFromEnv, type PlanEquivalence, type PlanTarget, type TidyPlanV1 } from '../../tidy/types.js';
import { many, parseCommandArgs } from '../args.js';
import type { CommandContext } from '../command.js';
import { hasRetirementFlags, type RetirementFlags } from './tidy-retire-flags.js';

function describeTarget(target: PlanTarget, style: Style): string[] {
  const decision = target.decision === 'delete' ? style.green('delete') : style.yellow('retain');
  const at = target.oid ?? 'conflicted';
  const out = [`  ${decision}  ${quote(target.ref)}  ${at}  [${target.reasons.join(', ')}]`];
  if (target.jj !== undefined) {
    if (target.jj.change_id !== null) out.push(`          change id: ${target.jj.change_id}`);
    if (target.oid === null)
      out.push(`          sides: ${target.jj.targets.map((side) => side ?? '(absent)').join(', ')}`);
    for (const remote of target.jj.remotes)
      out.push(
        `          remote bookmark ${quote(`${target.ref}@${remote.remote}`)} (${remote.tracked ? 'tracked' : 'not tracked'}) at ${remote.targets.map((side) => side ?? '(absent)').join(', ')}`,
      );
  }
  const ancestor = target.evidence.ancestor_of_base;
  out.push(
    `          ancestor of base: ${ancestor === null ? 'not established' : ancestor ? 'yes' : 'no'} (${target.evidence.method})`,
  );
  if (target.evidence.object_type !== 'commit')
    out.push(`          object type: ${target.evidence.object_type ?? 'missing'}`);
  if (target.evidence.symref_target !== null)
    out.push(`          symbolic ref to ${quote(target.evidence.symref_target)}`);
  for (const note of target.evidence.notes) out.push(`          note: ${escapeText(note)}`);
  out.push(...describeEquivalence(target.evidence.equivalence, style));
  for (const blocker of target.blockers)
    out.push(
      `          blocker: ${blocker.reason}${blocker.operation ? ` (${blocker.operation} in progress)` : ''}${blocker.workspace === undefined ? '' : ` in workspace ${quote(blocker.workspace)}`}${blocker.worktree === null ? '' : ` ${blocker.workspace === undefined ? 'in worktree' : 'at'} ${quote(blocker.worktree)}`}`,
    );
  return out;
}

/** Squash/rebase evidence: the question for the reviewer, then what git proved (or why not). */
function describeEquivalence(equivalence: PlanEquivalence | undefined, style: Style): string[] {
  if (equivalence === undefined) return [];
  const how = equivalence.method === null ? '' : ` (${equivalence.method})`;
  const out: string[] = [];
  if (equivalence.status === 'equivalent')
    out.push(
      `          ${style.yellow(`${equivalence.method === 'patch-id' ? 'squash-merged as' : 'squash- or rebase-merged into'} ${equivalence.base_commit}? the changes are in the base; delete by hand after review`)}`,
    );
  const label =
    equivalence.status === 'equivalent'
      ? 'proved'
      : equivalence.status === 'not-equivalent'
        ? 'not found in the base'
        : 'skipped';
  out.push(`          equivalence${how}: ${label}: ${escapeText(equivalence.detail)}`);
  return out;
}

/** The human rendering of a plan: the same facts as the JSON, opaque text quoted. */
export function renderPlan(plan: TidyPlanV1, style: Style, stateDir: string | undefined): string {
  const out: string[] = [];
  const deletes = plan.targets.filter((target) => target.decision === 'delete').length;
  const headline =
    plan.status === 'complete'
      ? style.bold(`tidy plan: complete — ${deletes} delete, ${plan.targets.length - deletes} retain`)
      : style.red(`tidy plan: ${plan.status}`);
  out.push(headline);
  if (plan.repository) {
    const repo = plan.repository;
    out.push(
      `repository: ${quote(repo.path)} (${plan.backend.name} ${quote(plan.backend.version ?? 'unknown version')}, ${repo.object_format}${repo.is_shallow ? ', shallow' : ''})`,
    );
    if (plan.jj !== undefined) {
      out.push(`  workspace: ${quote(plan.jj.workspace)} at ${quote(repo.toplevel ?? '')}`);
      out.push(`  jj repo dir: ${quote(repo.common_dir)}  backing git dir: ${quote(repo.git_dir)}`);
      out.push(`  observed at operation ${plan.jj.operation_id} (without snapshotting the working copy)`);
    } else {
      out.push(
        `  toplevel: ${repo.toplevel === null ? '(none: bare repository or PATH inside the git dir)' : quote(repo.toplevel)}`,
      );
      out.push(`  git dir: ${quote(repo.git_dir)}  common dir: ${quote(repo.common_dir)}`);
    }
  }
  const info = backendInfo(plan.backend.name);
  const baseKind = info.selectorNoun;
  out.push(
    `base: ${quote(plan.base.selector)}${plan.base.ref === null ? '' : ` (${baseKind} ${quote(plan.base.ref)})`}${plan.base.oid === null ? ' (unresolved)' : ` at ${plan.base.oid}`}`,
  );
  out.push(
    plan.selection.mode === 'explicit'
      ? `selection: ${plan.selection.refs.length} explicit ${info.selectorNoun}(s)`
      : `selection: all local ${info.refNoun.many} (${plan.selection.refs.length})`,
  );
  if (plan.jj !== undefined && plan.jj.workspaces.length > 0) {
    out.push('workspaces:');
    for (const w of plan.jj.workspaces)
      out.push(
        `  ${quote(w.name)}  ${w.root === null ? '(root not recorded)' : quote(w.root)}  working copy ${w.commit_id} (change ${w.change_id}), parents ${w.parents.join(', ') || '(none)'}`,
      );
  }
  if (plan.worktrees.length > 0) {
    out.push('worktrees:');
    for (const worktree of plan.worktrees) {
      const facts = [worktree.is_main ? 'main' : 'linked'];
      if (worktree.bare) facts.push('bare');
      if (worktree.branch !== null) facts.push(`branch ${quote(worktree.branch)}`);
      if (worktree.detached) facts.push(`detached at ${worktree.head ?? 'unknown'}`);
      if (worktree.locked !== null)
        facts.push(worktree.locked === '' ? 'locked' : `locked: ${quote(worktree.locked)}`);
      if (worktree.prunable !== null)
        facts.push(worktree.prunable === '' ? 'prunable' : `prunable: ${quote(worktree.prunable)}`);
      for (const operation of worktree.operations ?? [])
        facts.push(
          `${operation.kind} in progress${operation.branch === null ? ' (from a detached HEAD)' : ` of ${quote(operation.branch)}`}`,
        );
      if (worktree.operations_unreadable != null)
        facts.push(`rebase/bisect state unreadable: ${escapeText(worktree.operations_unreadable)}`);
      out.push(`  ${quote(worktree.path)}  ${facts.join(', ')}`);
    }
  }
  if (plan.targets.length > 0) {
    out.push('targets:');
    for (const target of plan.targets) out.push(...describeTarget(target, style));
  } else if (plan.status === 'complete') out.push('targets: none selected');
  if (plan.effects.length > 0) {
    out.push('effects apply would perform (after --authorize):');
    for (const effect of plan.effects)
      out.push(
        `  ${effect.action_id}. delete ${quote(effect.ref)} at ${effect.old_oid}${effect.recovery_ref === null ? '' : `, recovery ${backendInfo(plan.backend.name).pinNoun} ${quote(effect.recovery_ref)} first`}`,
      );
  }
  out.push('limits:');
  for (const limit of plan.limits) out.push(`  - ${limit}`);
  if (plan.plan_id !== '')
    out.push(`plan id: ${plan.plan_id} (stored in ${quote(stateDir ?? '')}; apply with 'stw tidy apply')`);
  else out.push('plan id: "" (stateless: nothing was written)');
  return out.join('\n');
}

/** Reads `--refs-from` (a file, or stdin for `-`), at most `limit` bytes. */
async function readRefsFrom(source: string, ctx: CommandContext, limit: number): Promise<string[]> {
  let bytes: Buffer;
  if (source === '-') {
    if (ctx.stdin === undefined) throw new UsageError('--refs-from -: no standard input');
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of ctx.stdin) {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
      size += buffer.length;
      if (size > limit) throw new RefusalError('bound-exceeded', `--refs-from - is more than ${limit} bytes`);
      chunks.push(buffer);
    }
    bytes = Buffer.concat(chunks);
  } else {
    const path = resolve(ctx.cwd, source);
    try {
      const handle = await open(path, 'r');
      try {
        const info = await handle.stat();
        if (!info.isFile()) throw new UsageError(`--refs-from ${quote(source)} is not a file`);
        if (info.size > limit)
          throw new RefusalError(
            'bound-exceeded',
            `--refs-from ${quote(source)} is more than ${limit} bytes`,
          );
        bytes = await handle.readFile();
      } finally {
        await handle.close();
      }
    } catch (error) {
      if (error instanceof UsageError || error instanceof RefusalError) throw error;
      throw new UsageError(
        `--refs-from ${quote(source)}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      );
    }
  }
  return parseRefList(bytes, source === '-' ? 'stdin' : quote(source));
}

/** `--equivalence-checks N`: a whole number from 0 to 1024; absent → the library default. */
function parseEquivalenceChecks(text: string | undefined, hint: string): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d{1,4}$/.test(text) || Number(text) > 1024)
    throw new UsageError(`--equivalence-checks ${quote(text)} is not a whole number from 0 to 1024`, hint);
  return Number(text);
}

export async function run(ctx: CommandContext): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    ctx.argv,
    'tidy plan',
    {
      base: { type: 'string' },
      ref: { type: 'string', multiple: true },
      'refs-from': { type: 'string' },
      'equivalence-checks': { type: 'string' },
      'state-dir': { type: 'string' },
      backend: { type: 'string' },
      task: { type: 'string' },
      owner: { type: 'string' },
      'remove-registration': { type: 'boolean' },
      'remove-files': { type: 'string' },
      json: { type: 'boolean' },
    },
    1,
  );
  const hint = "run 'stw tidy plan --help'";
  const retirement: RetirementFlags = {
    base: values.base,
    // --refs-from selects refs too: exclusive with a retirement like --ref.
    ref: [...many(values.ref), ...(values['refs-from'] !== undefined ? ['--refs-from'] : [])],
    stateDir: values['state-dir'],
    task: values.task,
    owner: values.owner,
    removeRegistration: values['remove-registration'] === true,
    removeFiles: values['remove-files'],
    json: values.json === true,
  };
  if (values.base === undefined)
    throw new UsageError('--base is required (a full ref name or object id)', hint);
  const backend = values.backend;
  if (!(backend === undefined || isBackendName(backend)))
    throw new UsageError(`--backend must be ${BACKEND_NAMES.join(' or ')}, not ${quote(backend)}`, hint);
  let bounds: ReturnType<typeof boundsFromEnv>;
  try {
    bounds = boundsFromEnv(ctx.env);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  // Owned task retirement is a separate, schema-v2 plan (docs/tasks.md).
  if (hasRetirementFlags(retirement) && values['equivalence-checks'] !== undefined)
    throw new UsageError('--equivalence-checks applies to reference cleanup, not to a task retirement', hint);
  if (hasRetirementFlags(retirement)) {
    const { runRetirementPlan } = await import('./tidy-retire.js');
    return runRetirementPlan(ctx, retirement, positionals[0] ?? '.', bounds);
  }
  const refs = many(values.ref);
  const refsFrom = values['refs-from'];
  if (refsFrom !== undefined)
    refs.push(
      ...(await readRefsFrom(refsFrom, ctx, refListByteLimit(bounds.maxEntries, bounds.maxTextBytes))),
    );
  if (refsFrom !== undefined && refs.length === 0)
    throw new UsageError(`--refs-from ${refsFrom === '-' ? '-' : quote(refsFrom)} names no ref`, hint);
  const stateDir = values['state-dir'];
  const equivalenceChecks = parseEquivalenceChecks(values['equivalence-checks'], hint);
  const result = await planTidy({
    path: positionals[0] ?? '.',
    base: values.base,
    refs,
    stateDir,
    equivalenceChecks,
    backend,
    env: ctx.env,
    cwd: ctx.cwd,
    clock: ctx.clock,
    bounds,
    signal: ctx.signal,
  });
  const { plan } = result;
  // A selector that is not a full name is a usage error (exit 2), like a missing --base.
  if (plan.refusal?.code === 'short-selector')
    throw new UsageError(plan.refusal.message, plan.refusal.hint ?? hint, 'short-selector');
  const output = new Output(values.json === true, ctx.streams, ctx.env);
  // A refusal is its one line (and a hint), not a plan: there is nothing else to show.
  if (values.json === true || plan.status !== 'refused')
    output.result(plan, (style) => renderPlan(plan, style, stateDir));
  if (plan.refusal && plan.status !== 'complete') {
    output.diag(`stw: tidy plan ${plan.status}: ${plan.refusal.code}: ${escapeText(plan.refusal.message)}`);
    if (plan.refusal.hint !== undefined) output.diag(`hint: ${escapeText(plan.refusal.hint)}`);
  }
  return result.exitCode;
}
