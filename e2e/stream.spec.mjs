// Opening a scenery by URL: the header by Range requests, sections streamed as the camera moves,
// share links that restore the view, and servers that misbehave.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { test, expect } from './helpers.mjs';
import { startFaultServer } from './fault-server.mjs';
import { startNginx } from './nginx.mjs';

const PORT = 8142;
let server, file, size;

// The faulty server's 500s are provoked on purpose; aborted requests are sections the camera (or
// the next link) no longer needs, cancelled by design.
test.use({ allowedErrorPattern: /status of (500|416)|HTTP (500|416) http:\/\/127\.0\.0\.1:8142\/|8142\/\w+\/line\.eu7 net::ERR_ABORTED/ });

test.beforeAll(async () => {
  file = join(mkdtempSync(join(tmpdir(), 'sceneria-stream-')), 'line.eu7');
  execFileSync(resolve('build/native/sceneria'), ['generate', file, '--models', '2200000', '--seed', '4']);
  size = statSync(file).size;
  server = await startFaultServer(file, PORT);
});
test.afterAll(() => server?.close());
test.beforeEach(async () => { await fetch(`http://127.0.0.1:${PORT}/reset`); });

const link = (path, extra = '') => `/#v=1&src=${encodeURIComponent(`http://127.0.0.1:${PORT}/${path}/line.eu7`)}${extra}`;
const serverStats = async () => (await fetch(`http://127.0.0.1:${PORT}/stats`)).json();

async function waitStreamed(page, resident) {
  await page.waitForFunction((n) => (window.sceneria.stream?.resident ?? 0) >= n, resident, { timeout: 60_000 });
}

test('opened by URL: the first frame after fetching under 2% of the file, then sections stream in', async ({ page }) => {
  expect(size).toBeGreaterThan(100_000_000);
  await page.goto(link('ok'));
  await page.waitForFunction(() => window.sceneria?.lastResult?.ok && window.sceneria.viewer, null, { timeout: 60_000 });
  const open = await page.evaluate(() => window.sceneria.lastResult.stream);
  expect(open.size).toBe(size);
  expect(open.bytes / size).toBeLessThan(0.02);  // the header pass: everything but PACK
  // The first frame is drawn from the header alone (tracks, terrain), before any section.
  const first = await page.evaluate(() => { const v = window.sceneria.viewer; v.renderFrame(); return v.stats(); });
  expect(first.triangles).toBeGreaterThan(1000);
  await waitStreamed(page, 20);
  const s = await page.evaluate(() => ({ stream: window.sceneria.stream, viewer: window.sceneria.viewer.stats() }));
  // The minimap shows the PIDX grid: loaded sections in green around the camera's red dot.
  await expect(page.locator('#minimap')).toBeVisible();
  await page.waitForTimeout(600);  // the map is redrawn from a grid the worker sends every 8 ticks
  const map = await page.evaluate(() => {
    const c = document.getElementById('minimap');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let green = 0, red = 0, grey = 0;
    for (let i = 0; i < d.length; i += 4) {
      if (d[i] === 0x3f && d[i + 1] === 0xae && d[i + 2] === 0x5a) green++;
      if (d[i] === 0xff && d[i + 1] === 0x40 && d[i + 2] === 0x40) red++;
      if (d[i] === 0x4a && d[i + 1] === 0x53 && d[i + 2] === 0x5c) grey++;
    }
    return { green, red, grey };
  });
  expect(map.green).toBeGreaterThan(20);  // 20+ resident sections, a cell of 2 x 2 pixels or more each
  expect(map.grey).toBeGreaterThan(map.green);  // most of the 100 MB scenery is not loaded
  expect(map.red).toBeGreaterThan(3);
  expect(s.viewer.instances).toBeGreaterThan(1000);
  expect(s.stream.bytes).toBeLessThan(size / 2);  // never the whole file
  // A streamed model can be inspected like any other.
  const streamed = await page.evaluate(() => {
    const v = window.sceneria.viewer;
    for (let id = v.stats().objects - 1; id >= 0; id--) {
      const o = v.object(id);
      if (o.kind === 'pack_models') return o;
    }
    return null;
  });
  expect(streamed).not.toBeNull();
  await page.evaluate((o) => window.sceneria.inspect(o.kind, o.index, { object: o.id }), streamed);
  await expect(page.locator('#inspector-title')).toContainText(`PACK models #${streamed.index.toLocaleString('en-US')}`);
  const location = await page.locator('#record-fields dt:has-text("location") + dd').textContent();
  expect(Number(location.split(',')[0])).toBeCloseTo(streamed.x, 1);
  // Neighbouring sections are fetched together: fewer reads than sections.
  expect(s.stream.reads).toBeLessThan(s.stream.sectionsRequested);
  const served = await serverStats();
  expect(served.ok.bytes).toBeLessThanOrEqual(s.stream.bytes + 4 * 65536 + 10_000_000);  // in-flight slack
  expect(served.ok.maxConcurrent).toBeLessThanOrEqual(4);
});

