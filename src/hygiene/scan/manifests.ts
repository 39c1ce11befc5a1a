import { readTreeText } from './files.js';
import { escapeRegExp } from './paths.js';

/** A version fact a manifest states: what docs are checked against. */
export interface VersionFact {
  /** 'node' | 'python' | 'go' | 'project' | a dependency name. */
  subject: string;
  /** The manifest's value as written (a version or a range). */
  actual: string;
  manifest: string;
  /** Lowest version `actual` allows (the version itself for exact ones). */
  floor: number[];
  kind: 'runtime' | 'project' | 'dependency';
}

/** A manifest's text, read as a doc is: a symlink out of the tree or a device gives nothing. */
function readText(root: string, file: string): string | undefined {
  return readTreeText(root, file);
}

/** The numeric parts of the first version in `text` (`>=20.19.0` → [20, 19, 0]). */
export function versionFloor(text: string): number[] | undefined {
  const m = /(\d+)(?:\.(\d+))?(?:\.(\d+))?/.exec(text);
  if (!m) return undefined;
  return [m[1], m[2], m[3]].filter((part): part is string => part !== undefined).map(Number);
}

/** Compares at the precision both sides state: `18` vs `[20,19,0]` → -1; `20` vs `[20,19,0]` → 0. */
export function compareVersions(a: number[], b: number[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return 0;
}

function fact(
  facts: VersionFact[],
  subject: string,
  actual: unknown,
  manifest: string,
  kind: VersionFact['kind'],
): void {
  if (typeof actual !== 'string' || subject === '') return;
  const floor = versionFloor(actual);
  if (floor) facts.push({ subject, actual, manifest, floor, kind });
}

/** A minimal TOML reader for the few keys we need: `[section]` → key → string value. */
function tomlSections(text: string): Map<string, Map<string, string>> {
  const sections = new Map<string, Map<string, string>>();
  let current = new Map<string, string>();
  sections.set('', current);
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    const header = /^\[\s*([^\]]+?)\s*\]$/.exec(line);
    if (header) {
      current = sections.get(header[1]!) ?? new Map();
      sections.set(header[1]!, current);
      continue;
    }
    const kv = /^([A-Za-z0-9_.-]+|"[^"]+")\s*=\s*(.+)$/.exec(line);
    if (!kv) continue;
    const key = kv[1]!.replace(/^"|"$/g, '');
    const value = kv[2]!.trim();
    const str = /^"([^"]*)"|^'([^']*)'/.exec(value);
    const table = /\bversion\s*=\s*"([^"]*)"/.exec(value);
    if (str) current.set(key, str[1] ?? str[2] ?? '');
    else if (table) current.set(key, table[1]!);
  }
  return sections;
}

/** Version facts from the root manifests: package.json, pyproject.toml, Cargo.toml, go.mod. */
export function readVersionFacts(root: string): VersionFact[] {
  const facts: VersionFact[] = [];
  const pkgText = readText(root, 'package.json');
  if (pkgText !== undefined) {
    try {
      const pkg = JSON.parse(pkgText) as Record<string, unknown>;
      if (typeof pkg['name'] === 'string')
        fact(facts, pkg['name'], pkg['version'], 'package.json', 'project');
      const engines = pkg['engines'] as Record<string, unknown> | undefined;
      if (engines) fact(facts, 'node', engines['node'], 'package.json', 'runtime');
      for (const key of ['dependencies', 'devDependencies', 'peerDependencies']) {
        const deps = pkg[key] as Record<string, unknown> | undefined;
        if (deps && typeof deps === 'object')
          for (const [name, range] of Object.entries(deps))
            fact(facts, name, range, 'package.json', 'dependency');
      }
    } catch {
      // An unparsable manifest states nothing we can compare against.
    }
  }
  const pyText = readText(root, 'pyproject.toml');
  if (pyText !== undefined) {
    const toml = tomlSections(pyText);
    const project = toml.get('project') ?? toml.get('tool.poetry');
    const name = project?.get('name');
    if (name) fact(facts, name, project?.get('version'), 'pyproject.toml', 'project');
    fact(facts, 'python', project?.get('requires-python'), 'pyproject.toml', 'runtime');
    const poetryDeps = toml.get('tool.poetry.dependencies');
    if (poetryDeps)
      for (const [dep, range] of poetryDeps) {
        if (dep === 'python') fact(facts, 'python', range, 'pyproject.toml', 'runtime');
        else fact(facts, dep, range, 'pyproject.toml', 'dependency');
      }
    const deps = /^\s*dependencies\s*=\s*\[([\s\S]*?)\]/m.exec(pyText);
    if (deps)
      for (const m of deps[1]!.matchAll(/["']([A-Za-z0-9_.-]+)\s*(?:\[[^\]]*\])?\s*([<>=~!][^"';]*)["']/g))
        fact(facts, m[1]!, m[2], 'pyproject.toml', 'dependency');
  }
  const cargoText = readText(root, 'Cargo.toml');
  if (cargoText !== undefined) {
    const toml = tomlSections(cargoText);
    const pkg = toml.get('package');
    const name = pkg?.get('name');
    if (name) fact(facts, name, pkg?.get('version'), 'Cargo.toml', 'project');
    fact(facts, 'rust', pkg?.get('rust-version'), 'Cargo.toml', 'runtime');
    for (const section of ['dependencies', 'dev-dependencies'])
      for (const [dep, range] of toml.get(section) ?? []) fact(facts, dep, range, 'Cargo.toml', 'dependency');
  }
  const goText = readText(root, 'go.mod');
  if (goText !== undefined) {
    const go = /^go\s+(\d+(?:\.\d+)*)/m.exec(goText);
    if (go) fact(facts, 'go', go[1], 'go.mod', 'runtime');
    for (const m of goText.matchAll(/^\s*(?:require\s+)?([a-z0-9.-]+\.[a-z]+\/[^\s]+)\s+v(\d+\.\d+\.\d+)/gm))
      fact(facts, m[1]!, m[2], 'go.mod', 'dependency');
  }
  return facts;
}

