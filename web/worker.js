// The parse worker: owns one instance of the WebAssembly module (with its pthread pool) and the
// open document. The page never parses; it posts files here and asks for pages of records.
import createSceneria from './wasm/sceneria.js';

const moduleReady = createSceneria({
  print: (text) => console.log(`[sceneria worker] ${text}`),
  printErr: (text) => console.warn(`[sceneria worker] ${text}`),
});
let document = null;
let documentId = 0;

// Reads a File in pieces so the page can show progress for big files.
async function readFile(file, progress) {
  const bytes = new Uint8Array(file.size);
  const reader = file.stream().getReader();
  let at = 0, reported = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes.set(value, at);
    at += value.length;
    if (at - reported > file.size / 50) {
      reported = at;
      progress('reading', at / file.size);
    }
  }
  return bytes;
}

async function handle(request, progress) {
  const m = await moduleReady;
  if (!document) document = new m.Document();
  switch (request.kind) {
    case 'rows':
      if (request.doc !== documentId) return { stale: true };
      return { rows: JSON.parse(document.rows(request.list, request.first, request.count)) };
    case 'search':
      if (request.doc !== documentId) return { stale: true };
      return { rows: JSON.parse(document.search(request.list, request.query, request.limit)) };
    case 'record':
      if (request.doc !== documentId) return { stale: true };
      return { record: JSON.parse(document.record(request.list, request.index)) };
    default: {
      const bytes = request.kind === 'demo' ? m.demoModule()
        : request.file ? await readFile(request.file, progress) : new Uint8Array(request.buffer);
      progress('parsing', 0);
      const started = performance.now();
      const result = JSON.parse(document.open(bytes, request.name, 200));
      result.parseMs = performance.now() - started;
      result.doc = ++documentId;
      if (result.ok) {
        progress('building the scene', 0);
        result.scene = document.scene();
      }
      return result;
    }
  }
}

self.onmessage = async (event) => {
  const { id } = event.data;
  const progress = (phase, fraction) => self.postMessage({ id, progress: { phase, fraction } });
  try {
    const result = await handle(event.data, progress);
    // The scene buffer moves to the page without a copy.
    self.postMessage({ id, ...result }, result.scene ? [result.scene.buffer] : []);
  } catch (e) {
    self.postMessage({ id, ok: false, error: { code: 'internal', offset: 0, message: String(e && e.message || e) } });
  }
};
