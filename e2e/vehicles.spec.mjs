// Trains on their tracks: a trainset on a curved track drawn where the engine stands it, each
// vehicle its own model from dynamic/<data folder>/, in order and spaced by its .fiz length; and
// without the vehicles' folder, boxes and the missing files listed.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, frameChange, framePixels, openViewer, solidDds, test, redShare, blueShare } from './helpers.mjs';

// A quarter circle of radius 100 m from (0, 0, 0) heading +Z to (100, 0, 100) heading +X (control
// vectors 55.23 m, relative to their ends as a scenery gives them: the usual cubic approximation),
// and the trainset's front 60 m along it.
const K = 55.23;
const bend = [[0, 0, 0], [0, 0, K], [-K, 0, 0], [100, 0, 100]];
const scenery = [
  'node -1 0 luk track normal 157 1.435 0.25 25 20 0 flat vis rail/a 4 rail/b 0.2 2.75 2.5',
  `0 0 0 0`, `0 0 ${K}`, `${-K} 0 0`, `100 0 100 0`, '0', 'endtrack',
  'trainset pociag luk 60 0',
  // Red first (the front), then green, then blue; green stands turned round (offset -1).
  'node -1 0 R dynamic pkp\\test red red 0 headdriver 3 0 enddynamic',
  'node -1 0 G dynamic pkp\\test green green -1 nobody 3 0 enddynamic',
  'node -1 0 B dynamic pkp\\test blue blue 0 nobody 3 0 enddynamic',
  'endtrainset', ''].join('\n');

// A box 3 m wide, 4 m high and 20 m long in a T3D's axes (Z up), both windings, one colour.
function boxT3d([r, g, b]) {
  const [x, y, z] = [1.5, 10, 4];
  const corners = (sx, sy, sz) => [sx * x, sy * y, sz > 0 ? z : 0];
  const faces = [
    [[-1, -1, 1], [1, -1, 1], [1, 1, 1], [-1, 1, 1]], [[-1, -1, -1], [1, -1, -1], [1, 1, -1], [-1, 1, -1]],
    [[-1, -1, -1], [1, -1, -1], [1, -1, 1], [-1, -1, 1]], [[-1, 1, -1], [1, 1, -1], [1, 1, 1], [-1, 1, 1]],
    [[-1, -1, -1], [-1, 1, -1], [-1, 1, 1], [-1, -1, 1]], [[1, -1, -1], [1, 1, -1], [1, 1, 1], [1, -1, 1]],
  ];
  const tris = [];
  for (const q of faces) {
    const v = q.map((c) => corners(...c));
    for (const t of [[0, 1, 2], [0, 2, 3], [2, 1, 0], [3, 2, 0]]) tris.push(t.map((i) => v[i]));
  }
  const body = tris.map((t) => `1\n${t.map((p) => `${p.join(' ')} 0 0`).join('\n')}`).join('\n');
  return `Parent: none\nType: Mesh\nName: body\nAnim: false\nAmbient: ${r} ${g} ${b}\nDiffuse: ${r} ${g} ${b}\nSpecular: 0 0 0\nSelfIllum: false\n` +
    `Wire: false\nWireSize: 1\nOpacity: 100\nMap: none\nMaxDistance: -1\nMinDistance: 0\nTransform: 1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1\n` +
    `NumVerts: ${tris.length * 3}\n${body}\n`;
}

function gameFolder(withVehicles) {
  const root = join(mkdtempSync(join(tmpdir(), 'sceneria-vehicles-')), 'MaSzyna');
  mkdirSync(join(root, 'scenery'), { recursive: true });
  writeFileSync(join(root, 'scenery', 'luk.scn'), scenery);
  if (withVehicles) {
    const dir = join(root, 'dynamic', 'pkp', 'test');
    mkdirSync(dir, { recursive: true });
    for (const [name, colour] of [['red', [255, 0, 0]], ['green', [0, 255, 0]], ['blue', [0, 0, 255]]]) {
      writeFileSync(join(dir, `${name}.mmd`), `models: ${name}.t3d\nendmodels\n`);
      writeFileSync(join(dir, `${name}.fiz`), 'Dimensions: L=20 W=3 H=4\nWheels: Bd=12\n');
      writeFileSync(join(dir, `${name}.t3d`), boxT3d(colour));
    }
  } else {
    writeFileSync(join(root, 'readme.txt'), 'no vehicles here');
  }
  return root;
}

// The test's own walk along the bend (not the product's): the point `s` metres from its start.
function along(s) {
  const at = (t) => [0, 1, 2].map((k) => (1 - t) ** 3 * bend[0][k] + 3 * (1 - t) ** 2 * t * (bend[0][k] + bend[1][k]) +
                                         3 * (1 - t) * t * t * (bend[3][k] + bend[2][k]) + t ** 3 * bend[3][k]);
  let prev = at(0), length = 0;
  for (let i = 1; i <= 4000; i++) {
    const p = at(i / 4000);
    const d = Math.hypot(p[0] - prev[0], p[2] - prev[2]);
    if (length + d >= s) return p;
    length += d;
    prev = p;
  }
  return prev;
}

