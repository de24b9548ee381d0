// Export from the page: a scenery dropped, "Save as" a scene export with its options, and the
// download checked by tools that are not ours (the Khronos glTF validator, glTF-Transform) and
// against the reference decode of the module's PACK models.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import validator from 'gltf-validator';
import { NodeIO } from '@gltf-transform/core';
import { EXTMeshGPUInstancing } from '@gltf-transform/extensions';
import { test, expect, requireSamples, openViewer, dropFile, sample, referencePackModels } from './helpers.mjs';
import { startNginx } from './nginx.mjs';

const rel = 'maszyna/eu7/wrapinc_linia053.v9-pack6.eu7';
const cli = resolve('build/native/sceneria');
const io = new NodeIO().registerExtensions([EXTMeshGPUInstancing]);

// World positions of the drawn model placements of a glTF (extension or plain nodes), in the
// scenery's own coordinates: the re-centring offset the export records added back.
async function placements(bytes) {
  const doc = await io.readBinary(new Uint8Array(bytes));
  const [ox, oy, oz] = doc.getRoot().listScenes()[0].getExtras().sceneria.offset;
  const out = [];
  for (const node of doc.getRoot().listNodes()) {
    if (!node.getMesh() || node.getName() === 'geometry') continue;
    const m = node.getWorldMatrix();
    const batch = node.getExtension('EXT_mesh_gpu_instancing');
    if (!batch) { out.push([m[12] + ox, m[13] + oy, m[14] + oz]); continue; }
    const t = batch.getAttribute('TRANSLATION');
    for (let i = 0; i < t.getCount(); i++) {
      const [x, y, z] = t.getElement(i, []);
      out.push([m[0] * x + m[4] * y + m[8] * z + m[12] + ox, m[1] * x + m[5] * y + m[9] * z + m[13] + oy, m[2] * x + m[6] * y + m[10] * z + m[14] + oz]);
    }
  }
  return { out, doc };
}

async function exportAs(page, label, setup = async () => {}) {
  await page.selectOption('#save-target', { label });
  await setup();
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#save')]);
  return { name: download.suggestedFilename(), bytes: readFileSync(await download.path()) };
}

// Entries of a stored ZIP (what the page makes): {name: bytes}.
function unzip(bytes) {
  const files = {};
  for (let at = 0; bytes.readUInt32LE(at) === 0x04034b50;) {
    const size = bytes.readUInt32LE(at + 22), nameLength = bytes.readUInt16LE(at + 26), extra = bytes.readUInt16LE(at + 28);
    const name = bytes.subarray(at + 30, at + 30 + nameLength).toString('utf8');
    const start = at + 30 + nameLength + extra;
    files[name] = bytes.subarray(start, start + size);
    at = start + size;
  }
  return files;
}

test('a scenery exported from the page as glTF is valid and holds every model where the reference puts it', async ({ page }) => {
  requireSamples();
  await openViewer(page);
  await dropFile(page, 'wrapinc.eu7', sample(rel));
  // glTF is offered first; the module's own targets take no export options.
  await expect(page.locator('#save-target option:checked')).toHaveText('glTF 2.0 binary (.glb)');
  await expect(page.locator('#export-options')).toBeVisible();
  await page.selectOption('#save-target', { label: 'EU7B module (.eu7)' });
  await expect(page.locator('#export-options')).toBeHidden();
  const glb = await exportAs(page, 'glTF 2.0 binary (.glb)', async () => { await expect(page.locator('#export-options')).toBeVisible(); });
  expect(glb.name).toBe('wrapinc.glb');
  const report = await validator.validateBytes(new Uint8Array(glb.bytes));
  expect(report.issues.messages.filter((m) => m.severity <= 1)).toEqual([]);
  const json = JSON.parse(glb.bytes.subarray(20, 20 + glb.bytes.readUInt32LE(12)).toString('utf8'));
  expect(json.extensionsUsed).toEqual(['EXT_mesh_gpu_instancing']);
  // 18 km from end to end: re-centred on the middle of its PACK sections' 1 km cells (known before
  // they are decoded), the offset recorded in whole metres.
  expect(json.scenes[0].extras.sceneria.offset).toEqual([-500, 0, 8500]);

  const reference = referencePackModels(rel);
  expect(reference).toHaveLength(77);
  const { out } = await placements(glb.bytes);
  expect(out).toHaveLength(77);
  for (const r of reference) {
    const near = out.some((p) => Math.hypot(p[0] - r.loc[0], p[1] - r.loc[1], p[2] - r.loc[2]) < 0.01);
    expect(near, `${r.name} at ${r.loc}`).toBe(true);
  }
  await expect(page.locator('#status')).toHaveText(`wrapinc.glb: ${glb.bytes.length.toLocaleString('en-US')} bytes written`);

  // Without instancing: a node per model, the same places.
  const plain = await exportAs(page, 'glTF 2.0 binary (.glb)', async () => { await page.uncheck('#export-instancing'); });
  const plainJson = JSON.parse(plain.bytes.subarray(20, 20 + plain.bytes.readUInt32LE(12)).toString('utf8'));
  expect(plainJson.extensionsUsed).toBeUndefined();
  expect((await placements(plain.bytes)).out).toHaveLength(77);
  expect((await validator.validateBytes(new Uint8Array(plain.bytes))).issues.numErrors).toBe(0);
});

