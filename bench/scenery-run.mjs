// Scenery text throughput natively and as WebAssembly (node), side by side in one run, on
// linia053-misja5.scm and a generated text scenery; prints a Markdown table with ratios.
//   node bench/scenery-run.mjs [--mb N] [--samples DIR]     (after scripts/build native and wasm)
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const mb = arg('mb', '100');
const samples = arg('samples', process.env.SCENERIA_SAMPLES || '../shared/samples');
const run = (cmd, args) => JSON.parse(execFileSync(cmd, args, { maxBuffer: 1 << 20 }).toString().trim().split('\n').pop());
const both = (args) => ({
  native: run('build/native/bench/sceneria_scenery_bench', args),
  wasm: run('node', ['--no-experimental-fetch', 'build/wasm/bench/sceneria_scenery_bench.js', ...args]),
});
const inputs = [
  ['linia053-misja5.scm (1.7 MB)', ['--file', join(samples, 'maszyna/text/linia053-misja5.scm'), '--repeat', '3']],
  [`generated text scenery (${mb} MB)`, ['--mb', mb, '--repeat', '1']],
];
console.log('| input | measure | native | wasm (node) | wasm / native |');
console.log('|---|---|---|---|---|');
for (const [label, args] of inputs) {
  const r = both(args);
  const rate = (b, key) => b.bytes / 1e6 / (b[key] / 1000);
  for (const [name, key] of [['tokenize', 'tokenize_ms'], ['bake to twin', 'bake_ms'], ['compile to EU7B', 'compile_ms']])
    console.log(`| ${label} | ${name} | ${rate(r.native, key).toFixed(1)} MB/s | ${rate(r.wasm, key).toFixed(1)} MB/s | ${(r.wasm[key] / r.native[key]).toFixed(2)} |`);
  console.log(`| ${label} | heap held by the compile | ${(r.native.compile_heap / 1e6).toFixed(1)} MB | ${(r.wasm.compile_heap / 1e6).toFixed(1)} MB | |`);
  // The viewer's load passes: what the first view waits for, against reading everything first.
  for (const [name, key] of [['infrastructure pass (first view)', 'infra_pass_ms'], ['then the visual pass', 'visual_pass_ms'], ['one pass of everything', 'one_pass_ms']])
    console.log(`| ${label} | ${name} | ${r.native[key].toFixed(0)} ms | ${r.wasm[key].toFixed(0)} ms | ${(r.wasm[key] / r.native[key]).toFixed(2)} |`);
}
