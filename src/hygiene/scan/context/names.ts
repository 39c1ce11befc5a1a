/** File names that are agent context by name (the loading model's entry files, agents.ts). */
export const AGENT_CONTEXT_NAME =
  /^(?:CLAUDE(?:\.local)?\.md|AGENTS(?:\.override)?\.md|GEMINI\.md|copilot-instructions\.md|[\w.-]+\.instructions\.md|[\w.-]+\.mdc|\.cursorrules|\.windsurfrules|\.clinerules)$/;
