// The parse worker: owns one instance of the WebAssembly module (with its pthread pool) and the
// open document. The page never parses; it posts files here and asks for pages of records.
import createSceneria from './wasm/sceneria.js';
import { RangeFetcher, RangeFetchError } from './range-fetch.js';

const moduleReady = createSceneria({
  print: (text) => console.log(`[sceneria worker] ${text}`),
  printErr: (text) => console.warn(`[sceneria worker] ${text}`),
});
let document = null;
let documentId = 0;
// A scenery opened by URL: the header is read by ranges, PACK sections stream as the camera moves.
let stream = null;  // {doc, wasm: Stream, fetcher, reads: Map<"row,col", {controller, members}>, errors: []}

// Stops a stream's reads and frees its WebAssembly side (which also stops its decode threads).
function closeStream() {
  if (!stream) return;
  for (const r of stream.reads.values()) r.controller.abort();
  stream.lookups?.abort();
  stream.modelFetch?.abort();
  stream.wasm.delete();
  stream = null;
}

// A dropped File read the same way: slices on demand, so a 2 GB file is never read whole.
class FileRanges {
  constructor(file) {
    this.file = file;
    this.size = file.size;
    this.bytes = 0;
    this.requests = 0;
    this.notices = [];
  }
  async read(begin, end, signal) {
    if (signal?.aborted) throw new DOMException('aborted', 'AbortError');
    this.requests++;
    const data = new Uint8Array(await this.file.slice(begin, Math.min(end, this.size)).arrayBuffer());
    this.bytes += data.length;
    return data;
  }
  // The same at once (an export walking the file's parts).
  readNow(begin, end) {
    this.requests++;
    const data = new Uint8Array(new FileReaderSync().readAsArrayBuffer(this.file.slice(begin, Math.min(end, this.size))));
    this.bytes += data.length;
    return data;
  }
}

// Files above this size are opened like a URL: header first, sections around the camera.
const STREAM_FILES_ABOVE = 64 * 1024 * 1024;

// Only the numbers the page may tune; anything else keeps the reader's defaults.
function fetchOptions(request) {
  const out = {};
  for (const key of ['timeoutMs', 'retries']) {
    const v = request.fetch?.[key];
    if (Number.isFinite(v) && v >= 0) out[key] = v;
  }
  return out;
}

async function openUrl(m, request, progress) {
  return openRanges(m, new RangeFetcher(request.url, fetchOptions(request)), request, progress);
}

// Files dropped beside the document (a folder, several files): the C++ asset resolver asks for
// them by index and reads them synchronously (FileReaderSync exists in workers for this).
function assetsOf(request) {
  if (!request.assets?.length) return null;
  const files = request.assets;
  return {
    paths: files.map((a) => a.path),
    read(index) {
      const file = files[index]?.file;
      return file ? new Uint8Array(new FileReaderSync().readAsArrayBuffer(file)) : null;
    },
  };
}

// The open in progress: a newer file or link aborts the reads of the one it replaces, so a
// hanging server is not left holding requests for a scenery nobody waits for.
let opening = null;
let opened = null;  // {doc, name, file | buffer, assets} of the document opened whole
function startOpening() {
  opening?.abort();
  opening = new AbortController();
  return opening.signal;
}

// A URL or a big File: the first read learns the size and the format. A format that streams is
// opened from ranges; any other is read whole and opened like a dropped file.
async function openRanges(m, fetcher, request, progress, signal = startOpening()) {
  let changed = false;
  fetcher.onChange = () => { changed = true; };
  // A file under 64 KiB answers 416 with its size, then is read whole.
  let head;
  try {
    head = await fetcher.read(0, 65536, signal);
  } catch (e) {
    if (e.status !== 416 || !fetcher.size) throw e;
    head = await fetcher.read(0, fetcher.size, signal);
  }
  const size = fetcher.size ?? head.length;
  const format = JSON.parse(m.detect(head.subarray(0, 4096), request.name, size));
  if (!format.ok) {
    closeStream();
    return { ok: false, error: format.error, doc: ++documentId };
  }
  if (!format.streams) {
    const bytes = head.length >= size ? head : await fetcher.read(0, size, signal);
    return openWhole(m, bytes, request, progress);
  }
  return openStream(m, fetcher, request, progress, signal, { head, size, format: format.id, changed: () => changed });
}

