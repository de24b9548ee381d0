// Frame CPU cost (culling + instance packing + upload) vs instance count, natively, as
// WebAssembly under node, and in the page in headless Chromium (SwiftShader), one after the other
// in one run. The camera is in the same place for every size.
//   node bench/frame-run.mjs            (after npm run build:native and build:wasm)
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openViewerPage } from './viewer-page.mjs';

const sizes = [10_000, 100_000, 1_000_000];
const lines = (out) => out.toString().trim().split('\n').map((l) => JSON.parse(l));
const native = lines(execFileSync('build/native/bench/sceneria_frame_bench', ['--models', sizes.join(',')]));
const wasm = lines(execFileSync('node', ['--no-experimental-fetch', 'build/wasm/bench/sceneria_frame_bench.js', '--models', sizes.join(',')]));

// The page: the same generated files, the same camera, the renderer's own cull+upload timer.
const dir = mkdtempSync(join(tmpdir(), 'sceneria-frame-'));
const { page, close } = await openViewerPage(8131);
const browserRows = [];
for (const n of sizes) {
  const file = join(dir, `g${n}.eu7`);
  execFileSync('build/native/sceneria', ['generate', file, '--models', String(n), '--seed', '1']);
  await page.setInputFiles('#file-input', file);
  await page.waitForFunction((name) => window.sceneria.lastResult?.name === name, `g${n}.eu7`, { timeout: 120_000 });
  await page.waitForFunction((n) => window.sceneria.viewer.stats().objects >= n, n, { timeout: 60_000 });
  browserRows.push(await page.evaluate(() => {
    const v = window.sceneria.viewer;
    v.setDistances(6000, 2500);
    v.lookAt(-500, 0, 500, 400);
    const plan = [];
    for (let i = 0; i < 15; i++) { v.renderFrame(); plan.push(v.stats().planMs); }
    plan.sort((a, b) => a - b);
    const s = v.stats();
    return { frame_cpu_ms: plan[plan.length >> 1], instances_drawn: s.instances, sections_visible: s.sectionsDrawn,
             sections_total: s.sectionsTotal, draw_calls: s.drawCalls };
  }));
}
await close();

console.log('| models | sections (visible / total) | instances drawn | native ms | wasm (node) ms | Chromium page ms | draw calls (page) |');
console.log('|---|---|---|---|---|---|---|');
sizes.forEach((n, i) => {
  const a = native[i], w = wasm[i], b = browserRows[i];
  console.log(`| ${n.toLocaleString('en-US')} | ${a.sections_visible} / ${a.sections_total} | ${a.instances_drawn.toLocaleString('en-US')} | ` +
              `${a.frame_cpu_ms.toFixed(3)} | ${w.frame_cpu_ms.toFixed(3)} | ${b.frame_cpu_ms.toFixed(3)} | ${b.draw_calls} |`);
});
