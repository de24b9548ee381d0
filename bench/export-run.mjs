// Scene export throughput, natively and as WebAssembly (node) side by side, rounds alternating so
// both see the same machine load: a generated scenery of N models written as GLB with
// EXT_mesh_gpu_instancing, as GLB with a node per model, and as OBJ. Prints a Markdown table.
//   node bench/export-run.mjs [--models N] [--rounds R]   (after npm run build:native and build:wasm)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, statSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const models = arg('models', '1000000');
const objModels = arg('obj-models', '100000');  // an OBJ of 1M models is 2.7 GB of text
const rounds = Number(arg('rounds', '2'));
const run = (cmd, args) => JSON.parse(execFileSync(cmd, args, { maxBuffer: 1 << 20 }).toString().trim().split('\n').pop());

const measure = (count, only) => {
  const best = {};
  const common = ['--models', count, '--repeat', '2', '--only', only];
  for (let r = 0; r < rounds; r++) {
    for (const [name, cmd, args] of [['native', 'build/native/bench/sceneria_export_bench', common],
                                     ['wasm', 'node', ['--no-experimental-fetch', 'build/wasm/bench/sceneria_export_bench.js', ...common]]]) {
      const result = run(cmd, args);
      const prev = best[name];
      best[name] = prev ? Object.fromEntries(Object.entries(result).map(([k, v]) => [k, k.endsWith('_ms') ? Math.min(v, prev[k]) : v])) : result;
    }
  }
  return best;
};
const best = measure(models, 'glb');
const objBest = measure(objModels, 'obj');
for (const k of ['native', 'wasm']) Object.assign(best[k], { obj_ms: objBest[k].obj_ms, obj_bytes: objBest[k].obj_bytes, obj_instances: objBest[k].instances });
const n = best.native.instances;
const row = (label, f, unit, digits = 1) =>
  `| ${label} | ${f(best.native).toFixed(digits)} ${unit} | ${f(best.wasm).toFixed(digits)} ${unit} | ${(f(best.wasm) / f(best.native)).toFixed(2)} |`;
console.log(`Export benchmark: ${Number(models).toLocaleString('en-US')} generated models (${n.toLocaleString('en-US')} instances), best of ${rounds} rounds x 2\n`);
console.log('| measure | native | wasm (node) | wasm / native |');
console.log('|---|---|---|---|');
console.log(row('GLB, instanced: instances/s', (b) => n / (b.glb_ms / 1000) / 1e6, 'M/s', 2));
console.log(row('GLB, instanced: output', (b) => b.glb_bytes / 1e6 / (b.glb_ms / 1000), 'MB/s'));
console.log(row('GLB, node per model: instances/s', (b) => n / (b.plain_ms / 1000) / 1e6, 'M/s', 2));
console.log(row('GLB, node per model: output', (b) => b.plain_bytes / 1e6 / (b.plain_ms / 1000), 'MB/s'));
console.log(row(`OBJ (baked, ${Number(objModels).toLocaleString('en-US')} models): instances/s`, (b) => b.obj_instances / (b.obj_ms / 1000) / 1e6, 'M/s', 3));
console.log(row(`OBJ (baked, ${Number(objModels).toLocaleString('en-US')} models): output`, (b) => b.obj_bytes / 1e6 / (b.obj_ms / 1000), 'MB/s'));
console.log(`\nFile sizes (native): GLB instanced ${(best.native.glb_bytes / 1e6).toFixed(1)} MB, GLB node per model ` +
            `${(best.native.plain_bytes / 1e6).toFixed(1)} MB (${(best.native.plain_bytes / best.native.glb_bytes).toFixed(2)}x the instanced); ` +
            `OBJ of ${Number(objModels).toLocaleString('en-US')} models ${(best.native.obj_bytes / 1e6).toFixed(1)} MB.`);

// As a new user measures it: the CLI (jemalloc on huge pages, as shipped) converting the generated
// module, whole runs timed (open, scene, export, write).
const dir = mkdtempSync(join(tmpdir(), 'sceneria-export-bench-'));
const module = join(dir, 'gen.eu7');
execFileSync('build/native/sceneria', ['generate', module, '--models', models]);
const cli = (out, ...args) => {
  const start = process.hrtime.bigint();
  execFileSync('build/native/sceneria', ['convert', module, join(dir, out), ...args]);
  return { s: Number(process.hrtime.bigint() - start) / 1e9, mb: statSync(join(dir, out)).size / 1e6 };
};
console.log(`\n\`sceneria convert\` of the ${(statSync(module).size / 1e6).toFixed(1)} MB module (whole run):\n`);
console.log('| output | seconds | MB written | MB/s |');
console.log('|---|---|---|---|');
for (const [label, out, args] of [['.glb, instanced, record fields in extras (the default)', 'a.glb', []],
                                  ['.glb, instanced, no extras', 'b.glb', ['--param', 'extras=false']],
                                  ['.glb, a node per model, no extras', 'c.glb', ['--no-instancing', '--param', 'extras=false']]]) {
  const r = cli(out, ...args);
  console.log(`| ${label} | ${r.s.toFixed(2)} | ${r.mb.toFixed(1)} | ${(r.mb / r.s).toFixed(0)} |`);
}
rmSync(dir, { recursive: true, force: true });
