// The JS API's worker in Node (worker_threads): the core built for Node (build/wasm/node/,
// `npm run build:wasm`), with sources and assets read from the file system.
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
// Sources and assets: bytes as they are, or a file path read when the document asks.
const read = (data) => {
  try {
    return typeof data === 'string' ? readFileSync(data) : data;
  } catch {
    return null;
  }
};
const handle = createEngine(core, { read });

parentPort.on('message', async ({ id, request }) => {
  parentPort.postMessage({ id, ...await handle(request, (p) => parentPort.postMessage({ id, progress: p })) });
});
parentPort.postMessage({ ready: true });
