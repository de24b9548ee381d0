// MaSzyna models where the user meets them: a scenery dropped with its game folder draws its
// model files (E3D and T3D, textured) in place of the proxy boxes, every instance through one draw
// per part; what is missing or unreadable is listed. And a vehicle part dropped with its skin.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test, expect, requireSamples, openViewer, samplesDir, framePixels, countDiffering, solidDds, pixelShare, redShare, isNotSky } from './helpers.mjs';
import { startNginx } from './nginx.mjs';

const cli = resolve('build/native/sceneria');

// The first PACK model placing `file` (by the record list's detail), and its record.
async function placement(page, file) {
  return page.evaluate(async (file) => {
    const { parser, lastResult } = window.sceneria;
    const rows = await parser.search(lastResult.doc, 'pack_models', file, 50);
    for (const row of rows) {
      const record = await parser.record(lastResult.doc, 'pack_models', row.i);
      if (record.range_min < 5) return record;
    }
    return null;
  }, file);
}

async function view(page, at, distance) {
  await page.evaluate(({ at, distance }) => {
    const v = window.sceneria.viewer;
    v.lookAt(at[0], at[1] + 1, at[2], distance);
    v.renderFrame();
  }, { at, distance });
  return framePixels(page);
}

// A game folder: the generated scenery names its models as sceneries do ("drzewa/sosna1.t3d");
// two of them are here as sample models, found by the engine's order.
function gameFolder(root) {
  mkdirSync(join(root, 'scenery'), { recursive: true });
  execFileSync(cli, ['generate', join(root, 'scenery', 'gen.eu7'), '--models', '3000', '--seed', '21']);
  // An E3D under models/, its texture (components/kratka) where the engine looks first for a model
  // in drzewa/: textures/drzewa/. Solid red, to be found in the pixels.
  mkdirSync(join(root, 'models', 'drzewa'), { recursive: true });
  copyFileSync(join(samplesDir, 'maszyna/models/e6acta_detale_dual_power.e3d'), join(root, 'models', 'drzewa', 'sosna1.e3d'));
  mkdirSync(join(root, 'textures', 'drzewa', 'components'), { recursive: true });
  writeFileSync(join(root, 'textures', 'drzewa', 'components', 'kratka.dds'), solidDds(0xF800));
  // A T3D at the game's root (the third candidate), converted as the engine converts it.
  mkdirSync(join(root, 'krzaki'));
  copyFileSync(join(samplesDir, 'maszyna/models/oslony_syren.t3d'), join(root, 'krzaki', 'krzak1.t3d'));
  // There, but no model.
  mkdirSync(join(root, 'models', 'budynki'));
  writeFileSync(join(root, 'models', 'budynki', 'dom1.e3d'), 'not a model');
}

