// The JS API in Node (api/sceneria.mjs), on the WebAssembly core built for Node: documents opened
// from paths, bytes and file maps; conversions checked against the samples, the native CLI and
// the glTF validator; progress and cancellation. The browser runs the same API (e2e/api.spec.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import validator from 'gltf-validator';
import { open, convert, formats, Session } from '../../api/sceneria.mjs';
import { pickDocument, rankDocuments } from '../../api/pick.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const samples = resolve(process.env.SCENERIA_SAMPLES || join(root, '../shared/samples'));
const cli = join(root, 'build/native/sceneria');
const work = mkdtempSync(join(tmpdir(), 'sceneria-api-'));

test('formats() lists the registry, with the scene exports for every readable format', async () => {
  const list = await formats();
  assert.equal(list[0].id, 'eu7b');
  // A Hard Truck .res holds a module's resources and draws nothing: it writes only itself.
  for (const f of list.filter((f) => f.reads && f.id !== 'b3d-res')) assert.deepEqual(f.writes.slice(-3).map((w) => w.id), ['glb', 'gltf', 'obj'], f.id);
  assert.deepEqual(list.find((f) => f.id === 'b3d-res').writes.map((w) => w.id), ['res']);
});

test('a module opened by path: info, lists, sections, objects and records', async () => {
  const doc = await open(join(samples, 'maszyna/eu7/TD.v6.eu7'));
  try {
    assert.equal(doc.format, 'eu7b');
    assert.equal(doc.info().version, 6);
    assert.equal(doc.info().size, statSync(join(samples, 'maszyna/eu7/TD.v6.eu7')).size);
    assert.equal(doc.lists().find((l) => l.id === 'tracks').count, 87);
    const sections = await doc.sections();
    assert.ok(sections.length > 0);
    assert.ok(sections.every((s) => s.max[0] >= s.min[0] && Number.isInteger(s.row)));
    const rows = await doc.objects({ list: 'tracks', first: 0, count: 5 });
    assert.equal(rows.length, 5);
    assert.deepEqual(rows.map((r) => r.i), [0, 1, 2, 3, 4]);
    // The first track: a 100 m normal track, as its row says.
    const record = await doc.record('tracks', 0);
    assert.equal(record.length, 100);
    assert.match(rows[0].detail, /^normal · 100\.0 m/);
    assert.equal(await doc.record('tracks', 87), null);
  } finally {
    doc.close();
  }
});

// Two JSON values equal but for float rounding (WebAssembly's libm and glibc differ in last bits).
function near(a, b, at = '') {
  if (typeof a === 'number' && typeof b === 'number') {
    assert.ok(Math.abs(a - b) <= 1e-5 * Math.max(1, Math.abs(a)), `${at}: ${a} against ${b}`);
  } else if (a && typeof a === 'object') {
    assert.equal(typeof b, 'object', at);
    assert.deepEqual(Object.keys(a), Object.keys(b), at);
    for (const k of Object.keys(a)) near(a[k], b[k], `${at}/${k}`);
  } else {
    assert.equal(a, b, at);
  }
}
const glbJson = (bytes) => JSON.parse(Buffer.from(bytes).subarray(20, 20 + Buffer.from(bytes).readUInt32LE(12)).toString('utf8'));

test('convert to glb gives what the native CLI writes, and it validates', async () => {
  const path = join(samples, 'maszyna/eu7/wrapinc_linia053.v9-pack6.eu7');
  const doc = await open(readFileSync(path), { name: 'wrapinc.eu7' });
  const seen = [];
  const out = await convert(doc, { to: 'glb', onProgress: (p) => seen.push(p.fraction) });
  doc.close();
  assert.equal(out.name, 'wrapinc.glb');
  assert.equal(Buffer.from(out.bytes.subarray(0, 4)).toString('latin1'), 'glTF');
  const report = await validator.validateBytes(out.bytes);
  assert.equal(report.issues.numErrors, 0);
  assert.equal(report.issues.numWarnings, 0);
  execFileSync(cli, ['convert', path, join(work, 'wrapinc.glb')]);
  const native = readFileSync(join(work, 'wrapinc.glb'));
  near(glbJson(out.bytes), glbJson(native), 'glTF');
  assert.ok(Math.abs(out.bytes.length - native.length) <= 16, `${out.bytes.length} bytes against ${native.length}`);
  assert.ok(seen.length > 0 && seen.at(-1) === 1, `progress ${seen}`);
});

