// Every sample the core reads, and a generated scenery, exported by the CLI as .glb, .gltf (+ .bin
// and images) and .obj, then checked by tools that are not ours:
//   - the Khronos glTF validator: zero errors and zero warnings (infos and hints are allowed; it
//     reports EXT_mesh_gpu_instancing as an unsupported extension, an info);
//   - EXT_mesh_gpu_instancing checked here, as the validator does not (notes/web-platform.md §5);
//   - @gltf-transform/core reloads the file: the instances and their world positions are the same
//     with the extension and with plain nodes, and the OBJ has as many vertices and faces.
// Run: node --test tests/node/   (scripts/test does, after the native build)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, existsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname, basename, extname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import validator from 'gltf-validator';
import { NodeIO } from '@gltf-transform/core';
import { EXTMeshGPUInstancing } from '@gltf-transform/extensions';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const cli = join(root, 'build/native/sceneria');
const samples = resolve(process.env.SCENERIA_SAMPLES || join(root, '../shared/samples'));
const work = mkdtempSync(join(tmpdir(), 'sceneria-export-'));

const run = (...args) => execFileSync(cli, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

// Every file under samples/maszyna, samples/hardtruck and samples/xray whose format the core reads and draws (by
// the CLI's own list: those with the scene exports; a Hard Truck .res is read beside its module).
const formats = JSON.parse(run('formats', '--json'));
const readable = new Set(formats.filter((f) => f.reads && f.writes.some((w) => w.id === 'glb')).flatMap((f) => f.extensions));
function* walk(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* walk(p);
    else if (readable.has(extname(e.name).toLowerCase())) yield p;
  }
}
const inputs = [...walk(join(samples, 'maszyna')), ...walk(join(samples, 'hardtruck')), ...walk(join(samples, 'xray'))].sort();
const generated = join(work, 'generated.eu7');
run('generate', generated, '--models', '5000', '--seed', '7');
inputs.push(generated);

async function validate(bytes, folder) {
  return validator.validateBytes(new Uint8Array(bytes), {
    maxIssues: 50,
    externalResourceFunction: (uri) => Promise.resolve(new Uint8Array(readFileSync(join(folder, decodeURIComponent(uri))))),
  });
}

function checkInstancing(json) {
  const acc = json.accessors || [];
  let instances = 0;
  for (const node of json.nodes || []) {
    const ext = node.extensions?.EXT_mesh_gpu_instancing;
    if (!ext) continue;
    assert.ok(Number.isInteger(node.mesh), `instanced node ${node.name} has no mesh`);
    const counts = new Set();
    for (const [name, index] of Object.entries(ext.attributes)) {
      const a = acc[index];
      assert.ok(a, `${name} accessor ${index} exists`);
      counts.add(a.count);
      if (name === 'TRANSLATION' || name === 'SCALE') assert.deepEqual([a.type, a.componentType], ['VEC3', 5126], name);
      else if (name === 'ROTATION') assert.ok(a.type === 'VEC4' && (a.componentType === 5126 || a.normalized), 'ROTATION is VEC4 float or normalized');
      else assert.ok(name.startsWith('_'), `custom instance attribute ${name} starts with _`);
    }
    assert.equal(counts.size, 1, `all instance accessors of ${node.name} have one count`);
    instances += [...counts][0];
  }
  return instances;
}

// World positions of every drawn mesh instance (extension or plain node), in millimetres, sorted.
function placements(doc) {
  const out = [];
  for (const node of doc.getRoot().listNodes()) {
    if (!node.getMesh()) continue;
    const m = node.getWorldMatrix();
    const batch = node.getExtension('EXT_mesh_gpu_instancing');
    if (!batch) {
      if (node.getName() !== 'geometry') out.push([m[12], m[13], m[14]]);
      continue;
    }
    const t = batch.getAttribute('TRANSLATION');
    const r = batch.getAttribute('ROTATION');
    for (let i = 0; r && i < r.getCount(); i++)
      assert.ok(Math.abs(Math.hypot(...r.getElement(i, [])) - 1) < 1e-3, `${node.getName()}: instance ${i}'s rotation is a unit quaternion`);
    for (let i = 0; i < t.getCount(); i++) {
      const [x, y, z] = t.getElement(i, []);
      out.push([m[0] * x + m[4] * y + m[8] * z + m[12], m[1] * x + m[5] * y + m[9] * z + m[13], m[2] * x + m[6] * y + m[10] * z + m[14]]);
    }
  }
  return out;
}

// Whether two lists of points are the same points, each within `tolerance` metres of its match
// (float32 transforms composed in another order differ in the last bits).
function samePlaces(a, b, tolerance = 0.005) {
  if (a.length !== b.length) return `${a.length} points against ${b.length}`;
  const cell = (p) => p.map((v) => Math.floor(v)).join(',');
  const grid = new Map();
  for (const p of b) {
    const k = cell(p);
    if (!grid.has(k)) grid.set(k, []);
    grid.get(k).push(p);
  }
  for (const p of a) {
    let found = false;
    for (let dx = -1; dx <= 1 && !found; dx++)
      for (let dy = -1; dy <= 1 && !found; dy++)
        for (let dz = -1; dz <= 1 && !found; dz++) {
          const list = grid.get([Math.floor(p[0]) + dx, Math.floor(p[1]) + dy, Math.floor(p[2]) + dz].join(','));
          const i = list ? list.findIndex((q) => Math.hypot(q[0] - p[0], q[1] - p[1], q[2] - p[2]) <= tolerance) : -1;
          if (i >= 0) list.splice(i, 1), (found = true);
        }
    if (!found) return `no match for ${p.map((v) => v.toFixed(3)).join(', ')}`;
  }
  return '';
}

