// Foundation slice: a dropped file is parsed in the worker and shown; the C++ renderer draws.
import { randomBytes } from 'node:crypto';
import { test, expect, requireSamples, openViewer, dropFile, walkChunks, moduleWithStrings,
         shownChunks, sample, countDiffering, frameChange, framePixels } from './helpers.mjs';


test('page is cross-origin isolated, runs WebGL2 and opens the demo railway', async ({ page }) => {
  await openViewer(page);
  expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
  await expect(page.locator('#file-name')).toHaveText('demo.scn');
  const stats = await page.evaluate(() => window.sceneria.viewer.stats());
  expect(stats.width).toBeGreaterThan(600);
  expect(stats.objects).toBeGreaterThan(100);  // tracks and wires at once; models and trees staged after
  // A newcomer sees the railway at once: the start view is on the station (the demo's own view),
  // so its tracks and wires cover a real share of the first frame before any model has loaded.
  expect(await frameChange(page, 'static')).toBeGreaterThan(0.01);
});

test('the canvas shows the grid and axes (pixels read in the rendering frame)', async ({ page }) => {
  await openViewer(page);
  // The demo loaded whole: none of its staged pieces or models may arrive into the cleared view.
  await page.waitForFunction(() => window.sceneria.models?.done && window.sceneria.staged?.done !== false, null, { timeout: 90_000 });
  await page.evaluate(() => {
    const v = window.sceneria.viewer;
    v.clearScene();  // the grid is what an empty view shows
    v.lookAt(0, 0, 0, 180);
  });
  const stats = await page.evaluate(() => window.sceneria.viewer.stats());
  const grid = await framePixels(page);
  await page.evaluate(() => window.sceneria.viewer.setGrid(false));
  const bare = await framePixels(page);
  const { origin, xAxis, zAxis } = await page.evaluate(() => {
    const v = window.sceneria.viewer;
    v.setGrid(true);
    return { origin: v.project(0, 0, 0), xAxis: v.project(40, 0.02, 0), zAxis: v.project(0, 0.02, 40) };
  });
  const px = (x, y) => { const i = (Math.round(y) * stats.width + Math.round(x)) * 4; return [...grid.subarray(i, i + 3)]; };
  // A blank or solid canvas fails: the grid must change a real share of the pixels, not all.
  const changed = countDiffering(grid, bare, 12);
  const total = grid.length / 4;
  expect(changed / total).toBeGreaterThan(0.03);
  expect(changed / total).toBeLessThan(0.7);
  // The sky is the renderer's gradient, not the clear colour (one flat fog grey-blue): looking
  // level, the centre column is deep blue at the top, less blue row by row down to the horizon,
  // and the ground haze below darkens towards the bottom.
  const sky = await page.evaluate(() => {
    const v = window.sceneria.viewer;
    v.setGrid(false);
    v.setOrbit(0, 0, 0, 180, 0, 0);
    const s = v.stats();
    const px = v.readPixels(s.width >> 1, 0, 1, s.height);
    v.setGrid(true);
    return Array.from(px);
  });
  const column = (y) => sky.slice(4 * y, 4 * y + 3);
  const blueness = ([r, , b]) => b - r;
  const brightness = ([r, g, b]) => r + g + b;
  const mid = stats.height >> 1;
  expect(blueness(column(0))).toBeGreaterThan(blueness(column(mid - 4)) + 40);
  for (let y = 0; y + 20 < mid - 4; y += 20) expect(blueness(column(y))).toBeGreaterThanOrEqual(blueness(column(y + 20)));
  expect(brightness(column(mid + 10))).toBeGreaterThan(brightness(column(stats.height - 1)) + 30);
  for (let y = mid + 10; y + 20 < stats.height; y += 20) expect(brightness(column(y))).toBeGreaterThanOrEqual(brightness(column(y + 20)));
  // The origin is at the centre of the view, and the +X (red) and +Z (blue) axes are where the
  // camera projects them.
  expect(origin.x).toBeCloseTo(stats.width / 2, 0);
  expect(origin.y).toBeCloseTo(stats.height / 2, 0);
  for (const p of [xAxis, zAxis]) {
    expect(p.x).toBeGreaterThan(2); expect(p.x).toBeLessThan(stats.width - 2);
    expect(p.y).toBeGreaterThan(2); expect(p.y).toBeLessThan(stats.height - 2);
  }
  const near = (p, test) => {
    for (let dy = -1; dy <= 1; dy++) for (let dx = -1; dx <= 1; dx++) if (test(px(p.x + dx, p.y + dy))) return true;
    return false;
  };
  expect(near(xAxis, ([r, g, b]) => r > 200 && g < 120 && b < 120)).toBe(true);
  expect(near(zAxis, ([r, g, b]) => b > 200 && r < 150)).toBe(true);
});