export interface VersionClaim {
  subject: string;
  stated: string;
  match: string;
  fact: VersionFact;
}

/** Text every spelling in `RUNTIME_WORDS` contains: a line without it cannot state that runtime. */
const RUNTIME_LITERALS: Record<string, readonly string[]> = {
  node: ['Node', 'node'],
  python: ['Python', 'python'],
  go: ['Go', 'golang'],
  rust: ['Rust', 'rustc'],
};

const RUNTIME_WORDS: Record<string, string> = {
  node: '(?:Node(?:\\.js)?|node(?:js)?)',
  python: '(?:Python|python)',
  go: '(?:Go|Golang|golang)',
  rust: '(?:Rust|rustc)',
};

/** What a named version claim must contain (the tail of `VersionMatcher.named`). */
const NAMED_VERSION_SHAPE = /(?:@[\^~]?|\s+v)\d/;

/**
 * Finds version statements on a line that disagree with the manifests. Runtimes and
 * dependencies disagree when the stated version is below the manifest's floor (a
 * dependency only on its major); the project when it differs at the stated precision.
 */
export class VersionMatcher {
  private readonly runtime: { regex: RegExp; literals: readonly string[]; fact: VersionFact }[] = [];
  private readonly named: RegExp | undefined;
  private readonly bySubject = new Map<string, VersionFact>();

  constructor(facts: VersionFact[]) {
    for (const f of facts) {
      if (f.kind === 'runtime') {
        const word = RUNTIME_WORDS[f.subject];
        if (word)
          this.runtime.push({
            regex: new RegExp(
              `(?<![\\w/.-])${word}\\s*(?:version\\s*)?(?:>=|≥|\\^|~)?\\s*v?(\\d+(?:\\.\\d+){0,2})(?!\\w|\\.\\d)`,
              'g',
            ),
            literals: RUNTIME_LITERALS[f.subject] ?? [],
            fact: f,
          });
      } else if (!this.bySubject.has(f.subject)) this.bySubject.set(f.subject, f);
    }
    const names = [...this.bySubject.keys()].sort((a, b) => b.length - a.length).map(escapeRegExp);
    this.named =
      names.length > 0
        ? new RegExp(
            `(?<![\\w@/.-])(${names.join('|')})(?:@[\\^~]?|\\s+v)(\\d+(?:\\.\\d+){0,2})(?!\\w|\\.\\d)`,
            'g',
          )
        : undefined;
  }

  claims(line: string): VersionClaim[] {
    if (!/\d/.test(line)) return [];
    const out: VersionClaim[] = [];
    for (const { regex, literals, fact: f } of this.runtime) {
      // The pattern's look-behind is tried at every position: first a plain search for the word.
      if (!literals.some((literal) => line.includes(literal))) continue;
      regex.lastIndex = 0;
      for (const m of line.matchAll(regex)) {
        const stated = m[1]!;
        if (compareVersions(versionFloor(stated)!, f.floor) < 0)
          out.push({ subject: f.subject, stated, match: m[0], fact: f });
      }
    }
    // The named pattern tries every dependency name at every position: run it only on a line
    // with what must follow a name (`@1`, `@^1`, ` v1`), which few lines have.
    if (this.named && NAMED_VERSION_SHAPE.test(line)) {
      for (const m of line.matchAll(this.named)) {
        const f = this.bySubject.get(m[1]!);
        if (!f) continue;
        const stated = m[2]!;
        const statedParts = versionFloor(stated)!;
        const skewed =
          f.kind === 'project'
            ? compareVersions(statedParts, f.floor) !== 0
            : (statedParts[0] ?? 0) !== (f.floor[0] ?? 0);
        if (skewed) out.push({ subject: f.subject, stated, match: m[0], fact: f });
      }
    }
    return out;
  }
}