test('sections decode on worker threads; model names load after the view and then show', async ({ page }) => {
  test.setTimeout(150_000);
  await page.goto(link('ok'));
  await page.waitForFunction(() => window.sceneria?.lastResult?.ok && window.sceneria.viewer, null, { timeout: 60_000 });
  await waitStreamed(page, 5);
  const early = await page.evaluate(() => window.sceneria.stream);
  // The first frame needs the header's strings only, not the names of a million models.
  expect(early.strings[1]).toBeGreaterThan(50_000);
  expect(early.strings[0]).toBeLessThan(early.strings[1] / 10);
  // Every applied section was decoded by the pool's pthreads, not the worker's own thread.
  expect(early.decodedOffThread).toBeGreaterThanOrEqual(early.applied);
  // Once the sections around the camera are in, the names follow (1 MiB pieces).
  await page.waitForFunction(() => { const s = window.sceneria.stream; return s.strings[0] === s.strings[1]; }, null,
                             { timeout: 120_000 });
  const named = await page.evaluate(async () => {
    const { viewer: v, parser, lastResult } = window.sceneria;
    for (let id = v.stats().objects - 1, tried = 0; id >= 0 && tried < 3000; id--) {
      const o = v.object(id);
      if (o.kind !== 'pack_models') continue;
      tried++;
      const r = await parser.record(lastResult.doc, 'pack_models', o.index);
      if (r?.name) return { ...o, name: r.name };
    }
    return null;
  });
  expect(named).not.toBeNull();
  expect(named.name).toMatch(/^(bud|obj)_\d+$/);
  await page.evaluate((o) => window.sceneria.inspect(o.kind, o.index, { object: o.id }), named);
  await expect(page.locator('#record-fields dt:text-is("name") + dd')).toHaveText(named.name);
  const s = await page.evaluate(() => window.sceneria.stream);
  expect(s.bytes).toBeLessThan(size / 2);
});

test('flying 10 km loads new sections and evicts old ones; memory stays bounded', async ({ page }) => {
  test.setTimeout(150_000);
  await page.goto(link('ok'));
  await page.waitForFunction(() => window.sceneria?.lastResult?.ok && window.sceneria.viewer, null, { timeout: 60_000 });
  // Few instances on screen keep SwiftShader's frames short; what is streamed does not change.
  await page.evaluate(() => window.sceneria.viewer.setDistances(6000, 500));
  // Start in the middle of the 65 km scenery, so sections behind the camera exist to be evicted.
  const start = [0, 0, 30_000];
  await page.evaluate(([x, y, z]) => window.sceneria.viewer.lookAt(x, y, z, 350), start);
  await page.waitForFunction(() => (window.sceneria.stream?.applied ?? 0) >= 60, null, { timeout: 60_000 });
  let maxResident = 0;
  for (let km = 1; km <= 10; km++) {
    await page.evaluate(({ x, y, z }) => window.sceneria.viewer.lookAt(x, y, z, 350), { x: start[0], y: start[1], z: start[2] + km * 1000 });
    await page.waitForTimeout(1500);
    maxResident = Math.max(maxResident, await page.evaluate(() => window.sceneria.stream.resident));
  }
  const s = await page.evaluate(() => window.sceneria.stream);
  expect(s.evicted).toBeGreaterThan(20);            // the start area was dropped
  expect(s.applied).toBeGreaterThan(s.evicted);     // and new sections came in
  // The bound stated in docs/streaming.md: a (2 x 11 + 1)² square plus the look-ahead.
  expect(maxResident).toBeLessThanOrEqual(23 * 23 + 4 * 23);
  const rendered = await page.evaluate(() => { const v = window.sceneria.viewer; v.renderFrame(); return v.stats(); });
  expect(rendered.instances).toBeGreaterThan(100);  // models around the destination
});

test('a share link reopens the same view', async ({ page, browser }) => {
  test.setTimeout(200_000);
  await page.goto(link('ok'));
  await page.waitForFunction(() => window.sceneria?.lastResult?.ok && window.sceneria.viewer, null, { timeout: 60_000 });
  await page.evaluate(() => window.sceneria.viewer.setOrbit(120.5, 0, 800.25, 180, 0.7, 0.45));
  await page.click('#share');
  const shared = await page.locator('#share-link').inputValue();
  expect(shared).toContain('#v=1&src=');
  expect(shared).toContain('cam=120.5%2C0%2C800.25%2C180%2C0.7%2C0.45');
  const other = await browser.newPage({ viewport: { width: 1200, height: 750 } });
  await other.goto(shared);
  await other.waitForFunction(() => window.sceneria?.lastResult?.ok && window.sceneria.viewer, null, { timeout: 60_000 });
  for (const p of [page, other]) await p.evaluate(() => window.sceneria.viewer.setDistances(6000, 500));
  const a = await page.evaluate(() => window.sceneria.viewer.camera());
  const b = await other.evaluate(() => window.sceneria.viewer.camera());
  for (const k of ['target', 'eye']) for (let i = 0; i < 3; i++) expect(b[k][i]).toBeCloseTo(a[k][i], 3);
  expect(b.distance).toBeCloseTo(a.distance, 6);
  // Same view, same pixels once both have streamed the same sections around it.
  const settle = (p) => p.waitForFunction(() => window.sceneria.stream && window.sceneria.stream.inFlight === 0 &&
                                           window.sceneria.stream.ready === 0 && window.sceneria.stream.resident > 20, null, { timeout: 120_000 });
  await settle(page);
  await settle(other);
  const pixels = (p) => p.evaluate(() => { const v = window.sceneria.viewer; const s = v.stats(); return Array.from(v.readPixels(0, 0, s.width, s.height)); });
  const pa = await pixels(page), pb = await pixels(other);
  expect(pb.length).toBe(pa.length);
  let differ = 0;
  for (let i = 0; i < pa.length; i += 4) if (Math.abs(pa[i] - pb[i]) + Math.abs(pa[i + 1] - pb[i + 1]) + Math.abs(pa[i + 2] - pb[i + 2]) > 30) differ++;
  expect(differ / (pa.length / 4)).toBeLessThan(0.01);
  await other.close();
});