// Over the bend from above: which pixels the vehicles' objects make (shown vs hidden), and for
// each expected middle (60 - 10, 40 - 10, 20 - 10 m along) the colour drawn there.
async function lookAtTrain(page, middles) {
  return page.evaluate(({ middles, path }) => {
    const v = window.sceneria.viewer;
    v.setOrbit(50, 0, 50, 190, 0, 1.55);
    v.renderFrame();
    const s = v.stats();
    const ids = [0, 1, 2].map((i) => v.findObject('dynamics', i));
    const shown = v.readPixels(0, 0, s.width, s.height);
    v.hide(Math.min(...ids), 3);
    const hidden = v.readPixels(0, 0, s.width, s.height);
    v.hide(-1, 0);
    // Pixels per metre here, and the path on screen.
    const a = v.project(50, 0, 50), b = v.project(60, 0, 50);
    const perMetre = Math.hypot(b.x - a.x, b.y - a.y) / 10;
    const line = path.map((p) => v.project(p[0], p[1], p[2]));
    let differ = 0, off = 0, farthest = 0;
    for (let y = 0; y < s.height; y++)
      for (let x = 0; x < s.width; x++) {
        const i = (y * s.width + x) * 4;
        if (Math.abs(shown[i] - hidden[i]) + Math.abs(shown[i + 1] - hidden[i + 1]) + Math.abs(shown[i + 2] - hidden[i + 2]) <= 24) continue;
        differ++;
        let best = Infinity;
        for (const q of line) best = Math.min(best, Math.hypot(q.x - x, q.y - y));
        farthest = Math.max(farthest, best / perMetre);
        if (best / perMetre > 4.5) off++;  // half the width, the box's ends off the arc, the height's lean
      }
    const colours = middles.map((m) => {
      const p = v.project(m[0], 2, m[2]);
      const i = (Math.round(p.y) * s.width + Math.round(p.x)) * 4;
      return [shown[i], shown[i + 1], shown[i + 2]];
    });
    return { ids, differ, off, farthest, perMetre, colours };
  }, { middles, path: Array.from({ length: 161 }, (_, i) => along(i)) });
}

const dominant = ([r, g, b]) => (r > g + 40 && r > b + 40 ? 'red' : g > r + 40 && g > b + 40 ? 'green' : b > r + 40 && b > g + 40 ? 'blue' : 'none');

test('a trainset on a curved track stands on it, in order, spaced by its vehicles\' lengths', async ({ page }) => {
  test.setTimeout(90_000);
  await openViewer(page);
  await page.setInputFiles('#folder-input', gameFolder(true));
  await page.waitForFunction(() => window.sceneria.lastResult?.name === 'luk.scn' && window.sceneria.models?.done, null, { timeout: 60_000 });
  const models = await page.evaluate(() => window.sceneria.models);
  expect(models.loaded).toBe(3);
  expect(models.failed).toBe(0);
  await expect(page.locator('#missing-files li')).toHaveCount(0);
  const r = await lookAtTrain(page, [along(50), along(30), along(10)]);
  expect(r.ids.every((id) => id >= 0)).toBe(true);
  // Three 20 x 3 m bodies from above: a few thousand pixels, every one of them on the path.
  expect(r.differ).toBeGreaterThan(3 * 20 * 3 * r.perMetre * r.perMetre * 0.5);
  expect(r.off, `vehicle pixels off the path (farthest ${r.farthest.toFixed(2)} m)`).toBe(0);
  expect(r.colours.map(dominant)).toEqual(['red', 'green', 'blue']);
  // The outliner: the trainset, its vehicles in its order.
  await page.selectOption('#record-kind', 'dynamics');
  await expect(page.locator('#record-group option')).toHaveText(['All vehicles (3)', 'trainset pociag on luk (3)']);
  await page.selectOption('#record-group', { label: 'trainset pociag on luk (3)' });
  await expect(page.locator('#records [data-record] .name')).toHaveText(['R', 'G', 'B']);
  // Its record, its trainset and its size from its .fiz, as a click shows them.
  const record = await page.evaluate(() => window.sceneria.parser.record(window.sceneria.lastResult.doc, 'dynamics', 1));
  expect(record.trainset).toMatchObject({ name: 'pociag', position: 2, of: 3, vehicles: ['R', 'G', 'B'] });
  expect(record.vehicle).toMatchObject({ type: 'green', length_m: 20, mmd: 'dynamic/pkp/test/green.mmd' });
  const [x, , z] = along(50);
  const p = await page.evaluate(([x, z]) => window.sceneria.viewer.project(x, 4.1, z), [x, z]);
  const box = await page.locator('#canvas').boundingBox();
  await page.mouse.click(box.x + p.x, box.y + p.y);
  await expect(page.locator('#inspector-title')).toHaveText('Vehicles #0 · R');
  await expect(page.locator('#inspector')).toContainText('pociag');
  // Ride from it: from its front coupler (60 m along), the way it faces (on along the bend).
  await page.click('#drive-here');
  const ride = await page.evaluate(() => {
    const v = window.sceneria.viewer;
    const before = v.camera();
    for (let i = 0; i < 20; i++) v.update(0.1, false, false);
    return { before, after: v.camera() };
  });
  expect(ride.before.mode).toBe('drive');
  // Where on the bend the eye is (the page's own frames may have moved it on since the click).
  const onBend = (eye) => {
    let best = { s: -1, d: Infinity };
    for (let s = 0; s <= 157; s += 0.25) {
      const q = along(s), d = Math.hypot(eye[0] - q[0], eye[2] - q[2]);
      if (d < best.d) best = { s, d };
    }
    return best;
  };
  const start = onBend(ride.before.eye), end = onBend(ride.after.eye);
  expect(start.d).toBeLessThan(0.3);
  expect(start.s).toBeGreaterThanOrEqual(59.5);
  expect(start.s).toBeLessThan(75);
  expect(end.s - start.s).toBeGreaterThan(20);  // on, the way the vehicle faces
});

