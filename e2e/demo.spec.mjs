// The first impression: the page opens on the railway the core generates (a text scenery folder
// with models, textures and a train), and every example of the gallery opens and draws as the
// same files dropped would. The demo's first frame is the README's screenshot (docs/demo.png).
import { fileURLToPath } from 'node:url';
import { expect, frameChange, openViewer, test } from './helpers.mjs';

const screenshot = fileURLToPath(new URL('../docs/demo.png', import.meta.url));

// The demo with its visuals staged and every model loaded.
async function demoLoaded(page) {
  await openViewer(page);
  await page.waitForFunction(() => window.sceneria.models?.done && window.sceneria.staged?.done !== false, null, { timeout: 90_000 });
  await expect(page.locator('#missing-files li')).toHaveCount(0);
}

// For each object kind: the share of the frame that changes when its objects are left out, and
// the colours those pixels have when shown. Objects of a kind need not be one id range (a staged
// section adds its own): each range is left out in turn and a pixel counts if any changes it.
function kindsOnScreen(page, kinds) {
  return page.evaluate((kinds) => {
    const v = window.sceneria.viewer;
    v.renderFrame();
    const s = v.stats();
    const shown = v.readPixels(0, 0, s.width, s.height);
    const ranges = {};
    for (let id = 0; id < s.objects; id++) {
      const k = v.object(id)?.kind;
      if (!kinds.includes(k)) continue;
      const r = (ranges[k] ||= []);
      if (r.length && r[r.length - 1][0] + r[r.length - 1][1] === id) r[r.length - 1][1]++;
      else r.push([id, 1]);
    }
    const out = {};
    for (const k of kinds) {
      const mask = new Uint8Array(shown.length / 4);
      for (const [first, count] of ranges[k] || []) {
        v.hide(first, count);
        const hidden = v.readPixels(0, 0, s.width, s.height);
        for (let i = 0; i < shown.length; i += 4)
          if (Math.abs(shown[i] - hidden[i]) + Math.abs(shown[i + 1] - hidden[i + 1]) + Math.abs(shown[i + 2] - hidden[i + 2]) > 24) mask[i / 4] = 1;
      }
      v.hide(-1, 0);
      // How much neighbouring pixels of the kind differ: a texture's detail, where flat colours
      // and fog change smoothly.
      let pixels = 0, detail = 0, pairs = 0, blue = 0, green = 0;
      for (let p = 0; p < mask.length; p++) {
        if (!mask[p]) continue;
        pixels++;
        const [r, g, b] = [shown[4 * p], shown[4 * p + 1], shown[4 * p + 2]];
        if (b > r + 40 && b > g) blue++;
        if (g > r + 25 && g > b + 10) green++;
        if (p % s.width + 1 < s.width && mask[p + 1]) {
          detail += Math.abs(r - shown[4 * p + 4]) + Math.abs(g - shown[4 * p + 5]) + Math.abs(b - shown[4 * p + 6]);
          pairs++;
        }
      }
      out[k] = { ranges: (ranges[k] || []).length, share: pixels / mask.length, detail: pairs ? detail / pairs : 0, blue: blue / Math.max(1, pixels),
                 green: green / Math.max(1, pixels) };
    }
    return out;
  }, kinds);
}

