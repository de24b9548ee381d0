// The JS API's worker side, the same in the browser and in Node: one document per worker, opened
// whole through the WebAssembly core's Embind bindings (wasm/bindings.cpp), answered as plain
// objects. The platform gives the core module and `read(data)`: the bytes of what a source or an
// asset names (bytes as they are, a File, a path), or null when it cannot be read.
export function createEngine(core, read) {
  let doc = null;
  const json = (text) => JSON.parse(text);
  const needDoc = () => {
    if (!doc) throw Object.assign(new Error('no document is open'), { code: 'bad_value' });
    return doc;
  };
  const fail = (error) => { throw Object.assign(new Error(error.message), error); };
  const described = (r) => ({ format: r.format, headline: r.headline, summary: r.summary, lists: r.lists });

  function handle(request, progress) {
    switch (request.op) {
      case 'formats':
        return json(core.formats()).formats;
      case 'open': {
        doc?.close();
        doc = new core.Document();
        // Assets [{path, data}]: {paths, read(index)} for the core, read when the document asks.
        const entries = request.assets || [];
        const assets = request.assets ? { paths: entries.map((e) => e.path), read: (i) => read(entries[i].data) } : null;
        const r = json(doc.openWhole(read(request.bytes), request.name, assets, JSON.stringify(request.params || {})));
        if (!r.ok) { doc.close(); doc = null; fail(r.error); }
        return described(r);
      }
      case 'info':
        return described(json(needDoc().describe(0)));
      case 'sections':
        return json(needDoc().sections());
      case 'objects':
        return json(needDoc().rows(request.list, request.first, request.count));
      case 'record':
        return json(needDoc().record(request.list, request.index));
      case 'convert': {
        const r = needDoc().write(request.to, JSON.stringify(request.params || {}), Boolean(request.lossy),
                                  (fraction) => progress({ phase: `writing ${request.name || request.to}`, fraction }), request.name || '');
        if (!r.ok) fail(r.error);
        return { name: request.name, bytes: r.bytes, files: r.files, zip: r.zip, writer: r.writer, extension: r.extension,
                 losses: json(r.losses), images: r.images, advice: r.advice };
      }
      case 'close':
        doc?.close();
        doc = null;
        return null;
      default:
        throw new Error(`unknown request '${request.op}'`);
    }
  }

  // {result} or {error: {code, message, offset, file, line, column}}: what a worker posts back,
  // the core's error as it came (bindings' error_json), line and column where a text has them.
  return (request, progress) => {
    try {
      return { result: handle(request, progress) };
    } catch (e) {
      const error = { code: e.code || 'error', message: e.message, offset: e.offset ?? 0, file: e.file };
      if (e.line) Object.assign(error, { line: e.line, column: e.column });
      return { error };
    }
  };
}
