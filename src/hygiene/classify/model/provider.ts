/**
 * What the classify and distill passes need from a model provider, whatever its wire
 * format: one structured-output request in, the answer's text and token usage out.
 * `anthropic.ts` speaks the Messages API, `openai.ts` the chat-completions API.
 */

export type ProviderName = 'anthropic' | 'openai';

export interface ChatTurn {
  role: 'user' | 'assistant';
  text: string;
}

export interface StructuredRequest {
  model: string;
  /** The shared prefix of every request in a run (the prompt file): cached where the provider can. */
  system: string;
  turns: ChatTurn[];
  /** A name for the schema (OpenAI requires one). */
  schemaName: string;
  /** The JSON Schema the answer is constrained to. */
  schema: Record<string, unknown>;
  maxTokens: number;
}

export interface TokenUsage {
  input_tokens: number;
  output_tokens: number;
  /** Input tokens read from the provider's prompt cache. */
  cache_read_input_tokens: number;
  /** Input tokens written to the provider's prompt cache (Anthropic). */
  cache_creation_input_tokens: number;
}

export interface ProviderReply {
  /** The answer text (JSON when the provider honoured the schema); undefined if none came. */
  text: string | undefined;
  /** `truncated`: the output limit cut the answer; `refused`: the model declined. */
  stop: 'complete' | 'truncated' | 'refused';
  usage: TokenUsage;
}

export interface WireRequest {
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

export interface Provider {
  readonly name: ProviderName;
  /** The full URL requests are POSTed to. */
  readonly endpoint: string;
  buildRequest(request: StructuredRequest): WireRequest;
  /** Reads a 2xx body; a body of the wrong shape is `undefined` (a protocol error). */
  parseReply(body: unknown): ProviderReply | undefined;
  /** The provider's own error message in an error body, if it has one. */
  errorMessage(body: unknown): string | undefined;
}

export const EMPTY_USAGE: TokenUsage = {
  input_tokens: 0,
  output_tokens: 0,
  cache_read_input_tokens: 0,
  cache_creation_input_tokens: 0,
};

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export const count = (value: unknown): number =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0;
