// The parse worker: owns one instance of the WebAssembly module (with its pthread pool) and turns
// files into summaries. The page never parses; it only posts files here.
import createSceneria from './wasm/sceneria.js';

const moduleReady = createSceneria({
  print: (text) => console.log(`[sceneria worker] ${text}`),
  printErr: (text) => console.warn(`[sceneria worker] ${text}`),
});

async function handle(request) {
  const m = await moduleReady;
  let bytes;
  let name = request.name;
  if (request.kind === 'demo') {
    bytes = m.demoModule();
  } else if (request.file) {
    bytes = new Uint8Array(await request.file.arrayBuffer());
  } else {
    bytes = new Uint8Array(request.buffer);
  }
  const started = performance.now();
  const result = JSON.parse(m.inspect(bytes, name, 200));
  result.parseMs = performance.now() - started;
  return result;
}

self.onmessage = async (event) => {
  const { id } = event.data;
  try {
    self.postMessage({ id, ...(await handle(event.data)) });
  } catch (e) {
    self.postMessage({ id, ok: false, error: { code: 'internal', offset: 0, message: String(e && e.message || e) } });
  }
};
self.postMessage({ ready: true });
