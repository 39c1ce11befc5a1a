/**
 * The Anthropic Messages API (`POST {base}/v1/messages`, `x-api-key`,
 * `anthropic-version: 2023-06-01`). The answer is constrained with structured output
 * (`output_config.format: {type: "json_schema", schema}`), and the prompt file — the prefix
 * every request of a run shares — is marked for prompt caching (`cache_control`).
 */
import { count, isRecord, type Provider, type ProviderReply, type StructuredRequest } from './provider.js';

export const ANTHROPIC_VERSION = '2023-06-01';

export function anthropicProvider(baseUrl: string, apiKey: string): Provider {
  return {
    name: 'anthropic',
    endpoint: `${baseUrl}/v1/messages`,
    buildRequest(request: StructuredRequest) {
      return {
        headers: { 'x-api-key': apiKey, 'anthropic-version': ANTHROPIC_VERSION },
        body: {
          model: request.model,
          max_tokens: request.maxTokens,
          system: [{ type: 'text', text: request.system, cache_control: { type: 'ephemeral' } }],
          messages: request.turns.map((turn) => ({ role: turn.role, content: turn.text })),
          output_config: { format: { type: 'json_schema', schema: request.schema } },
        },
      };
    },
    parseReply(body: unknown): ProviderReply | undefined {
      if (!isRecord(body) || body['type'] !== 'message' || !Array.isArray(body['content'])) return undefined;
      // Thinking blocks (adaptive thinking) carry no answer; only text blocks do.
      const texts = body['content']
        .filter((block) => isRecord(block) && block['type'] === 'text' && typeof block['text'] === 'string')
        .map((block) => (block as { text: string }).text);
      const reason = body['stop_reason'];
      const usage = isRecord(body['usage']) ? body['usage'] : {};
      return {
        text: texts.length > 0 ? texts.join('') : undefined,
        stop: reason === 'max_tokens' ? 'truncated' : reason === 'refusal' ? 'refused' : 'complete',
        usage: {
          input_tokens: count(usage['input_tokens']),
          output_tokens: count(usage['output_tokens']),
          cache_read_input_tokens: count(usage['cache_read_input_tokens']),
          cache_creation_input_tokens: count(usage['cache_creation_input_tokens']),
        },
      };
    },
    errorMessage(body: unknown): string | undefined {
      // {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
      if (!isRecord(body) || !isRecord(body['error'])) return undefined;
      const { type, message } = body['error'];
      if (typeof message !== 'string') return undefined;
      return typeof type === 'string' ? `${type}: ${message}` : message;
    },
  };
}
