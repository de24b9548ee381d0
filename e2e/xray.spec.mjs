// S.T.A.L.K.E.R. modders' SDK models: an .object dropped draws its surfaces (textured when its
// gamedata/textures are dropped with it), its meshes, surfaces and bones in the outliner.
import { mkdirSync, mkdtempSync, copyFileSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, expect, requireSamples, openViewer, samplesDir, framePixels, solidDds, isNotSky, frameChange, countDiffering, pixelShare } from './helpers.mjs';


test('test_fmt_vmrefs.object dropped with its texture draws green where the texture is; its bones and surfaces in the outliner', async ({ page }) => {
  requireSamples();
  test.setTimeout(120_000);
  const root = mkdtempSync(join(tmpdir(), 'sceneria-xray-'));
  const folder = join(root, 'gamedata');
  mkdirSync(join(folder, 'meshes'), { recursive: true });
  mkdirSync(join(folder, 'textures', 'item'), { recursive: true });
  copyFileSync(join(samplesDir, 'xray/test_fmt_vmrefs.object'), join(folder, 'meshes', 'test_fmt_vmrefs.object'));
  writeFileSync(join(folder, 'textures', 'item', 'sigaret.dds'), solidDds(0x07E0));
  await openViewer(page);

  // Alone: drawn in its placeholder colour.
  await page.setInputFiles('#file-input', join(folder, 'meshes', 'test_fmt_vmrefs.object'));
  await page.waitForFunction(() => window.sceneria.lastResult?.name === 'test_fmt_vmrefs.object');
  const lone = await page.evaluate(() => window.sceneria.lastResult.summary);
  expect(lone.counts).toMatchObject({ meshes: 1, surfaces: 1, faces: 2, points: 4, vmrefs: 6, bones: 2 });
  expect(lone.textures_loaded).toBe(0);
  await page.evaluate(() => { window.sceneria.viewer.frameAll(); window.sceneria.viewer.renderFrame(); });
  const plain = await framePixels(page);
  const green = (px) => pixelShare(px, (r, g, b) => g > 150 && r < 80 && b < 80);
  expect(pixelShare(plain, (r, g, b) => isNotSky([r, g, b]))).toBeGreaterThan(0.01);
  expect(green(plain)).toBeLessThan(0.001);

  // With gamedata/textures: the surface's item\sigaret found, green.
  await page.setInputFiles('#folder-input', folder);
  await page.waitForFunction(() => window.sceneria.lastResult?.name === 'test_fmt_vmrefs.object' && window.sceneria.lastResult.summary.textures_loaded === 1);
  await expect(page.locator('#missing-files li')).toHaveCount(0);
  await page.evaluate(() => { window.sceneria.viewer.frameAll(); window.sceneria.viewer.renderFrame(); });
  const textured = await framePixels(page);
  // Measured: the model covers 2.9 % of the frame, 2.8 % of it green.
  expect(green(textured)).toBeGreaterThan(0.02);

  // The outliner: the bones by depth, the surface with its texture; a row opens its record.
  await page.selectOption('#record-kind', 'bones');
  const bones = page.locator('#records .vl-row');
  await expect(bones).toHaveCount(2);
  const tree = await bones.evaluateAll((els) => els.map((el) => [el.querySelector('.name').textContent, Number(el.dataset.depth)]));
  expect(tree).toEqual([['joint1', 0], ['joint2', 1]]);
  await page.selectOption('#record-kind', 'surfaces');
  const surface = page.locator('#records .vl-row').first();
  await expect(surface).toContainText('sigaret_S');
  await surface.click();
  await expect(page.locator('#inspector-title')).toContainText('sigaret_S');
  await expect(page.locator('#record-fields th:text-is("texture") + td')).toHaveText('item\\sigaret');
  await expect(page.locator('#record-fields th:text-is("game_material") + td')).toHaveText('default_object');
  await expect(page.locator('#record-fields th:text-is("shader") + td')).toHaveText('models\\model');

  // A click on the model opens its mesh.
  const hit = await page.evaluate(() => {
    const v = window.sceneria.viewer;
    const s = v.stats();
    for (let y = 0; y < s.height; y += 8)
      for (let x = 0; x < s.width; x += 8) {
        const h = v.pick(x, y);
        if (h && h.kind === 'meshes') return { x, y, index: h.index };
      }
    return null;
  });
  expect(hit).not.toBeNull();
  const box = await page.locator('#canvas').boundingBox();
  await page.mouse.click(box.x + hit.x, box.y + hit.y);
  await expect(page.locator('#inspector-title')).toContainText('Meshes #0 · testShape');
});

