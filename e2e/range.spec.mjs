// The page's Range reader against a real server that misbehaves on purpose.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test, expect, openViewer } from './helpers.mjs';
import { startFaultServer } from './fault-server.mjs';

const PORT = 8141;
// The faulty server's 500s and 416s are the point of these tests.
test.use({ allowedErrorPattern: /status of (500|416)|HTTP (500|416) http:\/\/127\.0\.0\.1:8141\// });
let server, file, bytes;

test.beforeAll(async () => {
  file = join(mkdtempSync(join(tmpdir(), 'sceneria-range-')), 'scenery.eu7');
  execFileSync(resolve('build/native/sceneria'), ['generate', file, '--models', '20000', '--seed', '2']);
  bytes = readFileSync(file);
  server = await startFaultServer(file, PORT);
});
test.afterAll(() => server?.closeAll());

// Runs reads in the page with api/range-fetch.mjs; returns digests to compare with the file.
async function readInPage(page, path, ranges, options = {}) {
  return page.evaluate(async ({ url, ranges, options }) => {
    const { RangeFetcher } = await import('/api/range-fetch.mjs');
    const f = new RangeFetcher(url, options);
    let changed = 0;
    f.onChange = () => changed++;
    const results = await Promise.all(ranges.map(async ([b, e]) => {
      try {
        const data = await f.read(b, e);
        let sum = 0;
        for (let i = 0; i < data.length; i++) sum = (sum * 31 + data[i]) >>> 0;
        return { length: data.length, sum };
      } catch (err) {
        return { error: err.message, status: err.status };
      }
    }));
    return { results, requests: f.requests, bytes: f.bytes, size: f.size, notices: f.notices, changed, whole: f.wholeFileMode };
  }, { url: `http://127.0.0.1:${PORT}/${path}/scenery.eu7`, ranges, options });
}

function digest(b, e) {
  let sum = 0;
  for (let i = b; i < e; i++) sum = (sum * 31 + bytes[i]) >>> 0;
  return { length: e - b, sum };
}

test.beforeEach(async ({ page }) => {
  await fetch(`http://127.0.0.1:${PORT}/reset`);
  await openViewer(page);
});

test('correct 206s: exact bytes, one request each, file size learned', async ({ page }) => {
  const ranges = [[0, 65536], [100000, 100100], [bytes.length - 10, bytes.length]];
  const r = await readInPage(page, 'ok', ranges);
  expect(r.results).toEqual(ranges.map(([b, e]) => digest(b, e)));
  expect(r.requests).toBe(3);
  expect(r.size).toBe(bytes.length);
  expect(r.notices).toEqual([]);
});

test('a short 206 body is rejected and the range read again', async ({ page }) => {
  const r = await readInPage(page, 'short', [[1000, 30000]]);
  expect(r.results).toEqual([digest(1000, 30000)]);
  expect(r.requests).toBe(2);
});

test('a 500 is retried with backoff; a range past the end is a clear error', async ({ page }) => {
  const r = await readInPage(page, 'flaky', [[5000, 6000]]);
  expect(r.results).toEqual([digest(5000, 6000)]);
  expect(r.requests).toBe(2);
  const past = await readInPage(page, 'ok', [[bytes.length + 10, bytes.length + 20]]);
  expect(past.results[0].status).toBe(416);
  expect(past.results[0].error).toContain(`beyond the end of the file (${bytes.length} bytes)`);
});

test('a server that ignores Range is read once, with a notice', async ({ page }) => {
  const r = await readInPage(page, 'norange', [[0, 100], [500, 600], [9000, 9100]]);
  expect(r.results).toEqual([digest(0, 100), digest(500, 600), digest(9000, 9100)]);
  expect(r.whole).toBe(true);
  expect(r.notices[0]).toContain('ignores HTTP Range');
  const stats = await (await fetch(`http://127.0.0.1:${PORT}/stats`)).json();
  expect(stats.norange.requests).toBeLessThanOrEqual(3);  // concurrent first reads, then none
});

test('a changed ETag is noticed', async ({ page }) => {
  const r = await readInPage(page, 'changing', [[0, 10], [10, 20], [20, 30], [30, 40], [40, 50]], { maxInFlight: 1 });
  expect(r.changed).toBe(1);
  expect(r.notices).toContain('the file changed on the server while it was open: reloaded');
});

test('never more than 4 requests in flight per URL', async ({ page }) => {
  const ranges = Array.from({ length: 16 }, (_, i) => [i * 1000, i * 1000 + 500]);
  const r = await readInPage(page, 'ok', ranges);
  expect(r.results).toEqual(ranges.map(([b, e]) => digest(b, e)));
  const stats = await (await fetch(`http://127.0.0.1:${PORT}/stats`)).json();
  expect(stats.ok.requests).toBe(16);
  expect(stats.ok.maxConcurrent).toBeLessThanOrEqual(4);
  expect(stats.ok.maxConcurrent).toBeGreaterThan(1);
});
