// Opening a scenery by URL: the header by Range requests, sections streamed as the camera moves,
// share links that restore the view, and servers that misbehave. Every test that streams checks
// that the streamed models are on screen where their section's records put them; the fly test
// also checks that they are gone once their section is evicted.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { test, expect, countDiffering, differenceAt, expectStreamedModelOnScreen, framePixels, isNotSky } from './helpers.mjs';
import { startFaultServer } from './fault-server.mjs';
import { startNginx } from './nginx.mjs';

const PORT = 8142;
const cli = resolve('build/native/sceneria');
let server, file, size, changed, changedSize, changedModels;

// The faulty server's 500s are provoked on purpose; aborted requests are sections the camera (or
// the next link) no longer needs, cancelled by design.
test.use({ allowedErrorPattern: /status of (500|416)|HTTP (500|416) http:\/\/127\.0\.0\.1:8142\/|8142\/\w+\/line\.eu7 net::ERR_ABORTED/ });

test.beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sceneria-stream-'));
  file = join(dir, 'line.eu7');
  execFileSync(cli, ['generate', file, '--models', '2200000', '--seed', '4']);
  size = statSync(file).size;
  // What /changing/ serves after its third answer: another scenery, so stale cached bytes show.
  changed = join(dir, 'line-v2.eu7');
  changedModels = 2300000;
  execFileSync(cli, ['generate', changed, '--models', String(changedModels), '--seed', '5']);
  changedSize = statSync(changed).size;
  server = await startFaultServer(file, PORT, { changed });
});
test.afterAll(() => server?.closeAll());
test.beforeEach(async () => { await fetch(`http://127.0.0.1:${PORT}/reset`); });

const link = (path, extra = '') => `/#v=1&src=${encodeURIComponent(`http://127.0.0.1:${PORT}/${path}/line.eu7`)}${extra}`;
const serverStats = async () => (await fetch(`http://127.0.0.1:${PORT}/stats`)).json();

// Opened: the page shows this scenery (`path` on the fault server, when given: a link changed in
// the same page replaces the previous scenery, whose result must not count).
async function opened(page, path = null) {
  await page.waitForFunction((path) => {
    const r = window.sceneria?.lastResult;
    return r?.ok && window.sceneria.viewer && (!path || r.stream?.url?.includes(`/${path}/`));
  }, path, { timeout: 60_000 });
}
async function waitStreamed(page, resident) {
  await page.waitForFunction((n) => (window.sceneria.stream?.resident ?? 0) >= n, resident, { timeout: 60_000 });
}
// The stream has caught up with the camera: ticks went on since `since`, nothing in flight or
// waiting to be applied, nothing held back.
async function waitSettled(page, since = 0) {
  await page.waitForFunction((t) => {
    const s = window.sceneria.stream;
    return s && s.ticks > t + 2 && s.inFlight === 0 && s.ready === 0 && !s.held;
  }, since, { timeout: 60_000 });
}