test('bad link values are ignored with a notice', async ({ page }) => {
  await page.goto(link('ok', '&cam=1,2,nope&sel=%3Cb%3E&zoom=3'));
  await page.waitForFunction(() => window.sceneria?.lastResult?.ok, null, { timeout: 60_000 });
  await expect(page.locator('#notice')).toContainText('the camera in the link is not valid and was ignored');
  await expect(page.locator('#notice')).toContainText('the selection in the link is not valid and was ignored');
  await expect(page.locator('#notice')).toContainText("unknown link field 'zoom' ignored");
  expect(await page.locator('header b').count()).toBe(0);
});

test('short bodies, 500s and a server ignoring Range are survived', async ({ page }) => {
  for (const path of ['short', 'flaky']) {
    await page.goto(link(path));
    await page.waitForFunction(() => window.sceneria?.lastResult?.ok, null, { timeout: 60_000 });
    await waitStreamed(page, 10);
  }
  await page.goto(link('norange'));
  await page.waitForFunction(() => window.sceneria?.lastResult?.ok, null, { timeout: 60_000 });
  await waitStreamed(page, 10);
  await expect(page.locator('#notice')).toContainText('ignores HTTP Range');
});

test('a big dropped file is read by slices, never whole', async ({ page }) => {
  await page.goto('/');
  await page.waitForFunction(() => window.sceneria?.viewer && window.sceneria.lastResult);
  await page.setInputFiles('#file-input', file);
  await page.waitForFunction(() => window.sceneria.lastResult?.name === 'line.eu7', null, { timeout: 60_000 });
  const open = await page.evaluate(() => window.sceneria.lastResult.stream);
  expect(open.url).toBeNull();
  expect(open.bytes / size).toBeLessThan(0.02);
  await waitStreamed(page, 10);
  const s = await page.evaluate(() => window.sceneria.stream);
  expect(s.bytes).toBeLessThan(size / 4);
  expect(await page.evaluate(() => window.sceneria.shareLink())).toBeNull();  // a local file has no URL to share
});

test('served by nginx: the first frame after under 2% of the file, counted by nginx itself', async ({ page }) => {
  const nginx = await startNginx(dirname(file), 8143);
  try {
    await page.goto(`/#v=1&src=${encodeURIComponent('http://127.0.0.1:8143/line.eu7')}`);
    await page.waitForFunction(() => window.sceneria?.lastResult?.ok && window.sceneria.viewer, null, { timeout: 60_000 });
    // nginx logs a response when it is done; give the log a moment.
    await page.waitForTimeout(300);
    const atOpen = await page.evaluate(() => window.sceneria.lastResult.stream.bytes);
    expect(atOpen / size).toBeLessThan(0.02);
    await waitStreamed(page, 10);
    const s = await page.evaluate(() => window.sceneria.stream);
    await page.waitForTimeout(500);
    const sent = nginx.bytesSent('/line.eu7');
    expect(sent).toBeGreaterThanOrEqual(atOpen);
    expect(sent).toBeLessThan(size / 4);           // server-side: nowhere near the whole file
    expect(Math.abs(sent - s.bytes)).toBeLessThan(16 * 1024 * 1024);  // the page's count agrees (in-flight aside)
    expect(s.notices).toEqual([]);                 // nginx serves Range: no whole-file fallback
  } finally {
    nginx.stop();
  }
});

test('the file changing on the server (new ETag) drops the caches and reloads once', async ({ page }) => {
  await page.goto(link('changing'));
  await page.waitForFunction(() => window.sceneria?.lastResult?.ok && window.sceneria.viewer, null, { timeout: 60_000 });
  await expect(page.locator('#notice')).toContainText('the file changed on the server while it was open: reloaded');
  await waitStreamed(page, 10);  // and streaming goes on against the new version
  await page.waitForTimeout(1000);
  expect(await page.evaluate(() => window.sceneria.reloads)).toBe(1);
});