test('a scenery dropped with its game folder draws its models textured and instanced; missing and unreadable ones are listed', async ({ page }) => {
  requireSamples();
  test.setTimeout(120_000);
  const root = join(mkdtempSync(join(tmpdir(), 'sceneria-models-')), 'MaSzyna');
  gameFolder(root);

  // The scenery alone: boxes, nothing red where the E3D stands, and every model it names listed
  // as missing (tried against no files at all).
  await openViewer(page);
  await page.setInputFiles('#file-input', join(root, 'scenery', 'gen.eu7'));
  await page.waitForFunction(() => window.sceneria.lastResult?.name === 'gen.eu7' && window.sceneria.models?.done, null, { timeout: 60_000 });
  const alone = await page.evaluate(() => window.sceneria.models);
  expect(alone.loaded).toBe(0);
  expect(alone.failed).toBeGreaterThan(10);
  const listedAlone = await page.$$eval('#missing-files li', (items) => items.map((li) => li.textContent));
  expect(listedAlone).toContain('drzewa/sosna1.t3d');
  const sosna = await placement(page, 'drzewa/sosna1.t3d');
  expect(sosna).not.toBeNull();
  const boxes = await view(page, sosna.location, 14);
  expect(redShare(boxes)).toBeLessThan(0.0002);
  const uploadedBefore = await page.evaluate(() => window.sceneria.viewer.stats().meshesUploaded);

  // With its folder: the models load in the worker, nearest first, and replace their boxes.
  const aloneDoc = await page.evaluate(() => window.sceneria.lastResult.doc);
  await page.setInputFiles('#folder-input', root);
  await page.waitForFunction((doc) => window.sceneria.lastResult?.name === 'gen.eu7' && window.sceneria.lastResult.doc > doc && window.sceneria.models?.done,
                             aloneDoc, { timeout: 60_000 });
  const models = await page.evaluate(() => window.sceneria.models);
  expect(models.loaded).toBe(2);
  expect(models.failed).toBeGreaterThan(10);  // every other model file of the scenery
  // Their vertices: both of the E3D's submodels (2276, its reference summary) and the T3D's 128.
  expect(models.vertices).toBe(2276 + 128);
  const missing = await page.$$eval('#missing-files li', (items) => items.map((li) => li.textContent));
  expect(missing).toContain('drzewa/sosna2.t3d');
  expect(missing.some((m) => m.startsWith('budynki/dom1.t3d: '))).toBe(true);
  expect(missing).not.toContain('drzewa/sosna1.t3d');
  expect(missing).not.toContain('krzaki/krzak1.t3d');
  // Each model file not drawn is listed, and so are the scenery's vehicles' folders (dynamic/…).
  const vehicleFiles = missing.filter((m) => m.startsWith('dynamic/'));
  expect(vehicleFiles.length).toBeGreaterThan(0);
  expect(missing.length - vehicleFiles.length).toBe(models.failed);

  // The E3D instance's grille (a submodel a few metres from its body) is red where its box was
  // not: its texture, found in textures/drzewa/ (0.33 % of the frame measured).
  const textured = await view(page, sosna.location, 14);
  expect(redShare(textured)).toBeGreaterThan(0.001);
  expect(countDiffering(boxes, textured, 60) / (textured.length / 4)).toBeGreaterThan(0.01);
  // Meshes go to the GPU when first drawn: the model was uploaded in its box's place.
  expect(await page.evaluate(() => window.sceneria.viewer.stats().meshesUploaded)).toBeGreaterThan(uploadedBefore);

  // Instanced: from above, many instances, and one draw per material part of each drawn mesh
  // (a loaded model has one part per material; a box one), plus the sky and the sections' batches.
  const wide = await page.evaluate((at) => {
    const v = window.sceneria.viewer;
    v.setDistances(6000, 2500);
    v.lookAt(at[0], at[1], at[2], 700);
    v.renderFrame();
    return v.stats();
  }, sosna.location);
  expect(wide.instances).toBeGreaterThan(500);
  const extraParts = models.parts - models.loaded;  // parts beyond one per mesh
  expect(wide.partsDrawn).toBeLessThanOrEqual(wide.meshesDrawn + extraParts);
  expect(wide.drawCalls).toBeLessThanOrEqual(1 + 2 * wide.sectionsDrawn + wide.partsDrawn);
  expect(wide.drawCalls).toBeLessThan(wide.instances / 10);
});

