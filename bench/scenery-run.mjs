// Scenery text throughput natively and as WebAssembly (node), side by side in one run, on
// linia053-misja5.scm and a generated text scenery; prints a Markdown table with ratios.
//   node bench/scenery-run.mjs [--mb N] [--samples DIR] [--cli-only]   (after scripts/build native and wasm)
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
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
for (const [label, args] of process.argv.includes('--cli-only') ? [] : inputs) {
  const r = both(args);
  const rate = (b, key) => b.bytes / 1e6 / (b[key] / 1000);
  for (const [name, key] of [['tokenize', 'tokenize_ms'], ['bake to twin, one thread', 'bake_one_thread_ms'],
    [`bake to twin, ${r.native.threads} threads`, 'bake_ms'],
    ['compile to EU7B, one thread', 'compile_one_thread_ms'], [`compile to EU7B, ${r.native.threads} threads`, 'compile_ms']])
    console.log(`| ${label} | ${name} | ${rate(r.native, key).toFixed(1)} MB/s | ${rate(r.wasm, key).toFixed(1)} MB/s | ${(r.wasm[key] / r.native[key]).toFixed(2)} |`);
  console.log(`| ${label} | heap held by the compile | ${(r.native.compile_heap / 1e6).toFixed(1)} MB | ${(r.wasm.compile_heap / 1e6).toFixed(1)} MB | |`);
  // The viewer's load passes: what the first view waits for, against reading everything first.
  for (const [name, key] of [['infrastructure pass (first view)', 'infra_pass_ms'], ['then the visual pass', 'visual_pass_ms'], ['one pass of everything', 'one_pass_ms']])
    console.log(`| ${label} | ${name} | ${r.native[key].toFixed(0)} ms | ${r.wasm[key].toFixed(0)} ms | ${(r.wasm[key] / r.native[key]).toFixed(2)} |`);
}

// As a user compiles: `sceneria convert TEXT OUT.eu7`, the whole process (reading the file, the
// compile, writing the module and reading it back to describe it), best of five, with its peak
// memory where /usr/bin/time is there to tell it.
const dir = mkdtempSync(join(tmpdir(), 'sceneria-bench-'));
const generated = join(dir, 'generated.scm');
execFileSync('build/native/bench/sceneria_scenery_bench', ['--mb', mb, '--repeat', '1', '--only', 'tokenize', '--dump', generated]);
const anchor = 102e6 / 4.2;  // the reference writer: 102 MB of text in 4.2 s
// Best of five runs of `sceneria ARGS...`, with the peak memory of the best.
const best_of_five = (args) => {
  let best = Infinity, peak = '';
  for (let i = 0; i < 5; ++i) {
    const t = performance.now();
    const timed = existsSync('/usr/bin/time');
    const r = spawnSync(timed ? '/usr/bin/time' : 'build/native/sceneria',
      [...(timed ? ['-f', '%M', 'build/native/sceneria'] : []), ...args], { encoding: 'utf8' });
    const ms = performance.now() - t;
    if (r.status !== 0) throw new Error(`sceneria ${args.join(' ')} failed: ${r.stderr}`);
    if (ms < best) {
      best = ms;
      if (timed) peak = `${(Number(r.stderr.trim().split('\n').pop()) / 1024).toFixed(0)} MB`;
    }
  }
  return { best, peak };
};
const files = [['linia053-misja5.scm', join(samples, 'maszyna/text/linia053-misja5.scm')], [`generated (${mb} MB)`, generated]];
console.log('\n| `sceneria convert` to EU7B | best of 5 | MB/s | × the reference writer | peak memory |');
console.log('|---|---|---|---|---|');
for (const [label, file] of files) {
  const { best, peak } = best_of_five(['convert', file, join(dir, 'out.eu7')]);
  const rate = statSync(file).size / 1e6 / (best / 1000);
  console.log(`| ${label} | ${best.toFixed(0)} ms | ${rate.toFixed(1)} | ${(rate / (anchor / 1e6)).toFixed(2)} | ${peak} |`);
}
// The bake writes the twin beside its text: the generated file's (in the temporary folder), and
// the sample's as a copy there, so nothing is written into the samples.
execFileSync('cp', [files[0][1], join(dir, 'linia053-misja5.scm')]);
console.log('\n| `sceneria bake --force` to a twin | best of 5 | MB/s | peak memory |');
console.log('|---|---|---|---|');
for (const [label, file] of [[files[0][0], join(dir, 'linia053-misja5.scm')], files[1]]) {
  const { best, peak } = best_of_five(['bake', '--force', file]);
  console.log(`| ${label} | ${best.toFixed(0)} ms | ${(statSync(file).size / 1e6 / (best / 1000)).toFixed(1)} | ${peak} |`);
}
rmSync(dir, { recursive: true, force: true });