test('convert to eu7 writes the module back byte for byte, and OBJ comes with its files', async () => {
  const path = join(samples, 'maszyna/eu7/wrapinc_linia053.v9-pack6.eu7');
  const doc = await open(path);
  const again = await convert(doc, { to: 'eu7' });
  assert.ok(Buffer.from(again.bytes).equals(readFileSync(path)));
  const obj = await convert(doc, { to: 'obj', separate: true });
  doc.close();
  assert.deepEqual(obj.files.map((f) => f.name), ['wrapinc_linia053.v9-pack6.mtl']);
  assert.ok(obj.zip.length > obj.bytes.length);
  const text = Buffer.from(obj.bytes).toString('utf8');
  assert.equal(text.split('\n').filter((l) => l.startsWith('o pack_models_')).length, 77);
  await assert.rejects(convert(doc, { to: 'eu7' }), /closed|no document/);
});

test('convert to json streams the dump out of the worker: the native CLI\'s bytes, read back to the module', async () => {
  const generated = join(work, 'dump.eu7');
  execFileSync(cli, ['generate', generated, '--models', '40000', '--seed', '2']);
  execFileSync(cli, ['dump', generated, '-o', join(work, 'dump.json')]);
  const doc = await open(generated);
  const json = await convert(doc, { to: 'json' });
  doc.close();
  assert.ok(json.bytes.length > 4 << 20, `${json.bytes.length} bytes: several of the writer's 1 MB pieces`);
  assert.ok(Buffer.from(json.bytes).equals(readFileSync(join(work, 'dump.json'))));
  const back = await open(json.bytes, { name: 'dump.json' });
  const module = await convert(back, { to: 'eu7' });
  back.close();
  assert.ok(Buffer.from(module.bytes).equals(readFileSync(generated)));
});

test('a model and a twin convert to their JSON forms as the native CLI dumps them, and back to their own bytes', async () => {
  for (const [sample, own, form] of [['maszyna/models/kabina_a.e3d', 'e3d', 'e3d'], ['maszyna/twin/trees.scmb', 'twin', 'scenery-twin'],
                                     ['hardtruck/ks.b3d', 'b3d', 'b3d']]) {
    const path = join(samples, sample);
    const dumped = join(work, `${own}.json`);
    execFileSync(cli, ['dump', path, '-o', dumped]);
    const doc = await open(path);
    const json = await convert(doc, { to: 'json' });
    doc.close();
    assert.ok(Buffer.from(json.bytes).equals(readFileSync(dumped)), sample);
    assert.equal(JSON.parse(Buffer.from(json.bytes).toString('utf8')).format, form);
    const back = await open(json.bytes, { name: `${own}.json` });
    const bytes = await convert(back, { to: own });
    back.close();
    assert.ok(Buffer.from(bytes.bytes).equals(readFileSync(path)), `${sample} back from its JSON`);
  }
});

test('a map of dropped files opens its scenery with its includes and compiles to the reference module', async () => {
  const doc = await open({
    'scenery/linia053-misja5.inc': join(samples, 'maszyna/text/linia053-misja5.scm'),
    'scenery/wrapinc_linia053.scn': join(samples, 'maszyna/eu7/wrapinc_linia053.scn'),
  });
  assert.equal(doc.name, 'wrapinc_linia053.scn');
  assert.equal(doc.format, 'scenery-text');
  const out = await convert(doc, { to: 'eu7', version: 9 });
  doc.close();
  assert.ok(Buffer.from(out.bytes).equals(readFileSync(join(samples, 'maszyna/eu7/wrapinc_linia053.v9-pack6.eu7'))));
  assert.ok(out.losses.some((l) => l.includes('UTEX filters it')));
});

