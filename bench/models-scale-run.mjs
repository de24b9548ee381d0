// Real models at scale (issue 36): the benchmark game folder the core writes (`sceneria
// bench-scene`: 200 E3D models of 2,000-20,000 triangles, 400 DDS and TGA textures of 256²-1024²,
// the instances over 400 km²), served by nginx and opened by URL in the page in headless Chromium
// (SwiftShader). For each size, side by side in one run:
//   - what had been fetched of the scenery when the first model drawn with its texture went on
//     screen (bytes, share of the file, Range requests; the model and texture files apart);
//   - from one camera, once every model in view has loaded: the frame's CPU time (the renderer's
//     CPU time for the whole frame, median of 15, each after the GPU finished the one before; nine
//     rounds, the pages in turn, their render loops stopped: the timed frames are drawn on demand) with the draws gathered into a call per slab (WEBGL_multi_draw,
//     the default) and with one call a draw, against the same scenery opened where no model file
//     is found (every instance a proxy box); the instanced draws (one per run of a mesh's parts)
//     and the calls that drew them against the (mesh, material) pairs drawn — the other calls are
//     the static scene's, the same in both.
//   node bench/models-scale-run.mjs [--instances 100000,1000000] [--dir DIR] [--rounds N]   (after both builds)
// --dir keeps the generated folders and reuses them.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, linkSync, mkdirSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from '@playwright/test';
import { startNginx } from '../e2e/nginx.mjs';
import { settle } from '../e2e/settle.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const sizes = arg('instances', '100000,1000000').split(',').filter(Boolean).map(Number);
const roundCount = Math.max(1, Number(arg('rounds', '9')));
const dir = arg('dir', null) ?? mkdtempSync(join(tmpdir(), 'sceneria-models-scale-'));
mkdirSync(dir, { recursive: true });

// Per size: game<N>/ (the folder) and alone<N>/scenery/bench.eu7 (the same file, no models beside it).
for (const n of sizes) {
  const game = join(dir, `game${n}`);
  if (!existsSync(join(game, 'scenery', 'bench.eu7'))) {
    const t = Date.now();
    process.stdout.write(execFileSync('build/native/sceneria', ['bench-scene', game, '--instances', String(n), '--seed', '1']));
    console.log(`(generated in ${((Date.now() - t) / 1000).toFixed(1)} s)`);
  }
  const alone = join(dir, `alone${n}`, 'scenery');
  mkdirSync(alone, { recursive: true });
  if (!existsSync(join(alone, 'bench.eu7'))) linkSync(join(game, 'scenery', 'bench.eu7'), join(alone, 'bench.eu7'));
}

const nginx = await startNginx(dir, 8171);
const server = spawn('node', ['scripts/serve.mjs', '--port', '8172'], { stdio: 'ignore' });
await new Promise((r) => setTimeout(r, 800));
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist'] });

// The camera of the frame measurement: over the middle of the 10 × 40 km grid, looking almost
// level (pitch 0.15 rad down), so the sections in view are the same whatever stands in them (they are
// culled by their bounds, and real models raise those; looking down from above, the models' run
// drew three times the boxes' instances). While streaming and loading settle, models are drawn
// within 300 m only (SwiftShader draws every triangle on the CPU; the page would crawl), and the
// frame is measured so too (at 1 km, 64 M triangles a frame, a frame waited for ended the page).
const CAMERA = { x: 0, y: 0, z: 20000, distance: 300, yaw: 0, pitch: 0.15, draw: 3000, models: 300, measured: 300 };

// A page's render loop stopped while the other one works, and both while frames are timed (the
// timed frames are drawn on demand): the models page's loop drawing millions of triangles on
// SwiftShader, on the same two cores, starved the boxes page's settling for most of an hour.
const setLooping = (page, on) => page.evaluate((on) => window.sceneria.viewer.setLooping(on), on);

