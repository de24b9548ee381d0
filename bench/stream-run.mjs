// Streaming over HTTP on localhost: time to the first frame and bytes fetched for a 100 MB and a
// 1 GB generated scenery served by nginx, and a dense one shaped like the reference's dense
// scenarios (1,000,000 models in 400 sections, 46 MB); what had been fetched when the first
// models went on screen (bytes and Range requests); then sections applied per second while flying.
//   node bench/stream-run.mjs [--sizes 2200000,22000000] [--dense 1000000] [--dir DIR] [--busy N]
// (after npm run build:native and build:wasm). --dir keeps the generated files and reuses them;
// --dense 0 leaves the dense scenery out; --busy N keeps N processes spinning on the CPU while
// each scenery opens (a loaded machine: the first models must not wait on it).
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from '@playwright/test';
import { startNginx } from '../e2e/nginx.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const sizes = arg('sizes', '2200000,22000000').split(',').filter(Boolean).map(Number);
const dense = Number(arg('dense', '1000000'));
const busy = Number(arg('busy', '0'));
const dir = arg('dir', null) ?? mkdtempSync(join(tmpdir(), 'sceneria-stream-bench-'));
mkdirSync(dir, { recursive: true });
const files = sizes.map((n) => ({ n, name: `s${n}.eu7`, extra: [] }));
if (dense > 0) files.push({ n: dense, name: `dense${dense}.eu7`, extra: ['--param', 'models-per-section=2500'], dense: true });
for (const f of files) {
  if (!existsSync(join(dir, f.name)))
    execFileSync('build/native/sceneria', ['generate', join(dir, f.name), '--models', String(f.n), '--seed', '1', ...f.extra]);
}
const nginx = await startNginx(dir, 8161);
const server = spawn('node', ['scripts/serve.mjs', '--port', '8162'], { stdio: 'ignore' });
await new Promise((r) => setTimeout(r, 800));
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist'] });
const rows = [];
for (const { n, name, dense: isDense } of files) {
  const size = statSync(join(dir, name)).size;
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  const spinners = Array.from({ length: busy }, () => spawn('node', ['-e', 'for (;;);'], { stdio: 'ignore' }));
  const t0 = Date.now();
  await page.goto(`http://127.0.0.1:8162/#v=1&src=${encodeURIComponent(`http://127.0.0.1:8161/${name}`)}`);
  await page.waitForFunction(() => window.sceneria?.lastResult?.ok && window.sceneria.viewer?.stats().sectionsTotal > 0,
                             null, { timeout: 300_000 });
  const firstFrameMs = Date.now() - t0;
  const atOpen = await page.evaluate(() => window.sceneria.lastResult.stream.bytes);
  await page.waitForFunction(() => window.sceneria.stream?.firstModelsBytes != null, null, { timeout: 300_000 });
  const firstModelsMs = Date.now() - t0;
  const firstModels = await page.evaluate(() => window.sceneria.stream.firstModelsBytes);
  const firstModelsRequests = await page.evaluate(() => window.sceneria.stream.firstModelsRequests);
  for (const p of spinners) p.kill();
  // Fly along the line at 500 m/s for 20 s with few instances drawn (SwiftShader), counting applied sections.
  await page.evaluate(() => window.sceneria.viewer.setDistances(6000, 500));
  await page.waitForFunction(() => (window.sceneria.stream?.applied ?? 0) > 0, null, { timeout: 60_000 });
  const before = await page.evaluate(() => window.sceneria.stream.applied);
  const ticksBefore = await page.evaluate(() => window.sceneria.stream.ticks);
  const tickMsBefore = await page.evaluate(() => window.sceneria.stream.tickMs);
  const t1 = Date.now();
  for (let i = 0; i < 40; i++) {
    await page.evaluate((z) => window.sceneria.viewer.lookAt(0, 0, z, 350), 2000 + i * 250);
    await page.waitForTimeout(500);
  }
  const s = await page.evaluate(() => window.sceneria.stream);
  const seconds = (Date.now() - t1) / 1000;
  rows.push({ n, isDense, size, firstFrameMs, atOpen, firstModels, firstModelsRequests, firstModelsMs, applied: s.applied - before, seconds, bytes: s.bytes, resident: s.resident,
              ticks: s.ticks - ticksBefore, workerMs: s.tickMs - tickMsBefore, decodedOffThread: s.decodedOffThread,
              names: s.late });
  await page.close();
}
await browser.close();
server.kill();
nginx.stop();
if (busy) console.log(`(${busy} processes spinning on the CPU while each scenery opened)\n`);
console.log('| scenery | file | first frame | fetched at first frame | first models | fetched at first models | Range requests by then | sections applied while flying | page ticks | worker ms per tick | fetched after 10 km | resident |');
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
for (const r of rows) {
  console.log(`| ${r.n.toLocaleString('en-US')} models${r.isDense ? ' (dense: 2,500 per section)' : ''} | ${(r.size / 1e6).toFixed(0)} MB | ${(r.firstFrameMs / 1000).toFixed(2)} s | ` +
              `${(r.atOpen / 1e6).toFixed(2)} MB (${(100 * r.atOpen / r.size).toFixed(2)} %) | ${(r.firstModelsMs / 1000).toFixed(2)} s | ` +
              `${(r.firstModels / 1e6).toFixed(2)} MB (${(100 * r.firstModels / r.size).toFixed(2)} %) | ${r.firstModelsRequests} | ${(r.applied / r.seconds).toFixed(1)} /s | ` +
              `${(r.ticks / r.seconds).toFixed(1)} /s | ${(r.workerMs / r.ticks).toFixed(2)} | ` +
              `${(r.bytes / 1e6).toFixed(1)} MB (${(100 * r.bytes / r.size).toFixed(1)} %) | ${r.resident} |`);
}
