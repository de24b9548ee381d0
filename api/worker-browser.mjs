// The JS API's worker in the browser: the viewer's own WebAssembly module (the site's wasm/), with
// sources and assets given as File objects or bytes, read synchronously (a worker may block).
import createSceneria from '../wasm/sceneria.js';
import { createEngine } from './engine.mjs';

const read = (data) => (data instanceof Blob ? new Uint8Array(new FileReaderSync().readAsArrayBuffer(data)) : data);
const ready = createSceneria({ print: () => {}, printErr: () => {} }).then((core) => createEngine(core, read));

self.onmessage = async ({ data: { id, request } }) => {
  const answer = (await ready)(request, (p) => self.postMessage({ id, progress: p }));
  const r = answer.result;
  const transfer = r?.bytes ? [r.bytes.buffer, ...(r.zip ? [r.zip.buffer] : []), ...r.files.map((f) => f.bytes.buffer)] : [];
  self.postMessage({ id, ...answer }, transfer);
};
self.postMessage({ ready: true });
