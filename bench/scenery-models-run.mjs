// Models in a scenery, in the page in headless Chromium (SwiftShader): a generated scenery of
// 100,000 models opened alone (proxy boxes), then with a game folder in which every model file it
// names is one of the sample models (E3D and T3D in turn, with their textures). Measured in one
// run, side by side: models loaded per second in the worker (read, textures, T3D conversion,
// flattening), uploaded per second on the page (into the scene and onto the GPU), and the frame's
// CPU time (culling + instance packing) with boxes and with the models, from the same camera.
//   node bench/scenery-models-run.mjs [--samples DIR] [--models N]   (after scripts/build native and wasm)
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { openViewerPage } from './viewer-page.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const samples = join(arg('samples', process.env.SCENERIA_SAMPLES || '../shared/samples'), 'maszyna/models');
const count = Number(arg('models', '100000'));

// The game folder: the generator's model names (sceneria info lists the PACK prototypes' files).
const root = join(mkdtempSync(join(tmpdir(), 'sceneria-models-bench-')), 'game');
mkdirSync(join(root, 'scenery'), { recursive: true });
const scenery = join(root, 'scenery', 'gen.eu7');
execFileSync('build/native/sceneria', ['generate', scenery, '--models', String(count), '--seed', '1']);
const names = ['drzewa/sosna1', 'drzewa/sosna2', 'drzewa/brzoza1', 'drzewa/dab1', 'drzewa/swierk1', 'krzaki/krzak1', 'krzaki/krzak2',
  'trakcja/slup_b', 'trakcja/slup_s', 'budynki/dom1', 'budynki/dom2', 'budynki/blok12', 'budynki/garaz', 'plot/plot_pole_b',
  'lampy/lampa', 'sygnaly/semafor_3k', 'znaki/w4', 'infrastruktura/szafa', 'budynki/dworzec'];
const files = readdirSync(samples);
const models = files.filter((f) => /\.(e3d|t3d)$/.test(f)).sort();
const textures = files.filter((f) => /\.(dds|mat)$/.test(f));
names.forEach((name, i) => {
  const model = models[i % models.length];
  const target = join(root, 'models', `${name}${model.slice(-4)}`);
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(join(samples, model), target);
  // Its textures where the engine looks first: textures/<the model's folder>/, names as given.
  const folder = join(root, 'textures', dirname(name));
  mkdirSync(join(folder, 'components'), { recursive: true });
  for (const t of textures) copyFileSync(join(samples, t), join(folder, t));
  copyFileSync(join(samples, 'kratka.dds'), join(folder, 'components', 'kratka.dds'));
});

const { page, close } = await openViewerPage(8132);

// The frame's CPU (the renderer's own cull + pack + upload timer) and the whole frame on the page's
// thread, medians of 15, from one camera over the busiest part of the scenery.
const frame = () => page.evaluate(() => {
  const v = window.sceneria.viewer;
  v.setDistances(6000, 2500);
  v.lookAt(-500, 0, 500, 400);
  const plan = [], whole = [];
  for (let i = 0; i < 15; i++) {
    const t = performance.now();
    v.renderFrame();
    whole.push(performance.now() - t);
    plan.push(v.stats().planMs);
  }
  const median = (a) => a.sort((x, y) => x - y)[a.length >> 1];
  const s = v.stats();
  return { plan: median(plan), whole: median(whole), instances: s.instances, drawCalls: s.drawCalls, triangles: s.triangles };
});

await page.setInputFiles('#file-input', scenery);
await page.waitForFunction(() => window.sceneria.lastResult?.name === 'gen.eu7', null, { timeout: 120_000 });
await page.waitForFunction((n) => window.sceneria.viewer.stats().objects >= n, count, { timeout: 60_000 });
const boxes = await frame();

await page.setInputFiles('#folder-input', root);
await page.waitForFunction(() => window.sceneria.lastResult?.name === 'gen.eu7' && window.sceneria.models?.done, null, { timeout: 300_000 });
const loading = await page.evaluate(() => window.sceneria.models);
const real = await frame();
await close();

const rate = (n, ms) => `${(n / (ms / 1000)).toFixed(0)}/s`;
console.log(`${count.toLocaleString('en-US')} models, ${loading.loaded} model files loaded (${loading.failed} failed), ` +
            `${(loading.bytes / 1e6).toFixed(1)} MB, ${loading.vertices.toLocaleString('en-US')} vertices`);
console.log('');
console.log('| measure | value | rate |');
console.log('|---|---|---|');
console.log(`| worker: read + textures + convert + flatten, per model | ${(loading.ms / loading.loaded).toFixed(2)} ms | ${rate(loading.loaded, loading.ms)} |`);
console.log(`| page: into the scene and onto the GPU, per model | ${(loading.uploadMs / loading.loaded).toFixed(2)} ms | ${rate(loading.loaded, loading.uploadMs)} |`);
console.log('');
console.log('| frame from one camera | boxes | models | models / boxes |');
console.log('|---|---|---|---|');
console.log(`| instances drawn | ${boxes.instances} | ${real.instances} | |`);
console.log(`| draw calls | ${boxes.drawCalls} | ${real.drawCalls} | |`);
console.log(`| triangles | ${boxes.triangles.toLocaleString('en-US')} | ${real.triangles.toLocaleString('en-US')} | ${(real.triangles / boxes.triangles).toFixed(1)} |`);
console.log(`| CPU: cull + pack + upload (ms) | ${boxes.plan.toFixed(2)} | ${real.plan.toFixed(2)} | ${(real.plan / boxes.plan).toFixed(2)} |`);
console.log(`| page thread: renderFrame (command submission) (ms) | ${boxes.whole.toFixed(1)} | ${real.whole.toFixed(1)} | ${(real.whole / boxes.whole).toFixed(2)} |`);
