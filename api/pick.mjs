// Which file of a dropped folder (or a map of files) is the document, the same rule for the page
// and the API: the file whose extension comes first in the registry (formats in probe order, each
// format's extensions in its order: a module before a scenery text, a scenery's .scn before the
// .inc files it includes, a model before its textures), then the shallowest, then the first by
// path. Extensions match without case. `formats`: formats() (the registry's list). Returns the
// index in `paths`, or -1 when no file is of a format that reads.
export function pickDocument(paths, formats) {
  const extensions = readExtensions(formats);
  let best = -1, bestKey = null;
  paths.forEach((path, i) => {
    const k = documentKey(path, extensions);
    if (k.rank === Infinity) return;
    if (!bestKey || compareKeys(k, bestKey) < 0) { best = i; bestKey = k; }
  });
  return best;
}

// Every extension a reading format has, in registry order: a path's rank is its place here.
const readExtensions = (formats) => formats.filter((f) => f.reads).flatMap((f) => f.extensions);
function documentKey(path, extensions) {
  const lower = path.toLowerCase();
  const rank = extensions.findIndex((e) => lower.endsWith(e));
  return { rank: rank < 0 ? Infinity : rank, depth: path.split('/').length, path };
}
const compareKeys = (a, b) => a.rank - b.rank || a.depth - b.depth || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

// The documents of a dropped folder in the order to offer them, and its root when one is clear:
// the file no other file of the folder names (an include, a model, a module) that names some
// itself. Names are found by scanning each file's bytes for the others' file names, or their
// stems standing alone (text and binary alike: an EU7B module keeps its includes' names in its
// strings, a scenery names a vehicle by its stem), so the rule knows no format. Two roots of the
// same name (allnodes.scn and allnodes.v9-root.eu7) are one scenery twice: the one whose format writes the other's (its source) is the root. Several roots, or a
// folder of files that name none (13 models), is ambiguous: `root` is -1 and the host asks.
// `entries`: [{path}]; `read(i)` resolves to entry i's bytes (Uint8Array). Pictures (textures) are
// documents only in a folder of nothing else. Scans at most `budget` bytes, best-ranked first.
// Resolves to {order: [index...], root: index | -1, roots: [index...]}.
export async function rankDocuments(entries, formats, read, { budget = 64 << 20 } = {}) {
  const readable = formats.filter((f) => f.reads);
  const formatOf = (path) => {
    const lower = path.toLowerCase();
    return readable.find((f) => f.extensions.some((e) => lower.endsWith(e)));
  };
  const paths = entries.map((e) => e.path);
  const readableFiles = paths.map((p, i) => ({ i, format: formatOf(p) })).filter((c) => c.format);
  let candidates = readableFiles;
  if (candidates.some((c) => !c.format.picture)) candidates = candidates.filter((c) => !c.format.picture);
  // What completes another file here (a .b3d's .res, a vehicle's models) is no choice of its own.
  const completes = (c, d) => (d.format.companionExtensions || []).some((e) => paths[c.i].toLowerCase().endsWith(e));
  const documents = candidates.filter((c) => !candidates.some((d) => d !== c && completes(c, d) && !completes(d, c)));
  if (documents.length) candidates = documents;
  const extensions = readExtensions(formats);
  const keys = new Map(candidates.map((c) => [c.i, documentKey(paths[c.i], extensions)]));
  const order = (a, b) => compareKeys(keys.get(a.i), keys.get(b.i));
  const byPick = [...candidates].sort(order);
  if (byPick.length <= 1) return { order: byPick.map((c) => c.i), root: byPick[0]?.i ?? -1, roots: byPick.map((c) => c.i) };

  const base = (p) => p.replace(/\\/g, '/').split('/').pop().toLowerCase();
  // Names are looked for among every readable file (a scenery names its models, which are no
  // choice of their own here but still make it a root).
  // A name without its extension counts too (a scenery names a vehicle by its .mmd's stem:
  // "dynamic pkp/test red"), for stems long enough not to be any word.
  const named = new Map();  // base name or stem -> file indices
  const enter = (key, i) => named.set(key, [...(named.get(key) || []), i]);
  for (const c of readableFiles) {
    const name = base(paths[c.i]);
    enter(name, c.i);
    const stem = name.replace(/\.[^.]*$/, '');
    if (stem.length >= 3 && !stem.includes('.') && stem !== name) enter(`stem:${stem}`, c.i);
  }
  const names = new Map(readableFiles.map((c) => [c.i, new Set()]));     // what each names
  const namedBy = new Map(readableFiles.map((c) => [c.i, new Set()]));   // who names each
  let left = budget;
  for (const c of byPick) {
    const bytes = await read(c.i);
    if (!bytes || bytes.length > left) continue;
    left -= bytes.length;
    const text = latin1(bytes);
    for (const token of text.match(/[^\s"'<>|*?;,=(){}[\]\x00-\x1f]+/g) || []) {
      const name = base(token);
      const hits = named.get(name) || (name.includes('.') ? null : named.get(`stem:${name}`));
      if (!hits) continue;
      for (const j of hits) if (j !== c.i) { names.get(c.i).add(j); namedBy.get(j).add(c.i); }
    }
  }
  let roots = byPick.filter((c) => namedBy.get(c.i).size === 0 && names.get(c.i).size > 0);
  // One scenery in two forms: its source (whose format writes the other's) stands for both.
  const stem = (i) => base(paths[i]).split('.')[0];
  const writes = (a, b) => (a.format.writes || []).some((w) => b.format.extensions.includes(w.extension)) &&
                           !(b.format.writes || []).some((w) => a.format.extensions.includes(w.extension));
  roots = roots.filter((r) => !roots.some((s) => s !== r && stem(s.i) === stem(r.i) && writes(s, r)));
  roots.sort(order);
  const rootSet = new Set(roots.map((r) => r.i));
  const orderOut = [...roots.map((r) => r.i), ...byPick.filter((c) => !rootSet.has(c.i)).map((c) => c.i)];
  // Clear when one root comes first by kind (a scenery before the vehicles beside it); two of one
  // kind (two sceneries; thirteen models naming nothing) are for the user to choose.
  const first = roots.length ? roots : byPick;
  const clear = first.length === 1 || keys.get(first[0].i).rank !== keys.get(first[1].i).rank;
  return { order: orderOut, root: clear ? first[0].i : -1, roots: (roots.length ? roots : byPick).map((r) => r.i) };
}

function latin1(bytes) {
  let out = '';
  for (let i = 0; i < bytes.length; i += 0x8000) out += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return out;
}
