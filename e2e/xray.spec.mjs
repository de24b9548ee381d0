// S.T.A.L.K.E.R. modders' SDK models: an .object dropped draws its surfaces (textured when its
// gamedata/textures are dropped with it), its meshes, surfaces and bones in the outliner.
import { mkdirSync, mkdtempSync, copyFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, expect, requireSamples, openViewer, samplesDir, framePixels, solidDds, isNotSky } from './helpers.mjs';

const share = (px, test) => {
  let n = 0;
  for (let i = 0; i < px.length; i += 4) if (test(px[i], px[i + 1], px[i + 2])) n++;
  return n / (px.length / 4);
};

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
  const green = (px) => share(px, (r, g, b) => g > 150 && r < 80 && b < 80);
  expect(share(plain, (r, g, b) => isNotSky([r, g, b]))).toBeGreaterThan(0.01);
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
  await expect(page.locator('#record-fields dt:text-is("texture") + dd')).toHaveText('item\\sigaret');
  await expect(page.locator('#record-fields dt:text-is("game_material") + dd')).toHaveText('default_object');
  await expect(page.locator('#record-fields dt:text-is("shader") + dd')).toHaveText('models\\model');

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
