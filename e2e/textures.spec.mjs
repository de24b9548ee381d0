// Textures as MaSzyna maps them, in every image format the core reads: a T3D of two quads, each
// with its own patterned texture (tests/fixtures/textures.mjs: four coloured quadrants, a second
// palette for the second quad), dropped as a folder; the real WebGL2 pixels at known UVs must be
// the texels the engine samples there. The engine keeps a TGA, PNG, BMP or JPEG with its bottom
// row at v = 0 and uploads a DDS as stored, its first row at v = 0 (Texture.cpp), so the same
// picture lands upside down between the two families, and the checks say which quadrant each is.
// A zeroed, swapped or flipped UV, a texture bound to the other quad, or a texture drawn flat
// fails them.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, expect, openViewer } from './helpers.mjs';
import { KINDS, OTHER, QUADRANTS } from '../tests/fixtures/textures.mjs';

// Two 10 m quads in the T3D's XY plane (its z is the scenery's up): quad a at x 0..10, quad b at
// x 12..22, corners (0,0) (1,0) (1,1) (0,1) in UV. The engine's axes turn T3D (x, y, z) into
// scenery (-x, z, y).
const QUADS = [{ name: 'a', x0: 0, texture: 'pat-a' }, { name: 'b', x0: 12, texture: 'pat-b' }];
function quadModel(ext) {
  const out = [];
  for (const q of QUADS) {
    const c = (x, y, u, v) => `${q.x0 + x} ${y} 0 ${u} ${v}`;
    // Two triangles, each after its smoothing mask, wound to face up once the axes turn.
    const tris = [[c(0, 0, 0, 0), c(10, 0, 1, 0), c(10, 10, 1, 1)], [c(0, 0, 0, 0), c(10, 10, 1, 1), c(0, 10, 0, 1)]];
    out.push(
      'Parent: none', 'Type: Mesh', `Name: quad_${q.name}`, 'Anim: false', 'Ambient: 255 255 255', 'Diffuse: 255 255 255',
      'Specular: 0 0 0', 'SelfIllum: false', 'Wire: false', 'WireSize: 1', 'Opacity: 100', `Map: ${q.texture}${ext}`,
      'MaxDistance: -1', 'MinDistance: 0', 'Transform: 1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1', 'NumVerts: 6',
      ...tris.flatMap((t) => ['1', ...t]), '');
  }
  return out.join('\n');
}
// The quadrant the engine shows at (u, v): v from the first row it keeps.
function expected(kind, u, v) {
  const fromTop = kind.ext === '.dds' ? v < 0.5 : v >= 0.5;  // a DDS's first stored row is its top
  return `${fromTop ? 'top' : 'bottom'}${u < 0.5 ? 'Left' : 'Right'}`;
}
const POINTS = [[0.25, 0.25], [0.75, 0.25], [0.25, 0.75], [0.75, 0.75]];
// Lit, the colour keeps its hue: each channel is near 0 or clearly up, as the texel's.
const looksLike = (px, [r, g, b]) => [r, g, b].every((c, i) => (c ? px[i] > 90 : px[i] < 60));

async function showFolder(page, kind) {
  const dir = mkdtempSync(join(tmpdir(), 'sceneria-textures-'));
  const folder = join(dir, 'quads');
  mkdirSync(folder);
  writeFileSync(join(folder, 'quads.t3d'), quadModel(kind.ext));
  writeFileSync(join(folder, `pat-a${kind.ext}`), kind.make(QUADRANTS));
  writeFileSync(join(folder, `pat-b${kind.ext}`), kind.make(OTHER));
  await page.setInputFiles('#folder-input', folder);
  await page.waitForFunction(() => window.sceneria.lastResult?.name === 'quads.t3d' && window.sceneria.viewer.stats().frames > 0);
}

// The pixel under each (quad, u, v), seen from straight above: UV (u, v) of a quad lies at T3D
// (x0 + 10u, 10v, 0), turned.
function sample(page) {
  return page.evaluate(({ quads, points }) => {
    const v = window.sceneria.viewer;
    v.setOrbit(-11, 0, 5, 40, 0, 1.55);
    v.renderFrame();
    const out = {};
    for (const q of quads)
      out[q.name] = points.map(([u, w]) => {
        const p = v.project(-(q.x0 + 10 * u), 0, 10 * w);
        return p ? [...v.readPixels(Math.round(p.x), Math.round(p.y), 1, 1)].slice(0, 3) : null;
      });
    return { pixels: out, stats: v.stats(), summary: window.sceneria.lastResult.summary };
  }, { quads: QUADS, points: POINTS });
}

for (const kind of KINDS) {
  test(`${kind.name}: each quad shows its own texture, the engine's way up`, async ({ page }) => {
    await openViewer(page);
    await showFolder(page, kind);
    const { pixels, stats, summary } = await sample(page);
    expect(summary.textures_loaded, 'both textures found and decoded').toBe(2);
    for (const [q, palette] of [[QUADS[0], QUADRANTS], [QUADS[1], OTHER]]) {
      POINTS.forEach(([u, v], i) => {
        const want = expected(kind, u, v);
        const px = pixels[q.name][i];
        expect(px, `quad ${q.name} (${u}, ${v}) projects`).not.toBeNull();
        expect(looksLike(px, palette[want].rgb), `quad ${q.name} at UV (${u}, ${v}): ${px}, the ${want} texel ${palette[want].rgb}`).toBe(true);
      });
    }
    // Blocks stay compressed where the context takes S3TC, asked of WebGL2 here, not of the renderer.
    const s3tc = await page.evaluate(() => Boolean(document.createElement('canvas').getContext('webgl2')?.getExtension('WEBGL_compressed_texture_s3tc')));
    expect(stats.s3tc).toBe(s3tc);
    expect(stats.texturesCompressed).toBe(kind.blocks && s3tc ? 2 : 0);
  });
}

test('without S3TC in the context, DXT textures are decoded in the worker and look the same', async ({ page }) => {
  const kind = KINDS.find((k) => k.name === 'DDS DXT5');
  await openViewer(page);
  await page.evaluate(() => window.sceneria.parser.configure({ decodeBlocks: true }));
  await showFolder(page, kind);
  const { pixels, stats } = await sample(page);
  expect(stats.texturesCompressed).toBe(0);
  expect(stats.texturesDecodedHere).toBe(0);
  POINTS.forEach(([u, v], i) => {
    const want = expected(kind, u, v);
    expect(looksLike(pixels.a[i], QUADRANTS[want].rgb), `decoded (${u}, ${v}): ${pixels.a[i]}`).toBe(true);
  });
});
