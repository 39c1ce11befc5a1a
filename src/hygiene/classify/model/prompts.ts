import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../../core/package.js';

/** The prompt files shipped in the package's `prompts/` folder. */
export type PromptName = 'classify' | 'distill';

const cache = new Map<PromptName, string>();

/** The text of `prompts/<name>.md`, read once: the shared prefix of every request. */
export function promptText(name: PromptName): string {
  let text = cache.get(name);
  if (text === undefined) {
    text = readFileSync(join(packageRoot(), 'prompts', `${name}.md`), 'utf8');
    cache.set(name, text);
  }
  return text;
}
