// The parse worker: owns one instance of the WebAssembly module (with its pthread pool) and the
// open document. The page never parses; it posts files here and asks for pages of records.
import createSceneria from './wasm/sceneria.js';

const moduleReady = createSceneria({
  print: (text) => console.log(`[sceneria worker] ${text}`),
  printErr: (text) => console.warn(`[sceneria worker] ${text}`),
});
let document = null;
let documentId = 0;

async function handle(request) {
  const m = await moduleReady;
  if (!document) document = new m.Document();
  switch (request.kind) {
    case 'rows':
      if (request.doc !== documentId) return { stale: true };
      return { rows: JSON.parse(document.rows(request.list, request.first, request.count)) };
    case 'record':
      if (request.doc !== documentId) return { stale: true };
      return { record: JSON.parse(document.record(request.list, request.index)) };
    default: {
      const bytes = request.kind === 'demo' ? m.demoModule()
        : request.file ? new Uint8Array(await request.file.arrayBuffer()) : new Uint8Array(request.buffer);
      const started = performance.now();
      const result = JSON.parse(document.open(bytes, request.name, 200));
      result.parseMs = performance.now() - started;
      result.doc = ++documentId;
      return result;
    }
  }
}

self.onmessage = async (event) => {
  const { id } = event.data;
  try {
    self.postMessage({ id, ...(await handle(event.data)) });
  } catch (e) {
    self.postMessage({ id, ok: false, error: { code: 'internal', offset: 0, message: String(e && e.message || e) } });
  }
};