async function open(url) {
  const page = await browser.newPage({ viewport: { width: 640, height: 360 } });
  const t0 = Date.now();
  await page.goto(`http://127.0.0.1:8172/#v=1&src=${encodeURIComponent(url)}`);
  await page.waitForFunction(() => window.sceneria?.lastResult?.ok && window.sceneria.viewer?.stats().sectionsTotal > 0,
                             null, { timeout: 300_000 });
  return { page, t0 };
}

// From the measured camera once streaming and model loading have settled (e2e/settle.mjs), with
// streaming paused so nothing changes while frames are timed.
async function settleAt(page, withModels) {
  await page.evaluate((c) => { window.sceneria.viewer.setDistances(c.draw, c.models); window.sceneria.viewer.setOrbit(c.x, c.y, c.z, c.distance, c.yaw, c.pitch); }, CAMERA);
  if (!await settle(page, { models: withModels, tries: 1200 })) console.log('(did not settle in 10 minutes: measured as it was)');
  await page.evaluate(() => window.sceneria.pauseStreaming(true));
}

// The renderer's CPU time for a frame (drawMs: cull, pack, upload, state and draw calls; planMs:
// cull and pack alone), median of 15 frames. SwiftShader runs the GPU's work on the same two cores,
// so each frame is timed after the previous one has finished there (a 1-pixel read waits for it).
const frame = (page, gathered = true) => page.evaluate(({ c, gathered }) => {
  const v = window.sceneria.viewer;
  v.setDistances(c.draw, c.measured);
  v.setMultiDraw(gathered);
  const plan = [], draw = [];
  const median = (a) => a.sort((x, y) => x - y)[a.length >> 1];
  for (let i = 0; i < 15; i++) {
    v.readPixels(0, 0, 1, 1);
    v.renderFrame();
    const s = v.stats();
    plan.push(s.planMs), draw.push(s.drawMs);
  }
  const s = v.stats();
  v.setMultiDraw(true);
  return { planMs: median(plan), drawMs: median(draw), drawCalls: s.drawCalls, modelDraws: s.modelDraws, modelCalls: s.modelCalls,
           multiDraw: s.multiDraw, slabs: s.meshSlabs, arrays: s.textureArrays, parts: s.partsDrawn, textured: s.partsTextured,
           instances: s.instances, meshes: s.meshesDrawn, triangles: s.triangles, gpuBytes: s.gpuBytes, gpuBudget: s.gpuBudget };
}, { c: CAMERA, gathered });

const rows = [];
for (const n of sizes) {
  const size = statSync(join(dir, `game${n}`, 'scenery', 'bench.eu7')).size;
  // With the models: when the first textured one showed, then the frame once all in view are in.
  const withModels = await open(`http://127.0.0.1:8171/game${n}/scenery/bench.eu7`);
  await withModels.page.evaluate((c) => window.sceneria.viewer.setDistances(c.draw, c.models), CAMERA);
  await withModels.page.waitForFunction(() => window.sceneria.stream?.firstTextured, null, { timeout: 600_000 });
  const firstMs = Date.now() - withModels.t0;
  const first = await withModels.page.evaluate(() => window.sceneria.stream.firstTextured);
  await settleAt(withModels.page, true);
  const loaded = await withModels.page.evaluate(() => window.sceneria.models);
  // The same file where no model file is found: proxy boxes, the same camera. Both pages stay
  // open and are timed in turn, nine rounds (the machine's load drifts over minutes): each
  // side's median of its rounds' medians, and the median of the rounds' own ratios (a round's
  // two pages are timed a second apart, so drift between rounds cancels in its ratio).
  await setLooping(withModels.page, false);
  const boxes = await open(`http://127.0.0.1:8171/alone${n}/scenery/bench.eu7`);
  await settleAt(boxes.page, false);
  await setLooping(boxes.page, false);
  const rounds = { models: [], single: [], proxies: [] };
  for (let round = 0; round < roundCount; round++) {
    rounds.models.push(await frame(withModels.page));
    rounds.single.push(await frame(withModels.page, false));
    rounds.proxies.push(await frame(boxes.page));
  }
  const middle = (list) => [...list].sort((a, b) => a.drawMs - b.drawMs)[list.length >> 1];
  const models = middle(rounds.models), single = middle(rounds.single), proxies = middle(rounds.proxies);
  for (const [side, list] of [[models, rounds.models], [single, rounds.single], [proxies, rounds.proxies]])
    side.planMs = middle(list.map((r) => ({ drawMs: r.planMs }))).drawMs;
  console.log(`rounds (models gathered / one call a draw / boxes, ms): ${rounds.models.map((m, i) =>
    `${m.drawMs.toFixed(2)} / ${rounds.single[i].drawMs.toFixed(2)} / ${rounds.proxies[i].drawMs.toFixed(2)}`).join(', ')}`);
  const roundRatio = (list) => {
    const ratios = list.map((m, i) => m.drawMs / rounds.proxies[i].drawMs).sort((a, b) => a - b);
    console.log(`rounds' ratios, sorted: ${ratios.map((r) => r.toFixed(2)).join(', ')}`);
    return ratios[ratios.length >> 1];
  };
  const roundRatios = { models: roundRatio(rounds.models), single: roundRatio(rounds.single) };
  await withModels.page.close();
  await boxes.page.close();
  rows.push({ n, size, first, firstMs, models, single, proxies, loaded, roundRatios });
}
await browser.close();
server.kill();
nginx.stop();