async function openStream(m, fetcher, request, progress, signal, { head, size, format, changed }) {
  const wasm = new m.Stream(size, request.name, format);
  wasm.addBytes(0, head);
  let result;
  try {
    for (;;) {
      result = JSON.parse(wasm.open());
      if (!result.need) break;
      progress('reading the header of', 0);
      const [begin, end] = result.need;
      wasm.addBytes(begin, await fetcher.read(begin, end, signal));
    }
  } catch (e) {
    wasm.delete();
    throw e;
  }
  // The file changed while its header was read: start over once with fresh caches.
  if (changed() && request.url && !request.reloaded) {
    wasm.delete();
    return openRanges(m, new RangeFetcher(request.url, fetchOptions(request)), { ...request, reloaded: true }, progress, signal);
  }
  result.doc = ++documentId;
  result.reloaded = Boolean(request.reloaded);
  closeStream();
  if (!result.ok) {
    wasm.delete();
    return result;
  }
  stream = { doc: result.doc, wasm, fetcher, url: request.url ?? null, reads: new Map(), errors: [], changed: false,
             missingChanged: false, assetQueue: [], lookups: null, lookupBudget: MAX_LOOKUPS, foundPaths: new Map(),
             modelFiles: new Map(), modelPaths: new Set(), modelFetch: null, modelReady: null };
  fetcher.onChange = () => { stream.changed = true; };
  // The real models of its proxies, from next to the URL (a dropped big file has no folder).
  if (request.url) wasm.setAssets(urlFiles(stream, request.url));
  result.scene = wasm.staticScene();
  result.stream = { url: request.url ?? null, size, start: result.start, layout: result.grid, bytes: fetcher.bytes, requests: fetcher.requests };
  return result;
}

// One camera tick: request what the camera needs, cancel what it left, hand back at most one
// decoded section as a scene delta, and the sections to drop.
function cameraTick(request) {
  if (!stream || request.doc !== stream.doc) return { stale: true };
  const tickStart = performance.now();
  const s = stream;
  const { x, y, z } = request;
  // The file changed on the server: what was cached no longer matches; the page reopens it.
  if (s.changed) {
    closeStream();
    return { reload: true, evict: [], errors: [], stats: null };
  }
  const u = JSON.parse(s.wasm.update(x, y, z));
  // A cancelled section leaves its read; the read is aborted once none of its sections is wanted.
  for (const { row, col } of u.cancel) {
    const key = `${row},${col}`;
    const read = s.reads.get(key);
    s.reads.delete(key);
    if (!read) continue;
    read.members.delete(key);
    if (read.members.size === 0) read.controller.abort();
  }
  // Sections stored next to each other are fetched in one read: the core merged them (small gaps,
  // bounded size; stream::coalesce).
  const groups = u.reads;
  for (const g of groups) {
    const read = { controller: new AbortController(), members: new Set(g.parts.map((p) => `${p.row},${p.col}`)) };
    for (const key of read.members) s.reads.set(key, read);
    s.fetcher.read(g.begin, g.end, read.controller.signal).then((bytes) => {
      if (stream !== s) return;
      for (const p of g.parts) {
        const key = `${p.row},${p.col}`;
        if (!read.members.has(key)) continue;  // cancelled meanwhile
        s.reads.delete(key);
        const error = s.wasm.sectionBytes(p.row, p.col, bytes.subarray(p.begin - g.begin, p.end - g.begin));
        if (error) s.errors.push(`section ${p.row},${p.col} could not be read: ${error}`);
      }
    }).catch((e) => {
      if (stream !== s || e.name === 'AbortError') return;
      for (const p of g.parts) {
        const key = `${p.row},${p.col}`;
        if (!read.members.has(key)) continue;
        s.reads.delete(key);
        s.wasm.sectionFailed(p.row, p.col);
        s.errors.push(`section ${p.row},${p.col} could not be loaded: ${e.message}`);
      }
    });
  }
  fetchLate(s);
  // Files it names, handed out once each as their names arrive: looked for next to the URL.
  if (s.url) {
    s.assetQueue.push(...JSON.parse(s.wasm.takeAssetQueries()));
    if (!s.lookups && s.assetQueue.length) lookForAssets(s);
  }
  s.errors.push(...u.errors);
  s.readsIssued = (s.readsIssued || 0) + groups.length;
  s.sectionsRequested = (s.sectionsRequested || 0) + u.sections;
  const delta = s.wasm.applyOne(x, y, z);
  // A model loads once the lookups have looked for every name known so far: its file is where
  // they found it (read synchronously, so one model per tick at most).
  const lookupsIdle = s.lookupsSpent || (!s.assetQueue.length && !s.lookups);
  const models = s.url && lookupsIdle ? streamModel(s, x, y, z) : { delta: null, stats: null };
  const errors = s.errors.splice(0);
  s.ticks = (s.ticks || 0) + 1;
  s.tickMs = (s.tickMs || 0) + performance.now() - tickStart;
  const grid = s.ticks % 8 === 1 ? s.wasm.grid() : null;  // the map does not need every tick
  const missing = s.missingChanged ? JSON.parse(s.wasm.missingFiles()) : null;
  s.missingChanged = false;
  return {
    delta, modelDelta: models.delta, models: models.stats, evict: u.evict, errors, grid, missing,
    stats: { bytes: s.fetcher.bytes, requests: s.fetcher.requests, size: s.fetcher.size, inFlight: u.inFlight,
             ready: u.ready, resident: u.resident, notices: s.fetcher.notices.slice(), late: u.late,
             decodedOffThread: u.decodedOffThread, ticks: s.ticks, tickMs: s.tickMs,
             reads: s.readsIssued || 0, lookups: s.fetcher.lookups ?? 0, sectionsRequested: s.sectionsRequested || 0,
             modelRequests: s.modelRequests || 0, modelBytes: s.modelBytes || 0 },
  };
}