// Vertices and triangles as baked into an OBJ: every placement of every mesh.
function bakedCounts(doc) {
  let vertices = 0, faces = 0, lines = 0;
  for (const node of doc.getRoot().listNodes()) {
    const mesh = node.getMesh();
    if (!mesh) continue;
    const batch = node.getExtension('EXT_mesh_gpu_instancing');
    const copies = batch ? batch.getAttribute('TRANSLATION').getCount() : 1;
    // Primitives of one mesh share their vertices (one accessor): counted once.
    const seen = new Set();
    for (const p of mesh.listPrimitives()) {
      const pos = p.getAttribute('POSITION');
      if (!seen.has(pos)) { seen.add(pos); vertices += pos.getCount() * copies; }
      const n = p.getIndices() ? p.getIndices().getCount() : pos.getCount();
      if (p.getMode() === 1) lines += (n / 2) * copies;
      else faces += (n / 3) * copies;
    }
  }
  return { vertices, faces, lines };
}

function objCounts(text) {
  const c = { v: 0, f: 0, l: 0 };
  for (const line of text.split('\n')) {
    const k = line.slice(0, 2);
    if (k === 'v ') c.v++;
    else if (k === 'f ') c.f++;
    else if (k === 'l ') c.l++;
  }
  return { vertices: c.v, faces: c.f, lines: c.l };
}

const io = new NodeIO().registerExtensions([EXTMeshGPUInstancing]);

for (const input of inputs) {
  const name = input.startsWith(samples) ? input.slice(samples.length + 1) : basename(input);
  test(`exports of ${name} are valid glTF and OBJ`, async () => {
    const dir = mkdtempSync(join(work, 'out-'));
    const stem = basename(input).replace(/[^A-Za-z0-9_.-]/g, '_');
    const glb = join(dir, `${stem}.glb`), plain = join(dir, `${stem}.plain.glb`);
    const gltf = join(dir, `${stem}.gltf`), obj = join(dir, `${stem}.obj`);
    run('convert', input, glb);
    run('convert', input, plain, '--no-instancing');
    run('convert', input, gltf);
    run('convert', input, obj);
    for (const file of [glb, plain, gltf]) {
      const report = await validate(readFileSync(file), dir);
      const bad = report.issues.messages.filter((m) => m.severity <= 1).map((m) => `${m.code} ${m.pointer ?? ''}: ${m.message}`);
      assert.deepEqual(bad, [], `${basename(file)}: the validator found errors or warnings`);
      const infos = report.issues.messages.filter((m) => m.code === 'UNSUPPORTED_EXTENSION').map((m) => m.message);
      for (const i of infos) assert.match(i, /EXT_mesh_gpu_instancing/, 'the only unsupported extension is instancing');
    }
    const json = JSON.parse(readFileSync(gltf, 'utf8'));
    const instanced = checkInstancing(json);
    assert.equal(checkInstancing(JSON.parse(readFileSync(gltf, 'utf8'))), instanced);

    const a = await io.read(glb), b = await io.read(plain), c = await io.read(gltf);
    const pa = placements(a), pb = placements(b), pc = placements(c);
    assert.equal(pa.length, pb.length, 'as many instances with the extension as with plain nodes');
    assert.equal(samePlaces(pa, pb), '', 'and at the same places');
    assert.equal(samePlaces(pc, pa, 0), '', '.gltf and .glb hold the same');
    if (instanced > 0) assert.ok(pa.length >= instanced);

    assert.deepEqual(objCounts(readFileSync(obj, 'utf8')), bakedCounts(b), 'OBJ vertices, faces and lines');
    if (existsSync(obj.replace(/\.obj$/, '.mtl'))) assert.ok(statSync(obj.replace(/\.obj$/, '.mtl')).size > 0);
  });
}

test('a generated scenery exports every model as an instance, with its record', async () => {
  const counts = JSON.parse(run('info', generated, '--json')).counts;
  assert.equal(counts.pack_models, 5000);
  const kinds = (file) => {
    const json = JSON.parse(readFileSync(file, 'utf8'));
    const out = {};
    for (const n of json.nodes) {
      const list = n.extensions ? n.extras.instances : n.mesh !== undefined && n.name !== 'geometry' ? [n.extras] : [];
      for (const e of list) out[e.kind] = (out[e.kind] ?? 0) + 1;
    }
    return out;
  };
  const instanced = join(work, 'generated-kinds.gltf'), plain = join(work, 'generated-kinds-plain.gltf');
  run('convert', generated, instanced, '--param', 'extras=false');
  run('convert', generated, plain, '--no-instancing');
  for (const file of [instanced, plain]) {
    const k = kinds(file);
    assert.equal(k.pack_models, counts.pack_models, `${basename(file)}: PACK models`);
    assert.equal(k.models, counts.models, `${basename(file)}: MODL models`);
  }
  // Plain nodes carry each record's fields: the first PACK model's, as `sceneria` itself reads it.
  const json = JSON.parse(readFileSync(plain, 'utf8'));
  const node = json.nodes.find((n) => n.extras?.kind === 'pack_models' && n.extras.index === 0);
  assert.ok(node?.extras.fields, 'the record fields are in extras');
  // Its world place: its translation and its ancestors' (the section's, a group's), none of which turn.
  const world = [0, 0, 0];
  for (let at = json.nodes.indexOf(node); at >= 0; at = json.nodes.findIndex((n) => n.children?.includes(at))) {
    const t = json.nodes[at].translation ?? [0, 0, 0];
    t.forEach((v, i) => (world[i] += v));
  }
  const location = node.extras.fields.location;
  assert.ok(Math.hypot(...world.map((v, i) => v - location[i])) < 1e-3, `placed at ${world}, the record says ${location}`);
});
