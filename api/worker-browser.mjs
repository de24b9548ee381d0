// The JS API's worker in the browser: the viewer's own WebAssembly module (the site's wasm/), with
// assets given as File objects or bytes, read synchronously (a worker may block).
import createSceneria from '../wasm/sceneria.js';
import { createEngine } from './engine.mjs';

const ready = createSceneria({ print: () => {}, printErr: () => {} }).then(createEngine);

self.onmessage = async ({ data: { id, request } }) => {
  const handle = await ready;
  try {
    if (request.assets) {
      const entries = request.assets;
      request.assets = { paths: entries.map((e) => e.path),
                         read: (i) => { const d = entries[i].data; return d instanceof Blob ? new Uint8Array(new FileReaderSync().readAsArrayBuffer(d)) : d; } };
    }
    if (request.bytes instanceof Blob) request.bytes = new Uint8Array(new FileReaderSync().readAsArrayBuffer(request.bytes));
    const result = handle(request, (p) => self.postMessage({ id, progress: p }));
    const transfer = result?.bytes ? [result.bytes.buffer, ...(result.zip ? [result.zip.buffer] : []), ...result.files.map((f) => f.bytes.buffer)] : [];
    self.postMessage({ id, result }, transfer);
  } catch (e) {
    self.postMessage({ id, error: { code: e.code || 'error', message: e.message, offset: e.offset ?? 0, file: e.file } });
  }
};
self.postMessage({ ready: true });