// Data the document reads after opening (model names, say), a piece at a time, when the
// document asks for it (at once when a decoded section waits for it, otherwise when idle).
function fetchLate(s) {
  if (performance.now() < (s.lateRetryAt || 0)) return;
  const want = JSON.parse(s.wasm.lateRequest(1 << 20));
  if (!want) return;
  const [begin, end] = want;
  s.fetcher.read(begin, end).then((bytes) => {
    if (stream !== s) return;
    const error = s.wasm.lateBytes(begin, bytes);
    if (error) s.errors.push(`names could not be read: ${error}`);
  }).catch((e) => {
    if (stream !== s) return;
    s.wasm.lateFailed();
    s.lateRetryAt = performance.now() + 5000;
    s.errors.push(`names could not be loaded (trying again): ${e.message}`);
  });
}

// One model of the open document's proxies, the nearest not tried, read from the files beside it
// (a dropped folder, or next to the URL) and flattened into a mesh that replaces its proxy.
// `holder` keeps the count of failures, to tell the page when its missing list grew.
function nextModel(holder, wasm, x, y, z) {
  return modelAnswer(holder, wasm.nextModel(x, y, z));
}
function modelAnswer(holder, r) {
  const stats = { ...r.stats, pending: r.pending };
  if (stats.failed !== (holder.modelsFailed || 0)) {
    holder.modelsFailed = stats.failed;
    holder.missingChanged = true;
  }
  return { delta: r.delta, stats };
}

