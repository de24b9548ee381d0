// sceneria's JavaScript API. Two parts:
//  - Parser: a Web Worker running the WebAssembly core; every file is parsed there.
//  - startViewer(): the C++ renderer on the page's <canvas id="canvas"> (SDL2 + WebGL2).
// Results are plain objects (the same JSON as `sceneria info --json`, plus `stringSample`).

export class Parser {
  #worker;
  #next = 1;
  #pending = new Map();

  constructor(workerUrl = new URL('./worker.js', import.meta.url)) {
    this.#worker = new Worker(workerUrl, { type: 'module', name: 'sceneria-parser' });
    this.#worker.onmessage = (event) => {
      const { id, progress } = event.data;
      const pending = this.#pending.get(id);
      if (!pending) return;
      if (progress) {
        pending.onProgress?.(progress);
        return;
      }
      this.#pending.delete(id);
      pending.resolve(event.data);
    };
    this.#worker.onerror = (event) => {
      const error = { ok: false, error: { code: 'worker', offset: 0, message: event.message || 'parse worker failed' } };
      for (const p of this.#pending.values()) p.resolve(error);
      this.#pending.clear();
    };
  }

  #request(message, onProgress) {
    const id = this.#next++;
    return new Promise((resolve) => {
      this.#pending.set(id, { resolve, onProgress });
      this.#worker.postMessage({ id, ...message });
    });
  }

  // Resolves to {ok: true, format, headline, summary, lists, doc, scene} or {ok: false, error:
  // {code, offset, message, file}}. The file becomes the worker's open document (replacing the
  // previous one); `scene` is the serialized scene for Viewer.loadScene. onProgress({phase,
  // fraction}). `assets`: [{path, file}] it may refer to (models, textures, includes); what it
  // names and is not among them is listed in summary.missingFiles. `params`: its format's open
  // choices ({param: value}); summary.choices lists those the file offers and the value of each.
  inspect(file, onProgress, assets = [], params = {}) {
    return this.#request({ kind: 'file', name: file.name, file, assets, params }, onProgress);
  }
  // Settings for what the worker hands over. `decodeBlocks`: the viewer's WebGL context has no
  // WEBGL_compressed_texture_s3tc (viewer.stats().s3tc false), so BC1-3 textures are decoded to
  // RGBA8 in the worker rather than on the page's thread.
  configure({ decodeBlocks = false } = {}) {
    return this.#request({ kind: 'configure', decodeBlocks });
  }
  // The registry: {formats: [{id, name, extensions, reads, streams, writes}], accept: ".eu7,…"}.
  formats() {
    return this.#request({ kind: 'formats' });
  }
  inspectBuffer(buffer, name) {
    return this.#request({ kind: 'buffer', name, buffer });
  }
  // Opens a scenery by URL: the header by HTTP Range requests, PACK sections later, as `camera`
  // asks. Resolves like inspect(), plus `stream: {url, size, start}`. `fetch` tunes the Range
  // reader: {timeoutMs (per request, default 20000), retries (default 3)}.
  openUrl(url, onProgress, { fetch = {} } = {}) {
    const name = decodeURIComponent(new URL(url, location.href).pathname.split('/').pop() || url);
    return this.#request({ kind: 'url', url: new URL(url, location.href).href, name, fetch }, onProgress);
  }
  // A camera tick for a streamed scenery: {delta (scene bytes or null), evict: [{row, col}],
  // errors, stats: {bytes, requests, size, inFlight, ready, resident, notices, late: [loaded,
  // total] (data read after the view, such as model names), decodedOffThread}}; null if stale.
  // For a document opened in stages (inspect() answered `staged: true`: a scenery's visuals
  // after its infrastructure): {delta, staging (more to come), described (inspect()'s summary
  // and lists again, on the first tick, which reads the rest)}.
  async camera(doc, x, y, z) {
    const r = await this.#request({ kind: 'camera', doc, x, y, z });
    return r.stale ? null : r;
  }
  // The registry's demo file; resolves like inspect(), plus its `name`.
  inspectDemo() {
    return this.#request({ kind: 'demo' });
  }
  // Rows [{i, name, detail}] of one record list of the open document `doc`; null if superseded.
  // `group`: only the records of one of the list's groups (lists[].groups: the files of a
  // scenery with includes), `first` counted within it.
  async rows(doc, list, first, count, group = null) {
    const r = await this.#request({ kind: 'rows', doc, list, first, count, group });
    return r.stale ? null : r.rows;
  }
  // Rows whose name or detail contains `query` (case-insensitive), at most `limit`.
  async search(doc, list, query, limit = 10000) {
    const r = await this.#request({ kind: 'search', doc, list, query, limit });
    return r.stale ? null : r.rows;
  }
  // Every field of one record (strings as text); null if superseded or absent.
  async record(doc, list, index) {
    const r = await this.#request({ kind: 'record', doc, list, index });
    return r.stale ? null : r.record;
  }
  // The open document `doc` written as one of its format's targets: a writer id or an extension
  // (`sceneria formats` lists them: ".scnb" bakes a text scenery to its twin, ".scn" decompiles a
  // twin, ".eu7" compiles either; "glb", "gltf", "obj" export the scene). Resolves to {ok, bytes:
  // Uint8Array, writer, extension, losses, images (a scene export's texture images), advice (the
  // writer's word on reading it, or ''), files: [{name, bytes}], zip, reads: {requests, bytes}
  // fetched by a streamed scenery's export, else null} or {ok: false, error};
  // null if superseded. `name`: the output's file name, after which files written beside it are
  // named; with `params.separate` a writer puts them in `files` (and `zip` holds all in one
  // archive), otherwise inside the output where it can. onProgress({phase, fraction}) while a long
  // write (a compile, an export) runs.
  async write(doc, target, { params = {}, lossy = false, name = '', onProgress } = {}) {
    const r = await this.#request({ kind: 'write', doc, target, params, lossy, name }, onProgress);
    return r.stale ? null : r;
  }
  // The open scenery and every file it includes, baked to binary twins as `sceneria bake` does,
  // from the files it was opened with: {ok, files: [{path, bytes}], missing: [include...]} (each
  // twin named after its text plus "b", as the folder names it), or {ok: false, error}.
  async bake(doc) {
    const r = await this.#request({ kind: 'bake', doc });
    return r.stale ? null : r;
  }
  terminate() {
    this.#worker.terminate();
  }
}

