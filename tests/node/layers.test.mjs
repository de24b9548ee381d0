// The core's layers, checked on the sources: each folder of src/ includes only from its own layer
// and those below it, and nothing outside src/formats/ names a format (docs/architecture.md,
// "Layers"). A check on the text, so it runs in a second with no build.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

// Bottom first: a file may include from its layer and any before it.
const LAYERS = ['core', 'io', 'scene', 'stream', 'formats', 'export', 'registry', 'render', 'platform'];

function files(dir, pattern) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...files(path, pattern));
    else if (pattern.test(entry.name)) out.push(path);
  }
  return out;
}

// The includes of a C++ source that name a folder of src/: [{line, target}].
function includes(text) {
  const out = [];
  text.split('\n').forEach((line, i) => {
    const m = /^\s*#\s*include\s+"([a-z_]+)\/([^"]+)"/.exec(line);
    if (m) out.push({ line: i + 1, folder: m[1], path: `${m[1]}/${m[2]}` });
  });
  return out;
}

// Code without its comments (// and /* */; <!-- --> in HTML), strings kept, line numbers kept.
function withoutComments(text, html = false) {
  if (html) return text.replace(/<!--[\s\S]*?-->/g, (c) => c.replace(/[^\n]/g, ' '));
  let out = '';
  for (let i = 0; i < text.length;) {
    const c = text[i];
    if (c === '"' || c === "'" || c === '`') {  // a string: kept whole
      let j = i + 1;
      while (j < text.length && text[j] !== c && text[j] !== '\n') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (text.startsWith('//', i)) {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (text.startsWith('/*', i)) {
      const end = text.indexOf('*/', i + 2);
      const stop = end < 0 ? text.length : end + 2;
      out += text.slice(i, stop).replace(/[^\n]/g, ' ');
      i = stop;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

test('each layer of src/ includes only from itself and the layers below it', () => {
  const wrong = [];
  for (const file of files(join(root, 'src'), /\.(cpp|hpp|h)$/)) {
    const layer = relative(join(root, 'src'), file).split('/')[0];
    const rank = LAYERS.indexOf(layer);
    assert.ok(rank >= 0, `${relative(root, file)}: src/${layer}/ is in no layer (tests/node/layers.test.mjs LAYERS)`);
    for (const inc of includes(readFileSync(file, 'utf8'))) {
      const target = LAYERS.indexOf(inc.folder);
      if (target > rank) wrong.push(`${relative(root, file)}:${inc.line}: ${layer} includes "${inc.path}" of ${inc.folder}, a layer above it`);
    }
  }
  assert.deepEqual(wrong, []);
});

test('only src/formats/ and the registry include a format\'s folder', () => {
  const wrong = [];
  const scanned = [...files(join(root, 'src'), /\.(cpp|hpp|h)$/), ...files(join(root, 'wasm'), /\.(cpp|hpp)$/),
                   ...files(join(root, 'tools'), /\.(cpp|hpp)$/)];
  for (const file of scanned) {
    const rel = relative(root, file);
    if (rel.startsWith('src/formats/') || rel.startsWith('src/registry/')) continue;
    for (const inc of includes(readFileSync(file, 'utf8'))) {
      if (/^formats\/[^/]+\//.test(inc.path)) wrong.push(`${rel}:${inc.line}: includes "${inc.path}", a format's own header`);
    }
  }
  assert.deepEqual(wrong, []);
});

// Formats declare what hosts show (choices, writers, asset folders); the hosts and the
// format-blind core name none of them outside comments and tests.
// A format's name, not the tail of a word: GL's glTexSubImage3D names no format.
const namedFormat = /skin_set|smoothing|group_shown|(?<![a-z])(?:b3d|e3d)|xray|eu7b/i;

test('the hosts and the format-blind core name no format', () => {
  const named = namedFormat;
  const wrong = [];
  const scanned = [
    ...files(join(root, 'web'), /\.(js|mjs|html)$/), ...files(join(root, 'api'), /\.(mjs|ts)$/),
    ...files(join(root, 'wasm'), /\.(cpp|hpp|js)$/), ...files(join(root, 'tools'), /\.(cpp|hpp)$/),
    ...files(join(root, 'src'), /\.(cpp|hpp|h)$/).filter((f) => !relative(root, f).startsWith('src/formats/') && !relative(root, f).startsWith('src/registry/')),
  ];
  for (const file of scanned) {
    const code = withoutComments(readFileSync(file, 'utf8'), file.endsWith('.html'));
    code.split('\n').forEach((line, i) => {
      const m = named.exec(line);
      if (m) wrong.push(`${relative(root, file)}:${i + 1}: names '${m[0]}': ${line.trim().slice(0, 120)}`);
    });
  }
  assert.deepEqual(wrong, []);
});

test('the format-name check tells a format from the tail of a GL name', () => {
  for (const line of ['read_e3d(bytes)', 'E3D', '"b3d"', 'formats::e3d::x', 'isXray', 'eu7b_reader'])
    assert.ok(namedFormat.test(line), line);
  for (const line of ['glTexSubImage3D(GL_TEXTURE_2D_ARRAY', 'glTexStorage3D(', 'glCompressedTexSubImage3D(', 'glTexImage3D'])
    assert.ok(!namedFormat.test(line), line);
});

test('the comment stripper keeps code and strings and drops comments', () => {
  assert.equal(withoutComments('a // b3d\nc /* xray\n */ d "e3d // x" \'/*\''), 'a \nc        \n    d "e3d // x" \'/*\'');
  assert.equal(withoutComments('x <!-- eu7b --> y', true), 'x               y');
});
