// Shared fixtures and helpers for the end-to-end suite.
import { test as base, expect } from '@playwright/test';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const samplesDir = process.env.SCENERIA_SAMPLES || resolve(here, '..', '..', 'shared', 'samples');
export const samplesAvailable = existsSync(join(samplesDir, 'maszyna', 'eu7'));
export const sample = (rel) => readFileSync(join(samplesDir, rel));

// Console hygiene: any console error, page error, failed request or sceneria warning (a section
// that could not be read, a rejected delta, a bad link value) fails the test unless the test
// names it in `allowedErrorPattern`.
const ALLOWED = [/GPU stall due to ReadPixels/];
export const test = base.extend({
  // Tests that provoke errors on purpose (a faulty server) list what they expect.
  allowedErrorPattern: [null, { option: true }],
  consoleErrors: [async ({ page, allowedErrorPattern }, use) => {
    const errors = [];
    const allowed = (text) => ALLOWED.some((r) => r.test(text)) || (allowedErrorPattern && allowedErrorPattern.test(text));
    const add = (text) => { if (!allowed(text)) errors.push(text); };
    // A HEAD request is the viewer looking for a file next to a streamed one (a model): a 404
    // there is an answer (the file goes to the missing list), and closing the scenery aborts it.
    const lookups = new Set();
    page.on('request', (r) => { if (r.method() === 'HEAD') lookups.add(r.url()); });
    page.on('console', (m) => {
      if (lookups.has(m.location()?.url)) return;
      if (m.type() === 'error' || (m.type() === 'warning' && m.text().startsWith('[sceneria'))) add(m.text());
    });
    page.on('pageerror', (e) => add(`pageerror: ${e.message}`));
    page.on('requestfailed', (r) => { if (r.method() !== 'HEAD') add(`request failed: ${r.url()} ${r.failure()?.errorText}`); });
    page.on('response', (r) => { if (r.status() >= 400 && r.request().method() !== 'HEAD') add(`HTTP ${r.status()} ${r.url()}`); });
    await use(errors);
    expect(errors, 'console errors').toEqual([]);
  }, { auto: true }],
});
export { expect };

export function requireSamples() {
  if (!samplesAvailable && process.env.CI !== 'true') test.skip(true, `samples not found at ${samplesDir}`);
}

// Opens the page and waits for the viewer and the start-up demo (the railway's scenery).
export async function openViewer(page) {
  await page.goto('/');
  await page.waitForFunction(() => window.sceneria?.viewer && window.sceneria?.lastResult?.name === 'demo.scn');
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
  return page.$$eval('#structure tbody tr', (rows) => rows.map((r) => {
    const cells = [...r.cells].map((c) => c.textContent);
    return { id: cells[1], offset: Number(cells[2].replace(/,/g, '')), size: Number(cells[3].replace(/,/g, '')) };
  }));
}

// ---- oracles that are not our own output ----

// The counts the reference runtime reader printed for a sample (`X.reference-decode.txt`, first
// line): {tracks, traction, shapes, ...} as numbers.
export function referenceCounts(rel) {
  const first = sample(rel.replace(/\.eu7$/, '.reference-decode.txt')).toString('utf8').split('\n')[0];
  const out = {};
  for (const [, key, value] of first.matchAll(/([A-Za-z_()]+)=(\d+)/g)) out[key] = Number(value);
  return out;
}

// Every PACK model of a reference decode, in decode order: {name, file, loc: [x, y, z]}.
export function referencePackModels(rel) {
  const text = sample(rel.replace(/\.eu7$/, '.reference-decode.txt')).toString('utf8');
  const out = [];
  for (const m of text.matchAll(/^\s+model name=(\S*) file=(\S*) .* loc=\(([^)]*)\)/gm))
    out.push({ name: m[1], file: m[2], loc: m[3].split(',').map(Number) });
  return out;
}