// A model of a scenery opened by URL, in two ticks: its file is fetched first, asynchronously
// (from where the lookups found it, at most MAX_MODEL_BYTES by the HEAD's size; one at a time),
// then the model loads from it and its textures. A model whose file was not found is tried at
// once (and listed missing); one whose file cannot be fetched is listed with why.
const MAX_MODEL_BYTES = 64 * 1024 * 1024;
const idleModels = { delta: null, stats: null };
function streamModel(s, x, y, z) {
  if (s.modelFetch) return idleModels;
  if (s.modelReady != null) {
    const mesh = s.modelReady;
    s.modelReady = null;
    return modelAnswer(s, s.wasm.loadModel(mesh));
  }
  if (s.modelRefused) {
    const { mesh, why } = s.modelRefused;
    s.modelRefused = null;
    return modelAnswer(s, s.wasm.giveUpModel(mesh, why));
  }
  const wanted = s.wasm.modelWanted(x, y, z);
  if (!wanted) return idleModels;
  for (const f of wanted.files) s.modelPaths.add(f);
  const path = wanted.files.find((f) => s.foundPaths.has(f));
  if (!path) return modelAnswer(s, s.wasm.loadModel(wanted.mesh));
  const found = s.foundPaths.get(path);
  // Not fetched at all when the server says it is too big for a model (or answers any path
  // with the scenery itself).
  if (found.size > MAX_MODEL_BYTES) {
    return modelAnswer(s, s.wasm.giveUpModel(wanted.mesh, `${found.size} bytes at ${path}: more than a model file may have`));
  }
  if (found.size != null && found.size === s.fetcher.size) {  // a server answering every path with the scenery
    return modelAnswer(s, s.wasm.giveUpModel(wanted.mesh, `${path} is as big as the scenery: not a model file`));
  }
  const controller = new AbortController();
  s.modelFetch = controller;
  const timer = setTimeout(() => controller.abort(), 30_000);
  fetchModelFile(found.url, controller.signal).then((bytes) => {
    if (stream !== s) return;
    s.modelRequests = (s.modelRequests || 0) + 1;
    s.modelBytes = (s.modelBytes || 0) + bytes.length;
    s.modelFiles.set(path, bytes);
    s.modelReady = wanted.mesh;
  }).catch((e) => {
    // Listed with why (the page's missing list), as a model file that cannot be read is.
    if (stream === s) s.modelRefused = { mesh: wanted.mesh, why: `${path}: ${e.message}` };
  }).finally(() => {
    clearTimeout(timer);
    if (stream === s) s.modelFetch = null;
  });
  return idleModels;
}

async function fetchModelFile(url, signal) {
  const response = await fetch(url, { cache: 'no-store', signal });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  const bytes = new Uint8Array(await response.arrayBuffer());
  if (bytes.length > MAX_MODEL_BYTES) throw new Error(`more than ${MAX_MODEL_BYTES} bytes`);
  return bytes;
}

// The files beside a document opened by URL, for its models and their textures, as the model
// loader asks for them (one at a time, in the engine's order): a model file from what
// streamModel fetched; any other file (a texture) read synchronously, looked for by a HEAD first
// (so that a file that is not there is an answer, not an error, and one too big is not read) in
// the roots of the lookups (lookForAssets); a URL found absent is not asked again.
function urlFiles(s, url) {
  const roots = assetRoots(url);
  const absent = new Set();
  const request = (method, target) => {
    const xhr = new XMLHttpRequest();
    xhr.open(method, target, false);
    if (method === 'GET') xhr.responseType = 'arraybuffer';
    xhr.timeout = 10000;
    try {
      xhr.send();
    } catch {
      return null;
    }
    return xhr.status === 200 ? xhr : null;
  };
  return {
    read(path) {
      if (stream !== s) return null;
      // A model file (one the core named as a model's, modelWanted): fetched before its model
      // loads (streamModel), from where the lookups found it (a server may answer any path: a
      // HEAD there already said which candidate is the file).
      if (s.modelPaths.has(path) && !s.exporting) {
        const bytes = s.modelFiles.get(path) ?? null;
        s.modelFiles.delete(path);
        return bytes;
      }
      for (const root of roots) {
        const target = assetUrl(root, path).href;
        if (absent.has(target)) continue;
        s.modelRequests = (s.modelRequests || 0) + 1;
        const head = request('HEAD', target);
        if (head && Number(head.getResponseHeader('Content-Length') || 0) <= MAX_MODEL_BYTES) {
          const got = request('GET', target);
          if (got) {
            s.modelRequests++;
            s.modelBytes = (s.modelBytes || 0) + got.response.byteLength;
            return new Uint8Array(got.response);
          }
        }
        absent.add(target);
      }
      return null;
    },
  };
}

// Where the files of a scenery at `url` are: its folder and, for a file in a `scenery` folder, the
// folder above it (the simulator's layout: scenery/ beside models/ and textures/).
function assetRoots(url) {
  const here = new URL(url, self.location.href);
  const roots = [new URL('./', here)];
  if (/\/scenery\/[^/]*$/i.test(here.pathname)) roots.push(new URL('../', here));
  return roots;
}
const assetUrl = (root, path) => new URL(path.split('/').map(encodeURIComponent).join('/'), root);

