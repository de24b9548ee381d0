// The static site build (npm run build:site) served by a plain static server that sends no
// COOP/COEP headers, as GitHub Pages does: the service worker it carries makes the page
// cross-origin isolated, so the threaded module starts, the demo draws, and a file still opens.
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import express from 'express';
import { test, expect, framePixels, dropFile, sample, requireSamples } from './helpers.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const port = 8151;

test('the static site runs from a host without COOP/COEP headers', async ({ page, context }) => {
  const out = join(mkdtempSync(join(tmpdir(), 'sceneria-site-')), 'dist');
  execFileSync('node', [join(root, 'scripts/build-site.mjs'), '--out', out], { stdio: 'pipe' });
  const app = express();
  app.use(express.static(out));
  const server = await new Promise((ok) => { const s = app.listen(port, '127.0.0.1', () => ok(s)); });
  try {
    // The first visit: the page waits while the service worker installs, then reloads itself
    // cross-origin isolated (what it logs on the way is its own page's business, not this test's).
    const visit = await context.newPage();
    const first = await visit.goto(`http://127.0.0.1:${port}/`);
    // The host really sends none of the headers: isolation comes from the service worker.
    expect(first.headers()['cross-origin-embedder-policy']).toBeUndefined();
    expect(first.headers()['cross-origin-opener-policy']).toBeUndefined();
    await visit.waitForFunction(() => window.crossOriginIsolated && window.sceneria?.lastResult?.name === 'demo.scn', null, { timeout: 60_000 });
    await visit.close();
    // Later visits are isolated from the start: no error at all, the demo drawn.
    await page.goto(`http://127.0.0.1:${port}/`);
    await page.waitForFunction(() => window.crossOriginIsolated && window.sceneria?.viewer && window.sceneria?.lastResult?.name === 'demo.scn',
                               null, { timeout: 60_000 });
    // The demo is drawn: a frame of many colours, not a blank canvas.
    const pixels = await framePixels(page);
    const colours = new Set();
    for (let i = 0; i < pixels.length; i += 16) colours.add((pixels[i] >> 3) << 10 | (pixels[i + 1] >> 3) << 5 | pixels[i + 2] >> 3);
    expect(colours.size).toBeGreaterThan(20);
    // The parse worker runs there too: a dropped module opens.
    requireSamples();
    await dropFile(page, 'td.eu7', sample('maszyna/eu7/TD.v6.eu7'));
    expect(await page.evaluate(() => window.sceneria.lastResult.lists.find((l) => l.id === 'tracks').count)).toBe(87);
  } finally {
    await new Promise((ok) => server.close(ok));
  }
});