test('dropping TD.v6.eu7 shows version 6 and its 9 chunks with the right offsets', async ({ page }) => {
  requireSamples();
  // Record what the page sends to and receives from its workers, by file name.
  await page.addInitScript(() => {
    window.__workerTraffic = [];
    const NativeWorker = window.Worker;
    window.Worker = class extends NativeWorker {
      constructor(...args) {
        super(...args);
        // The JS API's protocol (api/engine.mjs): {id, request: {op, ...}} out, {id, result | error} back.
        this.addEventListener('message', (e) => {
          const r = e.data?.result;
          if (r?.summary) window.__workerTraffic.push({ direction: 'from worker', name: window.__lastSent, size: r.summary.size, strings: r.summary.strings });
        });
      }
      postMessage(message, ...rest) {
        const request = message?.request;
        if (request?.op === 'open' && request.data instanceof Blob) {
          window.__lastSent = request.name;
          window.__workerTraffic.push({ direction: 'to worker', name: request.name, bytes: request.data.size });
        }
        return super.postMessage(message, ...rest);
      }
    };
  });
  const bytes = sample('maszyna/eu7/TD.v6.eu7');
  await openViewer(page);
  await dropFile(page, 'TD.v6.eu7', bytes);
  await expect(page.locator('#file-name')).toHaveText('TD.v6.eu7');
  await expect(page.locator('#file-format')).toHaveText('EU7B compiled MaSzyna scenery module, version 6');
  await expect(page.locator('#file-size')).toHaveText('42,520 bytes');
  await expect(page.locator('#file-strings')).toHaveText('305');
  const expected = walkChunks(bytes);
  expect(expected.map((c) => c.id)).toEqual(['STRS', 'INCL', 'TRAK', 'MESH', 'TRAC', 'DYNM', 'TRSE', 'EVNT', 'FINT']);
  expect(await shownChunks(page)).toEqual(expected);
  await expect(page.locator('#strings li').first()).toHaveText('ZwrP34R300.inc');
  await expect(page.locator('#strings li')).toHaveCount(200);
  await expect(page.locator('#error')).toBeHidden();
  // Parsed in the worker: the file went to the parse worker and its summary came back from it
  // (watched on the Worker's own messages, set up before the page's scripts ran).
  const traffic = await page.evaluate(() => window.__workerTraffic.filter((m) => m.name === 'TD.v6.eu7'));
  expect(traffic.map((m) => m.direction)).toEqual(['to worker', 'from worker']);
  expect(traffic[0].bytes).toBe(42520);
  expect(traffic[1].size).toBe(42520);
  expect(traffic[1].strings).toBe(305);
});