// The files a streamed document refers to, looked for next to its URL: one HEAD at a time (a
// model absent from the server is worth knowing, not worth slowing the sections down for), in
// the document's folder and, for a file in a `scenery` folder, in the folder above it (the
// simulator's layout: scenery/ beside models/ and textures/). Missing ones reach the page's list.
const MAX_LOOKUPS = 4096;
async function lookForAssets(s) {
  const controller = new AbortController();
  s.lookups = controller;
  const roots = assetRoots(s.url);
  const urlOf = assetUrl;
  try {
    while (s.assetQueue.length) {
      const { label, candidates } = s.assetQueue.shift();
      let found = false;
      for (const root of roots) {
        for (const path of candidates) {
          if (found) break;
          if (s.lookupBudget-- === 0) {
            s.fetcher.notices.push(`stopped looking for model files after ${MAX_LOOKUPS} lookups`);
            s.lookupsSpent = true;  // the models found so far still load
            return;  // s.lookups stays set: no more lookups for this document
          }
          const head = await s.fetcher.exists(urlOf(root, path), controller.signal);
          found = Boolean(head);
          // Where the model loader reads it, and how big the server says it is.
          if (head) s.foundPaths.set(path, { url: urlOf(root, path).href, size: head.size });
        }
      }
      if (stream !== s) return;
      if (!found) {
        s.wasm.assetMissing(label);
        s.missingChanged = true;
      }
    }
    s.lookups = null;  // the next tick starts again when more names arrive
  } catch (e) {
    if (e.name !== 'AbortError') throw e;
  }
}

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
  // Record lists come from the stream's header when a scenery was opened by URL.
  const source = stream && stream.doc === documentId ? stream.wasm : document;
  switch (request.kind) {
    case 'configure':
      m.setDecodeBlocks(!!request.decodeBlocks);
      return { ok: true };
    case 'camera':
      if (stream) return cameraTick(request);
      return wholeTick(request);
    case 'url':
      return openUrl(m, request, progress);
    case 'rows':
      if (request.doc !== documentId) return { stale: true };
      if (request.group != null) {
        if (source !== document) return { rows: [] };
        return { rows: JSON.parse(document.groupRows(request.list, request.group, request.first, request.count)) };
      }
      return { rows: JSON.parse(source.rows(request.list, request.first, request.count)) };
    case 'search':
      if (request.doc !== documentId) return { stale: true };
      return { rows: JSON.parse(source.search(request.list, request.query, request.limit)) };
    case 'record':
      if (request.doc !== documentId) return { stale: true };
      return { record: JSON.parse(source.record(request.list, request.index)) };
    case 'formats':
      return JSON.parse(m.formats());
    case 'bake': {
      if (request.doc !== documentId) return { stale: true };
      if (opened?.doc !== documentId) return { ok: false, error: { code: 'bad_value', offset: 0, message: 'only a file opened whole can be baked' } };
      const root = opened.file ? new Uint8Array(new FileReaderSync().readAsArrayBuffer(opened.file)) : new Uint8Array(opened.buffer);
      const r = m.bakeTree(opened.name, root, assetsOf(opened));
      if (!r.ok) return { ok: false, error: r.error };
      return { ok: true, files: r.files, missing: JSON.parse(r.missing) };
    }
    case 'write': {
      if (request.doc !== documentId) return { stale: true };
      const write = [request.target, JSON.stringify(request.params || {}), Boolean(request.lossy),
                     (fraction) => progress(`writing ${request.target}`, fraction), request.name || ''];
      let r;
      if (source === document) {
        r = document.write(...write);
      } else {
        // A streamed scenery: the export reads each section it reaches at once (by Range from
        // the URL, or a slice of the dropped file) and lets it go; model files are read beside
        // the URL as the export needs them. The view streams on afterwards as it did.
        const s = stream;
        const before = { requests: s.fetcher.requests, bytes: s.fetcher.bytes };
        s.exporting = true;
        try {
          r = s.wasm.write(...write, (offset, size) => s.fetcher.readNow(offset, offset + size));
        } finally {
          s.exporting = false;
        }
        if (r.ok) r.reads = { requests: s.fetcher.requests - before.requests, bytes: s.fetcher.bytes - before.bytes };
      }
      if (!r.ok) return { ok: false, error: r.error };
      return { ok: true, bytes: r.bytes, writer: r.writer, extension: r.extension, losses: JSON.parse(r.losses), images: r.images, advice: r.advice, files: r.files, zip: r.zip,
               reads: r.reads ?? null };
    }
    default: {
      if (request.file && request.file.size > STREAM_FILES_ABOVE) {
        return openRanges(m, new FileRanges(request.file), request, progress);
      }
      startOpening();
      let bytes, name = request.name;
      if (request.kind === 'demo') {
        const demo = m.demoFile();
        bytes = demo.bytes;
        name = demo.name;
      } else {
        bytes = request.file ? await readFile(request.file, progress) : new Uint8Array(request.buffer);
      }
      const result = await openWhole(m, bytes, { ...request, name }, progress);
      // What a later bake reads again: the file itself (not a copy of its bytes) and its folder.
      opened = { doc: result.doc, name, file: request.file, buffer: request.buffer, assets: request.assets };
      return { ...result, name };
    }
  }
}