// Loads the module on the page and starts the C++ render loop on <canvas id="canvas">.
// Returns the Embind Viewer: renderFrame, readPixels, project, loadScene, pick, select,
// findObject, object, goTo, driveFrom, setMode, mode, camera, lookAt, setOrbit, stats, and
//   hide(first, count)        leave objects [first, first + count) out (hide(-1, 0): show all)
//   setLayers(static, models) switch static geometry / model instances on or off
//   step(seconds)             move the camera by the held keys over a fixed time (no drawing)
//   update(seconds, fwd, back) the same for drive mode
export async function startViewer(canvas) {
  if (!self.crossOriginIsolated) {
    throw new Error('the page is not cross-origin isolated (COOP/COEP headers missing), so WebAssembly threads cannot run');
  }
  const { default: createSceneria } = await import('./wasm/sceneria.js');
  const module = await createSceneria({
    canvas,
    print: (text) => console.log(`[sceneria] ${text}`),
    printErr: (text) => console.warn(`[sceneria] ${text}`),
  });
  const viewer = new module.Viewer();
  const error = viewer.start();
  if (error) throw new Error(error);
  // The renderer's material test scene (serialized; viewer.loadScene takes it): see
  // src/scene/material_board.hpp.
  viewer.materialBoard = () => module.materialBoard();
  return viewer;
}
