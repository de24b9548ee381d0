// Shared fixtures and helpers for the end-to-end suite.
import { test as base, expect } from '@playwright/test';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const samplesDir = process.env.SCENERIA_SAMPLES || resolve(here, '..', '..', 'shared', 'samples');
export const samplesAvailable = existsSync(join(samplesDir, 'maszyna', 'eu7'));
export const sample = (rel) => readFileSync(join(samplesDir, rel));

// Console hygiene: any console error, page error or failed request fails the test.
const ALLOWED = [/GPU stall due to ReadPixels/];
export const test = base.extend({
  // Tests that provoke errors on purpose (a faulty server) list what they expect.
  allowedErrorPattern: [null, { option: true }],
  consoleErrors: [async ({ page, allowedErrorPattern }, use) => {
    const errors = [];
    const allowed = (text) => ALLOWED.some((r) => r.test(text)) || (allowedErrorPattern && allowedErrorPattern.test(text));
    const add = (text) => { if (!allowed(text)) errors.push(text); };
    page.on('console', (m) => { if (m.type() === 'error') add(m.text()); });
    page.on('pageerror', (e) => add(`pageerror: ${e.message}`));
    page.on('requestfailed', (r) => add(`request failed: ${r.url()} ${r.failure()?.errorText}`));
    page.on('response', (r) => { if (r.status() >= 400) add(`HTTP ${r.status()} ${r.url()}`); });
    await use(errors);
    expect(errors, 'console errors').toEqual([]);
  }, { auto: true }],
});
export { expect };

export function requireSamples() {
  if (!samplesAvailable && !process.env.CI) test.skip(true, `samples not found at ${samplesDir}`);
}

// Opens the page and waits for the viewer and the start-up demo module.
export async function openViewer(page) {
  await page.goto('/');
  await page.waitForFunction(() => window.sceneria?.viewer && window.sceneria?.lastResult?.name === 'demo.eu7');
}

// Drops bytes as a file on the canvas, the way a user drags one from the desktop.
export async function dropFile(page, name, bytes) {
  await page.evaluate(({ name, b64 }) => {
    const data = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const dt = new DataTransfer();
    dt.items.add(new File([data], name));
    document.getElementById('canvas').dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, { name, b64: Buffer.from(bytes).toString('base64') });
  await page.waitForFunction((n) => window.sceneria.lastResult?.name === n, name);
}

// An independent chunk walk (the test's oracle, not the product's code): [{id, offset, size}].
export function walkChunks(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const chunks = [];
  for (let at = 8; at + 8 <= bytes.length; ) {
    const id = String.fromCharCode(...bytes.subarray(at, at + 4));
    const size = view.getUint32(at + 4, true);
    chunks.push({ id, offset: at, size });
    at += size;
  }
  return chunks;
}

// A minimal EU7B module: header + STRS with the given strings (UTF-8).
export function moduleWithStrings(strings, version = 6) {
  const enc = strings.map((s) => Buffer.from(s, 'utf8'));
  const payload = Buffer.alloc(4 + enc.reduce((n, b) => n + 4 + b.length, 0));
  let at = payload.writeUInt32LE(enc.length, 0);
  for (const b of enc) { at = payload.writeUInt32LE(b.length, at); at += b.copy(payload, at); }
  const header = Buffer.alloc(16);
  header.write('EU7B', 0, 'latin1');
  header.writeUInt32LE(version, 4);
  header.write('STRS', 8, 'latin1');
  header.writeUInt32LE(8 + payload.length, 12);
  return Buffer.concat([header, payload]);
}

// Reads the chunk table as shown on the page.
export async function shownChunks(page) {
  return page.$$eval('#chunks tbody tr', (rows) => rows.map((r) => {
    const cells = [...r.cells].map((c) => c.textContent);
    return { id: cells[1], offset: Number(cells[2].replace(/,/g, '')), size: Number(cells[3].replace(/,/g, '')) };
  }));
}