console.log('\nFirst frame with a textured model, streamed by URL:\n');
console.log('| instances | scenery file | after | scenery fetched by then | Range requests | model and texture files by then |');
console.log('|---|---|---|---|---|---|');
for (const r of rows)
  console.log(`| ${r.n.toLocaleString('en-US')} | ${(r.size / 1e6).toFixed(1)} MB | ${(r.firstMs / 1000).toFixed(1)} s | ` +
              `${(r.first.bytes / 1e6).toFixed(2)} MB (${(100 * r.first.bytes / r.size).toFixed(2)} %) | ${r.first.requests} | ` +
              `${r.first.modelRequests} files, ${(r.first.modelBytes / 1e6).toFixed(2)} MB |`);
console.log('\nOne camera, every model in view loaded, against the same scenery with proxy boxes (ratio: of the medians; rounds\': the median of the rounds\' own ratios):\n');
console.log('| instances | draws | instances drawn (models / boxes) | frame CPU, models | frame CPU, boxes | ratio | rounds\' ratio | cull + pack (models / boxes) | draw calls | instanced draws in calls | mesh slabs | (mesh, material) pairs drawn | textured | texture arrays | other calls (models / boxes) | triangles | models loaded | GPU memory |');
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
for (const r of rows) {
  const p = r.proxies;
  for (const [how, m, rr] of [['gathered', r.models, r.roundRatios.models], ['one call a draw', r.single, r.roundRatios.single]])
    console.log(`| ${r.n.toLocaleString('en-US')} | ${how}${m.multiDraw === (how === 'gathered') ? '' : ' (not as asked)'} | ` +
                `${m.instances.toLocaleString('en-US')} / ${p.instances.toLocaleString('en-US')} | ` +
                `${m.drawMs.toFixed(2)} ms | ${p.drawMs.toFixed(2)} ms | ${(m.drawMs / p.drawMs).toFixed(2)}× | ${rr.toFixed(2)}× | ` +
                `${m.planMs.toFixed(2)} / ${p.planMs.toFixed(2)} ms | ${m.drawCalls} | ${m.modelDraws} in ${m.modelCalls} | ${m.slabs} | ${m.parts} | ` +
                `${m.textured} | ${m.arrays} | ${m.drawCalls - m.modelCalls} / ${p.drawCalls - p.modelCalls} | ${(m.triangles / 1e6).toFixed(1)} M | ` +
                `${r.loaded.loaded} | ${(m.gpuBytes / 1048576).toFixed(0)} of ${(m.gpuBudget / 1048576).toFixed(0)} MB |`);
}
