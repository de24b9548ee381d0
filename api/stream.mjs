// Sceneries opened by URL (or dropped too big to read whole), for the browser worker: the header
// by HTTP Range requests, PACK sections as the camera asks, the files it names looked for next to
// the URL. The engine (engine.mjs) routes a streamed document's requests here.
import { RangeFetcher } from './range-fetch.mjs';
import { modelAnswer } from './engine.mjs';

// Files above this size are opened like a URL: header first, sections around the camera.
const STREAM_FILES_ABOVE = 64 * 1024 * 1024;
// A model file bigger than this is not one (a server answering any path with something else).
const MAX_MODEL_BYTES = 64 * 1024 * 1024;
// HEAD requests for the files a streamed document names, at most.
const MAX_LOOKUPS = 4096;
// How long the ring around the first section waits for that section's nearest model at most.
const FIRST_MODEL_WAIT_MS = 4000;
// The first read of a URL or big File (openRanges).
const HEAD_BYTES = 16 * 1024;

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

// Only the numbers a caller may tune; anything else keeps the reader's defaults.
function fetchOptions(request) {
  const out = {};
  for (const key of ['timeoutMs', 'retries']) {
    const v = request.fetch?.[key];
    if (Number.isFinite(v) && v >= 0) out[key] = v;
  }
  return out;
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

async function fetchModelFile(url, signal) {
  const response = await fetch(url, { cache: 'no-store', signal });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  const bytes = new Uint8Array(await response.arrayBuffer());
  if (bytes.length > MAX_MODEL_BYTES) throw new Error(`more than ${MAX_MODEL_BYTES} bytes`);
  return bytes;
}

// `engine`: {nextDoc(), closeWhole(), openBytes(bytes, request, progress)} (engine.mjs).
export function createStreamer(core, engine) {
  // {doc, wasm: Stream, fetcher, url, reads: Map<"row,col", {controller, members}>, errors, ...}
  let stream = null;
  // The open in progress: a newer file or link aborts the reads of the one it replaces, so a
  // hanging server is not left holding requests for a scenery nobody waits for.
  let opening = null;

  // Stops a stream's reads and frees its WebAssembly side (which also stops its decode threads).
  function close() {
    if (!stream) return;
    for (const r of stream.reads.values()) r.controller.abort();
    stream.lookups?.abort();
    stream.modelFetch?.abort();
    stream.wasm.delete();
    stream = null;
  }
  function abortOpening() {
    opening?.abort();
    opening = new AbortController();
    return opening.signal;
  }

  // A URL or a big File: the first read learns the size and the format. A format that streams is
  // opened from ranges; any other is read whole and opened like a dropped file.
  async function openRanges(fetcher, request, progress, signal = abortOpening()) {
    let changed = false;
    fetcher.onChange = () => { changed = true; };
    // The head: enough to tell the format and start a header (PMTiles reads 16 KiB too); a
    // streamed header asks for the rest itself, so bytes read past what it needs are only counted
    // against the first frame. A file under 16 KiB answers 416 with its size, then is read whole.
    let head;
    try {
      head = await fetcher.read(0, HEAD_BYTES, signal);
    } catch (e) {
      if (e.status !== 416 || !fetcher.size) throw e;
      head = await fetcher.read(0, fetcher.size, signal);
    }
    const size = fetcher.size ?? head.length;
    const format = JSON.parse(core.detect(head.subarray(0, 4096), request.name, size));
    if (!format.ok) {
      close();
      engine.nextDoc();
      throw format.error;
    }
    if (!format.streams) {
      const bytes = head.length >= size ? head : await fetcher.read(0, size, signal);
      return engine.openBytes(bytes, { ...request, view: true }, progress);
    }
    return openStream(fetcher, request, progress, signal, { head, size, format: format.id, changed: () => changed });
  }

  async function openStream(fetcher, request, progress, signal, { head, size, format, changed }) {
    const wasm = new core.Stream(size, request.name, format);
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
      return openRanges(new RangeFetcher(request.url, fetchOptions(request)), { ...request, reloaded: true }, progress, signal);
    }
    const doc = engine.nextDoc();
    close();
    engine.closeWhole();
    if (!result.ok) {
      wasm.delete();
      throw result.error;
    }
    stream = { doc, wasm, fetcher, url: request.url ?? null, reads: new Map(), errors: [], changed: false,
               missingChanged: false, assetQueue: [], lookups: null, lookupBudget: MAX_LOOKUPS, foundPaths: new Map(),
               modelFiles: new Map(), modelPaths: new Set(), modelFetch: null, modelReady: null, lookedUp: new Set(),
               lookingFor: null, firstModel: null };
    fetcher.onChange = () => { stream.changed = true; };
    // The real models of its proxies, from next to the URL (a dropped big file has no folder).
    if (request.url) wasm.setAssets(urlFiles(stream, request.url));
    return {
      doc, name: request.name, format: result.format, headline: result.headline, summary: result.summary, lists: result.lists,
      reloaded: Boolean(request.reloaded), scene: wasm.staticScene(),
      stream: { url: request.url ?? null, size, start: result.start, layout: result.grid, bytes: fetcher.bytes, requests: fetcher.requests },
    };
  }

  // One camera tick: request what the camera needs, cancel what it left, hand back at most one
  // decoded section as a scene delta, and the sections to drop.
  function tick({ x, y, z, modelShown }) {
    const tickStart = performance.now();
    const s = stream;
    // The file changed on the server: what was cached no longer matches; the page reopens it.
    if (s.changed) {
      close();
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
    // The first impression: once the nearest section is on screen, its nearest model (looked for,
    // fetched, loaded with its textures; those missing passed over) comes before the ring around
    // it is asked for, until the view says it has drawn it (`modelShown`; a caller that never
    // says gets the ring once the model has loaded) — at most FIRST_MODEL_WAIT_MS, and not at all
    // where there is no model to load.
    if (delta && s.url && !s.firstModel) {
      s.firstModel = { since: performance.now(), loaded: false, done: false };
      s.wasm.holdSections(true);
    }
    const models = s.url ? streamModel(s, x, y, z) : idleModels;
    if (s.firstModel && !s.firstModel.done) {
      if (models.stats?.loaded > 0) s.firstModel.loaded = true;
      if ((s.firstModel.loaded && modelShown !== false) || performance.now() - s.firstModel.since > FIRST_MODEL_WAIT_MS ||
          !s.wasm.modelWanted(x, y, z)) {
        s.firstModel.done = true;
        s.wasm.holdSections(false);
      }
    }
    const errors = s.errors.splice(0);
    s.ticks = (s.ticks || 0) + 1;
    s.tickMs = (s.tickMs || 0) + performance.now() - tickStart;
    const grid = s.ticks % 8 === 1 ? s.wasm.grid() : null;  // the map does not need every tick
    const missing = s.missingChanged ? JSON.parse(s.wasm.missingFiles()) : null;
    s.missingChanged = false;
    return {
      delta, modelDelta: models.delta, models: models.stats, evict: u.evict, errors, grid, missing,
      described: u.described ? { summary: u.described.summary, lists: u.described.lists } : null,
      stats: { bytes: s.fetcher.bytes, requests: s.fetcher.requests, size: s.fetcher.size, inFlight: u.inFlight, held: u.held,
               ready: u.ready, resident: u.resident, notices: s.fetcher.notices.slice(), late: u.late,
               decodedOffThread: u.decodedOffThread, ticks: s.ticks, tickMs: s.tickMs,
               reads: s.readsIssued || 0, lookups: s.fetcher.lookups ?? 0, sectionsRequested: s.sectionsRequested || 0,
               modelRequests: s.modelRequests || 0, modelBytes: s.modelBytes || 0 },
    };
  }

  // Data the document reads after opening (records after the first section, model names), a
  // piece at a time, when the document asks for it.
  function fetchLate(s) {
    if (performance.now() < (s.lateRetryAt || 0)) return;
    const want = JSON.parse(s.wasm.lateRequest(1 << 20));
    if (!want) return;
    const [begin, end] = want;
    s.fetcher.read(begin, end).then((bytes) => {
      if (stream !== s) return;
      const error = s.wasm.lateBytes(begin, bytes);
      if (error) s.errors.push(error);
    }).catch((e) => {
      if (stream !== s) return;
      s.wasm.lateFailed();
      s.lateRetryAt = performance.now() + 5000;
      s.errors.push(`bytes ${begin}-${end} could not be loaded (trying again): ${e.message}`);
    });
  }

  // A model of a scenery opened by URL, in two ticks: its file is fetched first, asynchronously
  // (from where the lookups found it, at most MAX_MODEL_BYTES by the HEAD's size; one at a time),
  // then the model loads from it and its textures. A model whose file was not found is tried at
  // once (and listed missing); one whose file cannot be fetched is listed with why.
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
    // Its file is where the lookups found it: one not looked for yet is looked for next (ahead
    // of the names queued before it), and the model loads once that lookup has answered.
    const key = wanted.files.join('\n');
    if (!s.lookupsSpent && !s.lookedUp.has(key)) {
      const i = s.assetQueue.findIndex((q) => q.candidates.join('\n') === key);
      if (i > 0) s.assetQueue.unshift(...s.assetQueue.splice(i, 1));
      if (i >= 0 || s.lookingFor === key || s.lookups) return idleModels;
    }
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

  // The files a streamed document refers to, looked for next to its URL: one HEAD at a time (a
  // model absent from the server is worth knowing, not worth slowing the sections down for), in
  // the roots assetRoots names. Missing ones reach the page's list.
  async function lookForAssets(s) {
    const controller = new AbortController();
    s.lookups = controller;
    const roots = assetRoots(s.url);
    try {
      while (s.assetQueue.length) {
        const { label, candidates } = s.assetQueue.shift();
        s.lookingFor = candidates.join('\n');
        let found = false;
        for (const root of roots) {
          for (const path of candidates) {
            if (found) break;
            if (s.lookupBudget-- === 0) {
              s.fetcher.notices.push(`stopped looking for model files after ${MAX_LOOKUPS} lookups`);
              s.lookupsSpent = true;  // the models found so far still load
              return;  // s.lookups stays set: no more lookups for this document
            }
            const head = await s.fetcher.exists(assetUrl(root, path), controller.signal);
            found = Boolean(head);
            // Where the model loader reads it, and how big the server says it is.
            if (head) s.foundPaths.set(path, { url: assetUrl(root, path).href, size: head.size });
          }
        }
        if (stream !== s) return;
        s.lookedUp.add(s.lookingFor);
        s.lookingFor = null;
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

  return {
    close,
    abortOpening,
    // The streamed document's core side, while one is open.
    current: () => stream?.wasm ?? null,
    wants: (request) => typeof Blob !== 'undefined' && request.data instanceof Blob && request.data.size > STREAM_FILES_ABOVE,
    openFile: (request, progress) => openRanges(new FileRanges(request.data), request, progress),
    openUrl: (request, progress) => openRanges(new RangeFetcher(request.url, fetchOptions(request)), request, progress),
    tick,
    // A streamed scenery's export reads each section it reaches at once (by Range from the URL, or
    // a slice of the dropped file) and lets it go; model files are read beside the URL as the
    // export needs them. The view streams on afterwards as it did.
    write(args, written) {
      const s = stream;
      const before = { requests: s.fetcher.requests, bytes: s.fetcher.bytes };
      s.exporting = true;
      let r;
      try {
        r = s.wasm.write(...args, (offset, size) => s.fetcher.readNow(offset, offset + size));
      } finally {
        s.exporting = false;
      }
      return written(r, r.ok ? { requests: s.fetcher.requests - before.requests, bytes: s.fetcher.bytes - before.bytes } : null);
    },
  };
}
