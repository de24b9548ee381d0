// X-Ray skins and motions through the CLI's glTF export, checked by the Khronos validator and
// reloaded by @gltf-transform/core: the bones are joints with their inverse bind matrices, the
// weight maps JOINTS_0/WEIGHTS_0, and a motion an animation. The samples have no motion with
// keys, so one is appended to test_fmt_bones.object here (as tests/xray_test.cpp does).
// Run: node --test tests/node/   (scripts/test does, after the native build)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import validator from 'gltf-validator';
import { NodeIO } from '@gltf-transform/core';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const cli = join(root, 'build/native/sceneria');
const samples = resolve(process.env.SCENERIA_SAMPLES || join(root, '../shared/samples'));
const work = mkdtempSync(join(tmpdir(), 'sceneria-xray-'));
const run = (...args) => execFileSync(cli, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

// One v6 motion, `walk`, frames 0-10 at 30 fps: bone_child moves along x (linear keys) and turns
// about y (TCB keys), its other channels held.
function withMotion(file) {
  const parts = [];
  const b = (n, fill) => { const v = Buffer.alloc(n); fill(v); parts.push(v); };
  const u8 = (x) => b(1, (v) => v.writeUInt8(x));
  const u16 = (x) => b(2, (v) => v.writeUInt16LE(x));
  const u32 = (x) => b(4, (v) => v.writeUInt32LE(x));
  const f32 = (x) => b(4, (v) => v.writeFloatLE(x));
  const text = (s) => parts.push(Buffer.from(s + '\0', 'latin1'));
  const key = (value, time, shape) => {
    f32(value), f32(time), u8(shape);
    if (shape !== 4) for (let i = 0; i < 7; ++i) u16(32768);
  };
  u32(1);
  text('walk'), u32(0), u32(10), f32(30), u16(6);
  u8(0), u16(0xffff), f32(1), f32(2), f32(2), f32(1);
  u16(1), text('bone_child'), u8(0);
  for (let c = 0; c < 6; ++c) {
    u8(1), u8(1);
    if (c === 0) u16(2), key(0, 0, 3), key(1, 10 / 30, 3);
    else if (c === 3) u16(3), key(0, 0, 0), key(0.8, 5 / 30, 0), key(1.5, 10 / 30, 0);
    else u16(1), key(0, 0, 4);
  }
  const body = Buffer.concat(parts);
  const head = Buffer.alloc(8);
  head.writeUInt32LE(0x0916, 0), head.writeUInt32LE(body.length, 4);
  const out = Buffer.concat([file, head, body]);
  out.writeUInt32LE(out.readUInt32LE(4) + 8 + body.length, 4);
  return out;
}

async function exported(input, name) {
  const glb = join(work, name + '.glb');
  run('convert', input, glb);
  const bytes = readFileSync(glb);
  const report = await validator.validateBytes(new Uint8Array(bytes), { maxIssues: 50 });
  const bad = report.issues.messages.filter((m) => m.severity <= 1).map((m) => `${m.code} ${m.pointer}: ${m.message}`);
  assert.deepEqual(bad, [], `${name}: validator errors or warnings`);
  return new NodeIO().readBinary(new Uint8Array(bytes));
}

test('the bones of test_fmt_bones and test_fmt_vmrefs are a skin with their weights', async () => {
  for (const [name, bones] of [['test_fmt_bones', ['bone_root', 'bone_child']], ['test_fmt_vmrefs', ['joint1', 'joint2']]]) {
    const doc = await exported(join(samples, 'xray', name + '.object'), name);
    const skins = doc.getRoot().listSkins();
    assert.equal(skins.length, 1, name);
    assert.deepEqual(skins[0].listJoints().map((j) => j.getName()), bones, name);
    assert.equal(skins[0].getInverseBindMatrices().getCount(), 2, name);
    const skinned = doc.getRoot().listNodes().filter((n) => n.getSkin());
    assert.equal(skinned.length, 1, name);
    const prim = skinned[0].getMesh().listPrimitives()[0];
    const weights = prim.getAttribute('WEIGHTS_0'), joints = prim.getAttribute('JOINTS_0');
    assert.ok(weights && joints, `${name}: JOINTS_0 and WEIGHTS_0`);
    const used = new Set();
    for (let v = 0; v < weights.getCount(); ++v) {
      const w = weights.getElement(v, []), j = joints.getElement(v, []);
      assert.ok(Math.abs(w.reduce((a, x) => a + x, 0) - 1) < 1e-6, `${name}: vertex ${v} weights sum to 1`);
      used.add(j[0]);
    }
    assert.deepEqual([...used].sort(), [0, 1], `${name}: both bones weight some vertex`);
  }
});

test('a motion becomes an animation of its bone, frame by frame', async () => {
  const input = join(work, 'walk.object');
  writeFileSync(input, withMotion(readFileSync(join(samples, 'xray', 'test_fmt_bones.object'))));
  const doc = await exported(input, 'walk');
  const animations = doc.getRoot().listAnimations();
  assert.equal(animations.length, 1);
  assert.equal(animations[0].getName(), 'walk');
  const channels = animations[0].listChannels();
  assert.deepEqual(channels.map((c) => [c.getTargetNode().getName(), c.getTargetPath()]), [['bone_child', 'translation'], ['bone_child', 'rotation']]);
  const [t, r] = channels.map((c) => c.getSampler());
  assert.equal(t.getInput().getCount(), 11);
  assert.ok(Math.abs(t.getInput().getMax([])[0] - 10 / 30) < 1e-6);
  assert.ok(Math.abs(t.getOutput().getElement(5, [])[0] - 0.5) < 1e-5, 'x halfway at frame 5');
  // Yaw 0.8 rad at frame 5 (a key): about y, mirrored into the scene's frame.
  const q = r.getOutput().getElement(5, []);
  assert.ok(Math.abs(q[1] + Math.sin(0.4)) < 1e-5 && Math.abs(q[3] - Math.cos(0.4)) < 1e-5, `rotation at frame 5: ${q}`);
});