test('opened by URL: the first frame after fetching under 2% of the file, then sections stream in', async ({ page }) => {
  expect(size).toBeGreaterThan(100_000_000);
  await page.goto(link('ok'));
  await opened(page);
  const open = await page.evaluate(() => window.sceneria.lastResult.stream);
  expect(open.size).toBe(size);
  expect(open.bytes / size).toBeLessThan(0.02);  // the header pass: everything but PACK
  // The first frame is drawn from the header alone (tracks, terrain), before any section.
  const first = await page.evaluate(() => { const v = window.sceneria.viewer; v.renderFrame(); return v.stats(); });
  expect(first.triangles).toBeGreaterThan(1000);
  await waitStreamed(page, 20);
  // The minimap shows the PIDX grid: loaded sections in green around the camera's red dot. It is
  // redrawn from a grid the worker sends every 8 ticks: wait for one that shows them.
  const mapCounts = () => page.evaluate(() => {
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
  await expect(page.locator('#minimap')).toBeVisible();
  await expect.poll(async () => (await mapCounts()).green, { timeout: 20_000 }).toBeGreaterThan(20);  // 2 x 2 px or more per section
  const map = await mapCounts();
  expect(map.grey).toBeGreaterThan(map.green);  // most of the 100 MB scenery is not loaded
  expect(map.red).toBeGreaterThan(3);
  const s = await page.evaluate(() => ({ stream: window.sceneria.stream, viewer: window.sceneria.viewer.stats() }));
  expect(s.viewer.instances).toBeGreaterThan(1000);
  expect(s.stream.bytes).toBeLessThan(size / 2);  // never the whole file
  // Neighbouring sections are fetched together: fewer reads than sections.
  expect(s.stream.reads).toBeLessThan(s.stream.sectionsRequested);
  const served = await serverStats();
  expect(served.ok.bytes).toBeLessThanOrEqual(s.stream.bytes + 4 * 65536 + 10_000_000);  // in-flight slack
  expect(served.ok.maxConcurrent).toBeLessThanOrEqual(4);
  // A streamed model is drawn at its record's location, and can be inspected like any other.
  const { object: streamed, location } = await expectStreamedModelOnScreen(page);
  await page.evaluate((o) => window.sceneria.inspect(o.kind, o.index, { object: o.id }), streamed);
  await expect(page.locator('#inspector-title')).toContainText(`PACK models #${streamed.index.toLocaleString('en-US')}`);
  // Shown at float precision (the shortest decimal that reads back as the stored float), exact on hover.
  const shown = page.locator('#record-fields th:has-text("location") + td');
  expect((await shown.textContent()).split(',').map((x) => Math.fround(Number(x)))).toEqual(location);
  expect((await shown.getAttribute('title')).split(',').map(Number)).toEqual(location);
});

test('sections decode on worker threads; model names load after the view and then show', async ({ page }) => {
  test.setTimeout(150_000);
  await page.goto(link('ok'));
  await opened(page);
  await waitStreamed(page, 5);
  const early = await page.evaluate(() => window.sceneria.stream);
  // The first frame needs the header's strings only, not the names of a million models.
  expect(early.late[1]).toBeGreaterThan(50_000);
  expect(early.late[0]).toBeLessThan(early.late[1] / 10);
  // Every applied section was decoded by the pool's pthreads, not the worker's own thread.
  expect(early.decodedOffThread).toBeGreaterThanOrEqual(early.applied);
  // Once the sections around the camera are in, the names follow (1 MiB pieces).
  await page.waitForFunction(() => { const s = window.sceneria.stream; return s.late[0] === s.late[1]; }, null,
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
  await expect(page.locator('#record-fields th:text-is("name") + td')).toHaveText(named.name);
  const s = await page.evaluate(() => window.sceneria.stream);
  expect(s.bytes).toBeLessThan(size / 2);
  await expectStreamedModelOnScreen(page);
});

test('flying 10 km loads new sections and evicts old ones; evicted models leave the screen; memory stays bounded', async ({ page }) => {
  test.setTimeout(180_000);
  await page.goto(link('ok'));
  await opened(page);
  // Few instances on screen keep SwiftShader's frames short; what is streamed does not change.
  await page.evaluate(() => window.sceneria.viewer.setDistances(6000, 500));
  // Start in the middle of the 65 km scenery, so sections behind the camera exist to be evicted.
  const start = [0, 0, 30_000];
  await page.evaluate(([x, y, z]) => window.sceneria.viewer.lookAt(x, y, z, 350), start);
  await page.waitForFunction(() => (window.sceneria.stream?.applied ?? 0) >= 60, null, { timeout: 60_000 });
  // A model 3 km or more behind the start, on screen now: flying 10 km north takes it out of the
  // 11-section keep radius, so its section (PIDX grid: notes §5) will be evicted.
  const { location } = await expectStreamedModelOnScreen(page, { maxZ: start[2] - 3000 });
  const section = { row: Math.floor(location[2] / 1000 + 250), col: Math.floor(location[0] / 1000 + 250) };
  await page.evaluate(({ row, col }) => {
    window.__evicted = false;
    document.addEventListener('sceneria:evicted', (e) => {
      if (e.detail.sections.some((s) => s.row === row && s.col === col)) window.__evicted = true;
    });
  }, section);
  let maxResident = 0;
  for (let km = 1; km <= 10; km++) {
    const ticks = await page.evaluate(({ x, y, z }) => {
      window.sceneria.viewer.lookAt(x, y, z, 350);
      return window.sceneria.stream.ticks;
    }, { x: start[0], y: start[1], z: start[2] + km * 1000 });
    await waitSettled(page, ticks);
    maxResident = Math.max(maxResident, await page.evaluate(() => window.sceneria.stream.resident));
  }
  const s = await page.evaluate(() => window.sceneria.stream);
  expect(s.evicted).toBeGreaterThan(20);            // the start area was dropped
  expect(s.applied).toBeGreaterThan(s.evicted);     // and new sections came in
  // The bound stated in docs/streaming.md: a (2 x 11 + 1)² square plus the look-ahead.
  expect(maxResident).toBeLessThanOrEqual(23 * 23 + 4 * 23);
  const rendered = await page.evaluate(() => { const v = window.sceneria.viewer; v.renderFrame(); return v.stats(); });
  expect(rendered.instances).toBeGreaterThan(100);  // models around the destination
  await expectStreamedModelOnScreen(page);
  // The start model's section was evicted: with streaming paused (so nothing reloads it), its
  // place shows no model pixels at all.
  await page.waitForFunction(() => window.__evicted === true, null, { timeout: 30_000 });
  await page.evaluate(() => window.sceneria.pauseStreaming(true));
  const gone = await differenceAt(page, location, 40, 'models', 8);
  expect(gone.projected).toBe(true);
  expect(gone.differ).toBe(0);
});

test('a share link reopens the same view and selection', async ({ page, browser }) => {
  test.setTimeout(200_000);
  await page.goto(link('ok'));
  await opened(page);
  await page.evaluate(() => window.sceneria.viewer.setOrbit(120.5, 0, 800.25, 180, 0.7, 0.45));
  await page.evaluate(() => window.sceneria.inspect('tracks', 7, { highlight: true }));
  const title = await page.locator('#inspector-title').textContent();
  expect(title).toMatch(/^Tracks #7\b/);
  await page.click('#share');
  const shared = await page.locator('#share-link').inputValue();
  expect(shared).toContain('#v=1&src=');
  expect(shared).toContain('cam=120.5%2C0%2C800.25%2C180%2C0.7%2C0.45');
  expect(shared).toContain('sel=tracks%3A7');
  const other = await browser.newPage({ viewport: { width: 1200, height: 750 } });
  await other.goto(shared);
  await opened(other);
  // The selection comes back: the same record in the inspector.
  await expect(other.locator('#inspector-title')).toHaveText(title);
  for (const p of [page, other]) await p.evaluate(() => window.sceneria.viewer.setDistances(6000, 500));
  const a = await page.evaluate(() => window.sceneria.viewer.camera());
  const b = await other.evaluate(() => window.sceneria.viewer.camera());
  for (const k of ['target', 'eye']) for (let i = 0; i < 3; i++) expect(b[k][i]).toBeCloseTo(a[k][i], 3);
  expect(b.distance).toBeCloseTo(a.distance, 6);
  // Same view, same pixels once both have streamed the same sections around it.
  await waitSettled(page);
  await waitSettled(other);
  for (const p of [page, other]) await p.evaluate(() => window.sceneria.pauseStreaming(true));
  const pa = await framePixels(page), pb = await framePixels(other);
  expect(pb.length).toBe(pa.length);
  const differ = countDiffering(pa, pb, 30);
  let scenery = 0;
  for (let i = 0; i < pa.length; i += 4)
    if (isNotSky([pa[i], pa[i + 1], pa[i + 2]]) && isNotSky([pb[i], pb[i + 1], pb[i + 2]])) scenery++;
  // Two blank frames are equal too: the view must show the scenery (tracks, terrain, models).
  expect(scenery / (pa.length / 4)).toBeGreaterThan(0.05);
  expect(differ / (pa.length / 4)).toBeLessThan(0.01);
  await expectStreamedModelOnScreen(other);
  await other.close();
});

test.describe('link values', () => {
  test.use({ allowedErrorPattern: /\[sceneria\] (the camera in the link|the selection in the link|unknown link field)/ });

  test('bad link values are ignored with a notice', async ({ page }) => {
    await page.goto(link('ok', '&cam=1,2,nope&sel=%3Cb%3E&zoom=3'));
    await opened(page);
    await expect(page.locator('#notice')).toContainText('the camera in the link is not valid and was ignored');
    await expect(page.locator('#notice')).toContainText('the selection in the link is not valid and was ignored');
    await expect(page.locator('#notice')).toContainText("unknown link field 'zoom' ignored");
    expect(await page.locator('header b').count()).toBe(0);
    await waitStreamed(page, 5);
    await expectStreamedModelOnScreen(page);
  });
});

test('short bodies, 500s and a server ignoring Range are survived', async ({ page }) => {
  for (const path of ['short', 'flaky', 'norange']) {
    await page.goto(link(path));
    await opened(page, path);
    await waitStreamed(page, 10);
    await expectStreamedModelOnScreen(page);
    // The faults happened and were retried, never given up on.
    const served = (await serverStats())[path];
    expect(served.requests).toBeGreaterThan(path === 'norange' ? 0 : 2);
  }
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
  await expectStreamedModelOnScreen(page);
});

test('served by nginx: the first frame after under 2% of the file, counted by nginx itself', async ({ page }) => {
  const nginx = await startNginx(dirname(file), 8143);
  try {
    await page.goto(`/#v=1&src=${encodeURIComponent('http://127.0.0.1:8143/line.eu7')}`);
    await opened(page);
    const atOpen = await page.evaluate(() => window.sceneria.lastResult.stream.bytes);
    expect(atOpen / size).toBeLessThan(0.02);
    // nginx logs a response once it is sent: wait for the log to hold the header pass.
    await expect.poll(() => nginx.bytesSent('/line.eu7')).toBeGreaterThanOrEqual(atOpen);
    await waitStreamed(page, 10);
    await expectStreamedModelOnScreen(page);
    await page.evaluate(() => window.sceneria.pauseStreaming(true));
    const s = await page.evaluate(() => window.sceneria.stream);
    // The page's count and nginx's agree once what was in flight is logged.
    await expect.poll(() => Math.abs(nginx.bytesSent('/line.eu7') - s.bytes)).toBeLessThan(16 * 1024 * 1024);
    expect(nginx.bytesSent('/line.eu7')).toBeLessThan(size / 4);  // server-side: nowhere near the whole file
    expect(s.notices).toEqual([]);                 // nginx serves Range: no whole-file fallback
  } finally {
    nginx.stop();
  }
});

test('the file changing on the server (new ETag, new bytes) drops the caches and reloads once', async ({ page }) => {
  await page.goto('/');
  await page.waitForFunction(() => window.sceneria?.viewer && window.sceneria.lastResult);
  const reloaded = page.evaluate(() => new Promise((done) => {
    document.addEventListener('sceneria:loaded', (e) => { if (e.detail.reloaded) done(e.detail); });
  }));
  await page.evaluate((url) => { location.hash = url.slice(1); }, link('changing'));
  const result = await reloaded;
  // The reopened scenery is the new file, not a mix with cached bytes of the old one.
  expect(result.ok).toBe(true);
  expect(result.stream.size).toBe(changedSize);
  expect(result.summary.size).toBe(changedSize);
  await expect(page.locator('#notice')).toContainText('the file changed on the server while it was open: reloaded');
  await waitStreamed(page, 10);  // and streaming goes on against the new version, without errors
  await expectStreamedModelOnScreen(page);
  const s = await page.evaluate(() => window.sceneria.stream);
  expect(s.size).toBe(changedSize);
  expect(await page.evaluate(() => window.sceneria.reloads)).toBe(1);
  const models = await page.evaluate(() => window.sceneria.lastResult.summary.counts.pack_models);
  expect(models).toBe(changedModels);
});

test('a weak ETag that changes is not a changed file', async ({ page }) => {
  await page.goto(link('weaketag'));
  await opened(page);
  await waitStreamed(page, 10);
  await expectStreamedModelOnScreen(page);
  expect(await page.evaluate(() => window.sceneria.reloads)).toBeUndefined();
  expect((await serverStats()).weaketag.requests).toBeGreaterThan(3);
});

test.describe('servers that fail', () => {
  test.use({ allowedErrorPattern: /status of (404|503)|HTTP (404|503) http:\/\/127\.0\.0\.1:8142\/|8142\/\w+\/line\.eu7 net::ERR_ABORTED/ });

  // Opens `path` with a short timeout and checks the error shown; the viewer keeps working and
  // the next scenery opens.
  async function expectOpenError(page, path, message, requests) {
    await page.goto('/');
    await page.waitForFunction(() => window.sceneria?.viewer && window.sceneria.lastResult?.ok);
    const url = `http://127.0.0.1:${PORT}/${path}/line.eu7`;
    await page.evaluate((u) => window.sceneria.openUrl(u, null, { fetch: { timeoutMs: 800 } }), url);
    await page.waitForFunction(() => window.sceneria.lastResult?.name === 'line.eu7', null, { timeout: 60_000 });
    await expect(page.locator('#error')).toBeVisible();
    await expect(page.locator('#error-file')).toHaveText('line.eu7');
    await expect(page.locator('#error-message')).toContainText(message);
    expect((await serverStats())[path].requests).toBe(requests);
    // The viewer keeps working: the next scenery streams and its models are drawn.
    await page.goto(link('ok'));
    await opened(page, 'ok');
    await waitStreamed(page, 5);
    await expectStreamedModelOnScreen(page);
  }

  test('a wrong Content-Range is retried, then a clear error', async ({ page }) => {
    await expectOpenError(page, 'wrongrange', "Content-Range 'bytes 1-16384/", 4);
  });
  test('a 206 without Content-Range is retried, then a clear error', async ({ page }) => {
    await expectOpenError(page, 'nocontentrange', 'a 206 answer without Content-Range for bytes 0-16383', 4);
  });
  test('repeated 5xx: retries run out', async ({ page }) => {
    await expectOpenError(page, 'down', 'HTTP 503 reading bytes 0-16383 (gave up after 4 attempts)', 4);
  });
  test('404 is not retried', async ({ page }) => {
    await expectOpenError(page, 'missing', 'HTTP 404 reading bytes 0-16383', 1);
  });
  test('a server that never answers times out', async ({ page }) => {
    await expectOpenError(page, 'hang', 'no answer within 800 ms reading bytes 0-16383 (gave up after 4 attempts)', 4);
  });
  test('a src URL containing HTML is shown as text, never as HTML', async ({ page }) => {
    const name = '<img src=x onerror="window.__pwned=1">.eu7';
    const url = `http://127.0.0.1:${PORT}/missing/${encodeURIComponent(name)}`;
    await page.goto(`/#v=1&src=${encodeURIComponent(url)}`);
    await page.waitForFunction(() => window.sceneria?.lastResult && window.sceneria.lastResult.ok === false, null, { timeout: 30_000 });
    await expect(page.locator('#error-file')).toHaveText(name);
    await expect(page.locator('#error-message')).toContainText('HTTP 404');
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.evaluate(() => window.__pwned)).toBeUndefined();
  });

  test('a new link while the previous one hangs replaces it (the old reads are aborted)', async ({ page }) => {
    await page.goto(link('hang'));
    await page.waitForFunction(() => window.sceneria?.viewer);
    await expect.poll(async () => (await serverStats()).hang?.requests ?? 0).toBeGreaterThan(0);
    await page.evaluate((l) => { location.hash = l.slice(1); }, link('ok'));
    await opened(page, 'ok');
    await expect(page.locator('#file-name')).toHaveText('line.eu7');
    await waitStreamed(page, 5);
    await expectStreamedModelOnScreen(page);
    // The hanging read was given up by the page, not left open.
    await expect.poll(async () => (await serverStats()).hang.inFlight, { timeout: 5000 }).toBe(0);
  });
});