// A file in memory, any format: parsed, then its scene built.
async function openWhole(m, bytes, request, progress) {
  closeStream();
  if (!document) document = new m.Document();
  progress('parsing', 0);
  const started = performance.now();
  // request.params: the format's open choices ({param: value}, from summary.choices).
  const result = JSON.parse(document.open(bytes, request.name, 200, assetsOf(request), JSON.stringify(request.params || {})));
  result.parseMs = performance.now() - started;
  result.doc = ++documentId;
  if (result.ok) {
    progress('building the scene', 0);
    result.scene = document.scene();
    // A scenery opened with its infrastructure only: the rest comes by camera ticks.
    result.staged = document.staging();
    staged = result.staged ? { doc: result.doc, ticks: 0 } : null;
    // Models load from the files dropped with the document (none came: its proxies stay).
    result.models = Boolean(request.assets?.length);
    modelling = result.models ? { doc: result.doc, modelsFailed: 0, missingChanged: false } : null;
  }
  return result;
}

// A document opened whole, per camera tick: a staged one (a scenery: infrastructure first) reads
// the rest on the first tick, then hands out one piece of the scene nearest the camera per tick;
// and one model of its proxies loads per tick, nearest first, while any is left to try.
let staged = null;
let modelling = null;  // {doc, modelsFailed, missingChanged} while the open document has models to load
function wholeTick(request) {
  if (request.doc !== documentId) return { stale: true };
  const { x, y, z } = request;
  const out = { staging: false };
  if (staged?.doc === request.doc) {
    const r = document.nextStage(x, y, z);
    out.delta = r.delta;
    out.staging = r.staging;
    // The first tick read the visual nodes: the lists have grown.
    if (staged.ticks++ === 0) out.described = JSON.parse(document.describe(200));
    if (!r.staging) staged = null;
  }
  if (modelling?.doc === request.doc) {
    const m = nextModel(modelling, document, x, y, z);
    out.modelDelta = m.delta;
    out.models = m.stats;
    if (modelling.missingChanged) out.missing = JSON.parse(document.missingFiles());
    modelling.missingChanged = false;
    // Done once none is left and no staged piece can bring more proxies.
    if (m.stats.pending === 0 && !out.staging) modelling = null;
  }
  if (!out.staging && !modelling) out.done = true;
  return out;
}

self.onmessage = async (event) => {
  const { id } = event.data;
  const progress = (phase, fraction) => self.postMessage({ id, progress: { phase, fraction } });
  try {
    const result = await handle(event.data, progress);
    // Scene buffers move to the page without a copy.
    const transfer = [result.scene?.buffer, result.delta?.buffer, result.modelDelta?.buffer].filter(Boolean);
    self.postMessage({ id, ...result }, transfer);
  } catch (e) {
    // Reading failed (HTTP, network, a superseded open): no byte offset to show, only what happened.
    const code = e instanceof RangeFetchError ? 'fetch' : e?.name === 'AbortError' ? 'aborted' : 'internal';
    const error = { code, message: String(e && e.message || e) };
    if (code === 'internal') error.offset = 0;
    self.postMessage({ id, ok: false, error });
  }
};