test('the demo opens as a railway: rails, wires, textured models and a train in its first frame', async ({ page }) => {
  await demoLoaded(page);
  const result = await page.evaluate(() => window.sceneria.lastResult);
  expect(result.name).toBe('demo.scn');
  const counts = Object.fromEntries(result.lists.map((l) => [l.id, l.count]));
  expect(counts).toMatchObject({ tracks: 24, traction: 112, dynamics: 4, trainsets: 1 });
  expect(counts.models).toBeGreaterThan(600);  // portals, platforms, the station, the ground, trees
  const models = await page.evaluate(() => window.sceneria.models);
  expect(models.failed).toBe(0);
  expect(models.loaded).toBe(9);  // every model file it names, the two vehicles' included
  // The view the page starts on, taken again after the loads moved nothing.
  await page.evaluate(async () => {
    const [demo] = await window.sceneria.parser.examples();
    window.sceneria.viewer.setOrbit(...demo.view);
  });
  const on = await kindsOnScreen(page, ['tracks', 'traction', 'models', 'dynamics']);
  console.log(`[demo] ${JSON.stringify(on)}`);
  expect(on.tracks.share).toBeGreaterThan(0.01);     // rails and ballast
  expect(on.traction.share).toBeGreaterThan(0.001);  // the wires over both tracks
  // The ground tiles over the far terrain's flat green, the station, platforms, trees; textured:
  // a texture's detail between neighbouring pixels, where flat colours change smoothly.
  // (Measured: 16 % of the frame, detail 8.3 and 7.7 % leaf- or grass-green; with the models'
  // textures left out, detail 5.3 and no green at all: the untextured ground is its material's white.)
  expect(on.models.share).toBeGreaterThan(0.08);
  expect(on.models.detail).toBeGreaterThan(6.5);
  expect(on.models.green).toBeGreaterThan(0.03);
  expect(on.dynamics.share).toBeGreaterThan(0.004);  // the train
  expect(on.dynamics.blue + on.dynamics.green).toBeGreaterThan(0.3);  // in its liveries
  await expect(page.locator('#demo-line')).toBeVisible();
  await page.screenshot({ path: screenshot });
});

test('the welcome names what the page reads and what to drop with it, and folds away for the user\'s own file', async ({ page }) => {
  await openViewer(page);
  const accepts = page.locator('#accepts li');
  expect(await accepts.count()).toBeGreaterThanOrEqual(10);
  await expect(accepts.filter({ hasText: 'Hard Truck B3D module' })).toContainText('.res');
  await expect(accepts.filter({ hasText: 'MaSzyna text scenery' })).toContainText('folder');
  await expect(page.locator('#welcome')).toHaveAttribute('open', '');
  await page.setInputFiles('#file-input', { name: 'one.scn', mimeType: 'text/plain',
    buffer: Buffer.from('node -1 0 t track normal 100 1.435 0.25 25 20 0 flat vis a 4 b 0.2 2.75 2.5\n0 0 0 0\n0 0 0\n0 0 0\n0 0 100 0\n0\nendtrack\n') });
  await page.waitForFunction(() => window.sceneria.lastResult?.name === 'one.scn');
  await expect(page.locator('#welcome')).not.toHaveAttribute('open', '');
  await expect(page.locator('#demo-line')).toBeHidden();
});

test('every example of the gallery opens as its files dropped would, and draws', async ({ page }) => {
  test.setTimeout(240_000);
  await openViewer(page);
  const examples = await page.evaluate(() => window.sceneria.parser.examples());
  expect(examples.map((e) => e.id)).toEqual(expect.arrayContaining(['railway', 'twin', 'module', 'e3d', 't3d', 'vehicle', 'dds', 'b3d', 'xray']));
  for (const example of examples.slice(1)) {
    const first = await page.evaluate(async (id) => (await window.sceneria.parser.exampleFiles(id))[0].path.split('/').pop(), example.id);
    await page.click(`#gallery [data-example="${example.id}"]`);
    await page.waitForFunction((n) => window.sceneria.lastResult?.name === n && window.sceneria.lastResult.ok &&
                               window.sceneria.models?.done !== false && window.sceneria.staged?.done !== false, first, { timeout: 90_000 });
    await expect(page.locator('#missing-files li'), example.id).toHaveCount(0);
    await expect(page.locator('#error'), example.id).toBeHidden();
    const drawn = await frameChange(page, 'all');
    console.log(`[gallery] ${example.id}: ${first}, ${(100 * drawn).toFixed(1)} % of the frame`);
    expect(drawn, `${example.id} draws`).toBeGreaterThan(0.005);
  }
});
