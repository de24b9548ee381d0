// Runs the EU7B benchmark natively and as WebAssembly (node) side by side, alternating rounds so
// both see the same machine load, and prints a Markdown table with the wasm/native ratios.
//   node bench/run.mjs [--models N] [--rounds R]      (after npm run build:native and build:wasm)
import { execFileSync } from 'node:child_process';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const models = arg('models', '1000000');
const rounds = Number(arg('rounds', '2'));
const common = ['--models', models, '--repeat', '3'];
const run = (cmd, args) => JSON.parse(execFileSync(cmd, args, { maxBuffer: 1 << 20 }).toString().trim().split('\n').pop());

const best = {};
for (let r = 0; r < rounds; r++) {
  for (const [name, cmd, args] of [['native', 'build/native/bench/sceneria_bench', common],
                                   ['wasm', 'node', ['--no-experimental-fetch', 'build/wasm/bench/sceneria_bench.js', ...common]]]) {
    const result = run(cmd, args);
    const prev = best[name];
    // Keep each metric's best (lowest time) across rounds.
    best[name] = prev ? { ...result, decode_ms: Math.min(prev.decode_ms, result.decode_ms),
                          roundtrip_ms: Math.min(prev.roundtrip_ms, result.roundtrip_ms) } : result;
  }
}
const mb = best.native.bytes / 1e6;
const row = (label, f, unit, digits = 1) =>
  `| ${label} | ${f(best.native).toFixed(digits)} ${unit} | ${f(best.wasm).toFixed(digits)} ${unit} | ${(f(best.wasm) / f(best.native)).toFixed(2)} |`;
console.log(`EU7B benchmark: ${Number(models).toLocaleString('en-US')} models, ${mb.toFixed(1)} MB (v9, section format 6), best of ${rounds} rounds x 3\n`);
console.log('| measure | native | wasm (node) | wasm / native |');
console.log('|---|---|---|---|');
console.log(row('full decode (module + every section + prototypes expanded)', (b) => mb / (b.decode_ms / 1000), 'MB/s'));
console.log(row('full decode', (b) => Number(models) / (b.decode_ms / 1000) / 1e6, 'M models/s', 2));
console.log(row('read → write (byte-identical)', (b) => mb / (b.roundtrip_ms / 1000), 'MB/s'));
console.log(row('heap held per decoded model', (b) => b.bytes_per_model, 'bytes'));
console.log(row('generate (N models, convert to v9/6)', (b) => b.generate_ms, 'ms', 0));
