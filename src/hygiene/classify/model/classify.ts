/**
 * The model classifiers (docs/scanner-and-classifiers.md): each signal-bearing candidate
 * — never a zero-signal file — is sent with its scanner signals to the model, one request
 * per file, behind the prompt file `prompts/classify.md`. The answer is constrained to the
 * proposals schema and checked as `--proposals` input is (`answers.ts`). An answer with
 * invalid proposals is re-asked once with the violations named; what is still invalid is
 * dropped and reported, never written. A low-confidence answer is asked again of
 * `escalate_model` when one is configured.
 */

import { splitLines } from '../../line-span.js';
import { countTokens } from '../../tokens.js';
import type { Proposal, ScanArtifact } from '../../types.js';
import { isSafeRelativePath } from '../proposals.js';
import { type CheckedAnswer, checkAnswer } from './answers.js';
import { promptText } from './prompts.js';
import type { ChatTurn, StructuredRequest } from './provider.js';
import type { ModelRunner, RunUsage } from './runner.js';
import type { ModelSettings } from './settings.js';
import { proposalsAnswerSchema } from './wire-schema.js';

/** Below this confidence an answer is asked again of `escalate_model` (seed D3 routing). */
export const ESCALATE_BELOW = 0.6;
const CLASSIFY_MAX_TOKENS = 8192;

export interface DroppedProposal {
  path: string;
  /** The proposal's index in the model's last answer; absent when the whole answer was unusable. */
  index?: number;
  violations: string[];
}

export interface ModelUsageSummary extends RunUsage {
  provider: string;
  model: string;
  escalate_model: string | null;
  endpoint: string;
  files: number;
  reasks: number;
  escalations: number;
  dropped: number;
}

export interface ModelClassification {
  proposals: Proposal[];
  dropped: DroppedProposal[];
  usage: ModelUsageSummary;
}

export type ReadText = (path: string) => string | undefined;

/** What will be sent: the signal-bearing, shortlisted candidates that can be read, in path order. */
export function modelCandidates(
  artifact: ScanArtifact,
  readText: ReadText,
): { path: string; text: string }[] {
  const shortlisted = new Set(artifact.shortlist);
  const out: { path: string; text: string }[] = [];
  for (const path of Object.keys(artifact.signals).sort()) {
    if ((artifact.signals[path] ?? []).length === 0 || !shortlisted.has(path) || !isSafeRelativePath(path))
      continue;
    let text: string | undefined;
    try {
      text = readText(path);
    } catch {
      text = undefined;
    }
    if (text !== undefined) out.push({ path, text });
  }
  return out;
}

/**
 * The line printed before anything is sent: how many files (named, up to ten), ≈ how many
 * input tokens (the file texts, their signals and the prompt, estimated locally), to which
 * provider, model and URL.
 */
export function describeRequests(
  candidates: readonly { path: string; text: string }[],
  settings: ModelSettings,
): string {
  const where = `${settings.provider.name} (model ${settings.model}) at ${settings.endpoint}`;
  if (candidates.length === 0) return `no signal-bearing docs, so nothing is sent to ${where}`;
  const prompt = countTokens(promptText('classify'));
  const tokens = candidates.reduce((sum, c) => sum + countTokens(c.text) + prompt, 0);
  const names = candidates.slice(0, 10).map((c) => JSON.stringify(c.path));
  const more = candidates.length > 10 ? `, and ${candidates.length - 10} more` : '';
  const files = `${candidates.length} file${candidates.length === 1 ? '' : 's'}`;
  return `sending ${files} with their scanner signals (≈${tokens} input tokens) to ${where}: ${names.join(', ')}${more}`;
}

/** The user turn for one file: its path, whether agents load it, its signals, its numbered lines. */
export function fileMessage(
  path: string,
  text: string,
  artifact: ScanArtifact,
  budgetTokens: number,
): string {
  const lines = splitLines(text);
  const loaded = (artifact.agent_context ?? []).includes(path);
  const numbered = lines.map((line, i) => `${i + 1}\t${line}`).join('\n');
  return [
    `File: ${JSON.stringify(path)} (${lines.length} lines, ≈${countTokens(text)} tokens).`,
    `Loaded into every agent session: ${loaded ? 'yes' : 'no'}. Context budget: ${budgetTokens} tokens.`,
    '',
    'Scanner signals for this file (cite them by name and line):',
    JSON.stringify(artifact.signals[path] ?? [], null, 1),
    '',
    'The file, each line prefixed with its 1-based number and a tab:',
    numbered,
  ].join('\n');
}

