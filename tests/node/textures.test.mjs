// Exports carry the textures found beside the input, by the CLI and by the JS API alike (a path
// opened in Node looks where the CLI looks), with the source's UVs, read back by glTF-Transform:
//   - a Hard Truck module with its .res, and in a game's ENV/ with the shared COMMON/COMMON.RES at
//     the game's root for the materials its own .res lacks; a MaSzyna model with its DDS and with a patterned TGA in
//     its place, an X-Ray object under gamedata/objects with a patterned DDS under
//     gamedata/textures;
//   - the glTF's TEXCOORD_0 are the UVs the source holds (its JSON form where that decodes them);
//     the OBJ's vt are the same with v turned over (an OBJ's v runs up the picture);
//   - a patterned texture comes back as the PNG of its pixels, in the rows the renderer keeps.
// Run: node --test tests/node/   (scripts/test does, after both builds)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NodeIO } from '@gltf-transform/core';
import { EXTMeshGPUInstancing } from '@gltf-transform/extensions';
import { open, convert } from '../../api/sceneria.mjs';
import { QUADRANTS, SIZE, dds, pixels, readPng, tga } from '../fixtures/textures.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const cli = join(root, 'build/native/sceneria');
const samples = resolve(process.env.SCENERIA_SAMPLES || join(root, '../shared/samples'));
const work = mkdtempSync(join(tmpdir(), 'sceneria-textures-'));
const run = (...args) => execFileSync(cli, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 256 << 20 });
const io = new NodeIO().registerExtensions([EXTMeshGPUInstancing]);