// TD.scn, the text scenery TD.v6.eu7 was baked from, read by the test itself: its tracks
// ({name, type, p1, p2, mid}) in the order the reference writer stores them, and its traction
// spans ({name, wire: [p1, p2], mid}) in text order. The writer keeps text order except that
// switches follow all other tracks (TD.v6: text tracks 13 and 71 are records 85 and 86), so
// track i here is record i of the module.
export function tdScenery() {
  const text = sample('maszyna/text/TD.scn').toString('latin1').replace(/\/\/[^\n]*/g, '');
  const t = text.split(/\s+/).filter(Boolean);
  const num = (i, n) => t.slice(i, i + n).map(Number);
  const tracks = [], traction = [];
  for (let i = 0; i < t.length; i++) {
    if (t[i] !== 'node') continue;
    const name = t[i + 3] === 'none' ? '' : t[i + 3];
    if (t[i + 4] === 'track') {
      // node max min name track type length width friction sound quality damage environment vis
      // [rail-texture rail-length ballast-texture height width slope] P1(x y z roll) CV1 CV2 P2(x y z roll)
      const p = i + 14 + (t[i + 13] === 'vis' ? 6 : 0);
      const p1 = num(p, 3), cv1 = num(p + 4, 3), cv2 = num(p + 7, 3), p2 = num(p + 10, 3);
      // Bézier(P1, P1 + CV1, P2 + CV2, P2) at t = 0.5 (control vectors are relative: notes §9).
      const mid = [0, 1, 2].map((k) => (p1[k] + 3 * (p1[k] + cv1[k]) + 3 * (p2[k] + cv2[k]) + p2[k]) / 8);
      tracks.push({ name, type: t[i + 5], visible: t[i + 13] === 'vis', p1, p2, mid });
    } else if (t[i + 4] === 'traction') {
      // node max min name traction power nominal-voltage max-current resistivity material wire-height-offset wires
      // then the contact wire's ends, the carrier wire's ends.
      const p1 = num(i + 12, 3), p2 = num(i + 15, 3);
      traction.push({ name, wire: [p1, p2], mid: [0, 1, 2].map((k) => (p1[k] + p2[k]) / 2) });
    }
  }
  const stored = [...tracks.filter((t) => t.type !== 'switch'), ...tracks.filter((t) => t.type === 'switch')];
  return { tracks: stored, traction };
}

// ---- pixels: a thing is drawn when the frame differs where it projects, with and without it ----

// Renders a view twice — as it is, and with `without` applied ('models': model layer off,
// 'static': static layer off, 'all': both off, an object id to hide, or [first, count] of objects
// to hide) — and counts the pixels that differ (by more than 24 in the sum of channel
// differences). `view` null: the current camera, the whole frame. Otherwise {at, distance,
// radius, pitch}: the camera `distance` from world point `at` (looking down at `pitch` radians,
// or the default view when null) and the (2r+1)² window around its projection, with the colours
// the differing pixels have when shown. Compared in the page: a frame is millions of numbers,
// too many to ship to the test process.
async function renderWithAndWithout(page, without, view = null) {
  return page.evaluate(({ without, view }) => {
    const v = window.sceneria.viewer;
    const s = v.stats();
    let rect = [0, 0, s.width, s.height], p = null;
    if (view) {
      const [x, y, z] = view.at;
      if (view.pitch === null) v.lookAt(x, y, z, view.distance);
      else v.setOrbit(x, y, z, view.distance, 0, view.pitch);
      p = v.project(x, y, z);
      if (!p) return { projected: false, differ: 0, colours: [], pixels: 0 };
      rect = [Math.round(p.x) - view.radius, Math.round(p.y) - view.radius, 2 * view.radius + 1, 2 * view.radius + 1];
    }
    const shown = v.readPixels(...rect);
    if (without === 'models') v.setLayers(true, false);
    else if (without === 'static') v.setLayers(false, true);
    else if (without === 'all') v.setLayers(false, false);
    else if (Array.isArray(without)) v.hide(without[0], without[1]);
    else v.hide(without, 1);
    const hidden = v.readPixels(...rect);
    v.setLayers(true, true);
    v.hide(-1, 0);
    let differ = 0;
    const colours = [];
    for (let i = 0; i < shown.length; i += 4) {
      if (Math.abs(shown[i] - hidden[i]) + Math.abs(shown[i + 1] - hidden[i + 1]) + Math.abs(shown[i + 2] - hidden[i + 2]) > 24) {
        differ++;
        if (view) colours.push([shown[i], shown[i + 1], shown[i + 2]]);
      }
    }
    return { projected: true, p, differ, colours, pixels: shown.length / 4 };
  }, { without, view });
}

