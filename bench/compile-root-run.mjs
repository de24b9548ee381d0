// Compiling a model-heavy scenery root to EU7B (issue 36, item 5): a root text including 400
// `.inc` parts, one per 1 km section over 20 × 20 km, of 2,500 models each (1,000,000; 200 model
// paths; positions and angles from a seeded generator, unnamed unless --named), compiled by
// `sceneria convert root.scn out.eu7 --version 9` as a user runs it (the whole process), and
// by the reference writer side by side when one is given, alternating so both see the same
// noise; median wall time, highest peak resident memory, and whether the outputs are the same
// bytes.
//   node bench/compile-root-run.mjs [--per 2500] [--named] [--rounds 3] [--reference PATH] [--dir DIR]
// PATH: a program that bakes a root as the reference writer does (`PATH ROOT.scn` writes
// ROOT.eu7 beside it); the project ships none (docs/performance.md says how the numbers there
// were made). --dir keeps the generated text for the next run.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { alternate, median } from './processes.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'build/native/sceneria');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? fallback : process.argv[i + 1];
};
const per = Number(arg('per', '2500'));
const named = process.argv.includes('--named');
const rounds = Number(arg('rounds', '3'));
const reference = arg('reference', '');
const kept = arg('dir', '');
const dir = kept || mkdtempSync(join(tmpdir(), 'sceneria-root-'));
mkdirSync(dir, { recursive: true });

// mulberry32: the same text for the same arguments on every machine.
let seed = 7;
const random = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const rootFile = join(dir, 'root.scn');
if (!existsSync(rootFile)) {
  const includes = [];
  for (let p = 0; p < 400; p++) {
    const row = Math.floor(p / 20), col = p % 20;
    const lines = [];
    for (let i = 0; i < per; i++) {
      const x = (col - 10) * 1000 + random() * 1000, z = (row - 10) * 1000 + random() * 1000;
      const name = named ? `m${p}_${i}` : 'none';
      lines.push(`node 900 0 ${name} model ${x.toFixed(2)} 0 ${z.toFixed(2)} ${(random() * 360).toFixed(1)} ` +
                 `bench/m${String((p * per + i) % 200).padStart(3, '0')}.t3d none endmodel\n`);
    }
    writeFileSync(join(dir, `part${String(p).padStart(3, '0')}.inc`), lines.join(''));
    includes.push(`include part${String(p).padStart(3, '0')}.inc end\n`);
  }
  writeFileSync(rootFile, includes.join(''));
}


try {
  const ours = join(dir, 'ours.eu7');
  const sides = [{ name: 'sceneria convert', cmd: cli, args: ['convert', rootFile, ours, '--version', '9'] }];
  if (reference) sides.push({ name: 'reference writer', cmd: reference, args: [rootFile] });
  alternate(sides, rounds, dir);
  const same = reference ? Buffer.compare(readFileSync(ours), readFileSync(join(dir, 'root.eu7'))) === 0 : null;
  const ref = sides[1];
  console.log(`${(400 * per).toLocaleString('en')} ${named ? 'named' : 'unnamed'} models in 400 .inc parts; ${rounds} alternating rounds; ` +
              `median wall time, highest peak resident memory${reference ? `; outputs ${same ? 'byte-identical' : 'DIFFERENT'}` : ''}`);
  console.log('| command | wall | peak | reference wall ÷ this | this peak ÷ reference peak |');
  console.log('|---|---|---|---|---|');
  for (const s of sides)
    console.log(`| ${s.name} | ${(median(s.ms) / 1000).toFixed(2)} s | ${Math.max(...s.mb).toFixed(0)} MB | ` +
                (ref && s !== ref ? `${(median(ref.ms) / median(s.ms)).toFixed(2)}× | ${(Math.max(...s.mb) / Math.max(...ref.mb)).toFixed(2)} |` : '— | — |'));
  if (reference && !same) process.exitCode = 1;
} finally {
  if (!kept) rmSync(dir, { recursive: true, force: true });
}
