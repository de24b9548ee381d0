// The renderer's materials, on a scene made for it (src/scene/material_board.hpp): textured parts
// (RGBA8 and BC1 blocks), alpha mask, alpha blend, one- and two-sided faces, checked by the real
// WebGL2 pixels where each board projects.
import { test, expect, openViewer, dropFile, sample, requireSamples, differenceAt, referencePackModels } from './helpers.mjs';

const red = ([r, g, b]) => r > 100 && g < 50 && b < 50;
const green = ([r, g, b]) => g > 100 && r < 50 && b < 50;
const blue = ([r, g, b]) => b > 100 && r < 50 && g < 50;
const yellow = ([r, g, b]) => r > 100 && g > 100 && b < 50;

test('textured, masked, blended and two-sided parts draw as their materials say', async ({ page }) => {
  await openViewer(page);
  const px = await page.evaluate(() => {
    const v = window.sceneria.viewer;
    const error = v.loadScene(v.materialBoard());
    if (error) return { error };
    // First a frame where only the blended boards (x = 30) are near enough to draw: their mesh
    // gets the instance buffer's first room. The view below draws every board, so the rooms are
    // laid out anew and each mesh must find its instances where they are now.
    v.setOrbit(30, 10, 0, 5, 0, 0);
    v.setDistances(6000, 12);
    v.renderFrame();
    const alone = v.stats().meshesDrawn;
    v.setDistances(6000, 2500);
    v.setOrbit(0, 10, 0, 110, 0, 0);  // from +Z, looking at the boards' faces
    const at = (x, y) => {
      const p = v.project(x, y, 0);
      return p ? [...v.readPixels(Math.round(p.x), Math.round(p.y), 1, 1)].slice(0, 3) : null;
    };
    const quadrants = (cx, cy) => [at(cx - 2, cy + 2), at(cx + 2, cy + 2), at(cx - 2, cy - 2), at(cx + 2, cy - 2)];
    const shown = {
      rgba: quadrants(-30, 4), bc1: quadrants(-10, 4), twoSidedBack: quadrants(-10, 16),
      oneSidedBack: [at(-30, 16), at(10, 16), at(30, 16)],
      maskCut: at(8, 4), maskKept: at(12, 4), blend: at(30, 4),
    };
    v.setLayers(true, false);  // the same points without the boards: the background
    const background = { oneSidedBack: [at(-30, 16), at(10, 16), at(30, 16)], maskCut: at(8, 4), blend: at(30, 4) };
    v.setLayers(true, true);
    // Picking follows the materials: nothing through the cut-out, the board where it is kept.
    const pickAt = (x, y) => { const p = v.project(x, y, 0); return v.pick(Math.round(p.x), Math.round(p.y)); };
    const picks = { maskCut: pickAt(6.5, 4), maskKept: pickAt(12, 4), blend: pickAt(30, 4) };
    v.renderFrame();
    return { shown, background, picks, stats: v.stats(), alone };
  });
  expect(px.error).toBeUndefined();
  expect(px.alone).toBe(1);
  const { shown, background, picks } = px;
  // Texture top-left red, top-right green, bottom-left blue, bottom-right yellow, from pixels and from blocks.
  for (const [name, q] of [['RGBA8', shown.rgba], ['BC1', shown.bc1]]) {
    expect(red(q[0]), `${name} top-left ${q[0]}`).toBe(true);
    expect(green(q[1]), `${name} top-right ${q[1]}`).toBe(true);
    expect(blue(q[2]), `${name} bottom-left ${q[2]}`).toBe(true);
    expect(yellow(q[3]), `${name} bottom-right ${q[3]}`).toBe(true);
  }
  // The two-sided board turned away shows its texture mirrored; one-sided ones turned away are culled.
  const back = shown.twoSidedBack;
  expect(green(back[0]) && red(back[1]) && yellow(back[2]) && blue(back[3]), `two-sided back ${JSON.stringify(back)}`).toBe(true);
  shown.oneSidedBack.forEach((c, i) => expect(c, `one-sided back ${i}`).toEqual(background.oneSidedBack[i]));
  // Mask: the cut-out half is the background, the kept half white (lit).
  expect(shown.maskCut).toEqual(background.maskCut);
  expect(Math.min(...shown.maskKept)).toBeGreaterThan(140);
  // Blend: half way between the background and the same red drawn opaque (the RGBA8 board's
  // top-left texel: same normal, same light).
  for (let c = 0; c < 3; c++) {
    const expected = (shown.rgba[0][c] + background.blend[c]) / 2;
    expect(Math.abs(shown.blend[c] - expected), `blend channel ${c}: ${shown.blend} vs ${expected}`).toBeLessThan(12);
  }
  expect(picks.maskCut).toBeNull();
  expect(picks.maskKept).toMatchObject({ kind: 'boards', index: 4 });
  expect(picks.blend).toMatchObject({ kind: 'boards', index: 6 });
  // One draw per part over its instances: 4 meshes of one part each (their culling alternates in
  // mesh order, so each is a call of its own even when draws are gathered), plus the sky and the
  // ground grid (the boards bring no ground).
  expect(px.stats.meshesDrawn).toBe(4);
  expect(px.stats.drawCalls).toBe(6);
});

