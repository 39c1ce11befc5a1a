/**
 * The model distiller (seed clean design D6): one request per approved generative entry,
 * the span's live text in, its replacement out (`{text}`, constrained by structured
 * output), behind the prompt file `prompts/distill.md`. The answer is checked by
 * `apply/generative.ts` before anything is written.
 */
import type { DistillAnswer, Distiller } from '../../apply/generative.js';
import { countTokens } from '../../tokens.js';
import { promptText } from './prompts.js';
import type { ModelRunner } from './runner.js';
import { distillAnswerSchema } from './wire-schema.js';

export function distillMessage(input: {
  path: string;
  span: string;
  range: { start_line: number; end_line: number };
  targetTokens: number;
}): string {
  return [
    `File: ${JSON.stringify(input.path)}. Rewrite lines ${input.range.start_line}–${input.range.end_line} (≈${countTokens(input.span)} tokens) in at most ≈${input.targetTokens} tokens.`,
    '',
    'The lines, exactly as they are now, between the markers:',
    '<<<SPAN',
    input.span,
    'SPAN>>>',
  ].join('\n');
}

export function modelDistiller(runner: ModelRunner, model: string): Distiller {
  return {
    async distill(input): Promise<DistillAnswer> {
      const reply = await runner.send({
        model,
        system: promptText('distill'),
        turns: [{ role: 'user', text: distillMessage(input) }],
        schemaName: 'distilled',
        schema: distillAnswerSchema(),
        maxTokens: Math.max(1024, input.targetTokens * 4),
      });
      if (reply.stop === 'refused') return { rejected: 'the model declined to answer' };
      if (reply.stop === 'truncated') return { rejected: 'the answer was cut off at the output limit' };
      let value: unknown;
      try {
        value = JSON.parse(reply.text ?? '');
      } catch {
        return { rejected: 'the answer is not JSON' };
      }
      const text = (value as { text?: unknown } | null)?.text;
      if (typeof text !== 'string') return { rejected: 'the answer has no "text" string' };
      return { text };
    },
  };
}
