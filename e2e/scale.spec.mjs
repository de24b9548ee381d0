// The GPU memory budget at real scale (issue 36): the benchmark game folder the core writes
// (`sceneria bench-scene`: 1,000,000 instances of 200 E3D models of 2,000-20,000 triangles, 400
// DDS and TGA textures of 256²-1024²) opened by URL from nginx, and flown across under a budget
// smaller than what the flight draws. At every stop, once streaming and model loading have
// settled: GPU bytes within the budget, textured models drawn, the frame not empty; over the
// flight, meshes and textures let go for room and brought back when the camera returns.
// Models are drawn within 80 m: SwiftShader draws every triangle on the CPU.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test, expect, framePixels, pixelShare, isNotSky } from './helpers.mjs';
import { settle } from './settle.mjs';
import { startNginx } from './nginx.mjs';

const PORT = 8148;
const MODELS_WITHIN = 80;
let dir, nginx;

test.beforeAll(() => {
  test.setTimeout(120_000);
  dir = mkdtempSync(join(tmpdir(), 'sceneria-scale-'));
  execFileSync(resolve('build/native/sceneria'), ['bench-scene', join(dir, 'game'), '--instances', '1000000', '--seed', '3']);
});
test.afterAll(() => {
  nginx?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('flying across the 1,000,000-instance benchmark under a GPU budget keeps GPU memory within it and brings models back', async ({ page }) => {
  test.setTimeout(600_000);
  nginx = await startNginx(dir, PORT);
  const file = join(dir, 'game', 'scenery', 'bench.eu7');
  expect(statSync(file).size).toBeGreaterThan(20_000_000);
  await page.setViewportSize({ width: 480, height: 270 });
  await page.goto(`/#v=1&src=${encodeURIComponent(`http://127.0.0.1:${PORT}/game/scenery/bench.eu7`)}`);
  await page.waitForFunction(() => window.sceneria?.lastResult?.ok && window.sceneria.viewer?.stats().sectionsTotal > 0,
                             null, { timeout: 120_000 });
  await page.evaluate((within) => window.sceneria.viewer.setDistances(800, within), MODELS_WITHIN);

  // Down the middle of the scenery's 40 km, then back to the first stop; sections are drawn
  // within 800 m (fewer to stream at each stop: SwiftShader's frames are slow).
  const route = [4000, 24000, 4000];
  const fly = async (budget) => {
    const seen = [];
    if (budget) await page.evaluate((budget) => window.sceneria.viewer.setGpuBudget(budget), budget);
    for (const z of route) {
      await page.evaluate((z) => window.sceneria.viewer.setOrbit(0, 0, z, 60, 0.4, 0.5), z);
      const t = Date.now();
      expect(await settle(page), 'streaming and model loading settled').toBe(true);
      const settled = Date.now() - t;
      const s = await page.evaluate(() => { const v = window.sceneria.viewer; v.renderFrame(); return v.stats(); });
      seen.push({ ...s, z, settled, drawn: pixelShare(await framePixels(page), (r, g, b) => isNotSky([r, g, b])) });
    }
    return seen;
  };
  const line = (s) => `z ${s.z}: ${s.partsDrawn} parts (${s.partsTextured} textured), ${s.meshesWaiting} meshes waiting, ${s.modelDraws} draws in ${s.modelCalls} calls (${s.meshSlabs} slabs), ` +
                      `${(s.gpuBytes / 1048576).toFixed(1)} MiB, ${s.gpuReleased} let go, ${(100 * s.drawn).toFixed(1)} % drawn, settled in ${(s.settled / 1000).toFixed(1)} s`;

  // With the budget sized from the context's limits, nothing is let go.
  const free = await fly(null);
  console.log(`[scale] budget from the context (${(free[0].gpuBudget / 1048576).toFixed(0)} MiB):\n  ${free.map(line).join('\n  ')}`);
  for (const s of free) {
    expect(s.gpuReleased, `z ${s.z}: nothing let go`).toBe(0);
    expect(s.meshesWaiting, `z ${s.z}: nothing waits for room`).toBe(0);
    expect(s.partsTextured, `z ${s.z}: textured models drawn`).toBeGreaterThan(0);
    expect(s.drawn, `z ${s.z}: the frame is not empty`).toBeGreaterThan(0.01);
    // Every model's draws gathered into a call per slab and pass (these models are one-sided and
    // opaque): not a call per mesh.
    expect(s.multiDraw).toBe(true);
    expect(s.modelDraws, `z ${s.z}: several meshes drawn`).toBeGreaterThan(10);
    expect(s.modelCalls, `z ${s.z}: ${s.modelDraws} draws in ${s.modelCalls} calls over ${s.meshSlabs} slabs`).toBeLessThanOrEqual(s.meshSlabs);
  }
  const fixed = Math.max(...free.map((s) => s.gpuBytes - s.gpuHeld));  // static geometry, instances
  const held = free[free.length - 1].gpuHeld;  // every model and texture the flight met
  expect(await page.evaluate(() => window.sceneria.models.loaded), 'most of the 200 model files met').toBeGreaterThan(100);

  // Half of that: the flight must let models go, and find them again on the way back.
  const budget = fixed + Math.floor(held / 2);
  const tight = await fly(budget);
  console.log(`[scale] budget ${(budget / 1048576).toFixed(1)} MiB:\n  ${tight.map(line).join('\n  ')}`);
  for (const s of tight) {
    expect(s.gpuBudget).toBe(budget);
    expect(s.gpuBytes, `z ${s.z}: GPU bytes within the budget`).toBeLessThanOrEqual(budget);
    expect(s.partsTextured, `z ${s.z}: textured models drawn`).toBeGreaterThan(0);
    expect(s.drawn, `z ${s.z}: the frame is not empty`).toBeGreaterThan(0.01);
  }
  const back = tight[tight.length - 1], before = tight[tight.length - 2];
  expect(back.gpuReleased, 'meshes and textures let go for room').toBeGreaterThan(0);
  // Back at the first stop: what was let go there is uploaded again, and the view is the one
  // drawn without a budget.
  expect(back.meshesUploaded).toBeGreaterThan(before.meshesUploaded);
  expect(back.meshesWaiting).toBe(0);
  expect(back.partsDrawn).toBe(free[free.length - 1].partsDrawn);
  expect(back.partsTextured).toBe(free[free.length - 1].partsTextured);
});