// The GPU memory budget: meshes and textures go to the GPU when a frame draws them and, beyond
// the budget, those drawn least recently are let go, to come back when the camera does. A texture
// file named by several model files is decoded, sent and uploaded once.
test('under a small GPU budget, flying across a scenery keeps GPU memory within it, draws every frame, and brings models back', async ({ page }) => {
  requireSamples();
  test.setTimeout(180_000);
  const root = join(mkdtempSync(join(tmpdir(), 'sceneria-budget-')), 'MaSzyna');
  gameFolder(root);
  for (const name of ['sosna2', 'brzoza1', 'dab1', 'swierk1'])  // four more E3D files naming kratka
    copyFileSync(join(root, 'models', 'drzewa', 'sosna1.e3d'), join(root, 'models', 'drzewa', `${name}.e3d`));
  await openViewer(page);
  await page.setInputFiles('#folder-input', root);
  await page.waitForFunction(() => window.sceneria.lastResult?.name === 'gen.eu7' && window.sceneria.models?.done, null, { timeout: 60_000 });
  const models = await page.evaluate(() => window.sceneria.models);
  expect(models.loaded).toBe(6);
  expect(models.texturesShared, 'kratka.dds sent with the first E3D only').toBe(4);

  // A route over the scenery: twelve placements spread over its PACK records, then the first again.
  const route = await page.evaluate(async () => {
    const { parser, lastResult } = window.sceneria;
    const out = [];
    for (let i = 0; i < 12; i++) {
      const r = await parser.record(lastResult.doc, 'pack_models', i * 240);
      if (r) out.push(r.location);
    }
    return out;
  });
  expect(route.length).toBe(12);
  route.push(route[0]);
  const fly = (budget) => page.evaluate(({ route, budget }) => {
    const v = window.sceneria.viewer;
    if (budget) v.setGpuBudget(budget);
    v.setDistances(6000, 1500);
    return route.map((at) => {
      v.lookAt(at[0], at[1], at[2], 250);
      v.renderFrame();
      return v.stats();
    });
  }, { route, budget });

  // With the budget sized from the context's limits, everything stays.
  const free = await fly(0);
  expect(free[0].gpuBudget).toBeGreaterThanOrEqual(256 * 1048576);
  expect(free.every((s) => s.gpuReleased === 0 && s.meshesWaiting === 0)).toBe(true);
  const fixed = Math.max(...free.map((s) => s.gpuBytes - s.gpuHeld));  // static geometry, instances
  const held = Math.max(...free.map((s) => s.gpuHeld));
  expect(held).toBeGreaterThan(2 * 2276 * 32);  // at least two of the E3D's meshes (2276 vertices, 32 bytes each)
  // Half of what the fullest view held, beside what is never let go.
  const budget = fixed + Math.floor(held / 2);
  const uploaded = free[free.length - 1].meshesUploaded;
  const tight = await fly(budget);
  for (const [i, s] of tight.entries()) {
    expect(s.gpuBudget).toBe(budget);
    expect(s.gpuBytes, `stop ${i}: GPU bytes within the budget`).toBeLessThanOrEqual(budget);
    expect(s.partsDrawn, `stop ${i}: models drawn`).toBeGreaterThan(0);
  }
  expect(tight[tight.length - 1].gpuReleased, 'meshes and textures let go for room').toBeGreaterThan(0);
  const mib = (b) => (b / 1048576).toFixed(2);
  console.log(`[budget] default ${mib(free[0].gpuBudget)} MiB; route of ${route.length} views: held up to ${mib(fixed + held)} MiB; ` +
              `budget ${mib(budget)} MiB: held up to ${mib(Math.max(...tight.map((s) => s.gpuBytes)))} MiB, ` +
              `${tight[tight.length - 1].gpuReleased} let go, ${tight[tight.length - 1].meshesUploaded - uploaded} uploaded again, ` +
              `${Math.max(...tight.map((s) => s.meshesWaiting))} meshes waiting at most`);
  // Everything on the route had been uploaded once: uploads now are models brought back.
  expect(tight[tight.length - 1].meshesUploaded).toBeGreaterThan(uploaded);
  const close = await view(page, route[0], 60);
  expect(pixelShare(close, (r, g, b) => isNotSky([r, g, b])), 'the frame is not empty').toBeGreaterThan(0.05);
  // Back at the E3D: its grille red again, its texture brought back within the budget.
  const sosna = await placement(page, 'drzewa/sosna1.t3d');
  expect(redShare(await view(page, sosna.location, 14))).toBeGreaterThan(0.001);
  const last = await page.evaluate(() => window.sceneria.viewer.stats());
  expect(last.gpuBytes).toBeLessThanOrEqual(budget);
  // The stats overlay says it.
  await page.evaluate(() => { document.getElementById('stats').hidden = false; });
  await expect(page.locator('#stats')).toContainText(/GPU +[\d.]+ MB of [\d.]+ MB budget, [\d,]+ let go/);
});

