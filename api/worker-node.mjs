// The JS API's worker in Node (worker_threads): the core built for Node (build/wasm/node/,
// `npm run build:wasm`), with assets read from the file system.
import { parentPort } from 'node:worker_threads';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { createEngine } from './engine.mjs';

const require = createRequire(import.meta.url);
const coreDir = new URL('../build/wasm/node/', import.meta.url);
const createSceneriaCore = require(fileURLToPath(new URL('sceneria-core.js', coreDir)));  // a path with spaces too
// The wasm bytes handed over: Emscripten would otherwise fetch() a file path in Node 20.
const core = await createSceneriaCore({ wasmBinary: readFileSync(new URL('sceneria-core.wasm', coreDir)), print: () => {}, printErr: () => {} });
const handle = createEngine(core);

parentPort.on('message', ({ id, request }) => {
  try {
    if (request.assets) {
      // Each asset is a file path or bytes, read when the document asks for it.
      const entries = request.assets;
      request.assets = { paths: entries.map((e) => e.path),
                         read: (i) => { try { return typeof entries[i].data === 'string' ? readFileSync(entries[i].data) : entries[i].data; } catch { return null; } } };
    }
    const result = handle(request, (p) => parentPort.postMessage({ id, progress: p }));
    parentPort.postMessage({ id, result });
  } catch (e) {
    parentPort.postMessage({ id, error: { code: e.code || 'error', message: e.message, offset: e.offset ?? 0, file: e.file } });
  }
});
parentPort.postMessage({ ready: true });
