// EU7B read, validate, dump and convert a section at a time: each command's whole run (wall
// time and peak resident memory, /usr/bin/time) on generated modules, and the same file read by
// the reference reader side by side when one is given, alternating so both see the same noise.
//   node bench/decode-run.mjs [--models 1000000,3000000] [--rounds 5] [--reference PATH]
//   node bench/decode-run.mjs --files A.eu7,B.eu7 [--rounds 5] [--reference PATH]
// PATH: a program that reads a module whole as the simulator does and exits (`PATH FILE`); the
// project ships none (docs/performance.md says how the numbers there were made). --files: modules
// written elsewhere (the reference writer's bakes) instead of generated ones.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { alternate, median, timeProcess } from './processes.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'build/native/sceneria');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? fallback : process.argv[i + 1];
};
const sizes = arg('models', '1000000,3000000').split(',').map(Number);
const files = arg('files', '').split(',').filter(Boolean);
const rounds = Number(arg('rounds', '5'));
const reference = arg('reference', '');
const dir = mkdtempSync(join(tmpdir(), 'sceneria-decode-'));


try {
  const rows = [];
  const inputs = files.length ? files : sizes.map((n) => {
    const file = join(dir, `m${n}.eu7`);
    timeProcess(cli, ['generate', file, '--models', String(n)]);
    return file;
  });
  for (const file of inputs) {
    // The label: the models the file holds, as validate counts them.
    const said = spawnSync(cli, ['validate', file]).stdout.toString();
    const n = Number(/(\d+) PACK models/.exec(said)?.[1] ?? NaN);
    const commands = {
      validate: ['validate', file],
      info: ['info', file],
      dump: ['dump', file, '-o', join(dir, 'dump.json')],
      'convert (EU7B)': ['convert', file, join(dir, 'copy.eu7')],
    };
    const sides = Object.entries(commands).map(([name, args]) => ({ name, cmd: cli, args }));
    if (reference) sides.push({ name: 'reference reader', cmd: reference, args: [file] });
    alternate(sides, rounds);
    const ref = sides.find((s) => s.name === 'reference reader');
    for (const s of sides)
      rows.push(`| ${n.toLocaleString('en')} | ${s.name} | ${median(s.ms).toFixed(0)} ms | ${Math.max(...s.mb).toFixed(1)} MB | ` +
                (ref && s !== ref ? `${(median(ref.ms) / median(s.ms)).toFixed(1)}× | ${(Math.max(...s.mb) / Math.max(...ref.mb)).toFixed(2)} |` : '— | — |'));
  }
  console.log(`${rounds} alternating rounds; median wall time, highest peak resident memory`);
  console.log('| models | command | wall | peak | reference wall ÷ this | this peak ÷ reference peak |');
  console.log('|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
