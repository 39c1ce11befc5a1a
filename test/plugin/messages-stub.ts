// A scripted stand-in for the Anthropic Messages API, for running the real `claude` CLI
// with no model and no network: it listens on 127.0.0.1 only, records every request, and
// answers each from a script (text or tool_use blocks), as SSE when the client streams.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ContentBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

/** The parts of a Messages API request the tests read. */
export interface MessagesRequest {
  model: string;
  stream?: boolean;
  system?: unknown;
  tools?: { name: string }[];
  messages: { role: 'user' | 'assistant'; content: string | Record<string, unknown>[] }[];
}

/** Decides the reply to one request; `index` counts requests from 0. */
export type Script = (request: MessagesRequest, index: number) => ContentBlock[];

export interface RecordedRequest {
  method: string;
  url: string;
  body: MessagesRequest | undefined;
}

function sse(res: ServerResponse, event: string, data: Record<string, unknown>): void {
  res.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
}

function reply(res: ServerResponse, request: MessagesRequest, content: ContentBlock[], id: string): void {
  const stopReason = content.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn';
  const usage = { input_tokens: 1, output_tokens: 1 };
  const message = { id, type: 'message', role: 'assistant', model: request.model };
  if (request.stream !== true) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ...message, content, stop_reason: stopReason, stop_sequence: null, usage }));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  sse(res, 'message_start', {
    message: { ...message, content: [], stop_reason: null, stop_sequence: null, usage },
  });
  content.forEach((block, index) => {
    if (block.type === 'text') {
      sse(res, 'content_block_start', { index, content_block: { type: 'text', text: '' } });
      sse(res, 'content_block_delta', { index, delta: { type: 'text_delta', text: block.text } });
    } else {
      sse(res, 'content_block_start', { index, content_block: { ...block, input: {} } });
      const partial = JSON.stringify(block.input);
      sse(res, 'content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: partial } });
    }
    sse(res, 'content_block_stop', { index });
  });
  sse(res, 'message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage });
  sse(res, 'message_stop', {});
  res.end();
}

export class MessagesStub {
  readonly requests: RecordedRequest[] = [];
  private readonly server: Server;
  private answered = 0;

  constructor(private readonly script: Script) {
    this.server = createServer((req, res) => this.handle(req, res));
  }

  /** Starts listening on 127.0.0.1 and returns the base URL for ANTHROPIC_BASE_URL. */
  async start(): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', resolve);
    });
    const { port } = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** The recorded Messages API calls (POST …/v1/messages), in order. */
  messageRequests(): MessagesRequest[] {
    return this.requests.flatMap((r) =>
      r.method === 'POST' && /\/v1\/messages(\?|$)/.test(r.url) && r.body ? [r.body] : [],
    );
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let body: MessagesRequest | undefined;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as MessagesRequest;
      } catch {
        body = undefined;
      }
      this.requests.push({ method: req.method ?? '', url: req.url ?? '', body });
      const url = req.url ?? '';
      if (req.method !== 'POST' || body === undefined || !/\/v1\/messages(\?|$)/.test(url)) {
        // Anything else (token counting, metadata) is not part of a scripted conversation.
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: url } }));
        return;
      }
      const index = this.answered;
      this.answered += 1;
      let content: ContentBlock[];
      try {
        content = this.script(body, index);
      } catch (error) {
        content = [{ type: 'text', text: `stub script failed: ${String(error)}` }];
      }
      reply(res, body, content, `msg_stub_${index}`);
    });
  }
}

/** Every text a request carries (system prompt, messages, tool results), for searching. */
export function requestText(request: MessagesRequest): string {
  return JSON.stringify([request.system ?? null, request.messages]);
}

/** The tool_result blocks of the request's last user message. */
export function lastToolResults(request: MessagesRequest): Record<string, unknown>[] {
  const last = request.messages.at(-1);
  if (last === undefined || typeof last.content === 'string') return [];
  return last.content.filter((block) => block['type'] === 'tool_result');
}
