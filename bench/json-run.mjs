// EU7B JSON, the document tree against the streamed text on one thread and on every core,
// natively and as WebAssembly (node), rounds alternating so every mode sees the same machine
// load. A generated module of N models is dumped once (and one of N/2, for memory: the peak's
// growth from N/2 to N models over the module's growth is what the job costs per module byte,
// without the runtime's constant). Each job runs in its own process. Prints a Markdown table.
//   node bench/json-run.mjs [--models N] [--rounds R] [--threads T]   (after npm run build:native and build:wasm)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const models = Number(arg('models', '1000000'));
const rounds = Number(arg('rounds', '2'));
const threads = Number(arg('threads', String(Math.min(cpus().length, 4))));
const dir = mkdtempSync(join(tmpdir(), 'sceneria-json-'));
const files = {};
for (const [size, n] of [['full', models], ['half', Math.round(models / 2)]]) {
  const module = join(dir, `${size}.eu7`), json = join(dir, `${size}.json`);
  execFileSync('build/native/sceneria', ['generate', module, '--models', String(n), '--seed', '1']);
  execFileSync('build/native/sceneria', ['dump', module, '-o', json]);
  files[size] = { module, json };
}

// [row name, bench mode, input kind, threads]
const jobs = [
  ['tree', 'tree-write', 'module', 1], ['streamed, 1 thread', 'stream-write', 'module', 1],
  [`streamed, ${threads} threads`, 'stream-write', 'module', threads],
  ['tree', 'tree-read', 'json', 1], ['streamed, 1 thread', 'stream-read', 'json', 1],
  [`streamed, ${threads} threads`, 'stream-read', 'json', threads],
];
const runners = {
  native: (mode, file, t) => ['build/native/bench/sceneria_json_bench', [mode, file, String(t)]],
  wasm: (mode, file, t) => ['node', ['--no-experimental-fetch', 'build/wasm/bench/sceneria_json_bench.js', mode, file, String(t)]],
};
const run = (where, mode, file, t) => {
  const [cmd, args] = runners[where](mode, file, t);
  return JSON.parse(execFileSync(cmd, args, { maxBuffer: 1 << 20 }).toString().trim().split('\n').pop());
};
const best = {};
for (let r = 0; r < rounds; r++) {
  for (const [, mode, kind, t] of jobs) {
    for (const where of Object.keys(runners)) {
      const key = `${where} ${mode} ${t}`;
      const out = run(where, mode, files.full[kind], t);
      const prev = best[key];
      best[key] = prev ? { ...out, ms: Math.min(prev.ms, out.ms), peak_bytes: Math.min(prev.peak_bytes, out.peak_bytes) } : out;
    }
  }
}
// The streamed jobs' peak at half the size, once (memory does not depend on the machine's load).
const half = {};
for (const [, mode, kind, t] of jobs.filter(([, mode]) => mode.startsWith('stream'))) {
  for (const where of Object.keys(runners)) half[`${where} ${mode} ${t}`] = run(where, mode, files.half[kind], t);
}
const moduleBytes = statSync(files.full.module).size, jsonBytes = statSync(files.full.json).size;
const halfModuleBytes = statSync(files.half.module).size;
rmSync(dir, { recursive: true, force: true });
const mbps = (m) => (m.json_bytes / 1e6) / (m.ms / 1000);
const mb = (b) => (b / 1e6).toFixed(0);
console.log(`EU7B JSON benchmark: ${models.toLocaleString('en-US')} generated models, module ${mb(moduleBytes)} MB, ` +
            `JSON ${mb(jsonBytes)} MB; best of ${rounds} rounds; ${cpus().length} cores\n`);
console.log('| job | where | how | time | MB/s of JSON | peak memory | peak per module byte (N/2 → N) |');
console.log('|---|---|---|---|---|---|---|');
for (const [name, mode, , t] of jobs) {
  for (const where of Object.keys(runners)) {
    const key = `${where} ${mode} ${t}`, m = best[key], h = half[key];
    const slope = h ? `${((m.peak_bytes - h.peak_bytes) / (moduleBytes - halfModuleBytes)).toFixed(2)}×` : '';
    console.log(`| ${mode.endsWith('write') ? 'write (dump)' : 'read (JSON → module)'} | ${where} | ${name} | ` +
                `${(m.ms / 1000).toFixed(2)} s | ${mbps(m).toFixed(0)} | ${mb(m.peak_bytes)} MB ` +
                `(${(m.peak_bytes / moduleBytes).toFixed(2)}× module) | ${slope} |`);
  }
}
