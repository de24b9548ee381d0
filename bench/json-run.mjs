// EU7B JSON, the document tree against the streamed text, natively and as WebAssembly (node),
// rounds alternating so every mode sees the same machine load. A generated module of N models is
// dumped once; then each mode runs in its own process (its own peak memory). Prints a Markdown table.
//   node bench/json-run.mjs [--models N] [--rounds R]   (after npm run build:native and build:wasm)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const models = arg('models', '1000000');
const rounds = Number(arg('rounds', '2'));
const dir = mkdtempSync(join(tmpdir(), 'sceneria-json-'));
const module = join(dir, 'm.eu7'), json = join(dir, 'm.json');
execFileSync('build/native/sceneria', ['generate', module, '--models', models, '--seed', '1']);
execFileSync('build/native/sceneria', ['dump', module, '-o', json]);

const modes = [['tree-write', module], ['stream-write', module], ['tree-read', json], ['stream-read', json]];
const runners = {
  native: (mode, file) => ['build/native/bench/sceneria_json_bench', [mode, file]],
  wasm: (mode, file) => ['node', ['--no-experimental-fetch', 'build/wasm/bench/sceneria_json_bench.js', mode, file]],
};
const best = { native: {}, wasm: {} };
for (let r = 0; r < rounds; r++) {
  for (const [mode, file] of modes) {
    for (const [where, runner] of Object.entries(runners)) {
      const [cmd, args] = runner(mode, file);
      const out = JSON.parse(execFileSync(cmd, args, { maxBuffer: 1 << 20 }).toString().trim().split('\n').pop());
      const prev = best[where][mode];
      best[where][mode] = prev ? { ...out, ms: Math.min(prev.ms, out.ms), peak_bytes: Math.min(prev.peak_bytes, out.peak_bytes) } : out;
    }
  }
}
const moduleBytes = statSync(module).size, jsonBytes = statSync(json).size;
rmSync(dir, { recursive: true, force: true });
const mbps = (m) => (m.json_bytes / 1e6) / (m.ms / 1000);
const mb = (b) => (b / 1e6).toFixed(0);
console.log(`EU7B JSON benchmark: ${Number(models).toLocaleString('en-US')} generated models, module ${mb(moduleBytes)} MB, ` +
            `JSON ${mb(jsonBytes)} MB; best of ${rounds} rounds\n`);
console.log('| job | where | tree | streamed | streamed / tree |');
console.log('|---|---|---|---|---|');
for (const [job, tree, stream] of [['write (dump)', 'tree-write', 'stream-write'], ['read (JSON → module)', 'tree-read', 'stream-read']]) {
  for (const where of ['native', 'wasm']) {
    const t = best[where][tree], s = best[where][stream];
    console.log(`| ${job}: time | ${where} | ${(t.ms / 1000).toFixed(2)} s (${mbps(t).toFixed(0)} MB/s) | ` +
                `${(s.ms / 1000).toFixed(2)} s (${mbps(s).toFixed(0)} MB/s) | ${(t.ms / s.ms).toFixed(1)}× faster |`);
    console.log(`| ${job}: peak memory | ${where} | ${mb(t.peak_bytes)} MB (${(t.peak_bytes / moduleBytes).toFixed(1)}× module) | ` +
                `${mb(s.peak_bytes)} MB (${(s.peak_bytes / moduleBytes).toFixed(1)}× module) | ${(t.peak_bytes / s.peak_bytes).toFixed(1)}× less |`);
  }
}
