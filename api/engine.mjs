// The worker side of sceneria's JavaScript API, the one protocol for the page and for API users, in
// the browser and in Node: the WebAssembly core's Embind bindings (wasm/bindings.cpp) behind
// requests `{op, ...}`, answered `{result}` or `{error: {code, message, offset, file, line,
// column}}`. One document is open at a time; each open gives it an id (`doc`), and a request that
// names an earlier one is answered `{stale: true}` instead of reading the wrong document.
//
// The platform (worker-browser.mjs, worker-node.mjs) gives:
//   read(data)                  the bytes of a source or asset (bytes, a File, a path), at once, or null
//   readAll(data, progress)     the same, asynchronously with progress (a big dropped File), optional
//   streamer(core, engine)      a Streamer (stream.mjs) for sceneries opened by URL or too big to read whole, optional
export function createEngine(core, { read, readAll = async (data) => read(data), streamer = null }) {
  let doc = null;        // the core's Document of the open file (each open makes a new one)
  let docId = 0;
  let opened = null;     // {doc, name, data, assets} of a document opened whole: what a bake reads again
  let staged = null;     // {doc, ticks} while a staged scenery hands out its visuals
  let modelling = null;  // {doc, modelsFailed, missingChanged} while models load from the files given

  const fail = (code, message) => { throw { code, message, offset: 0 }; };
  const json = (text) => JSON.parse(text);
  // Assets [{path, data}] as the core's resolver asks for them: by index, read at once.
  // `[]` is a listing with nothing in it (a file opened for viewing alone: whatever it refers to is
  // missing, and said so); null, no listing (a conversion of the file by itself).
  const assetsOf = (assets) => (assets ? { paths: assets.map((a) => a.path), read: (i) => (assets[i] ? read(assets[i].data) : null) } : null);

  const engine = {
    nextDoc: () => ++docId,
    // A streamed document replaces the whole one: its camera ticks and lists are the stream's.
    closeWhole() { staged = modelling = opened = null; },
    openBytes,
  };
  const stream = streamer ? streamer(core, engine) : null;

  // A file in memory, any format. `view`: opened for the viewer (a scenery's infrastructure first,
  // then its visuals by camera ticks; the scene built); otherwise read whole, as a conversion needs.
  function openBytes(bytes, request, progress) {
    const params = JSON.stringify(request.params || {});
    const assets = assetsOf(request.view ? request.assets || [] : request.assets?.length ? request.assets : null);
    progress('parsing', 0);
    const started = performance.now();
    // Into a document of its own: a file that cannot be opened leaves the open one as it was (the
    // page keeps showing it), at the cost of both in memory while the new one opens.
    const next = new core.Document();
    const r = json(request.view ? next.open(bytes, request.name, 200, assets, params)
                                : next.openWhole(bytes, request.name, assets, params));
    if (!r.ok) {
      next.delete();
      throw r.error;
    }
    stream?.close();
    staged = modelling = null;
    if (doc) doc.delete();
    doc = next;
    const id = ++docId;
    const result = { doc: id, name: request.name, format: r.format, headline: r.headline, summary: r.summary, lists: r.lists,
                     parseMs: performance.now() - started };
    if (request.view) {
      progress('building the scene', 0);
      result.scene = doc.scene();
      result.staged = doc.staging();
      staged = result.staged ? { doc: id, ticks: 0 } : null;
      // Models load from the files given with it; none given, each is tried and listed missing.
      result.models = true;
      modelling = result.models ? { doc: id, modelsFailed: 0, missingChanged: false } : null;
    }
    return result;
  }

  // A staged document per camera tick: the rest is read on the first tick, then one piece of the
  // scene nearest the camera per tick; and one model of its proxies, nearest first, while any is left.
  function wholeTick({ x, y, z }) {
    const out = { staging: false };
    if (staged?.doc === docId) {
      const r = doc.nextStage(x, y, z);
      out.delta = r.delta;
      out.staging = r.staging;
      // The first tick read the visual nodes: the lists have grown.
      if (staged.ticks++ === 0) {
        const d = json(doc.describe(200));
        if (d.ok) out.described = { summary: d.summary, lists: d.lists };
      }
      if (!r.staging) staged = null;
    }
    if (modelling?.doc === docId) {
      const m = modelAnswer(modelling, doc.nextModel(x, y, z));
      out.modelDelta = m.delta;
      out.models = m.stats;
      if (modelling.missingChanged) out.missing = json(doc.missingFiles());
      modelling.missingChanged = false;
      // Done once none is left and no staged piece can bring more proxies.
      if (m.stats.pending === 0 && !out.staging) modelling = null;
    }
    if (!out.staging && !modelling) out.done = true;
    return out;
  }

  const described = (r) => {
    if (!r.ok) throw r.error;
    return { format: r.format, headline: r.headline, summary: r.summary, lists: r.lists };
  };
  const written = (request, r, reads = null) => {
    if (!r.ok) throw r.error;
    return { name: request.name, bytes: r.bytes, files: r.files, zip: r.zip, writer: r.writer, extension: r.extension, losses: json(r.losses),
             images: r.images, advice: r.advice, reads };
  };

  async function handle(request, progress) {
    // A request for a document no longer open (a newer file replaced it).
    if (request.doc != null && request.doc !== docId) return { stale: true };
    const streamed = stream?.current();
    const source = streamed ?? doc;
    const needDoc = () => source ?? fail('bad_value', 'no document is open');
    switch (request.op) {
      case 'formats':
        return json(core.formats());
      case 'configure':
        // The viewer's context cannot sample BC1-3: the worker decodes them to RGBA8 instead.
        core.setDecodeBlocks(Boolean(request.decodeBlocks));
        return {};
      case 'open': {
        stream?.abortOpening();
        // A big dropped file opens as a URL does: header first, sections around the camera.
        if (stream?.wants(request)) return stream.openFile(request, progress);
        const result = openBytes(await readAll(request.data, progress), request, progress);
        // What a bake reads again: the file itself (not a copy of its bytes) and its folder.
        opened = { doc: result.doc, name: result.name, data: request.data, assets: request.assets };
        return result;
      }
      case 'examples':
        return json(core.examples());
      case 'exampleFiles': {
        const r = core.exampleFiles(String(request.id));
        if (!r.ok) throw r.error;
        return r.files;
      }
      case 'url':
        if (!stream) fail('bad_value', 'opening by URL needs the browser worker');
        return stream.openUrl(request, progress);
      case 'camera':
        return streamed ? stream.tick(request) : wholeTick(request);
      case 'info':
        return described(json(needDoc().describe(0)));
      case 'sections':
        return json(needDoc().sections());
      case 'rows':
        if (request.group != null) return streamed ? [] : json(needDoc().groupRows(request.list, request.group, request.first, request.count));
        return json(needDoc().rows(request.list, request.first, request.count));
      case 'search':
        return json(needDoc().search(request.list, request.query, request.limit ?? 10000));
      case 'record':
        return json(needDoc().record(request.list, request.index));
      case 'write': {
        const args = [request.to, JSON.stringify(request.params || {}), Boolean(request.lossy),
                      (fraction) => progress(`writing ${request.name || request.to}`, fraction), request.name || ''];
        if (streamed) return stream.write(args, (r, reads) => written(request, r, reads));
        return written(request, needDoc().write(...args));
      }
      case 'bake': {
        if (opened?.doc !== docId) fail('bad_value', 'only a file opened whole can be baked');
        const r = core.bakeTree(opened.name, read(opened.data), assetsOf(opened.assets));
        if (!r.ok) throw r.error;
        return { files: r.files, missing: json(r.missing) };
      }
      case 'close':
        stream?.close();
        doc?.close();
        doc = null;
        opened = staged = modelling = null;
        ++docId;
        return null;
      default:
        fail('bad_value', `unknown request '${request.op}'`);
    }
  }

  // `progress({phase, fraction})` reports a long request's progress. An open that fails says
  // whether the document open before it is still open (`kept`): the page then keeps its view.
  return async (request, progress) => {
    const report = (phase, fraction) => progress({ phase, fraction });
    const before = docId;
    try {
      return { result: await handle(request, report) };
    } catch (e) {
      const error = errorShape(e);
      if (request.op === 'open' || request.op === 'url') error.kept = docId === before && before > 0 && (doc != null || stream?.current() != null);
      return { error };
    }
  };
}

// The error every answer carries: the core's as it came (with line and column where a text has
// them); a read that failed (`fetch`: HTTP, network; `aborted`: a superseded open) has no byte
// offset, only what happened.
function errorShape(e) {
  if (e && typeof e === 'object' && !(e instanceof Error) && e.code) {
    const error = { code: e.code, message: e.message, offset: e.offset ?? 0, file: e.file ?? '' };
    if (e.line) Object.assign(error, { line: e.line, column: e.column });
    return error;
  }
  const code = e?.name === 'RangeFetchError' ? 'fetch' : e?.name === 'AbortError' ? 'aborted' : (e?.code || 'internal');
  const error = { code, message: String(e?.message ?? e), file: '' };
  if (code !== 'fetch' && code !== 'aborted') error.offset = 0;
  return error;
}

// A model's answer from the core, noting when its failures grew (the missing list changed).
export function modelAnswer(holder, r) {
  const stats = { ...r.stats, pending: r.pending };
  if (stats.failed !== (holder.modelsFailed || 0)) {
    holder.modelsFailed = stats.failed;
    holder.missingChanged = true;
  }
  return { delta: r.delta, stats };
}
