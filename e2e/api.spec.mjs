// The JS API in the browser (api/sceneria.mjs in a Web Worker), through its example page: a file
// chosen, converted with progress, downloaded, and the download validated; the page stays
// responsive meanwhile (a timer keeps ticking), and a bad file says why.
import { readFileSync } from 'node:fs';
import validator from 'gltf-validator';
import { test, expect, requireSamples, sample, samplesDir } from './helpers.mjs';
import { join } from 'node:path';

test('the API example page converts a dropped module to glTF in a worker', async ({ page }) => {
  requireSamples();
  await page.goto('/examples/convert.html');
  await page.setInputFiles('#file', join(samplesDir, 'maszyna/eu7/wrapinc_linia053.v9-pack6.eu7'));
  await expect(page.locator('#out')).toHaveText('EU7B v9, 7 chunks, 77 PACK models');
  await page.evaluate(() => { window.ticks = 0; setInterval(() => window.ticks++, 10); });
  await page.selectOption('#to', 'glb');
  await page.click('#go');
  const link = page.locator('#out a');
  await expect(link).toHaveText(/^download wrapinc_linia053\.v9-pack6\.glb \(/);
  const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
  const bytes = readFileSync(await download.path());
  const report = await validator.validateBytes(new Uint8Array(bytes));
  expect(report.issues.numErrors).toBe(0);
  expect(report.issues.numWarnings).toBe(0);
  const json = JSON.parse(bytes.subarray(20, 20 + bytes.readUInt32LE(12)).toString('utf8'));
  const instances = json.nodes.filter((n) => n.extensions).reduce((sum, n) => sum + json.accessors[n.extensions.EXT_mesh_gpu_instancing.attributes.TRANSLATION].count, 0);
  const single = json.nodes.filter((n) => n.mesh !== undefined && !n.extensions && n.name !== 'geometry').length;
  expect(instances + single).toBe(77);
  expect(await page.evaluate(() => window.ticks)).toBeGreaterThan(0);

  // OBJ: a ZIP with the .mtl; then a file that is no scenery: its name and why, as text.
  await page.selectOption('#to', 'obj');
  await page.click('#go');
  await expect(page.locator('#out a')).toHaveText(/^download wrapinc_linia053\.v9-pack6\.zip \(/);
  await page.setInputFiles('#file', { name: '<b>bad</b>.eu7', mimeType: 'application/octet-stream', buffer: Buffer.from('EU7B\x09\x00\x00\x00junk') });
  await expect(page.locator('#out')).toContainText('<b>bad</b>.eu7: ');
  expect(await page.locator('#out b').count()).toBe(0);
});
