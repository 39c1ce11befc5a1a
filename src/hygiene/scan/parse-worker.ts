/**
 * A parsing thread (parse-pool.ts): parses each batch of Markdown texts it is sent with the
 * scanner's own parser and posts the parsed docs back, in order.
 */
import { parentPort } from 'node:worker_threads';
import { parseMarkdown } from './markdown.js';

parentPort?.on('message', (batch: { id: number; texts: string[] }) => {
  parentPort!.postMessage({ id: batch.id, parsed: batch.texts.map((text) => parseMarkdown(text)) });
});
