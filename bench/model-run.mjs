// Model and texture throughput natively and as WebAssembly (node), side by side in one run, on
// the sample models and textures; prints a Markdown table with ratios. WebAssembly runs twice:
// as V8 runs it by default (functions start in its baseline compiler, Liftoff, and are tiered up
// to the optimizing one, TurboFan, once hot) and with TurboFan from the start (`--no-liftoff`),
// which is the code a page runs once its functions are hot or come from Chrome's code cache.
// The last row is operator new/delete alone, what every reader's records cost. Each step is the
// best of R runs; the samples are small (microseconds), so R = 100 shows the code a page runs
// after its first few files, R = 10 mostly how soon V8 tiers up. Each step first runs untimed for
// W ms (250 unless told; 0 for none), in every build: the code a page runs once it has opened a
// few files, which V8 may still be compiling when the first R runs of a large function end.
//   node bench/model-run.mjs [--samples DIR] [--repeat R] [--rounds N] [--warmup W]   (after scripts/build native and wasm)
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const samples = arg('samples', process.env.SCENERIA_SAMPLES || '../shared/samples');
const args = ['--dir', join(samples, 'maszyna/models'), '--b3d', join(samples, 'hardtruck'), '--xray', join(samples, 'xray'),
              '--repeat', arg('repeat', '5'), '--warmup', arg('warmup', '250')];
const run = (cmd, a) => JSON.parse(execFileSync(cmd, a, { maxBuffer: 1 << 20 }).toString().trim().split('\n').pop());
// Alternately, N rounds (2 unless told): the machine's noise falls on all three.
const native = [], wasm = [], optimized = [];
for (let i = 0, rounds = Number(arg('rounds', '2')); i < rounds; i++) {
  native.push(run('build/native/bench/sceneria_model_bench', args));
  wasm.push(run('node', ['--no-experimental-fetch', 'build/wasm/bench/sceneria_model_bench.js', ...args]));
  optimized.push(run('node', ['--no-experimental-fetch', '--no-liftoff', 'build/wasm/bench/sceneria_model_bench.js', ...args]));
}
const best = (list, key) => Math.min(...list.map((r) => r[key]));
const n = native[0];
const rows = [
  [`read ${n.e3d_models} E3D (${(n.e3d_bytes / 1e6).toFixed(1)} MB)`, 'e3d_read_ms', n.e3d_models, 'models', n.e3d_bytes],
  [`open ${n.e3d_models} E3D and build their scenes`, 'e3d_scene_ms', n.e3d_models, 'models', n.e3d_bytes],
  [`read ${n.t3d_models} T3D and convert to E3D (${(n.t3d_bytes / 1e6).toFixed(1)} MB)`, 't3d_convert_ms', n.t3d_models, 'models', n.t3d_bytes],
  [`read ${n.b3d_files} B3D (${(n.b3d_bytes / 1e3).toFixed(0)} KB)`, 'b3d_read_ms', n.b3d_files, 'files', n.b3d_bytes],
  [`open ${n.b3d_files} B3D and build its scene`, 'b3d_scene_ms', n.b3d_files, 'files', n.b3d_bytes],
  [`read ${n.xray_files} X-Ray objects (${(n.xray_bytes / 1e3).toFixed(0)} KB)`, 'xray_read_ms', n.xray_files, 'files', n.xray_bytes],
  [`open ${n.xray_files} X-Ray objects and build their scenes`, 'xray_scene_ms', n.xray_files, 'files', n.xray_bytes],
  [`read ${n.dds_files} DDS (${(n.dds_bytes / 1e6).toFixed(2)} MB)`, 'dds_read_ms', n.dds_files, 'files', n.dds_bytes],
  [`decode ${n.dds_files} DDS level 0 to RGBA8 (${(n.dds_pixels / 1e6).toFixed(2)} Mpixel)`, 'dds_decode_ms', n.dds_pixels / 1e6, 'Mpixel', n.dds_bytes],
  [`${n.alloc_pairs} operator new/delete pairs of 16-143 bytes`, 'alloc_ms', n.alloc_pairs / 1e6, 'M pairs', null],
];
// Speeds relative to native (native time ÷ wasm time): 1.00 is on par, 0.80 a fifth slower.
console.log('| measure | native | wasm (node) | wasm, TurboFan from the start | native rate | wasm speed ÷ native | TurboFan speed ÷ native |');
console.log('|---|---|---|---|---|---|---|');
for (const [label, key, count, unit, bytes] of rows) {
  const a = best(native, key), b = best(wasm, key), c = best(optimized, key);
  const rate = (ms) => `${(count / (ms / 1000)).toFixed(0)} ${unit}/s` + (bytes ? `, ${(bytes / 1e6 / (ms / 1000)).toFixed(0)} MB/s` : '');
  console.log(`| ${label} | ${a.toFixed(4)} ms | ${b.toFixed(4)} ms | ${c.toFixed(4)} ms | ${rate(a)} | ${(a / b).toFixed(2)} | ${(a / c).toFixed(2)} |`);
}
