// Which file of a dropped folder (or a map of files) is the document, the same rule for the page
// and the API: the file whose extension comes first in the registry (formats in probe order, each
// format's extensions in its order: a module before a scenery text, a scenery's .scn before the
// .inc files it includes, a model before its textures), then the shallowest, then the first by
// path. Extensions match without case. `formats`: formats() (the registry's list). Returns the
// index in `paths`, or -1 when no file is of a format that reads.
export function pickDocument(paths, formats) {
  const extensions = formats.filter((f) => f.reads).flatMap((f) => f.extensions);
  const key = (path) => {
    const lower = path.toLowerCase();
    const rank = extensions.findIndex((e) => lower.endsWith(e));
    return { rank: rank < 0 ? Infinity : rank, depth: path.split('/').length, path };
  };
  const before = (a, b) => a.rank - b.rank || a.depth - b.depth || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
  let best = -1, bestKey = null;
  paths.forEach((path, i) => {
    const k = key(path);
    if (k.rank === Infinity) return;
    if (!bestKey || before(k, bestKey) < 0) { best = i; bestKey = k; }
  });
  return best;
}
