// sceneria's JavaScript API: the same in the browser and in Node 20 (docs/api.md).
//
//   import { open, convert, formats } from './api/sceneria.mjs';
//   const doc = await open('scenery/td.scn', { assets: 'MaSzyna/' });   // Node: a path
//   const { bytes } = await convert(doc, { to: 'glb', onProgress: console.log });
//
// Each document lives in a worker of its own (a Web Worker, or a worker thread in Node) with the
// WebAssembly core, so a long conversion never blocks the page, and cancelling one (an
// AbortSignal) stops that worker: the document closes with it.
import { rankDocuments } from './pick.mjs';

const isNode = typeof process !== 'undefined' && Boolean(process.versions?.node) && typeof window === 'undefined';

class Channel {
  #worker;
  #next = 1;
  #pending = new Map();
  #node;
  #closed = false;

  constructor(worker, node) {
    this.#worker = worker;
    this.#node = node;
    const onMessage = (data) => {
      if (data.ready) return;
      const p = this.#pending.get(data.id);
      if (!p) return;
      if (data.progress) { p.onProgress?.(data.progress); return; }
      this.#pending.delete(data.id);
      this.#idle();
      if (data.error) p.reject(Object.assign(new Error(data.error.message), data.error));
      else p.resolve(data.result);
    };
    const onError = (e) => {
      for (const p of this.#pending.values()) p.reject(e instanceof Error ? e : new Error(e.message || 'the worker failed'));
      this.#pending.clear();
    };
    if (node) { worker.on('message', onMessage); worker.on('error', onError); worker.unref(); }
    else { worker.onmessage = (e) => onMessage(e.data); worker.onerror = onError; }
  }

  // Node: a worker thread keeps the process alive only while it has work.
  #idle() { if (this.#node && this.#pending.size === 0) this.#worker.unref(); }

  request(request, { onProgress, signal, transfer = [] } = {}) {
    if (this.#closed) return Promise.reject(Object.assign(new Error('the document was closed'), { code: 'closed' }));
    if (signal?.aborted) return Promise.reject(abortError(signal));
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject, onProgress });
      if (this.#node) this.#worker.ref();
      signal?.addEventListener('abort', () => {
        if (!this.#pending.has(id)) return;
        this.#pending.delete(id);
        reject(abortError(signal));
        this.terminate();
      }, { once: true });
      this.#worker.postMessage({ id, request }, transfer);
    });
  }