test('a scenery opened by URL loads its models from beside it: fetched where the lookups found them, textured', async ({ page }) => {
  requireSamples();
  test.setTimeout(120_000);
  const www = mkdtempSync(join(tmpdir(), 'sceneria-models-www-'));
  gameFolder(www);
  const nginx = await startNginx(www, 8147);
  try {
    await openViewer(page);
    await page.goto(`/#v=1&src=${encodeURIComponent('http://127.0.0.1:8147/scenery/gen.eu7')}`);
    await page.waitForFunction(() => window.sceneria.lastResult?.name === 'gen.eu7' && window.sceneria.stream, null, { timeout: 30_000 });
    // Every section streams in (the scenery is small), its model names are looked for, and the
    // two model files there load; the one that is no model is listed with why.
    await page.waitForFunction(() => window.sceneria.models?.loaded + window.sceneria.models?.failed >= 19 && window.sceneria.models.pending === 0,
                               null, { timeout: 60_000 });
    const models = await page.evaluate(() => window.sceneria.models);
    expect(models.loaded).toBe(2);
    expect(models.vertices).toBe(2276 + 128);
    const stream = await page.evaluate(() => window.sceneria.stream);
    // One GET per model file found (three: the two models and the one that is not), then the
    // texture in the engine's order in both folders (scenery/ and the one above): the four
    // `.mat` candidates absent in both (8 HEADs), the image absent in scenery/ and found above
    // (2 HEADs, 1 GET). The bytes are exactly those files'; the Range traffic is the scenery's alone.
    expect(stream.modelRequests).toBe(3 + 8 + 3);
    const size = (rel) => statSync(join(www, rel)).size;
    expect(stream.modelBytes).toBe(size('models/drzewa/sosna1.e3d') + size('krzaki/krzak1.t3d') + size('models/budynki/dom1.e3d') +
                                   size('textures/drzewa/components/kratka.dds'));
    expect(nginx.bytesSent('/scenery/gen.eu7')).toBe(stream.bytes);
    // The first impression: the nearest section, then its nearest model drawn with its texture,
    // before any other section was asked for.
    expect(stream.firstModelsSections).toBe(1);
    expect(stream.firstTextured, 'a model was drawn with its texture').not.toBeNull();
    expect(stream.firstTextured.sections).toBe(1);
    expect(stream.firstTextured.modelRequests).toBeGreaterThan(0);
    await expect.poll(() => page.$$eval('#missing-files li', (items) => items.some((li) => li.textContent.startsWith('budynki/dom1.t3d: ')))).toBe(true);
    // A streamed scenery's PACK models are reached from the view: the first object placing the file.
    const sosna = await page.evaluate(async (file) => {
      const { viewer: v, parser, lastResult } = window.sceneria;
      for (let id = 0; id < v.stats().objects; id++) {
        const o = v.object(id);
        if (o.kind !== 'pack_models') continue;
        const record = await parser.record(lastResult.doc, 'pack_models', o.index);
        if (record?.file === file && record.range_min < 5) return record;
      }
      return null;
    }, 'drzewa/sosna1.t3d');
    expect(sosna).not.toBeNull();
    expect(redShare(await view(page, sosna.location, 14))).toBeGreaterThan(0.001);
  } finally {
    nginx.stop();
  }
});

test('the pantograph dropped with its skin draws in the skin, its submodel tree in the outliner', async ({ page }) => {
  requireSamples();
  // e6acta_pantograf.e3d: every drawn submodel wears replaceable skin 3; a set "<name>,3.dds"
  // beside it gives it. Solid green, to be found in the pixels.
  const folder = join(mkdtempSync(join(tmpdir(), 'sceneria-pantograph-')), 'Pantograf');
  mkdirSync(folder);
  copyFileSync(join(samplesDir, 'maszyna/models/e6acta_pantograf.e3d'), join(folder, 'e6acta_pantograf.e3d'));
  writeFileSync(join(folder, 'zielony,3.dds'), solidDds(0x07E0));
  await openViewer(page);
  await page.setInputFiles('#folder-input', folder);
  await page.waitForFunction(() => window.sceneria.lastResult?.name === 'e6acta_pantograf.e3d');
  const summary = await page.evaluate(() => window.sceneria.lastResult.summary);
  expect(summary.skin_set).toBe('pantograf/zielony');
  expect(summary.textures_loaded).toBe(1);
  await expect(page.locator('#missing-files li')).toHaveCount(0);
  await page.evaluate(() => { window.sceneria.viewer.frameAll(); window.sceneria.viewer.renderFrame(); });
  const green = pixelShare(await framePixels(page), (r, g, b) => g > 120 && r < 60 && b < 60);
  expect(green).toBeGreaterThan(0.001);  // two thin pantographs framed whole: 0.4 % of the frame is the model

  // The outliner: the submodels as a tree, each row indented by its depth (the pan heads are
  // four levels under the root: pantograph, lower arm, upper arm, head).
  await page.selectOption('#record-kind', 'submodels');
  const rows = page.locator('#records .vl-row');
  await expect(rows).toHaveCount(13);
  const tree = await rows.evaluateAll((els) => els.map((el) => ({
    name: el.querySelector('.name').textContent, depth: Number(el.dataset.depth), indent: parseFloat(el.querySelector('.name').style.paddingLeft || '0'),
  })));
  expect(tree[0]).toEqual({ name: '(unnamed)', depth: 0, indent: 0 });  // the converter's extra root
  expect(tree.find((r) => r.name === 'pant2')).toEqual({ name: 'pant2', depth: 1, indent: 12 });
  expect(tree.find((r) => r.name === 'slizg_pant01')).toEqual({ name: 'slizg_pant01', depth: 4, indent: 48 });
  // A row opens its submodel in the inspector.
  await rows.filter({ hasText: 'slizg_pant01' }).click();
  await expect(page.locator('#inspector-title')).toContainText('slizg_pant01');
});
