// Writes what src/hygiene/tokens.ts loads at run time, so that gpt-tokenizer (55 MB
// installed) is a build-time dependency only and the package ships ~2 MB of it:
//
// 1. the o200k_base rank table of the installed gpt-tokenizer as JSON
//    (dist/src/hygiene/o200k_base.ranks.json). The package's own table is a 2.2 MB
//    JavaScript module: loading the tokenizer through it cost ~0.24 s CPU and ~110 MB peak
//    RSS in a bare process, through JSON.parse of the same array ~0.17 s and ~100 MB
//    (Node 20). The array is the package's, element for element, so counts are exactly the
//    package's.
// 2. the CommonJS modules its `GptEncoding` loads (~70 kB, found by loading it here), copied
//    unchanged with the package's licence into dist/src/hygiene/tokenizer/.
// Run by `npm run build` after tsc.
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const HYGIENE = join(ROOT, 'dist', 'src', 'hygiene');
const require = createRequire(join(ROOT, 'package.json'));
const loaded = require('gpt-tokenizer/bpeRanks/o200k_base');
const ranks = Array.isArray(loaded) ? loaded : loaded.default;
// JSON has no array holes (it would write null where the table has none): refuse a table
// with holes rather than write a different one.
if (!Array.isArray(ranks) || Object.keys(ranks).length !== ranks.length)
  throw new Error('gpt-tokenizer o200k_base ranks: expected an array without holes');
writeFileSync(join(HYGIENE, 'o200k_base.ranks.json'), JSON.stringify(ranks));

const packageDir = dirname(require.resolve('gpt-tokenizer/package.json'));
const cjs = join(packageDir, 'cjs');
const before = new Set(Object.keys(require.cache));
require('gpt-tokenizer/GptEncoding');
const modules = Object.keys(require.cache).filter((file) => !before.has(file) && file.startsWith(cjs));
if (!modules.some((file) => file.endsWith(`${join('cjs', 'GptEncoding.js')}`)))
  throw new Error('gpt-tokenizer: GptEncoding was not loaded from its CommonJS build');
const out = join(HYGIENE, 'tokenizer');
rmSync(out, { recursive: true, force: true });
for (const file of modules) {
  const target = join(out, relative(cjs, file));
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(file, target);
}
copyFileSync(join(packageDir, 'LICENSE'), join(out, 'LICENSE'));
const { version } = require('gpt-tokenizer/package.json');
// These files are CommonJS inside an ES-module package.
writeFileSync(
  join(out, 'package.json'),
  `${JSON.stringify({ name: 'gpt-tokenizer-cjs-subset', version, type: 'commonjs', private: true }, null, 2)}\n`,
);
