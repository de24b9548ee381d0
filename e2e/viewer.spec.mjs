// The viewer: a scenery drawn in WebGL2 (real pixels), picking, inspector, outliner and camera.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test, expect, requireSamples, openViewer, dropFile, sample, samplesDir } from './helpers.mjs';

const cli = resolve('build/native/sceneria');
const tmp = () => mkdtempSync(join(tmpdir(), 'sceneria-e2e-'));

// Names of TRAK/TRAC records straight from the CLI's JSON dump (an independent path).
function recordNames(file, id) {
  const doc = JSON.parse(execFileSync(cli, ['dump', file], { maxBuffer: 256 << 20 }).toString());
  const text = (s) => (typeof s === 'string' ? s : s.cp1250 ?? s.hex);
  return doc.chunks.filter((c) => c.id === id).flatMap((c) => c.records)
    .map((r) => (r.node.name === undefined ? '' : text(doc.strings[r.node.name])));
}

async function loadSample(page, rel) {
  await openViewer(page);
  await dropFile(page, rel.split('/').pop(), sample(rel));
  await page.waitForFunction(() => window.sceneria.viewer.stats().sectionsTotal > 0);
}

// Camera on a world point; returns the point's canvas position and the pixels around it.
async function lookAndRead(page, point, distance, radius = 3) {
  return page.evaluate(({ point, distance, radius }) => {
    const v = window.sceneria.viewer;
    v.lookAt(point.x, point.y, point.z, distance);
    v.renderFrame();
    const p = v.project(point.x, point.y, point.z);
    const px = v.readPixels(Math.round(p.x) - radius, Math.round(p.y) - radius, 2 * radius + 1, 2 * radius + 1);
    const colors = [];
    for (let i = 0; i < px.length; i += 4) colors.push([px[i], px[i + 1], px[i + 2]]);
    return { p, colors, stats: v.stats() };
  }, { point, distance, radius });
}

test('TD.v6: tracks and catenary are drawn where they are, and the view matches its screenshot', async ({ page }) => {
  requireSamples();
  await loadSample(page, 'maszyna/eu7/TD.v6.eu7');
  const stats = await page.evaluate(() => window.sceneria.viewer.stats());
  expect(stats.objects).toBe(87 + 115 + 62);
  expect(stats.sectionsTotal).toBe(14);

  // A track with ballast: warm grey (ballast or rail) at its midpoint, never sky blue.
  const doc = await page.evaluate(() => window.sceneria.lastResult.doc);
  let track = -1;
  for (let i = 0; i < 87 && track < 0; i++) {
    const r = await page.evaluate(({ doc, i }) => window.sceneria.parser.record(doc, 'tracks', i), { doc, i });
    if (r.has_visibility && r.paths.length === 1 && r.type === 1) track = i;
  }
  expect(track).toBeGreaterThanOrEqual(0);
  const anchor = await page.evaluate((i) => window.sceneria.viewer.object(window.sceneria.viewer.findObject('tracks', i)), track);
  const ballast = await lookAndRead(page, anchor, 25, 1);
  for (const [r, g, b] of ballast.colors) {
    expect(r).toBeGreaterThanOrEqual(b);       // not sky (blue-dominant)
    expect(r + g + b).toBeGreaterThan(120);    // lit, not a hole
    expect(r + g + b).toBeLessThan(560);
  }

  // A traction span: the contact wire's copper colour passes through its midpoint.
  const wire = await page.evaluate(() => window.sceneria.viewer.object(window.sceneria.viewer.findObject('traction', 0)));
  const w = await lookAndRead(page, wire, 12, 3);
  expect(w.colors.some(([r, g, b]) => r > g + 25 && g > b + 15)).toBe(true);

  // The whole scenery from its start view, compared with a reference image (SwiftShader is
  // deterministic; the tolerance absorbs antialiasing differences).
  await page.evaluate(() => { window.sceneria.viewer.startView(); window.sceneria.viewer.renderFrame(); });
  await expect(page.locator('#canvas')).toHaveScreenshot('td-v6-start.png', { maxDiffPixelRatio: 0.02 });
});