  terminate() {
    this.#closed = true;
    this.#worker.terminate();
    for (const p of this.#pending.values()) p.reject(Object.assign(new Error('the document was closed'), { code: 'closed' }));
    this.#pending.clear();
  }
}

function abortError(signal) {
  return Object.assign(new Error('aborted', { cause: signal.reason }), { name: 'AbortError', code: 'aborted' });
}

async function startWorker() {
  if (isNode) {
    const { Worker } = await import('node:worker_threads');
    return new Channel(new Worker(new URL('./worker-node.mjs', import.meta.url)), true);
  }
  return new Channel(new Worker(new URL('./worker-browser.mjs', import.meta.url), { type: 'module', name: 'sceneria-api' }), false);
}

// A string that is a URL to fetch rather than a file path.
const isUrl = (source) => typeof source === 'string' && /^(https?|blob|data):/i.test(source);

// What a source names: {bytes, name, assets: [{path, data}]}. Sources: bytes (Uint8Array or
// ArrayBuffer; `name` says what it is called), a File or Blob (browser), a URL (fetched whole), a
// file path (Node), or a map of dropped files {relativePath: File | bytes | path} whose main
// document is `main` or the folder's root (pick.mjs, rankDocuments).
async function resolveSource(source, { name, assets, main } = {}, list) {
  if (source instanceof ArrayBuffer) source = new Uint8Array(source);
  if (source instanceof Uint8Array) return { bytes: source, name: name || 'file', assets: await resolveAssets(assets) };
  if (typeof Blob !== 'undefined' && source instanceof Blob) return { bytes: source, name: name || source.name || 'file', assets: await resolveAssets(assets) };
  if (source instanceof URL || isUrl(source)) {
    const response = await fetch(source);
    if (!response.ok) throw Object.assign(new Error(`${source}: HTTP ${response.status}`), { code: 'io' });
    const url = new URL(String(source));
    return { bytes: new Uint8Array(await response.arrayBuffer()), name: name || decodeURIComponent(url.pathname.split('/').pop() || 'file'),
             assets: await resolveAssets(assets) };
  }
  if (typeof source === 'string') {
    if (!isNode) throw new TypeError('a file path opens in Node only; in the browser pass a File, bytes or a URL');
    const { readFile, readdir, realpath } = await import('node:fs/promises');
    const { basename, dirname, relative, resolve, sep } = await import('node:path');
    // As the CLI looks: the files a path names (a .res, textures, includes) under `assets`, by
    // default the nearest folder its format names above it (`scenery`, `gamedata`, a Hard Truck
    // game's root that holds COMMON/COMMON.RES), else its own folder; the file is named as it
    // lies there, since a format looks for what it names by its name's folder.
    const file = await realpath(resolve(source));
    let root = assets;
    if (root === undefined) {
      root = dirname(file);
      const lower = file.toLowerCase();
      const format = list.find((f) => f.reads && f.extensions.some((e) => lower.endsWith(e)));
      // Whether `dir` holds `rel`, each name matched without case (as the resolver matches them).
      const holds = async (dir, rel) => {
        for (const name of rel.split('/')) {
          const found = (await readdir(dir).catch(() => [])).find((n) => n.toLowerCase() === name);
          if (found === undefined) return false;
          dir = resolve(dir, found);
        }
        return true;
      };
      for (let p = dirname(file); format && p !== dirname(p); p = dirname(p)) {
        if (format.assetsFolder && basename(p).toLowerCase() === format.assetsFolder) { root = p; break; }
        if (format.assetsRootHolds && await holds(p, format.assetsRootHolds)) { root = p; break; }
      }
    }
    let under = basename(file);
    if (typeof root === 'string') {
      const rel = relative(await realpath(resolve(root)), file);
      if (rel && !rel.startsWith('..') && !rel.startsWith(sep)) under = rel.split(sep).join('/');
    }
    // A default folder that cannot be listed whole (a permission) leaves the file on its own.
    const listed = assets === undefined ? await resolveAssets(root).catch(() => null) : await resolveAssets(root);
    return { bytes: new Uint8Array(await readFile(file)), name: name || under, assets: listed };
  }
  if (source && typeof source === 'object') {
    const entries = Object.entries(source);
    if (entries.length === 0) throw new TypeError('an empty file map');
    // The page's rule for a dropped folder (pick.mjs): its root, or where that is not clear (the
    // page asks), the first offered.
    let chosen = main;
    if (chosen === undefined) {
      const ranked = await rankDocuments(entries.map(([path]) => ({ path })), list, (i) => bytesOf(entries[i][1]).catch(() => null));
      chosen = entries[ranked.root >= 0 ? ranked.root : ranked.order[0]]?.[0];
    }
    if (!chosen || !(chosen in source)) throw new TypeError(`no file of a readable format among ${entries.length} (main: ${main ?? 'not given'})`);
    const picked = await resolveSource(source[chosen], { name: chosen.split('/').pop() }, list);
    return { ...picked, assets: entries.map(([path, data]) => ({ path, data: data instanceof ArrayBuffer ? new Uint8Array(data) : data })) };
  }
  throw new TypeError('open(source): bytes, a File, a URL, a path (Node) or a map of files');
}

// The bytes of a map's value: bytes, a File or Blob, or (Node) a path.
async function bytesOf(data) {
  if (data instanceof Uint8Array) return data;
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (typeof Blob !== 'undefined' && data instanceof Blob) return new Uint8Array(await data.arrayBuffer());
  if (typeof data === 'string' && isNode) {
    const { readFile } = await import('node:fs/promises');
    return new Uint8Array(await readFile(data));
  }
  return null;
}

// Assets: a map {relativePath: File | bytes | path}, or (Node) a folder, listed whole.
async function resolveAssets(assets) {
  if (!assets) return null;
  if (typeof assets === 'string') {
    if (!isNode) throw new TypeError('a folder of assets is a Node option; in the browser pass a map of files');
    const { readdir } = await import('node:fs/promises');
    const { join, relative } = await import('node:path');
    const out = [];
    for (const e of await readdir(assets, { recursive: true, withFileTypes: true }))
      if (e.isFile()) {
        const full = join(e.parentPath ?? e.path, e.name);
        out.push({ path: relative(assets, full).split('\\').join('/'), data: full });
      }
    return out;
  }
  return Object.entries(assets).map(([path, data]) => ({ path, data: data instanceof ArrayBuffer ? new Uint8Array(data) : data }));
}

let formatList = null;

// The registry: [{id, name, extensions, reads, streams, writes: [{id, extension, description, params}], choices}].
export async function formats() {
  if (!formatList) {
    const channel = await startWorker();
    try { formatList = (await channel.request({ op: 'formats' })).formats; } finally { channel.terminate(); }
  }
  return formatList;
}

export class SceneriaDocument {
  #channel;
  #opened;
  constructor(channel, opened, name) { this.#channel = channel; this.#opened = opened; this.name = name; }
  get format() { return this.#opened.format; }
  get headline() { return this.#opened.headline; }
  // The summary (as `sceneria info --json`): format, version, size, counts, structure, lists,
  // choices, missingFiles, warnings, capabilities.writes (the targets convert() takes).
  info() { return this.#opened.summary; }
  // The open choices this file offers (a model's skin sets, a B3D module's groups), each with the
  // value it was opened with: [{param, label, help, toggle, values: [{value, label}], value}].
  // Open again with {params: {[param]: value}} for another.
  choices() { return this.#opened.summary.choices || []; }
  // The record lists: [{id, label, count}].
  lists() { return this.#opened.lists; }
  // The scene's sections (1 km cells of a scenery): [{row, col, origin, min, max, instances, batches}].
  sections() { return this.#channel.request({ op: 'sections' }); }
  // Rows of one record list: [{i, name, detail}]; with `list` omitted, the first list.
  objects({ list = this.#opened.lists[0]?.id, first = 0, count = 1000 } = {}) {
    return list ? this.#channel.request({ op: 'rows', list, first, count }) : Promise.resolve([]);
  }
  // Every field of one record.
  record(list, index) { return this.#channel.request({ op: 'record', list, index }); }
  _convert(request, options) { return this.#channel.request({ op: 'write', ...request }, options); }
  close() { this.#channel.terminate(); }
}

// A viewer's session (the page's): one worker whose open document each open() replaces, so the
// WebAssembly module and its threads start once. Every open answers a document id (`doc`); a
// request naming one that a newer open replaced resolves to null. Errors reject with the core's
// {code, message, offset, file, line, column}. `onProgress({phase, fraction})` while a long request runs.
export class Session {
  #channel;
  constructor(channel) { this.#channel = channel; }
  static async start() { return new Session(await startWorker()); }
  async #ask(request, options) {
    const r = await this.#channel.request(request, options);
    return r?.stale ? null : r;
  }
  // {formats: [...as formats()], accept: ".eu7,…" (what a file input should offer)}.
  formats() { return this.#ask({ op: 'formats' }); }
  // `decodeBlocks`: the viewer's context has no WEBGL_compressed_texture_s3tc, so BC1-3 textures
  // are decoded to RGBA8 in the worker rather than on the page's thread.
  configure({ decodeBlocks = false } = {}) { return this.#ask({ op: 'configure', decodeBlocks }); }
  // A File or bytes with the files it may refer to (`assets`: [{path, file | data}]); `params`: its
  // format's open choices. Resolves to {doc, name, format, headline, summary, lists, scene (for
  // Viewer.loadScene), staged (its visuals come by camera ticks), models (its models load by
  // camera ticks), parseMs}; a file too big to read whole streams as a URL does (plus `stream`).
  open(data, { name = data?.name, assets = [], params = {}, onProgress } = {}) {
    return this.#ask({ op: 'open', data, name, params, view: true,
                       assets: assets.map((a) => ({ path: a.path, data: a.file ?? a.data })) }, { onProgress });
  }
  // The gallery: [{id, title, what, view}], the demo first (src/registry/examples.hpp). `view`: an
  // orbit to start from, [x, y, z, distance, yaw, pitch] (Viewer.setOrbit).
  examples() { return this.#ask({ op: 'examples' }); }
  // One example's files, made by the core now: [{path, bytes}], the document first, to open as
  // the same files dropped as a folder would be.
  exampleFiles(id) { return this.#ask({ op: 'exampleFiles', id }); }
  // A scenery by URL: the header by HTTP Range requests, PACK sections later as camera() asks.
  // Resolves as open() does, plus `stream: {url, size, start, layout, bytes, requests}`. `fetch`
  // tunes the Range reader: {timeoutMs (per request, default 20000), retries (default 3)}.
  openUrl(url, { onProgress, fetch = {} } = {}) {
    const href = new URL(url, globalThis.location?.href).href;
    const name = decodeURIComponent(new URL(href).pathname.split('/').pop() || href);
    return this.#ask({ op: 'url', url: href, name, fetch }, { onProgress });
  }
  // A camera tick. A streamed scenery: {delta (scene bytes or null), modelDelta, models, evict:
  // [{row, col}], errors, grid, missing, reload (the file changed: open it again), stats: {bytes,
  // requests, size, inFlight, ready, resident, notices, late, decodedOffThread, ...}}. A document
  // opened in stages or with models to load: {delta, staging (more to come), described ({summary,
  // lists} again, on the first tick, which reads the rest), modelDelta, models, missing, done}.
  // `view.modelShown`: whether the view has drawn a streamed model with its texture yet (the
  // stream holds the ring around its first section until then; left out, until one has loaded).
  camera(doc, x, y, z, view = {}) { return this.#ask({ op: 'camera', doc, x, y, z, modelShown: view.modelShown }); }
  // Rows [{i, name, detail}] of one record list. `group`: only the records of one of the list's
  // groups (lists[].groups: the files of a scenery with includes), `first` counted within it.
  rows(doc, list, first, count, group = null) { return this.#ask({ op: 'rows', doc, list, first, count, group }); }
  // Rows whose name or detail contains `query` (case-insensitive), at most `limit`.
  search(doc, list, query, limit = 10000) { return this.#ask({ op: 'search', doc, list, query, limit }); }
  // Every field of one record (strings as text).
  record(doc, list, index) { return this.#ask({ op: 'record', doc, list, index }); }
  // The open document written as one of its format's targets (a writer id or extension, as
  // convert() takes): {bytes, writer, extension, losses, images, advice, files: [{name, bytes}],
  // zip, reads: {requests, bytes} a streamed scenery's export fetched, else null}.
  write(doc, to, { params = {}, lossy = false, name = '', onProgress } = {}) {
    return this.#ask({ op: 'write', doc, to, params, lossy, name }, { onProgress });
  }
  // The open scenery and every file it includes, baked to binary twins as `sceneria bake` does,
  // from the files it was opened with: {files: [{path, bytes}], missing: [include...]}.
  bake(doc) { return this.#ask({ op: 'bake', doc }); }
  close() { this.#channel.terminate(); }
}

// Opens a document: open(source, {name, assets, main, params, onProgress, signal}) (see
// resolveSource). `params`: its format's open choices ({smoothing: 'soc'}; formats() lists what
// each format takes, doc.choices() what a file offers); one its format does not take is refused.
export async function open(source, options = {}) {
  // The registry, where the source needs it: a map of files (which is the document) or a path
  // (where its format's references lie).
  const isMap = source && typeof source === 'object' && !(source instanceof Uint8Array) && !(source instanceof ArrayBuffer) &&
                !(typeof Blob !== 'undefined' && source instanceof Blob) && !(source instanceof URL);
  const isPath = typeof source === 'string' && !isUrl(source);
  const list = isMap || isPath ? await formats() : [];
  const resolved = await resolveSource(source, options, list);
  const channel = await startWorker();
  try {
    const opened = await channel.request({ op: 'open', data: resolved.bytes, name: resolved.name, assets: resolved.assets, params: options.params || {} },
                                         { onProgress: options.onProgress, signal: options.signal });
    return new SceneriaDocument(channel, opened, resolved.name);
  } catch (e) {
    channel.terminate();
    throw e;
  }
}

// Writes a document as another format: convert(doc, {to, name, separate, lossy, onProgress,
// signal, ...writer options}). `to`: a writer id or extension ('glb', 'gltf', 'obj', 'json',
// 'eu7', 'scn', 'scnb', ...: doc.info().capabilities.writes). Writer options: the scene exports'
// instancing, lines, recentre, area, extras, textures; EU7B's version and pack-format. Resolves
// to {name, bytes, files: [{name, bytes}], zip, writer, extension, losses, images, advice}: `images`
// counts a scene export's texture images, `advice` is the writer's word on reading it; `files` are written
// beside the output (with `separate: true`: an OBJ's .mtl and images, a .gltf's .bin), `zip`
// holds the output and them in one archive. A signal's abort stops the worker: the document closes.
export function convert(document, { to, name, lossy = true, onProgress, signal, ...params } = {}) {
  if (!(document instanceof SceneriaDocument)) throw new TypeError('convert(document, options): a document from open()');
  if (!to) throw new TypeError("convert: options.to ('glb', 'gltf', 'obj', 'json', 'eu7', ...)");
  // A writer id as it is; otherwise an extension ("eu7", ".scnb").
  const writes = document.info().capabilities?.writes || [];
  const writer = writes.find((w) => w.id === to) || writes.find((w) => w.extension === `.${String(to).replace(/^\./, '')}`);
  if (!writer) {
    return Promise.reject(Object.assign(new Error(`a ${document.format} document can be written as ${writes.map((w) => w.id).join(', ') || 'nothing'}, not as '${to}'`),
                                        { code: 'bad_value' }));
  }
  const stem = (document.name || 'scene').split('/').pop().replace(/\.[^.]*$/, '');
  return document._convert({ to: writer.id, name: name || stem + writer.extension, params, lossy }, { onProgress, signal });
}