test('an OBJ export downloads as a ZIP with its materials, and an area export keeps what is near the camera', async ({ page }) => {
  requireSamples();
  await openViewer(page);
  await dropFile(page, 'wrapinc.eu7', sample(rel));
  const zip = await exportAs(page, 'Wavefront OBJ and its files, zipped (.zip)');
  expect(zip.name).toBe('wrapinc.zip');
  const files = unzip(zip.bytes);
  expect(Object.keys(files).sort()).toEqual(['wrapinc.mtl', 'wrapinc.obj']);
  const obj = files['wrapinc.obj'].toString('utf8');
  expect(obj).toContain('mtllib wrapinc.mtl');
  expect(obj.split('\n').filter((l) => l.startsWith('o pack_models_')).length).toBe(77);
  const vertices = obj.split('\n').filter((l) => l.startsWith('v ')).length;
  const faces = obj.split('\n').filter((l) => l.startsWith('f ')).length;
  expect(vertices).toBeGreaterThanOrEqual(77 * 8);
  expect(faces).toBeGreaterThanOrEqual(77 * 12);

  // Around the camera: only sections reaching within the radius (1 km cells) come out.
  const [cx, , cz] = await page.evaluate(() => window.sceneria.viewer.camera().eye);
  const near = await exportAs(page, 'glTF 2.0 binary (.glb)', async () => {
    await page.selectOption('#export-area', 'camera');
    await page.fill('#export-radius', '300');
  });
  const { out } = await placements(near.bytes);
  const reference = referencePackModels(rel);
  const within = (p, d) => Math.hypot(p[0] - cx, p[2] - cz) <= d;
  expect(out.length).toBeGreaterThan(0);
  expect(out.length).toBeLessThan(77);
  // A section is in when its bounds reach the circle: its models stand within its cell's diagonal.
  for (const p of out) expect(within(p, 300 + 1000 * Math.SQRT2 + 100), `${p}`).toBe(true);
  // And every reference model standing well inside the circle is there.
  for (const r of reference.filter((m) => within(m.loc, 250)))
    expect(out.some((p) => Math.hypot(p[0] - r.loc[0], p[2] - r.loc[2]) < 0.01), r.name).toBe(true);
  expect((await validator.validateBytes(new Uint8Array(near.bytes))).issues.numErrors).toBe(0);
});

test('a model saves from the page as its JSON form, which drops back as the same model, and as glTF with its submodel tree', async ({ page }) => {
  requireSamples();
  const original = sample('maszyna/models/e6acta_pantograf.e3d');
  await openViewer(page);
  await dropFile(page, 'pantograf.e3d', original);
  const counts = await page.evaluate(() => window.sceneria.lastResult.summary.counts);

  const json = await exportAs(page, 'Lossless JSON (.json)');
  expect(json.name).toBe('pantograf.json');
  const form = JSON.parse(json.bytes.toString('utf8'));
  expect([form.format, form.schema]).toEqual(['e3d', 1]);
  // Every chunk of the file, in its order (walked here from the E3D0 container's headers).
  const ids = [];
  for (let at = 8; at < original.readUInt32LE(4); at += original.readUInt32LE(at + 4)) ids.push(original.subarray(at, at + 4).toString('latin1'));
  expect(form.chunks.map((c) => c.id)).toEqual(ids);
  expect(ids).toEqual(['SUB0', 'TRA0', 'IDX2', 'VNT2', 'TEX0', 'NAM0']);
  expect(form.chunks.find((c) => c.id === 'SUB0').submodels).toHaveLength(13);
  // Dropped back, it is the model again, and saves as the original bytes.
  await dropFile(page, 'pantograf.json', json.bytes);
  expect(await page.evaluate(() => window.sceneria.lastResult.summary.format)).toBe('e3d');
  expect(await page.evaluate(() => window.sceneria.lastResult.summary.counts)).toEqual(counts);
  const back = await exportAs(page, 'E3D model (.e3d)');
  expect(back.bytes.equals(original)).toBe(true);

  // glTF: valid, and the submodels a tree (the pan head four levels under the root, as in the outliner).
  const glb = await exportAs(page, 'glTF 2.0 binary (.glb)');
  expect((await validator.validateBytes(new Uint8Array(glb.bytes))).issues.messages.filter((m) => m.severity <= 1)).toEqual([]);
  const gltf = JSON.parse(glb.bytes.subarray(20, 20 + glb.bytes.readUInt32LE(12)).toString('utf8'));
  expect(gltf.nodes).toHaveLength(13);
  const parent = new Map();
  gltf.nodes.forEach((n, i) => (n.children || []).forEach((c) => parent.set(c, i)));
  const head = gltf.nodes.findIndex((n) => n.name === 'slizg_pant01');
  const chain = [];
  for (let at = head; at !== undefined; at = parent.get(at)) chain.push(gltf.nodes[at].name);
  expect(chain).toHaveLength(5);
  expect(chain[chain.length - 1]).toBe('submodel 0');
  expect(gltf.nodes[head].extras).toMatchObject({ kind: 'submodels' });
});