// Sets of UVs: `add` keeps each pair once; `near` finds one within 2e-6 (an OBJ keeps 6
// decimals), looking in the neighbouring cells of a 1e-4 grid.
class Uvs {
  #cells = new Map();
  size = 0;
  add(u, v) {
    if (this.near(u, v, 0)) return;
    const k = `${Math.floor(u * 1e4)} ${Math.floor(v * 1e4)}`;
    if (!this.#cells.has(k)) this.#cells.set(k, []);
    this.#cells.get(k).push([u, v]);
    this.size++;
  }
  near(u, v, eps = 2e-6) {
    const cu = Math.floor(u * 1e4), cv = Math.floor(v * 1e4);
    for (let du = -1; du <= 1; du++)
      for (let dv = -1; dv <= 1; dv++)
        for (const [a, b] of this.#cells.get(`${cu + du} ${cv + dv}`) || []) if (Math.abs(a - u) <= eps && Math.abs(b - v) <= eps) return true;
    return false;
  }
  *[Symbol.iterator]() { for (const list of this.#cells.values()) yield* list; }
}
// Every UV of `a` is in `b` (`both`: and the other way round).
function assertUvsIn(a, b, what, both = false) {
  for (const [u, v] of a) assert.ok(b.near(u, v), `${what}: (${u}, ${v}) missing`);
  if (both) for (const [u, v] of b) assert.ok(a.near(u, v), `${what}: (${u}, ${v}) extra`);
}

// Every TEXCOORD_0 of the glb: {all, textured} as sets of keys, and the images' PNG bytes.
async function readBack(bytes) {
  const doc = await io.readBinary(new Uint8Array(bytes));
  const all = new Uvs(), textured = new Uvs();
  for (const mesh of doc.getRoot().listMeshes())
    for (const prim of mesh.listPrimitives()) {
      const uv = prim.getAttribute('TEXCOORD_0');
      if (!uv) continue;
      const hasTexture = Boolean(prim.getMaterial()?.getBaseColorTexture());
      for (let i = 0; i < uv.getCount(); i++) {
        const [u, v] = uv.getElement(i, []);
        all.add(u, v);
        if (hasTexture) textured.add(u, v);
      }
    }
  return { all, textured, images: doc.getRoot().listTextures().map((t) => t.getImage()) };
}

// The OBJ's vt, turned back to the glTF's v.
function objUvs(path) {
  const out = new Uvs();
  for (const line of readFileSync(path, 'utf8').split('\n'))
    if (line.startsWith('vt ')) {
      const [u, v] = line.slice(3).trim().split(/\s+/).map(Number);
      out.add(u, 1 - v);
    }
  return out;
}

// CLI and API exports of `input`: the same bytes, the same image count.
async function exportBoth(input, images) {
  const stem = join(dirname(input), 'out');
  const said = run('convert', input, `${stem}.glb`);
  assert.match(said, new RegExp(`, ${images} texture image${images === 1 ? '' : 's'}, `), said);
  run('convert', input, `${stem}.obj`);
  const doc = await open(input);
  const api = await convert(doc, { to: 'glb' });
  doc.close();
  assert.equal(api.images, images);
  // The writer's advice, where it has one, is what the CLI's describe line prints.
  if (api.advice) assert.ok(said.includes(`(${api.advice})`), `${api.advice} / ${said}`);
  else assert.doesNotMatch(said, /Blender/);
  const cliBytes = readFileSync(`${stem}.glb`);
  assert.ok(Buffer.from(api.bytes).equals(cliBytes), 'the API writes the bytes the CLI writes');
  const back = await readBack(cliBytes);
  assert.equal(back.images.length, images);
  assertUvsIn(objUvs(`${stem}.obj`), back.all, "the OBJ's vt are the glTF's UVs, v turned over", true);
  return back;
}

// A picture's rows as the PNG holds them, compared with the pattern's visual rows.
function rowsOf(png) {
  const image = readPng(png);
  assert.equal(image.width, SIZE);
  assert.equal(image.height, SIZE);
  return image.data;
}
// A folder `name` of the work area holding copies of the samples `files` from `from`.
function sampleFolder(name, from, files) {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  for (const f of files) copyFileSync(join(samples, from, f), join(dir, f));
  return dir;
}
const flipped = (p) => {
  const out = Buffer.alloc(p.length);
  for (let y = 0; y < SIZE; y++) p.copy(out, (SIZE - 1 - y) * SIZE * 4, y * SIZE * 4, (y + 1) * SIZE * 4);
  return out;
};

test('a Hard Truck module with its .res beside it: 11 images, every UV one the file holds', async () => {
  const dir = sampleFolder('ht', 'hardtruck', ['ks.b3d', 'ks.res']);
  const back = await exportBoth(join(dir, 'ks.b3d'), 11);
  // The UVs the file holds: each vertex block's (after x, y, z) and each corner's own.
  const held = new Uvs();
  const walk = (o) => {
    if (Array.isArray(o)) return o.forEach(walk);
    if (!o || typeof o !== 'object') return;
    if (Array.isArray(o.vertices) && [6, 7, 36, 37].includes(o.type)) for (const v of o.vertices) held.add(v[3], v[4]);
    if (Array.isArray(o.corners)) for (const c of o.corners) if (c.length === 3) held.add(c[1], c[2]); else if (c.length === 4) held.add(c[2], c[3]);
    Object.values(o).forEach(walk);
  };
  walk(JSON.parse(run('dump', join(dir, 'ks.b3d'))));
  assert.ok(back.textured.size >= 20, `${back.textured.size} distinct textured UVs`);
  assertUvsIn(back.textured, held, 'a UV the file holds');
});

// The model's textured submodel (TEX0 entry 1, components/kratka) and its vertices' UVs.
function e3dTexturedUvs(path) {
  const dump = JSON.parse(run('dump', path));
  const chunk = (id) => dump.chunks.find((c) => c.id.startsWith(id));
  const vertices = chunk('VNT').vertices;
  const out = new Uvs();
  for (const s of chunk('SUB').submodels)
    if (s.texture > 0) for (let v = s.vertex_offset; v < s.vertex_offset + s.vertex_count; v++) out.add(vertices[v][6], vertices[v][7]);
  return out;
}

test('a MaSzyna model with its DDS beside it: the textured submodel keeps its UVs', async () => {
  const dir = sampleFolder('e3d-dds', 'maszyna/models', ['e6acta_detale_dual_power.e3d', 'kratka.dds']);
  const back = await exportBoth(join(dir, 'e6acta_detale_dual_power.e3d'), 1);
  const want = e3dTexturedUvs(join(dir, 'e6acta_detale_dual_power.e3d'));
  assert.ok(want.size > 10);
  assertUvsIn(back.textured, want, "the textured submodel's UVs", true);
});

test('a MaSzyna model with a TGA in its place: the image comes out bottom row first, as the engine keeps it', async () => {
  const dir = join(work, 'e3d-tga');
  mkdirSync(dir);
  copyFileSync(join(samples, 'maszyna/models/e6acta_detale_dual_power.e3d'), join(dir, 'm.e3d'));
  writeFileSync(join(dir, 'kratka.tga'), tga({ rle: true }));
  const back = await exportBoth(join(dir, 'm.e3d'), 1);
  assertUvsIn(back.textured, e3dTexturedUvs(join(dir, 'm.e3d')), "the textured submodel's UVs", true);
  // v = 0 samples the picture's foot in MaSzyna: the PNG's first row is the TGA's bottom row.
  const rows = rowsOf(back.images[0]);
  assert.ok(rows.equals(flipped(pixels())), 'the PNG holds the picture upside down, as v runs up it');
  assert.deepEqual([...rows.subarray(0, 3)], QUADRANTS.bottomLeft.rgb);
});

test('an X-Ray object finds gamedata/textures from gamedata/objects: its DDS top row first', async () => {
  const gamedata = join(work, 'gamedata');
  mkdirSync(join(gamedata, 'objects'), { recursive: true });
  mkdirSync(join(gamedata, 'textures'), { recursive: true });
  copyFileSync(join(samples, 'xray/test_fmt.object'), join(gamedata, 'objects', 'plane.object'));
  writeFileSync(join(gamedata, 'textures', 'eye.dds'), dds('RGBA'));
  const back = await exportBoth(join(gamedata, 'objects', 'plane.object'), 1);
  assert.ok(back.textured.size >= 3, `${back.textured.size} distinct UVs`);
  const rows = rowsOf(back.images[0]);
  assert.ok(rows.equals(pixels()), 'a DDS keeps its stored rows');
  // And where the texture is not found, the export says so instead of writing a flat material.
  const alone = sampleFolder('alone', 'xray', ['test_fmt.object']);
  const out = run('convert', join(alone, 'test_fmt.object'), join(alone, 'plane.glb'));
  assert.match(out, /, 0 texture images, /);
});

// A .res as a list of sections (notes §7): a C-string header "NAME n", then n entries, each a
// C-string, and in the *FILES sections also a u32 length and the file's bytes.
function readRes(buf) {
  const sections = [];
  let at = 0;
  const cstring = () => {
    const end = buf.indexOf(0, at);
    const s = buf.subarray(at, end).toString('latin1');
    at = end + 1;
    return s;
  };
  while (at < buf.length) {
    const header = cstring();
    const [name, count] = header.split(' ');
    const entries = [];
    for (let i = 0; i < Number(count); i++) {
      const text = cstring();
      if (!name.endsWith('FILES')) { entries.push({ text }); continue; }
      const size = buf.readUInt32LE(at);
      entries.push({ text, data: buf.subarray(at + 4, at + 4 + size) });
      at += 4 + size;
    }
    sections.push({ name, entries });
  }
  return sections;
}
function writeRes(sections) {
  const parts = [];
  const cstring = (s) => parts.push(Buffer.from(`${s}\0`, 'latin1'));
  for (const { name, entries } of sections) {
    cstring(`${name} ${entries.length}`);
    for (const e of entries) {
      cstring(e.text);
      if (e.data) {
        const size = Buffer.alloc(4);
        size.writeUInt32LE(e.data.length);
        parts.push(size, e.data);
      }
    }
  }
  return Buffer.concat(parts);
}

test("a Hard Truck game: a module in ENV/ finds COMMON/COMMON.RES at the game's root for the materials its .res lacks", async () => {
  const ks = readFileSync(join(samples, 'hardtruck/ks.res'));
  assert.ok(writeRes(readRes(ks)).equals(ks), "the test's own .res writer gives the sample's bytes back");
  const game = join(work, 'game');
  mkdirSync(join(game, 'ENV'), { recursive: true });
  copyFileSync(join(samples, 'hardtruck/ks.b3d'), join(game, 'ENV', 'ks.b3d'));
  // The module's own .res keeps its first 4 materials; the shared one holds them all.
  const own = readRes(ks).map((s) => (s.name === 'MATERIALS' ? { ...s, entries: s.entries.slice(0, 4) } : s));
  writeFileSync(join(game, 'ENV', 'ks.res'), writeRes(own));
  const input = join(game, 'ENV', 'ks.b3d');
  const resources = (summary) => summary.resources.map((r) => relative(game, r.name).split(sep).join('/'));

  // Without the shared file the module's other materials have no look.
  const alone = JSON.parse(run('info', input, '--json'));
  assert.deepEqual(resources(alone), ['ENV/ks.res']);
  const aloneGlb = run('convert', input, join(game, 'alone.glb'));
  const aloneImages = Number(aloneGlb.match(/, (\d+) texture images?, /)[1]);
  assert.ok(aloneImages < 11, aloneGlb);

  // With it, found from ENV/ without being told where the game's root is (the name's case as a
  // Windows copy of the game has it), every material has its look again.
  mkdirSync(join(game, 'COMMON'));
  writeFileSync(join(game, 'COMMON', 'COMMON.RES'), ks);
  const summary = JSON.parse(run('info', input, '--json'));
  assert.deepEqual(resources(summary), ['ENV/ks.res', 'COMMON/COMMON.RES']);
  assert.deepEqual(summary.missingFiles ?? [], []);
  const back = await exportBoth(input, 11);
  assert.ok(back.textured.size >= 20, `${back.textured.size} distinct textured UVs`);
  const doc = await open(input);
  assert.equal(doc.name, 'ENV/ks.b3d');
  doc.close();
});