// Around world point `at`: how many pixels of the window differ without the thing, and their colours.
export function differenceAt(page, at, distance, without, radius = 6, pitch = null) {
  return renderWithAndWithout(page, without, { at, distance, radius, pitch });
}

// Share of the current frame's pixels that change without the thing.
export async function frameChange(page, without) {
  const r = await renderWithAndWithout(page, without);
  return r.differ / r.pixels;
}

// How many pixels of two RGBA buffers differ by more than `threshold` in the sum of channel differences.
export function countDiffering(a, b, threshold) {
  let n = 0;
  for (let i = 0; i < a.length; i += 4)
    if (Math.abs(a[i] - b[i]) + Math.abs(a[i + 1] - b[i + 1]) + Math.abs(a[i + 2] - b[i + 2]) > threshold) n++;
  return n;
}

// The sky as the renderer draws it (blue above the horizon, haze below) is what an empty frame
// shows: these pixels are something else.
export function isNotSky([r, g, b]) { return !(b > r + 20 && b >= g); }

// A streamed PACK model on screen where its section's record puts it: the newest streamed model
// object, its record from the parse worker (the section's bytes, not the scene), and the model
// layer switched off and on around its location.
// `maxZ`: only a model south of that (one the camera will leave behind when flying north).
export async function expectStreamedModelOnScreen(page, { maxZ = Infinity } = {}) {
  const found = await page.evaluate(async (maxZ) => {
    const { viewer: v, parser, lastResult } = window.sceneria;
    for (let id = v.stats().objects - 1, tried = 0; id >= 0 && tried < 200; id--) {
      const o = v.object(id);
      if (o.kind !== 'pack_models' || o.z > maxZ) continue;
      tried++;
      const record = await parser.record(lastResult.doc, 'pack_models', o.index);
      if (!record) continue;  // superseded meanwhile
      // Seen from 40 m: a model shown only from farther away (a minimum range) or only from
      // closer (a short maximum range) is rightly not drawn there.
      const max = record.range_max === 'unlimited' ? Infinity : record.range_max;
      if (record.range_min < 30 && max > 60) return { object: o, location: record.location };
    }
    return null;
  }, maxZ === Infinity ? 1e300 : maxZ);
  expect(found, 'a streamed model in the scene').not.toBeNull();
  const d = await differenceAt(page, found.location, 40, 'models', 8);
  expect(d.projected).toBe(true);
  expect(d.differ, `model pixels at ${found.location}`).toBeGreaterThan(20);
  return found;
}

// The whole frame as a Buffer of RGBA bytes (rows top-down), shipped as base64.
// The share of an RGBA frame's pixels whose colour passes `test(r, g, b)`.
export function pixelShare(px, test) {
  let n = 0;
  for (let i = 0; i < px.length; i += 4) if (test(px[i], px[i + 1], px[i + 2])) n++;
  return n / (px.length / 4);
}
// Pure red and pure blue surfaces as the renderer lights them (a skin, a marked model).
export const redShare = (px) => pixelShare(px, (r, g, b) => r > 120 && g < 60 && b < 60);
export const blueShare = (px) => pixelShare(px, (r, g, b) => b > 120 && r < 60 && g < 60);

export async function framePixels(page) {
  const b64 = await page.evaluate(() => {
    const v = window.sceneria.viewer;
    const s = v.stats();
    const px = v.readPixels(0, 0, s.width, s.height);
    let text = '';
    for (let i = 0; i < px.length; i += 0x8000) text += String.fromCharCode(...px.subarray(i, i + 0x8000));
    return btoa(text);
  });
  return Buffer.from(b64, 'base64');
}

// A DDS of one DXT1 block, both endpoints `rgb565`: a solid 4x4 texture.
export { solidDds } from '../tests/fixtures/textures.mjs';