// Textures live in arrays by shape, each on a texture unit; an array that found no unit free is
// drawn part by part, bound on an override unit. Both ways must show the same pixels.
test('textures in arrays without a texture unit draw part by part, and look the same', async ({ page }) => {
  await openViewer(page);
  const runs = await page.evaluate(() => {
    const v = window.sceneria.viewer;
    const error = v.loadScene(v.materialBoard());
    if (error) return { error };
    v.setDistances(6000, 2500);
    v.setOrbit(0, 10, 0, 110, 0, 0);
    let first = null;
    const view = (units) => {
      v.setTextureUnits(units);
      v.renderFrame();
      const s = v.stats();
      const pixels = v.readPixels(0, 0, s.width, s.height);
      first ??= pixels.slice();
      let differ = 0, board = 0;
      for (let i = 0; i < pixels.length; i += 4) {
        if (Math.abs(pixels[i] - first[i]) + Math.abs(pixels[i + 1] - first[i + 1]) + Math.abs(pixels[i + 2] - first[i + 2]) > 6) differ++;
        if (pixels[i] > 100 && pixels[i + 1] < 50 && pixels[i + 2] < 50) board++;  // the textures' red quarters
      }
      return { units, differ, board, draws: s.modelDraws, parts: s.partsDrawn, textured: s.partsTextured, arrays: s.textureArrays, meshes: s.meshesDrawn };
    };
    return { runs: [view(12), view(1), view(0), view(12)] };
  });
  expect(runs.error).toBeUndefined();
  const [all, one, none, back] = runs.runs;
  expect(all.arrays, 'RGBA8 and BC1 textures: arrays of their own').toBeGreaterThanOrEqual(2);
  expect(all.textured).toBeGreaterThanOrEqual(2);
  expect(all.board, 'the textures are on screen').toBeGreaterThan(200);
  // Every unit given: one draw per mesh (each board is one run). None: one per part.
  expect(all.draws).toBe(all.meshes);
  expect(none.draws).toBe(none.parts);
  expect(none.draws).toBeGreaterThan(0);
  expect(one.draws).toBeGreaterThanOrEqual(all.draws);
  for (const run of [one, none, back]) {
    expect(run.textured, `${run.units} units`).toBe(all.textured);
    expect(run.differ, `${run.units} units: pixels unlike the frame with every unit`).toBe(0);
  }
});

