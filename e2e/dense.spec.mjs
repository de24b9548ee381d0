// A dense scenery by URL, shaped like the reference's dense scenarios: 1,000,000 models in 400
// sections (about 116 KB each, 46 MB). The first models must be on screen after three Range
// requests — the head, the chunks up to PACK, the nearest section — and about 1 % of the file,
// not after the whole bootstrap ring (18.5 % before), and no other section may be asked for
// before those models are on screen, however busy the machine (a busy worker once let the
// ring's reads land first: 4.85 % and 8.82 % of the file). The records after PACK (traction,
// vehicles, events) come after them.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test, expect, expectStreamedModelOnScreen } from './helpers.mjs';
import { startFaultServer } from './fault-server.mjs';

const PORT = 8144;
let server, size;

test.beforeAll(async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'sceneria-dense-')), 'dense.eu7');
  execFileSync(resolve('build/native/sceneria'), ['generate', file, '--models', '1000000', '--param', 'models-per-section=2500', '--seed', '7']);
  size = statSync(file).size;
  server = await startFaultServer(file, PORT);
});
test.afterAll(() => server?.closeAll());

test('a dense scenery shows its first models after the header and the nearest section', async ({ page }) => {
  test.setTimeout(120_000);
  expect(size).toBeGreaterThan(40_000_000);
  await page.goto(`/#v=1&src=${encodeURIComponent(`http://127.0.0.1:${PORT}/ok/dense.eu7`)}`);
  await page.waitForFunction(() => window.sceneria?.stream?.firstModelsBytes != null, null, { timeout: 90_000 });
  const first = await page.evaluate(() => window.sceneria.stream);
  expect(first.size).toBe(size);
  expect(first.firstModelsBytes / size, `fetched when the first models showed: ${first.firstModelsBytes} bytes`).toBeLessThan(0.0105);
  expect(first.firstModelsSections).toBe(1);
  expect(first.firstModelsRequests, 'the head, the chunks up to PACK, one section').toBe(3);
  expect(await page.evaluate(() => window.sceneria.lastResult.stream.requests), 'the header in two reads').toBe(2);
  await expectStreamedModelOnScreen(page);
  // The records after PACK arrive next: the lists gain the catenary and the vehicles.
  await page.waitForFunction(() => window.sceneria.lastResult.lists.some((l) => l.id === 'traction' && l.count > 0), null,
                             { timeout: 60_000 });
  const lists = await page.evaluate(() => Object.fromEntries(window.sceneria.lastResult.lists.map((l) => [l.id, l.count])));
  expect(lists.traction).toBeGreaterThan(10);
  expect(lists.dynamics).toBeGreaterThan(0);
  await expect(page.locator('#record-kind')).toContainText('Traction');
  // Then the ring fills, and once the nearest sections are in, neighbours are fetched together.
  await page.waitForFunction(() => (window.sceneria.stream?.resident ?? 0) >= 30, null, { timeout: 90_000 });
  const later = await page.evaluate(() => window.sceneria.stream);
  expect(later.reads).toBeLessThan(later.sectionsRequested);
});

test('on a busy machine the nearest section is still the only one asked for before it is drawn', async ({ page }) => {
  test.setTimeout(180_000);
  // Two processes spinning on the two cores: the page, its worker and the server all run slower.
  const spinners = [0, 1].map(() => spawn(process.execPath, ['-e', 'for (;;);'], { stdio: 'ignore' }));
  try {
    await page.goto(`/#v=1&src=${encodeURIComponent(`http://127.0.0.1:${PORT}/ok/dense.eu7`)}`);
    await page.waitForFunction(() => window.sceneria?.stream?.firstModelsBytes != null, null, { timeout: 150_000 });
    const first = await page.evaluate(() => window.sceneria.stream);
    expect(first.firstModelsSections).toBe(1);
    expect(first.firstModelsRequests, 'the head, the chunks up to PACK, one section').toBe(3);
    expect(first.firstModelsBytes / size).toBeLessThan(0.0105);
  } finally {
    for (const p of spinners) p.kill();
  }
  await expectStreamedModelOnScreen(page);
});