test('the bones of test_fmt_bones.object are drawn as lines over the model, and a click on one opens it', async ({ page }) => {
  requireSamples();
  test.setTimeout(120_000);
  await openViewer(page);
  await page.setInputFiles('#file-input', join(samplesDir, 'xray/test_fmt_bones.object'));
  await page.waitForFunction(() => window.sceneria.lastResult?.name === 'test_fmt_bones.object');
  await page.evaluate(() => { window.sceneria.viewer.frameAll(); window.sceneria.viewer.renderFrame(); });
  // The lines are the scene's only static geometry: switching that layer off takes them away.
  const lines = await frameChange(page, 'static');
  expect(lines).toBeGreaterThan(0.0001);  // measured: 0.026 % of the frame, about 146 pixels of 1-pixel lines
  // Over the model (drawn after it, without depth): by the middle of bone_child's segment, from
  // bone_root's head to its own, the picker finds bone_child.
  const hit = await page.evaluate(() => {
    const v = window.sceneria.viewer;
    const heads = [];
    for (let id = 0; id < v.stats().objects; ++id) {
      const o = v.object(id);
      if (o.kind === 'bones') heads[o.index] = o;
    }
    const p = v.project((heads[0].x + heads[1].x) / 2, (heads[0].y + heads[1].y) / 2, (heads[0].z + heads[1].z) / 2);
    if (!p) return null;
    // The line is one pixel wide: the pixel it crosses near the projected point.
    for (let r = 0; r <= 4; ++r)
      for (let dy = -r; dy <= r; ++dy)
        for (let dx = -r; dx <= r; ++dx) {
          if (Math.max(Math.abs(dx), Math.abs(dy)) !== r) continue;
          const x = Math.round(p.x) + dx, y = Math.round(p.y) + dy;
          const h = v.pick(x, y);
          if (h && h.kind === 'bones') return { x, y, index: h.index };
        }
    return null;
  });
  expect(hit).not.toBeNull();
  const box = await page.locator('#canvas').boundingBox();
  await page.mouse.click(box.x + hit.x, box.y + hit.y);
  expect(hit.index).toBe(1);
  await expect(page.locator('#inspector-title')).toContainText('Bones #1 · bone_child');
});

// test_fmt_sg_new.object turned half a turn about x (each point (x, y, z) to (x, -y, -z): a
// rotation, so windings stay): the corners whose normals CoP and SoC read differently then face
// the viewer's light, which in the file as it is they face away from.
function turnedTetrahedron(bytes) {
  const out = Buffer.from(bytes);
  const chunks = (from, to) => {
    const list = [];
    for (let at = from; at + 8 <= to;) {
      const id = out.readUInt32LE(at), size = out.readUInt32LE(at + 4);
      list.push({ id, body: at + 8, end: at + 8 + size });
      at += 8 + size;
    }
    return list;
  };
  const object = chunks(0, out.length).find((c) => c.id === 0x7777);
  const meshes = chunks(object.body, object.end).find((c) => c.id === 0x0910);
  const mesh = chunks(meshes.body, meshes.end)[0];
  const verts = chunks(mesh.body, mesh.end).find((c) => c.id === 0x1005);
  const count = out.readUInt32LE(verts.body);
  for (let p = 0; p < count; ++p) {
    const at = verts.body + 4 + p * 12;
    out.writeFloatLE(-out.readFloatLE(at + 4), at + 4);
    out.writeFloatLE(-out.readFloatLE(at + 8), at + 8);
  }
  return out;
}

test('a CoP object read as SoC is shaded otherwise, from the page\'s smoothing choice', async ({ page }) => {
  requireSamples();
  test.setTimeout(120_000);
  const file = join(mkdtempSync(join(tmpdir(), 'sceneria-xray-')), 'turned.object');
  writeFileSync(file, turnedTetrahedron(readFileSync(join(samplesDir, 'xray/test_fmt_sg_new.object'))));
  await openViewer(page);
  await page.setInputFiles('#file-input', file);
  await page.waitForFunction(() => window.sceneria.lastResult?.name === 'turned.object');
  const summary = await page.evaluate(() => window.sceneria.lastResult.summary);
  expect(summary.smoothing).toBe('automatic');
  expect(summary.smoothing_detected).toBe('cop');
  await expect(page.locator('#choice-smoothing')).toBeVisible();
  await expect(page.locator('#choice-smoothing option')).toHaveText(['automatic (CoP)', 'SoC: equal groups are smooth', 'CoP: hard-edge bits']);
  await expect(page.locator('#choice-smoothing')).toHaveValue('automatic');
  // Seen from four sides, the same views each time.
  const views = async () => {
    const out = [];
    for (const yaw of [0, 90, 180, 270]) {
      await page.evaluate((yaw) => { const v = window.sceneria.viewer; v.setOrbit(0, 0, 0, 5, yaw, 25); v.renderFrame(); }, yaw);
      out.push(await framePixels(page));
    }
    return out;
  };
  const differing = (a, b) => a.reduce((n, px, i) => n + countDiffering(px, b[i], 24), 0) / a.reduce((n, px) => n + px.length / 4, 0);
  const cop = await views();
  expect(cop.every((px) => pixelShare(px, (r, g, b) => isNotSky([r, g, b])) > 0.01)).toBe(true);
  await page.selectOption('#choice-smoothing', 'soc');
  await page.waitForFunction(() => window.sceneria.lastResult?.summary.smoothing === 'soc');
  const soc = await views();
  expect(differing(cop, soc)).toBeGreaterThan(0.002);  // measured: 1.4 % of the four views' pixels
  // Back to automatic: CoP's pixels again.
  await page.selectOption('#choice-smoothing', 'automatic');
  await page.waitForFunction(() => window.sceneria.lastResult?.summary.smoothing === 'automatic');
  expect(differing(cop, await views())).toBe(0);
});