// Every mesh lives in a shared slab (render/mesh_pool) and a slab's draws go in one call
// (WEBGL_multi_draw, the lists copied out of the shared heap): the frames must be those of one call
// a draw, and stay so frame after frame (with the heap's own views the page drew a frame wrong now
// and then).
test('draws gathered into one call show what one call a draw shows, frame after frame', async ({ page }) => {
  await openViewer(page);
  const r = await page.evaluate(() => {
    const v = window.sceneria.viewer;
    const error = v.loadScene(v.materialBoard());
    if (error) return { error };
    v.setDistances(6000, 2500);
    v.setOrbit(0, 10, 0, 110, 0, 0);
    const frame = () => {
      v.renderFrame();
      const s = v.stats();
      return { s, pixels: v.readPixels(0, 0, s.width, s.height) };
    };
    const differ = (a, b) => {
      let n = 0;
      for (let i = 0; i < a.length; i += 4) if (a[i] !== b[i] || a[i + 1] !== b[i + 1] || a[i + 2] !== b[i + 2]) n++;
      return n;
    };
    const extension = Boolean(document.createElement('canvas').getContext('webgl2')?.getExtension('WEBGL_multi_draw'));
    const single = v.setMultiDraw(false);
    const one = frame();
    const gathering = v.setMultiDraw(true);
    const first = frame();
    let wrong = 0, board = 0;
    for (let i = 0; i < first.pixels.length; i += 4)
      if (first.pixels[i] > 100 && first.pixels[i + 1] < 50 && first.pixels[i + 2] < 50) board++;
    for (let k = 0; k < 300; k++) if (differ(frame().pixels, first.pixels)) wrong++;
    return {
      extension, single, gathering, board, wrong, differ: differ(one.pixels, first.pixels),
      one: { calls: one.s.drawCalls, draws: one.s.modelDraws, multi: one.s.multiDraw },
      gathered: { calls: first.s.drawCalls, draws: first.s.modelDraws, multi: first.s.multiDraw, slabs: first.s.meshSlabs, meshes: first.s.meshesDrawn },
    };
  });
  expect(r.error).toBeUndefined();
  expect(r.extension, "this Chromium's WebGL2 has WEBGL_multi_draw").toBe(true);
  expect(r.single).toBe(false);
  expect(r.gathering).toBe(true);
  expect(r.one.multi).toBe(false);
  expect(r.gathered.multi).toBe(true);
  expect(r.board, 'the textures are on screen').toBeGreaterThan(200);
  // The four boards' meshes share one slab: the same draws, gathered between changes of culling
  // (one-sided and two-sided boards alternate here, so no fewer calls; e2e/scale.spec.mjs counts
  // the calls where hundreds of meshes draw alike).
  expect(r.gathered.meshes).toBe(4);
  expect(r.gathered.slabs).toBe(1);
  expect(r.gathered.draws).toBe(r.one.draws);
  expect(r.gathered.calls).toBeLessThanOrEqual(r.one.calls);
  expect(r.differ, 'pixels unlike one call a draw').toBe(0);
  expect(r.wrong, 'frames of 300 unlike the first').toBe(0);
});

test('far-away model proxies keep a few pixels on screen instead of vanishing', async ({ page }) => {
  requireSamples();
  const rel = 'maszyna/eu7/wrapinc_linia053.v9-pack6.eu7';
  await openViewer(page);
  await dropFile(page, 'pack.eu7', sample(rel));
  const [model] = referencePackModels(rel);
  // A 4 m proxy 1,500 m away is under 2 pixels tall; drawn at least 4 pixels, it shows.
  const far = await differenceAt(page, model.loc, 1500, 'models', 6);
  expect(far.projected).toBe(true);
  expect(far.differ, `pixels of the proxy at 1.5 km: ${far.differ}`).toBeGreaterThanOrEqual(10);
  // Close by, it is its own size (the minimum does not inflate it).
  const near = await differenceAt(page, model.loc, 60, 'models', 40);
  expect(near.differ).toBeGreaterThan(far.differ);
});

test('a ground grid is drawn where the scenery has no terrain, and not where it has', async ({ page }) => {
  requireSamples();
  await openViewer(page);
  const gridPixels = () => page.evaluate(() => {
    const v = window.sceneria.viewer;
    v.startView();
    v.setOrbit(...(() => { const c = v.camera(); return [...c.target, c.distance, c.yaw, 0.35]; })());
    const s = v.stats();
    const on = v.readPixels(0, 0, s.width, s.height);
    v.setGrid(false);
    const off = v.readPixels(0, 0, s.width, s.height);
    v.setGrid(true);
    let n = 0;
    for (let i = 0; i < on.length; i += 4)
      if (Math.abs(on[i] - off[i]) + Math.abs(on[i + 1] - off[i + 1]) + Math.abs(on[i + 2] - off[i + 2]) > 24) n++;
    return n / (on.length / 4);
  });
  // The demo's ground (its ground tiles, once loaded) covers the grid.
  await page.waitForFunction(() => window.sceneria.models?.done, null, { timeout: 90_000 });
  expect(await gridPixels()).toBeLessThan(0.0005);
  // The PACK sample is models only (no terrain, no ground shapes): the grid is its ground.
  await dropFile(page, 'pack.eu7', sample('maszyna/eu7/wrapinc_linia053.v9-pack6.eu7'));
  expect(await gridPixels()).toBeGreaterThan(0.005);
  // TD.v6 draws its own ground as shapes: the grid lies beneath it, out of sight.
  await dropFile(page, 'TD.v6.eu7', sample('maszyna/eu7/TD.v6.eu7'));
  expect(await gridPixels()).toBeLessThan(0.0005);
});