function reask(checked: CheckedAnswer): string {
  const problems = checked.rejected.flatMap((r) => r.violations).map((v) => `- ${v}`);
  return [
    'Some of your proposals are invalid and cannot be used:',
    ...problems,
    '',
    'Answer again with the complete corrected list of proposals for this file. Leave out a proposal you cannot fix.',
  ].join('\n');
}

interface FileOutcome {
  proposals: Proposal[];
  dropped: DroppedProposal[];
  reasked: boolean;
  escalated: boolean;
}

/** Asks, checks, re-asks once; returns the last check. */
async function askChecked(
  runner: ModelRunner,
  model: string,
  path: string,
  message: string,
  artifact: ScanArtifact,
): Promise<{ checked: CheckedAnswer; reasked: boolean }> {
  const request = (turns: ChatTurn[]): StructuredRequest => ({
    model,
    system: promptText('classify'),
    turns,
    schemaName: 'proposals',
    schema: proposalsAnswerSchema(),
    maxTokens: CLASSIFY_MAX_TOKENS,
  });
  const turns: ChatTurn[] = [{ role: 'user', text: message }];
  const first = await runner.send(request(turns));
  const checked = await checkAnswer(first.text, path, artifact, first.stop);
  if (checked.rejected.length === 0) return { checked, reasked: false };
  turns.push({ role: 'assistant', text: first.text ?? '' }, { role: 'user', text: reask(checked) });
  const second = await runner.send(request(turns));
  return { checked: await checkAnswer(second.text, path, artifact, second.stop), reasked: true };
}

async function classifyFile(
  runner: ModelRunner,
  settings: ModelSettings,
  path: string,
  message: string,
  artifact: ScanArtifact,
): Promise<FileOutcome> {
  let { checked, reasked } = await askChecked(runner, settings.model, path, message, artifact);
  let escalated = false;
  if (
    settings.escalateModel !== undefined &&
    checked.valid.some((proposal) => proposal.confidence < ESCALATE_BELOW)
  ) {
    const stronger = await askChecked(runner, settings.escalateModel, path, message, artifact);
    escalated = true;
    reasked ||= stronger.reasked;
    // The stronger model's answer stands only if all of it is valid.
    if (stronger.checked.rejected.length === 0) checked = stronger.checked;
  }
  return {
    proposals: checked.valid,
    dropped: checked.rejected.map((r) => ({
      path,
      ...(r.index !== undefined ? { index: r.index } : {}),
      violations: r.violations,
    })),
    reasked,
    escalated,
  };
}

/**
 * Classifies every candidate with the model, `maxConcurrency` requests at a time. Throws
 * (an OperationalError: cancelled, timeout, auth, rate limit, …) when any request fails for
 * good: a partial classification is never passed off as a whole one.
 */
export async function classifyWithModel(input: {
  artifact: ScanArtifact;
  candidates: { path: string; text: string }[];
  budgetTokens: number;
  settings: ModelSettings;
  runner: ModelRunner;
  onProgress?: (done: number, total: number) => void;
}): Promise<ModelClassification> {
  const { artifact, candidates, settings, runner } = input;
  let done = 0;
  const outcomes = await Promise.all(
    candidates.map(async ({ path, text }) => {
      try {
        const outcome = await classifyFile(
          runner,
          settings,
          path,
          fileMessage(path, text, artifact, input.budgetTokens),
          artifact,
        );
        done += 1;
        input.onProgress?.(done, candidates.length);
        return outcome;
      } catch (error) {
        runner.stop();
        throw error;
      }
    }),
  );
  const dropped = outcomes.flatMap((outcome) => outcome.dropped);
  return {
    proposals: outcomes.flatMap((outcome) => outcome.proposals),
    dropped,
    usage: {
      provider: settings.provider.name,
      model: settings.model,
      escalate_model: settings.escalateModel ?? null,
      endpoint: settings.endpoint,
      files: candidates.length,
      ...runner.usage,
      reasks: outcomes.filter((outcome) => outcome.reasked).length,
      escalations: outcomes.filter((outcome) => outcome.escalated).length,
      dropped: dropped.length,
    },
  };
}
