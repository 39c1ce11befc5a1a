/**
 * The OpenAI chat-completions API (`POST {base}/chat/completions`), which OpenAI and the
 * OpenAI-compatible servers (Ollama's `/v1`, llama.cpp server, vLLM, LM Studio) speak. The
 * answer is constrained with `response_format: {type: "json_schema", json_schema: {name,
 * strict: true, schema}}`. No output limit is sent: OpenAI's newer models reject
 * `max_tokens` and several local servers do not know `max_completion_tokens`.
 */
import { count, isRecord, type Provider, type ProviderReply, type StructuredRequest } from './provider.js';

export function openaiProvider(baseUrl: string, apiKey: string | undefined): Provider {
  return {
    name: 'openai',
    endpoint: `${baseUrl}/chat/completions`,
    buildRequest(request: StructuredRequest) {
      // A local server needs no key; then no Authorization header is sent at all.
      const headers: Record<string, string> =
        apiKey !== undefined ? { authorization: `Bearer ${apiKey}` } : {};
      return {
        headers,
        body: {
          model: request.model,
          messages: [
            { role: 'system', content: request.system },
            ...request.turns.map((turn) => ({ role: turn.role, content: turn.text })),
          ],
          response_format: {
            type: 'json_schema',
            json_schema: { name: request.schemaName, strict: true, schema: request.schema },
          },
        },
      };
    },
    parseReply(body: unknown): ProviderReply | undefined {
      if (!isRecord(body) || !Array.isArray(body['choices'])) return undefined;
      const choice = body['choices'][0];
      if (!isRecord(choice) || !isRecord(choice['message'])) return undefined;
      const message = choice['message'];
      const content = typeof message['content'] === 'string' ? message['content'] : undefined;
      const refused = typeof message['refusal'] === 'string' && message['refusal'] !== '';
      const reason = choice['finish_reason'];
      const usage = isRecord(body['usage']) ? body['usage'] : {};
      const details = isRecord(usage['prompt_tokens_details']) ? usage['prompt_tokens_details'] : {};
      return {
        text: content,
        stop:
          refused || reason === 'content_filter' ? 'refused' : reason === 'length' ? 'truncated' : 'complete',
        usage: {
          input_tokens: count(usage['prompt_tokens']),
          output_tokens: count(usage['completion_tokens']),
          cache_read_input_tokens: count(details['cached_tokens']),
          cache_creation_input_tokens: 0,
        },
      };
    },
    errorMessage(body: unknown): string | undefined {
      // {"error": {"message": "...", "type": "invalid_request_error", "code": "..."}}
      if (!isRecord(body)) return undefined;
      const error = body['error'];
      if (typeof error === 'string') return error;
      if (!isRecord(error) || typeof error['message'] !== 'string') return undefined;
      return typeof error['type'] === 'string' ? `${error['type']}: ${error['message']}` : error['message'];
    },
  };
}