test('random bytes and a truncated EU7B show clear errors; a valid file still loads afterwards', async ({ page }) => {
  requireSamples();
  const td = sample('maszyna/eu7/TD.v6.eu7');
  await openViewer(page);

  await dropFile(page, 'noise.bin', randomBytes(4096));
  await expect(page.locator('#error')).toBeVisible();
  await expect(page.locator('#error-file')).toHaveText('noise.bin');
  await expect(page.locator('#error-message')).toContainText('unknown_format');
  await expect(page.locator('#error-message')).toContainText('not a recognised file (4096 bytes');
  // The demo open before stays open and on screen.
  await expect(page.locator('#file-info')).toBeVisible();
  await expect(page.locator('#file-name')).toHaveText('demo.scn');
  await expect(page.locator('#error-kept')).toContainText('Still showing demo.scn');

  await dropFile(page, 'noise.eu7', Buffer.concat([Buffer.from('XXXX'), randomBytes(100)]));
  await expect(page.locator('#error-message')).toContainText('not an EU7B file: magic at 0x0 is 58 58 58 58');

  // Cut inside TRAK (offset 9450, 11043 bytes long).
  await dropFile(page, 'TD-truncated.eu7', td.subarray(0, 12000));
  await expect(page.locator('#error-message')).toHaveText(
    'truncated at byte 9,450 (0x24ea): chunk TRAK at 0x24ea claims 11043 bytes but only 2550 remain');

  await dropFile(page, 'TD.v6.eu7', td);
  await expect(page.locator('#error')).toBeHidden();
  await expect(page.locator('#file-info')).toBeVisible();
  expect(await shownChunks(page)).toEqual(walkChunks(td));
  // The renderer kept running through all of it and draws the new file: its start view differs
  // from the same view with nothing drawn on a real share of the pixels.
  await page.evaluate(() => window.sceneria.viewer.startView());
  expect(await frameChange(page, 'all')).toBeGreaterThan(0.01);
});

test('a file picked with the file input opens, and a second file replaces the first', async ({ page }) => {
  requireSamples();
  await openViewer(page);
  const root = sample('maszyna/eu7/TD.v9-root.eu7');
  await page.setInputFiles('#file-input', { name: 'TD.v9-root.eu7', mimeType: 'application/octet-stream', buffer: root });
  await page.waitForFunction(() => window.sceneria.lastResult?.name === 'TD.v9-root.eu7');
  await expect(page.locator('#file-format')).toHaveText('EU7B compiled MaSzyna scenery module, version 9');
  const chunks = await shownChunks(page);
  expect(chunks.map((c) => c.id)).toEqual(['STRS', 'INCL', 'TRAK', 'MESH', 'PIDX', 'PROT', 'PACK', 'TRAC', 'DYNM', 'TRSE', 'EVNT', 'FINT']);
  expect(chunks[5]).toEqual({ id: 'PROT', offset: 30313, size: 8 });

  const allnodes = sample('maszyna/allnodes/allnodes.v9-root.eu7');
  await dropFile(page, 'allnodes.v9-root.eu7', allnodes);
  await expect(page.locator('#file-name')).toHaveText('allnodes.v9-root.eu7');
  expect(await shownChunks(page)).toEqual(walkChunks(allnodes));
  await expect(page.locator('#file-strings')).toHaveText('184');
  // CP1250 names are decoded for display.
  await expect(page.locator('#strings li', { hasText: 'plot/plot_Słup_A.t3d' })).toHaveCount(1);
});

test('names and strings from files are shown as text, never as HTML', async ({ page }) => {
  await openViewer(page);
  const evil = '<img src=x onerror="window.__pwned=1">';
  await dropFile(page, `${evil}.eu7`, moduleWithStrings([evil, '<b>bold</b>']));
  await expect(page.locator('#file-name')).toHaveText(`${evil}.eu7`);
  await expect(page.locator('#strings li').first()).toHaveText(evil);
  await dropFile(page, `${evil}.bin`, Buffer.from('nope'));
  await expect(page.locator('#error-file')).toHaveText(`${evil}.bin`);
  expect(await page.locator('#panel img, #panel b').count()).toBe(0);
  expect(await page.evaluate(() => window.__pwned)).toBeUndefined();
});