test('a Hard Truck module dropped with its .res converts to the .glb the CLI writes, its textures as PNG', async () => {
  const doc = await open({ 'ks/ks.b3d': join(samples, 'hardtruck/ks.b3d'), 'ks/ks.res': join(samples, 'hardtruck/ks.res') });
  assert.equal(doc.format, 'b3d');
  assert.equal(doc.info().resources[0].name, 'ks/ks.res');
  const glb = await convert(doc, { to: 'glb' });
  doc.close();
  const expected = join(work, 'ks.glb');
  execFileSync(cli, ['convert', join(samples, 'hardtruck/ks.b3d'), expected]);
  assert.ok(Buffer.from(glb.bytes).equals(readFileSync(expected)));
  const bytes = Buffer.from(glb.bytes);
  const json = JSON.parse(bytes.subarray(20, 20 + bytes.readUInt32LE(12)).toString('utf8'));
  assert.equal(json.images.length, 11);  // the 12 TEXTUREFILES, one of them named by no material
  assert.ok(json.images.every((i) => i.mimeType === 'image/png'));
});

test('a format\'s open choices: declared in formats(), offered by a file, passed as params as the CLI passes --param', async () => {
  const list = await formats();
  assert.deepEqual(list.find((f) => f.id === 'xray').choices.map((c) => [c.param, c.values.map((v) => v.value), c.value]),
                   [['smoothing', ['automatic', 'soc', 'cop'], 'automatic']]);
  assert.deepEqual(list.find((f) => f.id === 'b3d').choices.map((c) => [c.param, c.toggle]), [['group', false], ['hidden', true]]);
  assert.deepEqual(list.find((f) => f.id === 'eu7b').choices, []);
  const object = join(samples, 'xray/test_fmt_sg_new.object');
  const automatic = await open(object);
  assert.deepEqual(automatic.choices().map((c) => [c.param, c.value, c.values[0].label]), [['smoothing', 'automatic', 'automatic (CoP)']]);
  const soc = await open(object, { params: { smoothing: 'soc' } });
  assert.equal(soc.choices()[0].value, 'soc');
  // The scene differs as the CLI's does with the same choice.
  const glb = await convert(soc, { to: 'glb' });
  const plain = await convert(automatic, { to: 'glb' });
  soc.close();
  automatic.close();
  const expected = join(work, 'soc.glb');
  execFileSync(cli, ['convert', object, expected, '--param', 'smoothing=soc']);
  assert.ok(Buffer.from(glb.bytes).equals(readFileSync(expected)));
  assert.ok(!Buffer.from(plain.bytes).equals(readFileSync(expected)));
  // A value outside the list, or a choice the format does not have: refused, saying which.
  await assert.rejects(open(object, { params: { smoothing: 'soft' } }), { code: 'bad_value', message: "smoothing: 'soft' is not one of 'automatic', 'soc', 'cop'" });
  await assert.rejects(open(object, { params: { group: '1' } }), { code: 'bad_value', message: /has no open choice 'group' \(it has smoothing\)/ });
});

