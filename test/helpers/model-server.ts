import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Local stand-ins for the providers, on 127.0.0.1: one speaks the Anthropic Messages API
 * (`POST /v1/messages`), the other the OpenAI chat-completions API (`POST
 * /v1/chat/completions`), answering from a script with the documented response and error
 * shapes. They record every request and the most requests ever in flight at once.
 */

export interface StubRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

export interface StubResponse {
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
  /** Never answer (until the stub closes): a request that times out. */
  hang?: boolean;
  /** The body as this exact text instead of `body` as JSON. */
  raw?: string;
  /** After `body`, write spaces without end, until the client hangs up or the stub closes. */
  endless?: boolean;
}

export type Responder = (request: StubRequest, index: number) => StubResponse | Promise<StubResponse>;

export class ModelStub {
  readonly requests: StubRequest[] = [];
  maxInFlight = 0;
  private inFlight = 0;
  private readonly hanging: ServerResponse[] = [];
  /** Resolved each time a request arrives (for tests that act while one is in flight). */
  private arrivals: (() => void)[] = [];

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(responder: Responder): Promise<ModelStub> {
    let stub: ModelStub | undefined;
    const server = createServer((req, res) => {
      let raw = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => {
        raw += chunk;
      });
      req.on('end', async () => {
        const self = stub!;
        let body: Record<string, unknown> = {};
        try {
          body = JSON.parse(raw) as Record<string, unknown>;
        } catch {
          body = { unparsable: raw };
        }
        const request: StubRequest = {
          method: req.method ?? '',
          path: req.url ?? '',
          headers: req.headers,
          body,
        };
        const index = self.requests.length;
        self.requests.push(request);
        self.inFlight += 1;
        self.maxInFlight = Math.max(self.maxInFlight, self.inFlight);
        for (const resolve of self.arrivals.splice(0)) resolve();
        const answer = await responder(request, index);
        if (answer.hang) {
          self.hanging.push(res);
          res.on('close', () => {
            self.inFlight -= 1;
          });
          return;
        }
        self.inFlight -= 1;
        res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers });
        const text = answer.raw ?? JSON.stringify(answer.body ?? {});
        if (answer.endless) return writeEndlessly(res, text);
        res.end(text);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    stub = new ModelStub(server, `http://127.0.0.1:${port}`);
    return stub;
  }

  /** Resolves when the next request arrives. */
  nextRequest(): Promise<void> {
    return new Promise((resolve) => this.arrivals.push(resolve));
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** `text`, then spaces for as long as the client reads (JSON allows trailing whitespace). */
function writeEndlessly(res: ServerResponse, text: string): void {
  const chunk = ' '.repeat(64 * 1024);
  let open = true;
  res.on('close', () => {
    open = false;
  });
  const pump = () => {
    while (open && res.write(chunk));
    if (open) res.once('drain', pump);
  };
  res.write(text);
  pump();
}

// ── Anthropic Messages API shapes ─────────────────────────────────────────────

export function anthropicMessage(
  text: string,
  options: { stop_reason?: string; input_tokens?: number; output_tokens?: number; cache_read?: number } = {},
): unknown {
  return {
    id: 'msg_test',
    type: 'message',
    role: 'assistant',
    model: 'stub',
    content: [{ type: 'text', text }],
    stop_reason: options.stop_reason ?? 'end_turn',
    stop_sequence: null,
    usage: {
      input_tokens: options.input_tokens ?? 100,
      output_tokens: options.output_tokens ?? 20,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: options.cache_read ?? 0,
    },
  };
}

export function anthropicError(
  status: number,
  type: string,
  message: string,
  headers: Record<string, string> = {},
): StubResponse {
  return { status, headers, body: { type: 'error', error: { type, message } } };
}

// ── OpenAI chat-completions shapes ─────────────────────────────────────────────

export function openaiCompletion(
  text: string,
  options: { finish_reason?: string; prompt_tokens?: number; completion_tokens?: number } = {},
): unknown {
  const prompt = options.prompt_tokens ?? 90;
  const completion = options.completion_tokens ?? 15;
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: 1767225600,
    model: 'stub',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: text, refusal: null },
        finish_reason: options.finish_reason ?? 'stop',
      },
    ],
    usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
  };
}

export function openaiError(
  status: number,
  type: string,
  message: string,
  headers: Record<string, string> = {},
): StubResponse {
  return { status, headers, body: { error: { message, type, param: null, code: null } } };
}

// ── Reading what was sent ─────────────────────────────────────────────────────

/** The text of every user turn in a request (both APIs). */
export function userTexts(body: Record<string, unknown>): string[] {
  const messages = (body['messages'] as { role: string; content: unknown }[] | undefined) ?? [];
  return messages.filter((m) => m.role === 'user').map((m) => String(m.content));
}

/** The file a classify request is about (`File: "path"` in its first user turn). */
export function requestedFile(body: Record<string, unknown>): string | undefined {
  const match = /^File: ("(?:[^"\\]|\\.)*")/m.exec(userTexts(body)[0] ?? '');
  return match ? (JSON.parse(match[1]!) as string) : undefined;
}