test('clicking a track in the view selects it and the inspector shows its name', async ({ page }) => {
  requireSamples();
  const file = join(samplesDir, 'maszyna/eu7/TD.v6.eu7');
  const names = recordNames(file, 'TRAK');
  await loadSample(page, 'maszyna/eu7/TD.v6.eu7');
  const index = names.findIndex((n) => n.length > 0);
  const anchor = await page.evaluate((i) => window.sceneria.viewer.object(window.sceneria.viewer.findObject('tracks', i)), index);
  const { p } = await lookAndRead(page, anchor, 30);
  const box = await page.locator('#canvas').boundingBox();
  await page.mouse.click(box.x + p.x, box.y + p.y);
  await expect(page.locator('#inspector')).toBeVisible();
  await expect(page.locator('#inspector-title')).toHaveText(`Tracks #${index} · ${names[index]}`);
  await expect(page.locator('#drive-here')).toBeVisible();
  // Drive from it: the camera rides along the track.
  await page.click('#drive-here');
  const before = await page.evaluate(() => window.sceneria.viewer.camera());
  expect(before.mode).toBe('drive');
  const after = await page.evaluate(() => { const v = window.sceneria.viewer; v.update(2.0, false, false); return v.camera(); });
  const moved = Math.hypot(after.eye[0] - before.eye[0], after.eye[2] - before.eye[2]);
  expect(moved).toBeGreaterThan(30);  // 20 m/s for 2 s, along the curve
  expect(moved).toBeLessThan(41);
});

test('a generated 1,000,000-model scenery renders with one draw per visible mesh; search and go to', async ({ page }) => {
  test.setTimeout(180_000);
  const file = join(tmp(), 'million.eu7');
  execFileSync(cli, ['generate', file, '--models', '1000000', '--seed', '11']);
  await openViewer(page);
  await page.setInputFiles('#file-input', file);
  await page.waitForFunction(() => window.sceneria.lastResult?.name === 'million.eu7', null, { timeout: 120_000 });
  await page.waitForFunction(() => window.sceneria.viewer.stats().objects > 1_000_000, null, { timeout: 60_000 });
  const stats = await page.evaluate(() => {
    const v = window.sceneria.viewer;
    v.setDistances(6000, 900);  // keep SwiftShader's frame small; culling is what is tested
    v.lookAt(-500, 0, 1500, 400);
    v.renderFrame();
    return v.stats();
  });
  expect(stats.instances).toBeGreaterThan(1000);
  expect(stats.meshesDrawn).toBeLessThanOrEqual(stats.meshes);
  // Sky + each visible section's static batches (at most 2) + one draw per visible mesh.
  expect(stats.drawCalls).toBeLessThanOrEqual(1 + 2 * stats.sectionsDrawn + stats.meshesDrawn);
  expect(stats.drawCalls).toBeLessThan(stats.instances / 20);
  expect(stats.sectionsDrawn).toBeLessThan(stats.sectionsTotal);
  const pixels = await page.evaluate(() => { const v = window.sceneria.viewer; const s = v.stats(); return Array.from(v.readPixels(0, 0, s.width, s.height)); });
  const colours = new Set();
  for (let i = 0; i < pixels.length; i += 16) colours.add((pixels[i] >> 3) << 10 | (pixels[i + 1] >> 3) << 5 | pixels[i + 2] >> 3);
  expect(colours.size).toBeGreaterThan(40);

  // Outliner: find a named building (blocks of flats are named bud_<serial>), select it, go to it.
  await page.fill('#search', 'bud_');
  await expect(page.locator('#search-status')).toHaveText(/^\d[\d,]*\+? match/, { timeout: 60_000 });
  const firstName = await page.locator('#records .vl-row .name').first().textContent();
  expect(firstName).toMatch(/^bud_\d+$/);
  await page.locator('#records .vl-row').first().click();
  await expect(page.locator('#inspector-title')).toContainText(firstName);
  const record = await page.evaluate(() => new Promise((done) => {
    document.addEventListener('sceneria:record', (e) => done(e.detail.record), { once: true });
    window.sceneria.recordList.select(0);
  }));
  await page.click('#go-to');
  const cam = await page.evaluate(() => window.sceneria.viewer.camera());
  expect(cam.mode).toBe('orbit');
  for (let k = 0; k < 3; k++) expect(cam.target[k]).toBeCloseTo(record.location[k], 2);
});

