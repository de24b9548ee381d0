// The JS API's worker side, the same in the browser and in Node: one document per worker, opened
// whole through the WebAssembly core's Embind bindings (wasm/bindings.cpp), answered as plain
// objects. The platform gives the core module and how to read what a source names.
export function createEngine(core) {
  let doc = null;
  const json = (text) => JSON.parse(text);
  const needDoc = () => {
    if (!doc) throw Object.assign(new Error('no document is open'), { code: 'bad_value' });
    return doc;
  };
  const fail = (error) => { throw Object.assign(new Error(error.message), error); };

  return function handle(request, progress) {
    switch (request.op) {
      case 'formats':
        return json(core.formats()).formats;
      case 'open': {
        doc?.close();
        doc = new core.Document();
        // Assets: {paths, read(index) -> Uint8Array | null}, read when the document asks.
        const assets = request.assets ? { paths: request.assets.paths, read: (i) => request.assets.read(i) } : null;
        const r = json(doc.openWhole(request.bytes, request.name, assets));
        if (!r.ok) { doc.close(); doc = null; fail(r.error); }
        return { format: r.format, headline: r.headline, summary: r.summary, lists: r.lists };
      }
      case 'info': {
        const r = json(needDoc().describe(0));
        return { format: r.format, headline: r.headline, summary: r.summary, lists: r.lists };
      }
      case 'sections':
        return json(needDoc().sections());
      case 'objects':
        return json(needDoc().rows(request.list, request.first, request.count));
      case 'record':
        return json(needDoc().record(request.list, request.index));
      case 'convert': {
        const r = needDoc().write(request.to, JSON.stringify(request.params || {}), Boolean(request.lossy),
                                  (fraction) => progress({ phase: `writing ${request.name || request.to}`, fraction }), request.name || '');
        if (!r.ok) fail(json(r.error));
        return { name: request.name, bytes: r.bytes, files: r.files, zip: r.zip, writer: r.writer, extension: r.extension,
                 losses: json(r.losses) };
      }
      case 'close':
        doc?.close();
        doc = null;
        return null;
      default:
        throw new Error(`unknown request '${request.op}'`);
    }
  };
}