test('vehicles whose folder is missing stand as boxes and their files are listed', async ({ page }) => {
  await openViewer(page);
  await page.setInputFiles('#folder-input', gameFolder(false));
  await page.waitForFunction(() => window.sceneria.lastResult?.name === 'luk.scn');
  const missing = await page.$$eval('#missing-files li', (items) => items.map((li) => li.textContent));
  for (const name of ['red', 'green', 'blue'])
    for (const ext of ['mmd', 'fiz']) expect(missing).toContain(`dynamic/pkp/test/${name}.${ext}`);
  // The boxes (a stand-in 20 m each) where the vehicles stand, nowhere else.
  const r = await lookAtTrain(page, [along(50), along(30), along(10)]);
  expect(r.differ).toBeGreaterThan(3 * 20 * 3 * r.perMetre * r.perMetre * 0.5);
  expect(r.off).toBe(0);
  const record = await page.evaluate(() => window.sceneria.parser.record(window.sceneria.lastResult.doc, 'dynamics', 0));
  expect(record.vehicle.size_from).toMatch(/stand-in/);
});

// A box 3 m wide, 4 m high and 20 m long wearing replaceable skin 1 on every face.
function skinnedBoxT3d() {
  return boxT3d([255, 255, 255]).replace('Map: none', 'Map: replacableskin');
}

test('a vehicle folder dropped opens as the vehicle: its body in the chosen skin set, its length and bogies marked', async ({ page }) => {
  const dir = join(mkdtempSync(join(tmpdir(), 'sceneria-vehicle-')), 'test');
  mkdirSync(dir);
  writeFileSync(join(dir, 'test.mmd'), 'models: body.t3d#\nendmodels\nlocations:\n bogies: -6 6 end\nendlocations\n');
  writeFileSync(join(dir, 'test.fiz'), 'Dimensions: L=20 W=3 H=4\nWheels: Bd=12\n');
  writeFileSync(join(dir, 'body.t3d'), skinnedBoxT3d());
  writeFileSync(join(dir, 'blue,1.dds'), solidDds(0x001F));
  writeFileSync(join(dir, 'red,1.dds'), solidDds(0xF800));
  await openViewer(page);
  await page.setInputFiles('#folder-input', dir);
  await page.waitForFunction(() => window.sceneria.lastResult?.name === 'test.mmd');
  await expect(page.locator('#missing-files li')).toHaveCount(0);
      // The first set until one is chosen: the body wears it.
  await expect(page.locator('#choice-skin-set')).toHaveValue('blue');
  const first = await framePixels(page);
  expect(blueShare(first)).toBeGreaterThan(0.01);
  expect(redShare(first)).toBeLessThan(0.0005);
  await page.evaluate(() => { window.sceneria.lastResult.stale = true; });
  await page.selectOption('#choice-skin-set', 'red');
  await page.waitForFunction(() => window.sceneria.lastResult && !window.sceneria.lastResult.stale);
  const second = await framePixels(page);
  expect(redShare(second)).toBeGreaterThan(0.01);
  expect(blueShare(second)).toBeLessThan(0.0005);
  // Its records: the body drawn, both ends and both bogies as locations, drawn as lines.
  const lists = await page.evaluate(() => Object.fromEntries(window.sceneria.lastResult.lists.map((l) => [l.id, l.count])));
  expect(lists).toMatchObject({ parts: 1, locations: 4 });
  const ends = await page.evaluate(() => window.sceneria.parser.record(window.sceneria.lastResult.doc, 'locations', 0));
  expect(ends).toMatchObject({ what: 'front end', ahead_of_centre_m: 10 });
  expect(await frameChange(page, 'static')).toBeGreaterThan(0.0005);  // the markers are the static layer
});