test('a dropped folder opens its root: the file no other names that names some itself; several are asked about', async () => {
  const list = await formats();
  const rank = (files) => {
    const entries = Object.keys(files).map((path) => ({ path }));
    return rankDocuments(entries, list, async (i) => new TextEncoder().encode(files[entries[i].path]))
      .then((r) => ({ root: r.root < 0 ? null : entries[r.root].path, roots: r.roots.map((i) => entries[i].path), order: r.order.map((i) => entries[i].path) }));
  };
  // The allnodes folder: the text root, its compiled twin (naming the same includes), an include,
  // a child module naming only models. The text is the source of the twin: it is the root.
  const allnodes = await rank({ 'allnodes/allnodes.scn': 'include placed.scm 1 2 3 end\ninclude models_small.inc end',
                                'allnodes/allnodes.v9-root.eu7': 'EU7B\0\0placed.scm\0models_small.inc\0',
                                'allnodes/placed.scm': 'node -1 0 a model 0 0 0 0 lampy/lampa.t3d none end',
                                'allnodes/placed.v6.eu7': 'EU7B\0lampy/lampa.t3d\0', 'allnodes/models_small.inc': '' });
  assert.equal(allnodes.root, 'allnodes/allnodes.scn');
  assert.deepEqual(allnodes.roots, ['allnodes/allnodes.scn']);
  assert.equal(allnodes.order.length, 5);
  // Thirteen models naming no other: asked, all offered.
  const models = {};
  for (let i = 0; i < 13; i++) models[`m/model${i}.e3d`] = `E3D0 textures/t${i}.dds`;
  const m = await rank(models);
  assert.equal(m.root, null);
  assert.equal(m.roots.length, 13);
  // A .b3d with its .res (a companion, no choice of its own).
  assert.equal((await rank({ 'ks/ks.b3d': 'b3d', 'ks/ks.res': 'TEXTUREFILES 12' })).root, 'ks/ks.b3d');
  // A scenery beside its vehicles (each .mmd naming its models): the scenery, first by kind.
  assert.equal((await rank({ 'scenery/a.scn': 'node -1 0 t model 0 0 0 0 drzewa/sosna.t3d none end', 'models/drzewa/sosna.t3d': '',
                            'dynamic/ep07/ep07.mmd': 'models: ep07.e3d', 'dynamic/ep07/ep07.e3d': '' })).root, 'scenery/a.scn');
  // A scenery naming its vehicles by their stems ("dynamic pkp/test red"), each .mmd naming its
  // model: the scenery, not a question between three vehicles.
  assert.equal((await rank({ 'scenery/luk.scn': 'node -1 0 v dynamic pkp/test red red 0 end\nnode -1 0 w dynamic pkp/test green green 0 end',
                            'dynamic/pkp/test/red.mmd': 'models: red.t3d', 'dynamic/pkp/test/red.t3d': '',
                            'dynamic/pkp/test/green.mmd': 'models: green.t3d', 'dynamic/pkp/test/green.t3d': '' })).root, 'scenery/luk.scn');
  // Two sceneries: asked.
  const two = await rank({ 'a.scn': 'include x.inc end', 'b.scn': 'include y.inc end', 'x.inc': '', 'y.inc': '' });
  assert.equal(two.root, null);
  assert.deepEqual(two.roots, ['a.scn', 'b.scn']);
});

test('one rule picks the document of a folder, for the page and the API', async () => {
  const list = await formats();
  // The first extension in registry order: a module before a scenery text, a .scn before its .inc
  // files, a model before its textures; then the shallowest; then the first by path.
  assert.equal(pickDocument(['a/x.inc', 'a/b/td.SCN', 'a/t.dds'], list), 1);
  assert.equal(pickDocument(['s/td.scn', 'placed.v6.eu7'], list), 1);
  assert.equal(pickDocument(['m/tex.dds', 'm/deep/x.e3d', 'm/y.t3d'], list), 1);
  assert.equal(pickDocument(['z/b.e3d', 'z/a.e3d', 'a.e3d'], list), 2);
  assert.equal(pickDocument(['z/b.e3d', 'z/a.e3d'], list), 1);
  assert.equal(pickDocument(['a/deep/x.e3d', 'b.e3d'], list), 1);  // the shallowest before the first by path
  assert.equal(pickDocument(['readme.txt', 'x.bin'], list), -1);
  // The API opens by it: with no `main`, the .scn of a map with its includes, named as picked.
  const doc = await open({ 'sc/inc/a.inc': new Uint8Array(), 'sc/td.scn': new TextEncoder().encode('// nothing\n') });
  try {
    assert.equal(doc.format, 'scenery-text');
    assert.equal(doc.name, 'td.scn');
  } finally {
    doc.close();
  }
});