test('names containing HTML are shown as text in the outliner and the inspector', async ({ page }) => {
  const dir = tmp();
  const eu7 = join(dir, 'small.eu7'), json = join(dir, 'small.json'), evil = join(dir, 'evil.eu7');
  execFileSync(cli, ['generate', eu7, '--models', '200', '--seed', '3']);
  execFileSync(cli, ['dump', eu7, '-o', json]);
  const doc = JSON.parse(readFileSync(json, 'utf8'));
  const name = '<img src=x onerror="window.__pwned=1">';
  doc.strings[doc.strings.indexOf('t1_0000')] = name;
  writeFileSync(json, JSON.stringify(doc));
  execFileSync(cli, ['convert', json, evil]);
  await openViewer(page);
  await page.setInputFiles('#file-input', evil);
  await page.waitForFunction(() => window.sceneria.lastResult?.name === 'evil.eu7');
  await page.selectOption('#record-kind', 'tracks');
  await page.fill('#search', 'onerror');
  await expect(page.locator('#search-status')).toHaveText('1 match');
  await expect(page.locator('#records .vl-row .name').first()).toHaveText(name);
  await page.locator('#records .vl-row').first().click();
  await expect(page.locator('#inspector-title')).toHaveText(`Tracks #0 · ${name}`);
  expect(await page.locator('#panel img').count()).toBe(0);
  expect(await page.evaluate(() => window.__pwned)).toBeUndefined();
});

test('stats overlay, screenshot, help and camera modes', async ({ page }) => {
  await openViewer(page);
  await page.waitForFunction(() => window.sceneria.viewer.stats().objects > 5000);
  await page.click('#toggle-stats');
  await expect(page.locator('#stats')).toContainText('draw calls');
  await expect(page.locator('#stats')).toContainText(/sections\s+\d+ drawn of 1\d/);
  await expect(page.locator('#stats')).toContainText('camera      orbit');
  // The screenshot is the rendered view as a PNG, not a blank canvas.
  const download = page.waitForEvent('download');
  await page.click('#screenshot');
  const file = await download;
  expect(file.suggestedFilename()).toMatch(/^sceneria-.*\.png$/);
  const png = await page.evaluate(() => window.sceneria.screenshot());
  const bytes = Buffer.from(png.split(',')[1], 'base64');
  expect(bytes.subarray(1, 4).toString()).toBe('PNG');
  expect(bytes.length).toBeGreaterThan(20_000);  // a flat colour would compress to a few KB
  await page.keyboard.press('h');
  await expect(page.locator('#help')).toBeVisible();
  await page.keyboard.press('h');
  await expect(page.locator('#help')).toBeHidden();
  // Fly: W moves the eye forward along the view.
  await page.click('#mode-fly');
  await expect(page.locator('#mode-fly')).toHaveClass(/active/);
  const before = await page.evaluate(() => window.sceneria.viewer.camera());
  await page.locator('#canvas').focus();
  await page.keyboard.down('w');
  await page.waitForTimeout(600);
  await page.keyboard.up('w');
  const after = await page.evaluate(() => window.sceneria.viewer.camera());
  expect(after.mode).toBe('fly');
  const d = [0, 1, 2].map((k) => after.eye[k] - before.eye[k]);
  const along = d[0] * before.forward[0] + d[1] * before.forward[1] + d[2] * before.forward[2];
  expect(along).toBeGreaterThan(5);
  await page.keyboard.press('1');
  await expect(page.locator('#mode-orbit')).toHaveClass(/active/);
});
