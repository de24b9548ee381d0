// The JS API's worker in the browser, for the page and for API users: the site's WebAssembly
// module (wasm/, with its pthread pool), sources and assets given as Files or bytes, sceneries
// opened by URL streamed (stream.mjs).
import createSceneria from '../wasm/sceneria.js';
import { createEngine } from './engine.mjs';
import { createStreamer } from './stream.mjs';

// A worker may block: a File is read at once when the core asks for it.
const read = (data) => (data instanceof Blob ? new Uint8Array(new FileReaderSync().readAsArrayBuffer(data)) : data);
// A dropped File read in pieces, so that the page can show progress for a big one.
async function readAll(data, progress) {
  if (!(data instanceof Blob)) return data;
  const bytes = new Uint8Array(data.size);
  const reader = data.stream().getReader();
  let at = 0, reported = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes.set(value, at);
    at += value.length;
    if (at - reported > data.size / 50) {
      reported = at;
      progress('reading', at / data.size);
    }
  }
  return bytes;
}

const ready = createSceneria({
  print: (text) => console.log(`[sceneria worker] ${text}`),
  printErr: (text) => console.warn(`[sceneria worker] ${text}`),
}).then((core) => createEngine(core, { read, readAll, streamer: createStreamer }));

// Buffers that move to the page without a copy: scenes, deltas, written files.
function transferables(r) {
  if (!r || typeof r !== 'object') return [];
  const views = [r.scene, r.delta, r.modelDelta, r.bytes, r.zip, ...(r.files || []).map((f) => f.bytes)];
  return [...new Set(views.filter((v) => v?.buffer instanceof ArrayBuffer).map((v) => v.buffer))];
}

self.onmessage = async ({ data: { id, request } }) => {
  const answer = await (await ready)(request, (p) => self.postMessage({ id, progress: p }));
  self.postMessage({ id, ...answer }, transferables(answer.result));
};
self.postMessage({ ready: true });
