// Scene export throughput and memory, natively and as WebAssembly (node) side by side, rounds
// alternating so both see the same machine load: a generated scenery of N models written as GLB
// with EXT_mesh_gpu_instancing, as GLB with a node per model, and as OBJ, each job in its own
// process (bench/export_bench.cpp). Memory is also measured at N/2 models: the peak's growth from
// N/2 to N over the module's growth says what the export holds per module byte. Then the shipped
// CLI converting the module, whole runs. Prints Markdown tables.
//   node bench/export-run.mjs [--models N] [--obj-models M] [--rounds R]   (after npm run build:native and build:wasm)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, statSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const models = Number(arg('models', '1000000'));
const objModels = Number(arg('obj-models', '100000'));  // an OBJ of 1M models is 2.7 GB of text
const rounds = Number(arg('rounds', '2'));
const run = (cmd, args) => JSON.parse(execFileSync(cmd, args, { maxBuffer: 1 << 20 }).toString().trim().split('\n').pop());
const runners = {
  native: (args) => ['build/native/bench/sceneria_export_bench', args],
  wasm: (args) => ['node', ['--no-experimental-fetch', 'build/wasm/bench/sceneria_export_bench.js', ...args]],
};
const jobs = [['GLB, instanced', 'glb', models, []], ['GLB, instanced, record fields in extras', 'glb', models, ['--extras']],
              ['GLB, a node per model', 'plain', models, []], [`OBJ (baked, ${objModels.toLocaleString('en-US')} models)`, 'obj', objModels, []]];
const best = {}, half = {};
for (let r = 0; r < rounds; r++) {
  for (const [label, mode, n, extra] of jobs) {
    for (const [where, runner] of Object.entries(runners)) {
      const out = run(...runner(['--models', String(n), '--mode', mode, ...extra]));
      const key = `${where} ${label}`;
      best[key] = best[key] ? { ...out, ms: Math.min(best[key].ms, out.ms), peak_bytes: Math.min(best[key].peak_bytes, out.peak_bytes) } : out;
    }
  }
}
for (const [label, mode, n, extra] of jobs)
  for (const [where, runner] of Object.entries(runners))
    half[`${where} ${label}`] = run(...runner(['--models', String(Math.round(n / 2)), '--mode', mode, ...extra]));

console.log(`Export benchmark: ${models.toLocaleString('en-US')} generated models, best of ${rounds} rounds\n`);
console.log('| export | where | time | placements/s | output | MB/s | peak memory | peak per module byte (N/2 → N) |');
console.log('|---|---|---|---|---|---|---|---|');
for (const [label, , n] of jobs) {
  for (const where of Object.keys(runners)) {
    const b = best[`${where} ${label}`], h = half[`${where} ${label}`];
    const slope = (b.peak_bytes - h.peak_bytes) / (b.module_bytes - h.module_bytes);
    console.log(`| ${label} | ${where} | ${(b.ms / 1000).toFixed(2)} s | ${(n / (b.ms / 1000) / 1e6).toFixed(2)} M | ` +
                `${(b.bytes / 1e6).toFixed(1)} MB | ${(b.bytes / 1e6 / (b.ms / 1000)).toFixed(0)} | ` +
                `${(b.peak_bytes / 1e6).toFixed(0)} MB (module ${(b.module_bytes / 1e6).toFixed(1)} MB) | ${slope.toFixed(2)}× |`);
  }
}
const glb = best['native GLB, instanced'], plain = best['native GLB, a node per model'];
console.log(`\nFile sizes: GLB instanced ${(glb.bytes / 1e6).toFixed(1)} MB, GLB with a node per model ` +
            `${(plain.bytes / 1e6).toFixed(1)} MB (${(plain.bytes / glb.bytes).toFixed(2)}× the instanced).`);

// As a new user measures it: the CLI (jemalloc on huge pages, as shipped) converting the generated
// module, whole runs (open, scene, export, write), with its peak resident memory.
const dir = mkdtempSync(join(tmpdir(), 'sceneria-export-bench-'));
const module = join(dir, 'gen.eu7');
execFileSync('build/native/sceneria', ['generate', module, '--models', String(models)]);
const cli = (out, ...args) => {
  const time = execFileSync('/usr/bin/time', ['-f', '%e %M', 'build/native/sceneria', 'convert', module, join(dir, out), ...args],
                            { stdio: ['ignore', 'ignore', 'pipe'] }).toString().trim().split('\n').pop().split(' ');
  return { s: Number(time[0]), peak: Number(time[1]) * 1024, mb: statSync(join(dir, out)).size / 1e6 };
};
console.log(`\n\`sceneria convert\` of the ${(statSync(module).size / 1e6).toFixed(1)} MB module (whole run):\n`);
console.log('| output | seconds | MB written | MB/s | peak memory |');
console.log('|---|---|---|---|---|');
for (const [label, out, args] of [['.glb, instanced, record fields in extras (the default)', 'a.glb', []],
                                  ['.glb, instanced, no extras', 'b.glb', ['--param', 'extras=false']],
                                  ['.gltf + .bin, instanced, no extras', 'c.gltf', ['--param', 'extras=false']],
                                  ['.glb, a node per model, no extras', 'd.glb', ['--no-instancing', '--param', 'extras=false']]]) {
  const r = cli(out, ...args);
  console.log(`| ${label} | ${r.s.toFixed(2)} | ${r.mb.toFixed(1)} | ${(r.mb / r.s).toFixed(0)} | ${(r.peak / 1e6).toFixed(0)} MB |`);
}
rmSync(dir, { recursive: true, force: true });
