// Writes the o200k_base rank table of the installed gpt-tokenizer as JSON at build time
// (dist/src/hygiene/o200k_base.ranks.json), for src/hygiene/tokens.ts to load. The package's
// own table is a 2.2 MB JavaScript module: loading the tokenizer through it cost ~0.24 s CPU
// and ~110 MB peak RSS in a bare process, through JSON.parse of the same array ~0.17 s and
// ~100 MB (Node 20). The array is the package's, element for element, so counts are exactly
// the package's.
// Run by `npm run build` after tsc.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const OUT = join(ROOT, 'dist', 'src', 'hygiene', 'o200k_base.ranks.json');
const loaded = createRequire(join(ROOT, 'package.json'))('gpt-tokenizer/bpeRanks/o200k_base');
const ranks = Array.isArray(loaded) ? loaded : loaded.default;
// JSON has no array holes (it would write null where the table has none): refuse a table
// with holes rather than write a different one.
if (!Array.isArray(ranks) || Object.keys(ranks).length !== ranks.length)
  throw new Error('gpt-tokenizer o200k_base ranks: expected an array without holes');
writeFileSync(OUT, JSON.stringify(ranks));
