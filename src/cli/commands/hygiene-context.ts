import { Output } from '../../core/output.js';
import { quote } from '../../core/quote.js';
import {
  type AgentContextReport,
  type ContextResult,
  parseAgentName,
  runContext,
} from '../../hygiene/context.js';
import { many, parseCommandArgs } from '../args.js';
import type { CommandContext } from '../command.js';
import { CONFIG_OPTION, configFileFlag } from '../signal-flags.js';

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function renderAgent(agent: AgentContextReport): string[] {
  const { startup } = agent;
  const lines = [
    `${agent.name}: ≈${startup.tokens} tokens at start-up from ${plural(startup.files.length, 'file')} (${startup.bytes} bytes)`,
  ];
  for (const file of startup.files) {
    const notes = [
      ...(file.aliases ? [`also ${file.aliases.map(quote).join(', ')}`] : []),
      ...(file.imported_by !== undefined ? [`imported by ${quote(file.imported_by)}`] : []),
      ...(file.cut_at_byte !== undefined ? [`cut at byte ${file.cut_at_byte}`] : []),
      ...(file.part === 'skill-description' ? ['skill: its name and description; the body on demand'] : []),
    ];
    lines.push(
      `  ${`≈${file.tokens}`.padStart(8)}  ${quote(file.path)}${notes.length > 0 ? `  (${notes.join('; ')})` : ''}`,
    );
  }
  lines.push(`  On demand: ${agent.on_demand.length === 0 ? 'none' : ''}`.trimEnd());
  for (const file of agent.on_demand) {
    const by = [
      ...(file.aliases ? [`; also ${file.aliases.map(quote).join(', ')}`] : []),
      ...(file.imported_by !== undefined ? [`; imported by ${quote(file.imported_by)}`] : []),
      ...(file.part === 'skill-body' ? ['; the skill’s body'] : []),
    ].join('');
    lines.push(`    ${`≈${file.tokens}`.padStart(8)}  ${quote(file.path)} — ${file.when}${by}`);
  }
  if (agent.cut_off.length > 0) {
    lines.push('  Cut off:');
    for (const cut of agent.cut_off) {
      const folder = cut.working_folder === '' ? 'the root' : `${quote(cut.working_folder)}/`;
      lines.push(
        `    ${quote(cut.path)}: a session in ${folder} stops at byte ${cut.cut_at_byte} of ${cut.file_bytes} (line ${cut.line}; ${cut.setting} = ${cut.max_bytes})`,
      );
    }
  }
  for (const skipped of agent.not_loaded ?? [])
    lines.push(`  Not read: ${quote(skipped.path)} — ${skipped.why}`);
  lines.push(`  Findings: ${agent.findings.length === 0 ? 'none' : ''}`.trimEnd());
  for (const f of agent.findings) {
    lines.push(`    ${quote(f.path)}${f.line !== undefined ? `:${f.line}` : ''}  ${f.signal} — ${f.detail}`);
  }
  return lines;
}

export function renderContext(result: ContextResult): string {
  if (result.agents.length === 0) {
    return `No agent-context files in ${quote(result.project_root)}: no agent loads anything from this project.`;
  }
  const blocks = result.agents.map((agent) => renderAgent(agent).join('\n'));
  return [...blocks, `Tokens counted with ${result.tokenizer} (≈ estimates).`].join('\n\n');
}

export async function run(ctx: CommandContext): Promise<number> {
  const { values } = parseCommandArgs(ctx.argv, 'hygiene context', {
    agent: { type: 'string', multiple: true },
    json: { type: 'boolean' },
    ...CONFIG_OPTION,
  });
  const agents = many(values.agent).map(parseAgentName);
  const out = new Output(values.json === true, ctx.streams, ctx.env);
  const result = await runContext({
    cwd: ctx.cwd,
    ...configFileFlag(ctx.cwd, values.config),
    agents,
    signal: ctx.signal,
    onProgress: (message) => out.progress(`stw: ${message}`),
  });
  out.result(
    {
      status: result.partial ? 'partial' : 'complete',
      project_root: result.project_root,
      tokenizer: result.tokenizer,
      agents: result.agents,
    },
    () => renderContext(result),
  );
  if (result.partial) out.diag('stw: history could not be read, so history-based findings are missing');
  return result.partial ? 1 : 0;
}