test('errors say what and where; a long conversion can be cancelled', async () => {
  await assert.rejects(open(new Uint8Array([1, 2, 3, 4]), { name: 'junk.bin' }), (e) => e.code === 'unknown_format' && /not a recognised file/.test(e.message));
  const generated = join(work, 'big.eu7');
  execFileSync(cli, ['generate', generated, '--models', '300000']);
  const doc = await open(generated);
  const controller = new AbortController();
  const started = Date.now();
  const pending = convert(doc, { to: 'obj', signal: controller.signal });
  setTimeout(() => controller.abort(), 200);
  await assert.rejects(pending, (e) => e.code === 'aborted');
  assert.ok(Date.now() - started < 5000, 'the abort does not wait for the conversion');
  await assert.rejects(doc.sections(), (e) => e.code === 'closed' || /closed/.test(e.message));
});

// The page's session runs the same worker and protocol (api/engine.mjs) on one worker: each open
// replaces the document and gives it a new id, requests for a replaced one answer null, every
// failure rejects with the core's error shape, and a scenery opened whole bakes with its folder.
test('a viewer session: one worker, documents by id, stale requests, the one error shape, bake', async () => {
  const session = await Session.start();
  try {
    const registry = await session.formats();
    assert.equal(registry.formats[0].id, 'eu7b');
    assert.ok(registry.accept.split(',').includes('.eu7'));

    const model = readFileSync(join(samples, 'maszyna/models/e6acta_kanal_bok.e3d'));
    const a = await session.open(model, { name: 'e6acta_kanal_bok.e3d' });
    assert.equal(a.format, 'e3d');
    assert.ok(a.scene instanceof Uint8Array && a.scene.length > 64, 'the scene for the viewer');
    const submodels = a.lists.find((l) => l.id === 'submodels').count;
    assert.ok(submodels > 0);
    assert.equal((await session.rows(a.doc, 'submodels', 0, 1000)).length, submodels);
    assert.equal(typeof (await session.record(a.doc, 'submodels', 0)).name, 'string');

    const module = readFileSync(join(samples, 'maszyna/eu7/TD.v6.eu7'));
    const b = await session.open(module, { name: 'TD.v6.eu7' });
    assert.equal(b.doc, a.doc + 1);
    assert.equal(await session.record(a.doc, 'submodels', 0), null, 'the replaced document is stale');
    assert.equal((await session.search(b.doc, 'tracks', 'normal', 10)).length, 10);

    // A truncated module: rejected with where; the document open before stays open and current
    // (`kept`: the page keeps showing it).
    await assert.rejects(session.open(module.subarray(0, 100), { name: 'cut.eu7' }), (e) => {
      assert.equal(e.code, 'truncated');
      assert.equal(typeof e.offset, 'number');
      assert.equal(e.file, 'cut.eu7');
      assert.match(e.message, /remain|truncated|bytes/);
      assert.equal(e.kept, true);
      return true;
    });
    assert.equal((await session.rows(b.doc, 'tracks', 0, 1)).length, 1);
    assert.equal(await session.rows(b.doc - 1, 'tracks', 0, 1), null);  // the one before it is gone
    assert.equal(await session.write(b.doc + 1, 'glb'), null);  // the failed open made no document

    // A text scenery with its include: written as its twin and baked with what it includes.
    const inc = readFileSync(join(samples, 'maszyna/text/tree.inc'));
    const scn = new TextEncoder().encode('include tree.inc drzewo.dds 100 0 200 90 10 3 end\ninclude brak.inc end\n');
    const c = await session.open(scn, { name: 'las.scn', assets: [{ path: 'las.scn', data: scn }, { path: 'tree.inc', data: inc }] });
    assert.equal(c.format, 'scenery-text');
    const twin = await session.write(c.doc, '.scnb');
    assert.equal(twin.extension, '.scnb');
    const baked = await session.bake(c.doc);
    assert.deepEqual(baked.files.map((f) => f.path), ['las.scnb', 'tree.incb']);
    assert.ok(Buffer.from(baked.files[1].bytes).equals(readFileSync(join(samples, 'maszyna/twin/tree.incb'))), 'the reference twin');
    assert.deepEqual(baked.missing, ['brak.inc']);
  } finally {
    session.close();
  }
});
