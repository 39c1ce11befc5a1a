/**
 * JSON text without one string of it all: a large report (40,000 docs, tens of thousands of
 * findings) made a 48 MB string, then another copy of it read back, then its parse.
 */

/**
 * A value JSON gives back exactly: null, booleans, strings, finite numbers other than -0,
 * arrays without holes and plain objects (no `__proto__` key) of those. `JSON.parse` of its
 * `JSON.stringify` is a value equal to it, key order included.
 */
export function isPlainJson(value: unknown, depth = 0): boolean {
  if (depth > 64) return false;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value) && !Object.is(value, -0);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++)
      if (!(i in value) || !isPlainJson(value[i], depth + 1)) return false;
    return true;
  }
  if (typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) return false;
  for (const key of Object.keys(value)) {
    if (key === '__proto__' || !isPlainJson((value as Record<string, unknown>)[key], depth + 1)) return false;
  }
  return true;
}

/**
 * `JSON.stringify(value, null, 2)` in pieces, for a plain JSON value (`isPlainJson`): the
 * arrays and objects of the first `depth` levels are written member by member, each member
 * deeper down in one piece.
 */
export function* jsonChunks(value: unknown, depth = 2, indent = ''): Generator<string> {
  const members: [string, unknown][] | undefined =
    depth <= 0 || value === null || typeof value !== 'object'
      ? undefined
      : Array.isArray(value)
        ? value.map((item): [string, unknown] => ['', item])
        : Object.entries(value).map(([key, item]): [string, unknown] => [`${JSON.stringify(key)}: `, item]);
  if (members === undefined || members.length === 0) {
    const text = JSON.stringify(value, null, 2);
    yield indent === '' ? text : text.replace(/\n/g, `\n${indent}`);
    return;
  }
  const inner = `${indent}  `;
  yield Array.isArray(value) ? '[\n' : '{\n';
  for (let i = 0; i < members.length; i++) {
    const [key, item] = members[i]!;
    yield `${inner}${key}`;
    yield* jsonChunks(item, depth - 1, inner);
    yield i < members.length - 1 ? ',\n' : '\n';
  }
  yield `${indent}${Array.isArray(value) ? ']' : '}'}`;
}