// Two GLBs of one scene, one made by WebAssembly, the other natively: the same JSON chunk byte for
// byte, and the same binary chunk but for the last bit of a float here and there (a rotation's
// quaternion comes from each runtime's own sin and cos).
function expectSameGlb(a, b) {
  const json = (g) => g.subarray(20, 20 + g.readUInt32LE(12));
  expect(a.length).toBe(b.length);
  expect(json(a).equals(json(b))).toBe(true);
  const at = 20 + a.readUInt32LE(12) + 8;
  const words = (g) => g.buffer.slice(g.byteOffset + at, g.byteOffset + g.length);
  const [wa, wb] = [words(a), words(b)];
  const [ua, ub, fa, fb] = [new Uint32Array(wa), new Uint32Array(wb), new Float32Array(wa), new Float32Array(wb)];
  let off = 0, differ = 0;
  for (let i = 0; i < ua.length; i++) {
    if (ua[i] === ub[i]) continue;  // the same bits (indices, colours and most floats)
    differ++;
    if (!(Math.abs(fa[i] - fb[i]) <= 1e-6 * Math.max(1, Math.abs(fb[i])))) off++;
  }
  expect(off).toBe(0);
  expect(differ).toBeLessThan(ua.length / 100);
}

// A scenery opened by URL exports without being read whole: the export fetches each section by
// Range as it reaches it and lets it go. What it writes is what the CLI writes from the file (the
// JSON byte for byte); an area around the camera fetches only the sections it reaches.
test('a scenery streamed by URL exports section by section, as the CLI exports the file', async ({ page }) => {
  const www = mkdtempSync(join(tmpdir(), 'sceneria-www-'));
  const file = join(www, 'line.eu7');
  execFileSync(cli, ['generate', file, '--models', '120000', '--seed', '7']);
  const nginx = await startNginx(www, 8147);
  try {
    await openViewer(page);
    await page.goto(`/#v=1&src=${encodeURIComponent('http://127.0.0.1:8147/line.eu7')}`);
    await page.waitForFunction(() => window.sceneria.lastResult?.ok && (window.sceneria.stream?.resident ?? 0) >= 1, null, { timeout: 60_000 });
    // Only the scene exports are offered: the module's own formats would need it whole.
    const targets = await page.locator('#save-target option').allTextContents();
    expect(targets).toEqual(['glTF 2.0 binary (.glb)', 'glTF 2.0 JSON (.gltf)', 'Wavefront OBJ and its files, zipped (.zip)']);
    const sent = () => nginx.bytesSent('/line.eu7');
    const before = sent();
    const whole = await exportAs(page, 'glTF 2.0 binary (.glb)');
    const reads = await page.evaluate(() => window.sceneria.lastExport.reads);
    expect(reads.requests).toBeGreaterThan(20);  // a section at a time, on each of its two walks
    // The second walk (the binary chunk after the JSON) may be answered by the browser's cache.
    expect(sent() - before).toBeGreaterThanOrEqual(reads.bytes / 2);
    expect(sent() - before).toBeLessThanOrEqual(reads.bytes);
    // Every read asked for its range: the server never sent the whole file (a read without its
    // Range header would get a 200 that the browser may cache and serve again, hiding the cost;
    // a cached range may come back revalidated, 304).
    expect(nginx.statuses('/line.eu7')['200']).toBeUndefined();
    expect(nginx.statuses('/line.eu7')['206']).toBeGreaterThan(20);
    await expect(page.locator('#status')).toContainText(`${whole.bytes.length.toLocaleString('en-US')} bytes written (`);
    execFileSync(cli, ['convert', file, join(www, 'cli.glb')]);
    expectSameGlb(whole.bytes, readFileSync(join(www, 'cli.glb')));
    expect((await validator.validateBytes(new Uint8Array(whole.bytes))).issues.messages.filter((m) => m.severity <= 1)).toEqual([]);

    // Around the camera: fewer sections fetched, and again the CLI's bytes for the same area.
    const [x, , z] = await page.evaluate(() => window.sceneria.viewer.camera().eye);
    const area = `${x.toFixed(1)},${z.toFixed(1)},600`;
    const near = await exportAs(page, 'glTF 2.0 binary (.glb)', async () => {
      await page.selectOption('#export-area', 'camera');
      await page.fill('#export-radius', '600');
    });
    const nearReads = await page.evaluate(() => window.sceneria.lastExport.reads);
    expect(nearReads.requests).toBeGreaterThan(0);
    expect(nearReads.requests).toBeLessThan(reads.requests / 3);
    execFileSync(cli, ['convert', file, join(www, 'near.glb'), '--area', area]);
    expectSameGlb(near.bytes, readFileSync(join(www, 'near.glb')));
    expect((await placements(near.bytes)).out.length).toBeGreaterThan(0);
  } finally {
    nginx.stop();
  }
});
