// Page glue: file input and drag-and-drop -> the JS API's session (api/sceneria.mjs: a worker
// parses) -> panel and scene; the C++ viewer (api/viewer.mjs) draws, picks and moves the camera.
// Everything that comes from a file is inserted with textContent, never as HTML.
import { Session } from './api/sceneria.mjs';
import { startViewer } from './api/viewer.mjs';
import { VirtualList } from './virtual-list.js';
import { rankDocuments } from './api/pick.mjs';

const $ = (id) => document.getElementById(id);
const status = (text) => { $('status').textContent = text; };
// Warnings belong to the action that raised them (opening a file, saving one): the panel lists
// those of the latest action and a badge in the bar counts them; the next action clears them.
// File text inside them is set as text, never as HTML.
const warnings = { action: '', items: [] };
function beginAction(action) {
  warnings.action = action;
  warnings.items = [];
  showWarnings();
}
function notice(text) {
  if (warnings.items.includes(text)) return;
  warnings.items.push(text);
  showWarnings();
}
function showWarnings() {
  const n = warnings.items.length;
  $('warnings').hidden = n === 0;
  $('warnings-action').textContent = warnings.action;
  $('warnings-count').textContent = `(${n})`;
  $('notice').replaceChildren(...warnings.items.map((text) => {
    const li = document.createElement('li');
    li.textContent = text;
    return li;
  }));
  $('warnings-badge').hidden = n === 0;
  $('warnings-badge').textContent = `⚠ ${n}`;
  $('warnings-badge').setAttribute('aria-label', `${n} warning${n === 1 ? '' : 's'}: show them`);
}
$('warnings-badge').addEventListener('click', () => {
  showPanel(true);
  $('warnings').scrollIntoView({ block: 'nearest' });
  $('warnings').tabIndex = -1;
  $('warnings').focus();
});
const number = new Intl.NumberFormat('en-US');
const hex = (n) => `0x${n.toString(16)}`;
const STRING_ROWS = 200;  // the worker sends this many

const parser = await Session.start();
// A request that failed on an open document (a list, a record, a camera tick): said in the
// console, answered as nothing, and the page goes on.
const reported = (error) => { console.warn(`[sceneria] ${error.code}: ${error.message}`); return null; };
let viewer = null;
let latest = 0;          // a newer file always wins over a slower older parse
let openDoc = 0;         // the worker's document the panel shows
let pendingScene = null; // a scene that arrived before the viewer was ready
let kinds = [];
let selection = null;    // {kind, index, object}
let streaming = null;    // {doc, url, size, start, stats} while a scenery streams by URL (or a big File)
let openName = '';       // the file the panel and the view show

// ---- file panel ----
// Each error code in plain words; the core's exact message (what, where) is behind "Details".
const PLAIN_ERRORS = {
  unknown_format: () => 'sceneria does not know this kind of file. The kinds it opens are listed under “Your files” in the welcome above.',
  bad_magic: (name) => `This is not a readable ${extension(name) || 'file of its kind'}: it does not begin as one does (another kind of file, or a damaged one).`,
  truncated: () => 'The file ends too early: it was cut short, perhaps by an interrupted download or copy.',
  unsupported_version: () => 'The file is in a version of its format that sceneria does not read.',
  bad_chunk_size: () => 'The file is damaged: one of its parts claims a size it cannot have.',
  bad_count: () => 'The file is damaged: it promises more than it holds.',
  bad_value: () => 'The file holds a value that cannot be right, so it was not opened.',
  io: () => 'The file could not be read.',
  fetch: () => 'The file could not be downloaded.',
};
const extension = (name) => (/\.[^./]+$/.exec(name)?.[0] || '').toLowerCase();
function showError(name, error, kept) {
  $('error').hidden = false;
  $('error-file').textContent = name;
  $('error-plain').textContent = (PLAIN_ERRORS[error.code] || (() => 'Something went wrong while reading it.'))(name);
  const where = error.offset !== undefined ? ` at byte ${number.format(error.offset)} (${hex(error.offset)})` : '';
  $('error-message').textContent = `${error.code}${where}: ${error.message}`;
  $('error-kept').textContent = kept ? `Still showing ${openName}. Open another file, or pick one from the examples.` :
                                       'Open another file, or pick one from the examples.';
  status(`${name}: could not be opened`);
}

function showSummary(name, s) {
  $('file-info').hidden = false;
  $('file-name').textContent = name;
  $('file-format').textContent = formatLabel(s);
  $('file-size').textContent = `${number.format(s.size)} bytes`;
  const hasStrings = s.strings !== undefined;
  $('file-strings').hidden = $('file-strings-label').hidden = !hasStrings;
  $('file-strings').textContent = hasStrings ? number.format(s.strings) : '';
  // What the format is made of (chunks, blocks…), as the document describes it.
  const structure = s.structure || [];
  const partName = s.structureName || 'parts';
  $('file-structure-label').textContent = partName[0].toUpperCase() + partName.slice(1);
  $('structure-title').textContent = $('file-structure-label').textContent;
  $('file-chunk-count').textContent = number.format(structure.length);

  const body = $('structure').tBodies[0];
  body.replaceChildren(...structure.map((c, i) => {
    const row = document.createElement('tr');
    if (c.note) { row.className = 'unknown'; row.title = c.note; }
    const count = c.count === undefined ? '' : number.format(c.count);
    for (const [text, cls, title] of [[String(i), ''], [c.name, 'id'], [number.format(c.offset), 'num', hex(c.offset)],
                                      [number.format(c.size), 'num', hex(c.size)], [count, 'num']]) {
      const cell = document.createElement('td');
      cell.textContent = text;
      if (cls) cell.className = cls;
      if (title) cell.title = title;
      row.append(cell);
    }
    row.dataset.part = c.name;
    return row;
  }));

  showMissing(s.missingFiles || []);

  const sample = (s.stringSample || []).slice(0, STRING_ROWS);
  $('strings').replaceChildren(...sample.map((text) => {
    const li = document.createElement('li');
    li.textContent = text;
    return li;
  }));
  $('strings-shown').textContent = s.strings > sample.length ? `(first ${sample.length} of ${number.format(s.strings)})` : '';
  status(`${name}: ${formatLabel(s)}, ${counted(structure.length, partName)}`);
}

// The format's name from the registry ("MaSzyna binary model"), and its version where the file
// has one worth saying (not 0, not absent).
function formatLabel(s) {
  const name = registry.find((f) => f.id === s.format)?.name.replace(/ \(\.[^)]*\)$/, '') || s.format;
  return s.version ? `${name}, version ${s.version}` : name;
}
// "1 file", "118 files": the core names parts in the plural.
function counted(n, plural) {
  return `${number.format(n)} ${n === 1 && /[^s]s$/.test(plural) ? plural.slice(0, -1) : plural}`;
}

// ---- saving as another target ----
// One choice per writer of the open file's format; a writer whose versions are a short list
// (`version=6|9`) gets one choice per version. Named by what the download is: a writer that makes
// files beside its output (an OBJ's .mtl and images) gives a ZIP of them all.
function showSaveTargets(capabilities, format) {
  const choices = [];
  // A scenery that streams is exported a section at a time (read by Range as the export reaches
  // it); its own formats would need it whole.
  for (const w of (capabilities?.writes || []).filter((w) => !streaming || isSceneExport({ params_spec: w.params }))) {
    const versions = /(?:^|\s)version=([0-9|]+)(?:\s|$)/.exec(w.params || '')?.[1]?.split('|').filter(Boolean) || [];
    // The description's head: "glTF 2.0 binary", "Wavefront OBJ", "E3D model".
    const head = (w.description || w.id).split(/[:,(]| with | as /)[0].trim();
    const what = /^[a-z]+(\s|$)/.test(head) ? head.charAt(0).toUpperCase() + head.slice(1) : head;  // not "GlTF"
    const download = w.files ? `${what} and its files, zipped (.zip)` : `${what} (${w.extension})`;
    if (versions.length > 1) for (const v of versions) choices.push({ ...w, label: `${what}, version ${v} (${w.extension})`, params: { version: v }, params_spec: w.params });
    else choices.push({ ...w, label: download, params: {}, params_spec: w.params });
  }
  $('save-as').hidden = choices.length === 0;
  $('save-target').replaceChildren(...choices.map((c, i) => {
    const option = document.createElement('option');
    option.value = String(i);
    option.dataset.writer = c.id;
    option.textContent = c.label;
    option.title = c.description || '';
    return option;
  }));
  $('save-target').choices = choices;
  // The registry's first choice for this format (glTF binary for whatever draws).
  const preferred = registry.find((f) => f.id === format)?.saveDefault;
  const first = choices.findIndex((c) => c.id === preferred);
  $('save-target').value = String(Math.max(0, first));
  showExportOptions();
}

// The scene exports (glTF, OBJ) take options; the other targets do not. Each option is shown
// where the open scene has what it acts on (viewer.contents()).
const isSceneExport = (choice) => /(^|\s)instancing=/.test(choice?.params_spec || '');
function showExportOptions() {
  const choice = $('save-target').choices?.[Number($('save-target').value)];
  $('export-options').hidden = $('save-as').hidden || !isSceneExport(choice);
  const has = viewer?.contents() || { repeated: 1, lines: 1, textures: 1, objects: 1, extent: Infinity };
  // A streamed scenery is more than its resident sections: everything applies.
  const big = streaming || has.extent > 1500;
  $('export-instancing').closest('label').hidden = !streaming && has.repeated === 0;
  $('export-textures').closest('label').hidden = !streaming && has.textures === 0;
  $('export-extras').closest('label').hidden = !streaming && has.objects === 0;
  $('export-lines').closest('label').hidden = !streaming && has.lines === 0;
  $('export-area').closest('label').hidden = !big;
  if (!big) $('export-area').value = 'all';
  $('export-radius-label').hidden = !big || $('export-area').value !== 'camera';
}
$('save-target').addEventListener('change', showExportOptions);
$('save-as').addEventListener('focusin', showExportOptions);  // the scene may have grown since it opened
$('export-area').addEventListener('change', showExportOptions);

// The export options as the writers' params (docs/export.md), the area around the camera.
function exportParams(choice) {
  const params = { instancing: $('export-instancing').checked, textures: $('export-textures').checked,
                   extras: $('export-extras').checked, lines: $('export-lines').value };
  if ($('export-area').value === 'camera' && viewer) {
    const [x, , z] = viewer.camera().eye;
    params.area = `${x.toFixed(1)},${z.toFixed(1)},${Math.max(1, Number($('export-radius').value) || 1000)}`;
  }
  // A writer whose files cannot go inside its output (an OBJ's .mtl and images) gives them apart:
  // they are zipped.
  if (choice.files) params.separate = true;
  return params;
}

$('save').addEventListener('click', async () => {
  const choice = $('save-target').choices?.[Number($('save-target').value)];
  const name = openName;
  if (!choice || !name || !openDoc) return;
  const out = name.replace(/\.[^.]*$/, '') + choice.extension;
  const exporting = isSceneExport(choice);
  beginAction(`Saving ${out}`);
  // A scenery still loading its visuals has not read them all yet: its export would lack them.
  if (exporting && staging?.staged) { notice(`${out}: the scenery is still loading; export it once it has loaded`); return; }
  setProgress(`writing ${out}`, 0);
  // What the target cannot hold is dropped as the reference tools drop it, and each loss shown.
  const params = exporting ? exportParams(choice) : choice.params;
  let r;
  try {
    r = await parser.write(openDoc, choice.id, { params, lossy: true, name: out,
                                                 onProgress: ({ fraction }) => setProgress(`writing ${out}`, fraction) });
  } catch (error) {
    setProgress(null);
    notice(`${out}: ${error.message}`);
    status(`${out}: not written`);
    return;
  }
  setProgress(null);
  if (!r) return;
  for (const loss of r.losses.slice(0, 10)) notice(`${out}: ${loss}`);
  if (r.advice) notice(`${out}: ${r.advice}`);
  // With files beside it (an OBJ's .mtl and images), one ZIP of them all.
  const [bytes, file] = r.zip ? [r.zip, out.replace(/\.[^.]*$/, '') + '.zip'] : [r.bytes, out];
  const link = document.createElement('a');
  link.href = URL.createObjectURL(new Blob([bytes], { type: 'application/octet-stream' }));
  link.download = file;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 10000);
  window.sceneria.lastExport = { name: file, bytes: bytes.length, images: r.images, files: (r.files || []).map((f) => f.name), reads: r.reads };
  // A streamed scenery's export read its sections as it reached them: say how much it fetched.
  const fetched = r.reads ? ` (${number.format(r.reads.requests)} reads, ${number.format(r.reads.bytes)} bytes fetched)` : '';
  const images = r.images ? `, ${number.format(r.images)} texture image${r.images === 1 ? '' : 's'}` : '';
  status(`${file}: ${number.format(bytes.length)} bytes written${images}${fetched}`);
});

// Files the document refers to that are not among those opened with it (or not next to its URL).
function showMissing(missing) {
  $('missing').hidden = missing.length === 0;
  $('missing-count').textContent = `(${number.format(missing.length)})`;
  $('missing-files').replaceChildren(...missing.map((path) => {
    const li = document.createElement('li');
    li.textContent = path;
    return li;
  }));
}

// ---- records list and search ----
const recordList = new VirtualList($('records'), {
  rowHeight: 22,
  fetchRows: () => Promise.resolve([]),
  renderRow(el, row) {
    const idx = document.createElement('span');
    idx.className = 'idx';
    idx.textContent = number.format(row.i);
    const name = document.createElement('span');
    name.className = 'name';
    name.textContent = row.name;
    // A model's submodels are a tree: each row indented by its depth in it.
    if (row.depth > 0) name.style.paddingLeft = `${Math.min(row.depth, 16) * 12}px`;
    el.dataset.depth = String(row.depth || 0);
    const detail = document.createElement('span');
    detail.className = 'detail';
    detail.textContent = row.detail;
    el.replaceChildren(idx, name, detail);
    el.dataset.record = String(row.i);
    el.title = `${row.name} ${row.detail}`;
  },
  onSelect: (position) => selectListRow(position),
});
let listRows = null;  // search results (an array) or null for the whole list
let groupRows = null; // while one file's records are shown: position → row (its `i` is the record)

function currentKind() { return $('record-kind').value; }

async function selectListRow(position) {
  const kind = currentKind();
  let index = position;
  if (listRows) index = listRows[position]?.i;
  else if (groupRows) index = groupRows.get(position)?.i;
  if (index === undefined) return;
  await inspect(kind, index, { highlight: true });
}

function showKind(id) {
  const kind = kinds.find((k) => k.id === id);
  // The outliner's groups (a scenery's records by the file they came from, its vehicles by
  // trainset): all of them, or one.
  const groups = kind?.groups || [];
  $('record-group').hidden = groups.length === 0;
  $('record-group').replaceChildren(...[{ id: '', label: kind?.allGroups || 'All', count: kind?.count || 0 }, ...groups].map((g) => {
    const option = document.createElement('option');
    option.value = String(g.id);
    option.textContent = `${g.label} (${number.format(g.count)})`;
    return option;
  }));
  showGroup(kind, null);
}

function showGroup(kind, group) {
  const doc = openDoc;
  const id = kind?.id;
  listRows = null;
  $('search').value = '';
  $('search-status').textContent = '';
  const count = group === null ? kind?.count || 0 : kind.groups.find((g) => g.id === group)?.count || 0;
  const positions = groupRows = group === null ? null : new Map();
  recordList.reset(count, async (first, n) => {
    const rows = await parser.rows(doc, id, first, n, group).catch(reported);
    if (rows && positions) rows.forEach((row, k) => positions.set(first + k, row));
    return rows;
  });
}
$('record-group').addEventListener('change', (e) => {
  const kind = kinds.find((k) => k.id === $('record-kind').value);
  showGroup(kind, e.target.value === '' ? null : Number(e.target.value));
});

// `keep`: the list to stay on when the lists change under it (a staged scenery's visuals).
function showKinds(list, keep = null) {
  kinds = list || [];
  // A list whose items come and go (a streamed file's parts) is reached by clicking in the view.
  const browsable = kinds.filter((k) => k.browsable !== false);
  $('record-kind').replaceChildren(...browsable.map((k) => {
    const option = document.createElement('option');
    option.value = k.id;
    option.textContent = `${k.label} (${number.format(k.count)})`;
    return option;
  }));
  const stay = browsable.some((k) => k.id === keep) ? keep : browsable[0]?.id;
  $('record-kind').value = stay ?? '';
  showKind(stay);
}
$('record-kind').addEventListener('change', (e) => showKind(e.target.value));

let searchTimer = 0;
$('search').addEventListener('input', () => {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(runSearch, 250);
});
async function runSearch() {
  const query = $('search').value.trim();
  const kind = currentKind();
  const doc = openDoc;
  if (!query) { showKind(kind); return; }
  $('search-status').textContent = 'searching…';
  const rows = await parser.search(doc, kind, query, 10000).catch(reported);
  if (!rows || doc !== openDoc || kind !== currentKind() || query !== $('search').value.trim()) return;
  listRows = rows;
  $('record-group').value = '';  // a search looks through every file
  $('search-status').textContent = `${number.format(rows.length)}${rows.length >= 10000 ? '+' : ''} match${rows.length === 1 ? '' : 'es'}`;
  recordList.reset(rows.length, (first, count) => Promise.resolve(rows.slice(first, first + count)));
  document.dispatchEvent(new CustomEvent('sceneria:search', { detail: { query, count: rows.length } }));
}

// ---- inspector ----
// The files store 32-bit floats; they arrive as doubles (1.434999942779541). Shown is the shortest
// decimal that reads back as the same float (1.435); the exact value is on hover.
function shortFloat(x) {
  if (typeof x !== 'number' || !Number.isFinite(x) || Number.isInteger(x) || Math.fround(x) !== x) return x;
  for (let digits = 1; digits <= 9; digits++) {
    const shorter = Number(x.toPrecision(digits));
    if (Math.fround(shorter) === x) return shorter;
  }
  return x;
}
// `round` is applied to every number (exact: the identity).
function formatValue(v, round = shortFloat) {
  if (v === null) return '—';
  if (Array.isArray(v) && v.every((x) => typeof x !== 'object')) return v.map(round).join(', ');
  if (typeof v === 'object') return JSON.stringify(v, (_, x) => round(x));
  return String(round(v));
}

// A field's value as the inspector shows it: a short value in one line; a list of values or of
// small lists (a terrain's 600 vertices) one per line, folded past a dozen with the count said;
// a record inside a record as its own small table.
const FOLD = 12;
function valueCell(value, label) {
  const td = document.createElement('td');
  if (Array.isArray(value) && value.length > 0 && value.every((x) => typeof x !== 'object' || Array.isArray(x))) {
    const lines = value.map((x) => formatValue(x));
    const raw = value.map((x) => formatValue(x, (y) => y));
    if (value.length <= FOLD && lines.join(', ').length <= 80) {
      td.textContent = label ?? lines.join(Array.isArray(value[0]) ? '; ' : ', ');
      if (raw.join() !== lines.join()) td.title = raw.join(', ');
      return td;
    }
    const details = document.createElement('details');
    const summary = document.createElement('summary');
    summary.textContent = `${number.format(value.length)} values: ${lines.slice(0, 2).join('; ')}…`;
    const list = document.createElement('ol');
    list.start = 0;
    list.className = 'values';
    // Unfolded on demand: a list of 100,000 is made only when asked for.
    details.addEventListener('toggle', () => {
      if (!details.open || list.childElementCount) return;
      list.replaceChildren(...lines.slice(0, 5000).map((text) => {
        const li = document.createElement('li');
        li.textContent = text;
        return li;
      }));
      if (lines.length > 5000) list.append(Object.assign(document.createElement('li'), { textContent: `… ${number.format(lines.length - 5000)} more` }));
    });
    details.append(summary, list);
    td.append(details);
    return td;
  }
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const table = document.createElement('table');
    table.className = 'fields nested';
    for (const [k, v] of Object.entries(value)) table.append(fieldRow(k, v));
    td.append(table);
    return td;
  }
  td.textContent = label ?? formatValue(value);
  const raw = formatValue(value, (x) => x);
  if (raw !== td.textContent) td.title = raw;
  return td;
}
function fieldRow(key, value, label) {
  const tr = document.createElement('tr');
  const th = document.createElement('th');
  th.scope = 'row';
  th.textContent = key;
  tr.append(th, valueCell(value, label));
  return tr;
}

async function inspect(kind, index, { highlight = false, object, reveal = false } = {}) {
  const doc = openDoc;
  const record = await parser.record(doc, kind, index).catch(reported);
  if (doc !== openDoc) return;
  const label = kinds.find((k) => k.id === kind)?.label || kind;
  if (object === undefined && viewer) {
    const id = viewer.findObject(kind, index);
    object = id >= 0 ? id : null;
  }
  selection = { kind, index, object };
  if (highlight && viewer) viewer.select(object ?? -1);
  const name = record?.name ?? record?.node?.name ?? record?.text ?? '';
  $('inspector').hidden = false;
  $('inspector-title').textContent = `${label} #${number.format(index)}${name ? ` · ${name}` : ''}`;
  $('go-to').disabled = object === null || object === undefined;
  // A track, or a vehicle standing on one (the ride starts at its front, the way it faces).
  $('drive-here').hidden = kind !== 'tracks' && kind !== 'dynamics';
  // Enumerated fields by name, the stored number beside it ("$labels" from the document).
  const labels = record?.$labels || {};
  $('record-fields').tBodies[0].replaceChildren(...Object.entries(record || {}).filter(([key]) => key !== '$labels').map(([key, value]) =>
    fieldRow(key, value, key in labels ? `${labels[key]} (${formatValue(value)})` : undefined)));
  if (reveal) revealRow(kind, index);
  document.dispatchEvent(new CustomEvent('sceneria:record', { detail: { kind, index, record, object } }));
}

// The outliner follows a pick in the view: its list shown, its row selected and scrolled to.
function revealRow(kind, index) {
  if (currentKind() !== kind) {
    if (!kinds.some((k) => k.id === kind && k.browsable !== false)) return;
    $('record-kind').value = kind;
    showKind(kind);
  }
  let position = index;
  if (listRows) {
    position = listRows.findIndex((r) => r.i === index);
    if (position < 0) { showKind(kind); position = index; }  // not among the matches: the whole list
  } else if (groupRows) {
    $('record-group').value = '';
    showGroup(kinds.find((k) => k.id === kind), null);
  }
  recordList.highlight(position);
}

function clearSelection() {
  selection = null;
  $('inspector').hidden = true;
  viewer?.select(-1);
}

$('go-to').addEventListener('click', () => {
  if (viewer && selection?.object != null) viewer.goTo(selection.object);
  updateModeButtons();
});
$('drive-here').addEventListener('click', () => {
  if (viewer && selection?.object != null && viewer.driveFrom(selection.object)) updateModeButtons();
});

// ---- opening files ----
function setProgress(phase, fraction) {
  const bar = $('progress');
  if (phase === null) { bar.hidden = true; return; }
  bar.hidden = false;
  if (fraction > 0) bar.value = fraction; else bar.removeAttribute('value');
  status(`${phase}…`);
}

function loadScene(scene) {
  if (!viewer) { pendingScene = scene; return; }
  pendingScene = null;
  if (!scene) { viewer.clearScene(); return; }
  const error = viewer.loadScene(scene);
  if (error) console.error(`scene rejected: ${error}`);
}

// `reloaded`: this open replaces the same scenery because the file changed on the server.
// `keep`: {view, kind, query} to restore once it is open (the same files opened again with other
// display choices keep the camera, the selection, the list and the search).
async function open(name, request, view = null, { reloaded = false, keep = null } = {}) {
  const ticket = ++latest;
  setProgress(`reading ${name}`, 0);
  // The session answers the document or rejects with the core's error.
  const result = await request.then((r) => ({ ok: true, ...r }), (e) => ({ ok: false, error: {
    code: e.code || 'internal', message: e.message, offset: e.offset, file: e.file || '', line: e.line, column: e.column, kept: Boolean(e.kept) } }));
  if (ticket !== latest) return;  // superseded by a newer file
  if (result.name) name = result.name;  // the demo is named by the format that made it
  setProgress(null);
  window.sceneria.lastResult = { name, ...result, reloaded: Boolean(result.reloaded || reloaded), scene: undefined };
  if (!result.ok) {
    // The last good view stays where the worker still has its document.
    const kept = result.error.kept && openDoc !== 0;
    showError(name, result.error, kept);
    if (!kept) closeShown();
    updateModeButtons();
    document.dispatchEvent(new CustomEvent('sceneria:loaded', { detail: window.sceneria.lastResult }));
    return;
  }
  $('error').hidden = true;
  openName = name;
  openDoc = result.doc;
  streaming = null;
  staging = null;
  window.sceneria.stream = null;  // the stats of a replaced scenery must not pass for this one's
  window.sceneria.staged = null;
  $('minimap').hidden = true;
  clearSelection();
  showSummary(name, result.summary);
  showChoices(result.summary);
  showKinds(result.lists, keep?.kind);
  if (result.stream) streaming = { doc: result.doc, name, ...result.stream, stats: null, fetchedAtOpen: result.stream.bytes };
  updateShare();
  loadScene(result.scene);
  showSaveTargets(result.summary.capabilities, result.summary.format);
  // What would make the document whole (a module's resources not opened with it).
  for (const a of result.summary.advice || []) notice(a);
  // Non-fatal findings of the reader, with where they are (file, offset, line and column).
  for (const w of (result.summary.warnings || []).slice(0, 20)) {
    const where = w.line ? `line ${w.line}, column ${w.column}` : `byte ${number.format(w.offset)} (${hex(w.offset)})`;
    notice(`${w.file || name}, ${where}: ${w.message}`);
  }
  if (window.sceneria.lastResult.reloaded) {
    notice('the file changed on the server while it was open: reloaded');
    window.sceneria.reloads = (window.sceneria.reloads || 0) + 1;
  }
  if (result.staged || result.models) {
    staging = { doc: result.doc, name, applied: 0, order: [], started: performance.now(), staged: result.staged };
    if (result.staged) window.sceneria.staged = { done: false, applied: 0 };
  }
  window.sceneria.models = result.models ? { done: false, loaded: 0, failed: 0, pending: null } : null;
  if (result.stream) {
    const [x, y, z] = result.stream.start;
    if (viewer) viewer.startAt(x, y, z);
  }
  if (view) applyView(view);
  if (keep) {
    if (keep.view) applyView(keep.view);
    if (keep.query) {
      $('search').value = keep.query;
      runSearch();
    }
  }
  updateModeButtons();
  document.dispatchEvent(new CustomEvent('sceneria:loaded', { detail: window.sceneria.lastResult }));
}

// Nothing open any more (a failed open whose worker let the last document go).
function closeShown() {
  openDoc = 0;
  openName = '';
  streaming = staging = null;
  window.sceneria.stream = window.sceneria.staged = null;
  $('minimap').hidden = true;
  $('file-info').hidden = true;
  clearSelection();
  showKinds([]);
  loadScene(null);
  updateShare();
}

// ---- camera ticks: a scenery streamed by URL, or a staged scenery's visuals ----
// About 30 a second, one at a time: the worker answers with at most one section to add (about
// one per frame, as the runtime does), and the handler of whatever is open applies it.
let ticking = false;
let streamPaused = false;  // pauseStreaming(true): nothing requested, applied or evicted
async function cameraTick() {
  const s = streaming || staging;
  if (!s || !viewer || ticking || streamPaused) return;
  ticking = true;
  try {
    const [x, y, z] = viewer.camera().eye;
    // The first model drawn with its texture: what had been fetched by then (the worker, told,
    // stops holding the sections around the first one back).
    if (s === streaming && !s.firstTextured && s.stats && viewer.stats().partsTextured > 0) {
      const t = s.stats;
      s.firstTextured = { bytes: t.bytes, requests: t.requests, sections: t.sectionsRequested, modelBytes: t.modelBytes,
                          modelRequests: t.modelRequests };
    }
    const r = await parser.camera(s.doc, x, y, z, { modelShown: Boolean(s.firstTextured) }).catch(reported);
    if (!r) return;
    if (s === streaming) streamed(s, r, x, z);
    else if (s === staging) staged(s, r);
  } finally {
    ticking = false;
  }
}
setInterval(cameraTick, 33);

// A scenery's visuals after its infrastructure (the load passes): the worker reads them on the
// first tick, then gives a 1 km section of them per tick, nearest the camera first; the lists
// grow once they are read.
let staging = null;
function staged(s, r) {
  if (r.described) {
    window.sceneria.lastResult = { ...window.sceneria.lastResult, summary: r.described.summary, lists: r.described.lists };
    showSummary(s.name, r.described.summary);
    showKinds(r.described.lists, currentKind());
  }
  if (r.delta) {
    const error = viewer.addDelta(r.delta);
    if (error) console.warn(`[sceneria] visuals rejected: ${error}`);
    else s.applied++;
  }
  modelLoaded(r);
  if (s.staged && !r.staging) {
    s.staged = false;
    window.sceneria.staged = { done: true, applied: s.applied, ms: performance.now() - s.started };
    document.dispatchEvent(new CustomEvent('sceneria:staged', { detail: window.sceneria.staged }));
  } else if (s.staged) {
    window.sceneria.staged = { done: false, applied: s.applied, ms: performance.now() - s.started };
  }
  if (r.done) staging = null;
}

// A model loaded in the worker in place of its proxy (every instance of it, wherever it
// stands), the missing list when a model could not be loaded, and the loading's progress.
function modelLoaded(r) {
  const m = window.sceneria.models;
  if (r.modelDelta) {
    const started = performance.now();
    const error = viewer.addDelta(r.modelDelta);
    if (error) console.warn(`[sceneria] model rejected: ${error}`);
    // The page's share of a model: its mesh and textures into the scene and onto the GPU.
    if (m) m.uploadMs = (m.uploadMs || 0) + performance.now() - started;
  }
  if (r.missing) showMissing(r.missing);
  if (r.models && m) {
    window.sceneria.models = { ...r.models, uploadMs: m.uploadMs || 0, done: r.models.pending === 0 && !r.staging };
  }
}

// A scenery streamed by URL: sections dropped, one added, the stats and the map.
function streamed(s, r, x, z) {
  if (r.reload) {  // the file changed on the server: reopen it once, keeping the view
    openUrl(s.url, { cam: currentView().cam, sel: null }, { reloaded: true });
    return;
  }
  if (!r.evict) return;  // the worker's stream closed under this tick (the file is being reopened)
  for (const { row, col } of r.evict) viewer.dropSection(row, col);
  s.evicted = (s.evicted || 0) + r.evict.length;
  if (r.evict.length) document.dispatchEvent(new CustomEvent('sceneria:evicted', { detail: { sections: r.evict } }));
  if (r.delta) {
    const error = viewer.addDelta(r.delta);
    if (error) console.warn(`[sceneria] section rejected: ${error}`);
    else {
      s.applied = (s.applied || 0) + 1;
      // What had been fetched when the first models went on screen (header + nearest section).
      if (s.applied === 1) s.firstModels = { bytes: r.stats.bytes, requests: r.stats.requests, sections: r.stats.sectionsRequested };
    }
  }
  if (r.described) {  // records the document read after its first section: the lists grow
    window.sceneria.lastResult = { ...window.sceneria.lastResult, summary: r.described.summary, lists: r.described.lists };
    showSummary(s.name, r.described.summary);
    showKinds(r.described.lists, currentKind());
  }
  if (r.models && !window.sceneria.models) window.sceneria.models = {};
  modelLoaded(r);
  for (const e of r.errors) {  // a clear message for that section; the rest keeps streaming
    console.warn(`[sceneria] ${e}`);
    notice(e);
  }
  s.stats = r.stats;
  for (const n of r.stats.notices) notice(n);
  if (r.grid) s.grid = r.grid;
  if (r.missing) showMissing(r.missing);  // looked for next to the URL as the view opens
  drawMinimap(s, x, z);
  window.sceneria.stream = { ...s.stats, url: s.url, fetchedAtOpen: s.fetchedAtOpen, applied: s.applied || 0,
                             evicted: s.evicted || 0, firstModelsBytes: s.firstModels?.bytes ?? null,
                             firstModelsRequests: s.firstModels?.requests ?? null, firstModelsSections: s.firstModels?.sections ?? null,
                             firstTextured: s.firstTextured ?? null };
}

// The PIDX grid: every section of the module, coloured by its streaming state, and the camera.
const MAP_COLOURS = ['#4a535c', '#e0a33a', '#9fd07a', '#3fae5a'];  // idle, loading, decoded, resident
// The cells are written into one ImageData and put at once: a fillRect per cell is one canvas
// command each, and 11,000 of them per tick (a 1 GB scenery) starved the WebGL frames of the
// compositor under software rendering.
const MAP_RGBA = MAP_COLOURS.map((hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)));
function drawMinimap(s, camX, camZ) {
  const canvas = $('minimap');
  canvas.hidden = !s.grid;
  if (!s.grid) return;
  const g = s.grid;
  let r0 = Infinity, r1 = -Infinity, c0 = Infinity, c1 = -Infinity;
  for (let i = 0; i < g.length; i += 3) {
    r0 = Math.min(r0, g[i]); r1 = Math.max(r1, g[i]);
    c0 = Math.min(c0, g[i + 1]); c1 = Math.max(c1, g[i + 1]);
  }
  const ctx = canvas.getContext('2d');
  const { width, height } = canvas;
  const span = Math.max(r1 - r0, c1 - c0) + 1;
  const cell = Math.max(1, Math.floor((width - 8) / span));
  const image = ctx.createImageData(width, height);
  const px = image.data;
  for (let i = 0; i < px.length; i += 4) {  // background: rgba(21, 25, 30, 0.85)
    px[i] = 21; px[i + 1] = 25; px[i + 2] = 30; px[i + 3] = 217;
  }
  // North (+z, higher rows) up.
  const w = cell >= 3 ? cell - 1 : cell;  // a gap between cells only when they are big enough
  for (let i = 0; i < g.length; i += 3) {
    const [r, gr, b] = MAP_RGBA[g[i + 2]] || MAP_RGBA[0];
    const x0 = 4 + (g[i + 1] - c0) * cell, y0 = height - 4 - (g[i] - r0 + 1) * cell;
    for (let y = Math.max(0, y0); y < Math.min(height, y0 + w); y++) {
      for (let x = Math.max(0, x0); x < Math.min(width, x0 + w); x++) {
        const k = 4 * (y * width + x);
        px[k] = r; px[k + 1] = gr; px[k + 2] = b; px[k + 3] = 255;
      }
    }
  }
  ctx.putImageData(image, 0, 0);
  // The document's section grid (cell size and the origin's offset in cells).
  const layout = streaming?.layout || { cell: 1000, centre: 0 };
  const col = camX / layout.cell + layout.centre, row = camZ / layout.cell + layout.centre;
  ctx.fillStyle = '#ff4040';
  ctx.beginPath();
  ctx.arc(4 + (col - c0) * cell, height - 4 - (row - r0) * cell, 3, 0, 2 * Math.PI);
  ctx.fill();
}

// `options.fetch` tunes the Range reader ({timeoutMs, retries}; see Parser.openUrl);
// `options.reloaded` marks a reopen of a file that changed on the server.
function openUrl(url, view, options = {}) {
  const ticket = latest + 1;
  const onProgress = ({ phase }) => { if (ticket === latest) setProgress(`${phase} ${url}`, 0); };
  return open(decodeURIComponent(url.split('/').pop() || url), parser.openUrl(url, { onProgress, fetch: options.fetch }),
              view, { reloaded: Boolean(options.reloaded) });
}

// ---- share links: #v=1&src=<url>&cam=x,y,z,distance,yaw,pitch[&sel=kind:index] (docs/share-links.md) ----
function currentView() {
  const c = viewer.camera();
  return { cam: [...c.target, c.distance, c.yaw, c.pitch].map((v) => Number(v.toFixed(4))), sel: selection };
}
function shareLink() {
  if (!streaming?.url) return null;  // only sceneries opened by URL can be shared
  const params = new URLSearchParams();
  params.set('v', '1');
  params.set('src', streaming.url);
  if (viewer) {
    if (viewer.mode() !== 'orbit') viewer.setMode('orbit');
    params.set('cam', currentView().cam.join(','));
  }
  if (selection) params.set('sel', `${selection.kind}:${selection.index}`);
  return `${location.origin}${location.pathname}#${params.toString()}`;
}
function parseView(hash) {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const problems = [];
  const version = params.get('v');
  if (!params.has('src')) return { view: null, problems };
  if (version !== '1') problems.push(`unknown link version '${version}', reading it as version 1`);
  const view = { src: params.get('src'), cam: null, sel: null };
  if (params.has('cam')) {
    const cam = params.get('cam').split(',').map(Number);
    if (cam.length === 6 && cam.every(Number.isFinite) && cam[3] > 0) view.cam = cam;
    else problems.push('the camera in the link is not valid and was ignored');
  }
  if (params.has('sel')) {
    const m = /^([a-z_]+):(\d+)$/.exec(params.get('sel'));
    if (m) view.sel = { kind: m[1], index: Number(m[2]) };
    else problems.push('the selection in the link is not valid and was ignored');
  }
  for (const key of params.keys())
    if (!['v', 'src', 'cam', 'sel'].includes(key)) problems.push(`unknown link field '${key}' ignored`);
  return { view, problems };
}
let pendingView = null;  // a link's view that arrived before the viewer was ready
function applyView(view) {
  if (!viewer) { pendingView = view; return; }
  pendingView = null;
  if (view.cam) viewer.setOrbit(...view.cam);
  if (view.sel) inspect(view.sel.kind, view.sel.index, { highlight: true });
  updateModeButtons();
}
// Share links open a scenery by its URL: a file from this computer has none to give.
const SHARE_REASON = 'Share links are for sceneries opened by URL (#v=1&src=…); a file opened from this computer has no address to share';
function updateShare() {
  const can = Boolean(streaming?.url);
  $('share').setAttribute('aria-disabled', String(!can));
  $('share').title = can ? 'Copy a link to this view' : SHARE_REASON;
  if (!can) $('share-link').hidden = true;
}
$('share').addEventListener('click', async () => {
  const link = shareLink();
  const box = $('share-link');
  if (!link) { status(SHARE_REASON); return; }
  box.value = link;
  box.hidden = false;
  box.select();
  try { await navigator.clipboard.writeText(link); status('link copied'); } catch { status('link ready to copy'); }
});

// `assets`: [{path, file}] opened with it (a dropped folder, several files): what it refers to.
// `params`: its format's open choices ({param: value}; the choice controls open the same files
// again with theirs).
let lastFiles = null;
function openFile(file, assets = [], params = {}, keep = null) {
  beginAction(`Opening ${file.name}`);
  lastFiles = { file, assets };
  const ticket = latest + 1;
  const onProgress = ({ phase, fraction }) => { if (ticket === latest) setProgress(`${phase} ${file.name}`, fraction); };
  return open(file.name, parser.open(file, { assets, params, onProgress }), null, { keep });
}
// The values the choice controls show, as open params.
function chosenParams() {
  const params = {};
  for (const control of $('choices').querySelectorAll('[data-param]')) {
    params[control.dataset.param] = control.type === 'checkbox' ? String(control.checked) : control.value;
  }
  return params;
}
// The same files again with the choices the panel shows.
function reopenWithChoices() {
  if (!lastFiles) return;
  const keep = { view: viewer ? currentView() : null, kind: currentKind(), query: $('search').value.trim() };
  openFile(lastFiles.file, lastFiles.assets, chosenParams(), keep);
}

// The open choices this file offers (summary.choices, each declared by its format: a model's skin
// sets, a module's LOD groups): a check box or a list each, showing the value it was opened with.
// Labels and values may come from the file (skin set names): set as text, never as HTML.
function showChoices(s) {
  const choices = s.choices || [];
  $('choices').hidden = choices.length === 0;
  $('choices').replaceChildren(...choices.map((choice) => {
    const label = document.createElement('label');
    label.title = choice.help;
    let control;
    if (choice.toggle) {
      control = document.createElement('input');
      control.type = 'checkbox';
      control.checked = choice.value === 'true';
      label.className = 'check';
      label.append(control, ` ${choice.label}`);
    } else {
      control = document.createElement('select');
      control.setAttribute('aria-label', choice.label);
      control.append(...choice.values.map((v) => new Option(v.label, v.value)));
      control.value = choice.value;
      label.append(`${choice.label} `, control);
    }
    control.id = `choice-${choice.param}`;
    control.dataset.param = choice.param;
    control.addEventListener('change', reopenWithChoices);
    return label;
  }));
}

// Several files or a folder: the document is picked by the API's rule (api/pick.mjs: the first
// extension in registry order, then the shallowest path), the rest are the files it may refer to.
let registry = [];
let accepted = [];
parser.formats().then((r) => {
  registry = r.formats;
  accepted = r.accept.split(',').filter(Boolean);
  $('file-input').accept = r.accept;
  showAccepted(registry);
});
// What the page opens and what to drop with each (Format::companions): names from the core, as text.
function showAccepted(formats) {
  $('accepts').replaceChildren(...formats.filter((f) => f.reads).map((f) => {
    const li = document.createElement('li');
    const ext = document.createElement('span');
    ext.className = 'ext';
    ext.textContent = f.extensions.join(' ');
    li.append(ext, ` ${f.name.replace(/ \(\.[^)]*\)$/, '')}`);
    if (f.companions) li.append(` — ${f.companions}`);
    return li;
  }));
}
// The gallery (Session.examples): each example's files opened as the same files dropped would be.
let examples = [];
function showGallery(list) {
  examples = list;
  $('gallery').replaceChildren(...list.map((example) => {
    const li = document.createElement('li');
    const button = document.createElement('button');
    button.className = 'button';
    button.dataset.example = example.id;
    button.textContent = example.title;
    button.title = example.what;
    button.addEventListener('click', () => openExample(example));
    li.append(button);
    return li;
  }));
}
async function openExample(example, { demo = false } = {}) {
  setProgress(`making ${example.title}`, 0);
  const files = await parser.exampleFiles(example.id).catch(reported);
  if (!files) { setProgress(null); status(`the example '${example.title}' could not be made`); return; }
  const entries = files.map((f) => ({ path: f.path, file: new File([f.bytes], f.path.split('/').pop()) }));
  const mine = latest + 1;  // the open this makes (a newer one wins)
  await openFiles(entries, { example: true });
  if (latest !== mine) return;
  $('demo-line').hidden = !demo;
  $('demo-what').textContent = example.what;
  window.sceneria.example = example.id;
  if (example.view) applyView({ cam: example.view, sel: null });
}
// `example`: the files are one of the gallery's (the document first); otherwise the user's own,
// and the welcome folds away. Several files open their root (api/pick.mjs: the file no other
// names); when that is not clear the page asks, and the others stay a choice in the panel.
let folder = null;  // {entries, order} of the files opened together
async function openFiles(entries, { example = false } = {}) {
  if (!entries.length) return;
  if (!example) {
    $('welcome').open = false;
    $('demo-line').hidden = true;
    window.sceneria.example = null;
  }
  let picked = 0, order = [0];
  if (entries.length > 1 && !example) {
    status(`looking through ${number.format(entries.length)} files…`);
    const ranked = await rankDocuments(entries, registry, (i) => entries[i].file.arrayBuffer().then((b) => new Uint8Array(b)));
    if (!ranked.order.length) {
      status(`no file here that sceneria can open (${accepted.join(' ')})`);
      return;
    }
    order = ranked.order;
    picked = ranked.root >= 0 ? ranked.root : await askWhich(entries, ranked.roots.length ? ranked.roots : order);
    if (picked < 0) { status('nothing opened'); return; }
  }
  folder = entries.length > 1 && !example ? { entries, order } : null;
  showFolder(picked);
  const main = entries[picked];
  return openFile(main.file, entries.length > 1 ? entries.filter((e) => e !== main) : []);
}

// Asks which of `indices` to open (a modal dialog: Tab stays in it, Esc cancels); -1 if none.
function askWhich(entries, indices) {
  const dialog = $('choose');
  $('choose-why').textContent = indices.length === entries.length || indices.length < 2
    ? 'None of these files names another: pick the one to view.'
    : 'Each of these is a file no other file here names (a scenery root): pick the one to view.';
  return new Promise((resolve) => {
    const done = (i) => { dialog.close(); resolve(i); };
    $('choose-files').replaceChildren(...indices.slice(0, 200).map((i) => {
      const li = document.createElement('li');
      const button = document.createElement('button');
      button.className = 'button';
      button.textContent = entries[i].path;
      button.addEventListener('click', () => done(i));
      li.append(button);
      return li;
    }));
    $('choose-cancel').onclick = () => done(-1);
    dialog.oncancel = (e) => { e.preventDefault(); done(-1); };
    dialog.showModal();
    $('choose-files').querySelector('button')?.focus();
  });
}

// The other documents of the folder, to open instead (the same files beside them).
function showFolder(current) {
  $('folder-files').hidden = !folder || folder.order.length < 2;
  if (!folder) return;
  $('folder-file').replaceChildren(...folder.order.map((i) => new Option(folder.entries[i].path, String(i), false, i === current)));
}
$('folder-file').addEventListener('change', (e) => {
  if (!folder) return;
  const main = folder.entries[Number(e.target.value)];
  openFile(main.file, folder.entries.filter((x) => x !== main));
});

$('file-input').addEventListener('change', (e) => {
  openFiles([...e.target.files].map((file) => ({ path: file.name, file })));
  e.target.value = '';  // picking the same file again must reload it
});
$('folder-input').addEventListener('change', (e) => {
  openFiles([...e.target.files].map((file) => ({ path: file.webkitRelativePath || file.name, file })));
  e.target.value = '';
});

// A dropped folder arrives as directory entries: walk them for the files and their paths.
async function droppedEntries(dataTransfer) {
  const roots = [...dataTransfer.items].map((item) => item.webkitGetAsEntry?.()).filter(Boolean);
  if (!roots.length) return [...dataTransfer.files].map((file) => ({ path: file.name, file }));
  const out = [];
  const walk = async (entry, prefix) => {
    if (entry.isFile) {
      const file = await new Promise((resolve, reject) => entry.file(resolve, reject));
      out.push({ path: prefix + entry.name, file });
    } else if (entry.isDirectory) {
      const reader = entry.createReader();
      for (;;) {  // readEntries answers in batches until an empty one
        const batch = await new Promise((resolve, reject) => reader.readEntries(resolve, reject));
        if (!batch.length) break;
        for (const child of batch) await walk(child, `${prefix}${entry.name}/`);
      }
    }
  };
  for (const root of roots) await walk(root, '');
  return out;
}

let dragDepth = 0;
window.addEventListener('dragenter', (e) => { e.preventDefault(); dragDepth++; $('drop-hint').hidden = false; });
window.addEventListener('dragleave', () => { if (--dragDepth <= 0) { dragDepth = 0; $('drop-hint').hidden = true; } });
window.addEventListener('dragover', (e) => { e.preventDefault(); e.dataTransfer.dropEffect = 'copy'; });
window.addEventListener('drop', (e) => {
  e.preventDefault();
  dragDepth = 0;
  $('drop-hint').hidden = true;
  droppedEntries(e.dataTransfer).then(openFiles).catch((error) => status(`could not read the dropped files: ${error.message}`));
});

// ---- picking on the canvas ----
let down = null;
// A click in the view gives it the keyboard (fly keys, shortcuts), as in any 3D tool.
$('canvas').addEventListener('pointerdown', (e) => { down = { x: e.offsetX, y: e.offsetY }; $('canvas').focus({ preventScroll: true }); });
// Keys held when focus leaves the view would stay down (their release goes elsewhere).
$('canvas').addEventListener('blur', () => viewer?.releaseKeys());
// SDL's key handler on the canvas cancels the browser's default for Tab, F1–F15 and every Ctrl
// combination (SDL 2.26, Emscripten_HandleKey): Tab could never leave the view. Those keys are
// kept from it (caught on the way down, before the canvas sees them) and left to the browser.
const browserKey = (e) => e.key === 'Tab' || /^F\d+$/.test(e.key) || e.ctrlKey || e.metaKey || e.altKey;
for (const type of ['keydown', 'keyup', 'keypress'])
  window.addEventListener(type, (e) => { if (e.target === $('canvas') && browserKey(e)) e.stopPropagation(); }, true);
$('canvas').addEventListener('pointerup', (e) => {
  if (!viewer || !down || e.button !== 0) return;
  const moved = Math.hypot(e.offsetX - down.x, e.offsetY - down.y);
  down = null;
  if (moved > 4) return;  // a drag, not a click
  const hit = viewer.pick(Math.round(e.offsetX), Math.round(e.offsetY));
  if (hit) inspect(hit.kind, hit.index, { object: hit.id, reveal: true });
  else clearSelection();
});

// ---- camera modes, stats, screenshot, help ----
const HINTS = {
  orbit: 'drag: orbit · shift-drag: pan · wheel: zoom · click: inspect · F: frame · H: help',
  fly: 'W A S D: move · Q E: down, up · shift: faster · drag: look · wheel: speed · 1: orbit · H: help',
  drive: 'W: faster · S: slower, reverse · wheel: speed · drag: look · 1: orbit · H: help',
};
function updateModeButtons() {
  if (!viewer) return;
  const mode = viewer.mode();
  for (const b of document.querySelectorAll('.mode')) {
    b.classList.toggle('active', b.dataset.mode === mode);
    b.setAttribute('aria-pressed', String(b.dataset.mode === mode));
  }
  $('help-line').textContent = HINTS[mode] || HINTS.orbit;
}
function setMode(mode) {
  if (!viewer) return;
  if (mode === 'drive') {
    if ((selection?.kind === 'tracks' || selection?.kind === 'dynamics') && selection.object != null && viewer.driveFrom(selection.object)) status('driving: W faster, S slower');
    else status('select a track or a vehicle first (click it in the view or the list), then Drive');
  } else {
    viewer.setMode(mode);
    if (/^(select a track|driving)/.test($('status').textContent)) status(mode === 'fly' ? 'flying' : '');
  }
  updateModeButtons();
}
// A mode chosen with the mouse hands the keyboard to the view (W A S D fly at once).
for (const b of document.querySelectorAll('.mode')) b.addEventListener('click', () => { setMode(b.dataset.mode); $('canvas').focus({ preventScroll: true }); });

// Overlays with an on/off state: the button says which (aria-pressed).
function toggle(id, on = $(id).hidden) {
  $(id).hidden = !on;
  const button = document.querySelector(`[aria-controls="${id}"][aria-pressed]`);
  button?.setAttribute('aria-pressed', String(on));
  button?.classList.toggle('active', on);
}
$('toggle-stats').addEventListener('click', () => toggle('stats'));
$('toggle-help').addEventListener('click', () => toggle('help'));

// The panel: collapsible (☰ or \), resizable by its splitter with the mouse or the arrow keys,
// and narrower by default on a small screen (style.css).
function showPanel(on) {
  $('panel').hidden = !on;
  $('splitter').hidden = !on;
  $('toggle-panel').setAttribute('aria-expanded', String(on));
}
$('toggle-panel').addEventListener('click', () => showPanel($('panel').hidden));
function setPanelWidth(px) {
  const width = Math.round(Math.max(200, Math.min(px, window.innerWidth * 0.7, 800)));
  $('panel').style.width = `${width}px`;
  $('splitter').setAttribute('aria-valuenow', String(width));
}
$('splitter').addEventListener('pointerdown', (e) => {
  e.preventDefault();
  const splitter = $('splitter');
  splitter.setPointerCapture(e.pointerId);
  const left = $('panel').getBoundingClientRect().left;
  const move = (m) => setPanelWidth(m.clientX - left);
  const up = () => { splitter.removeEventListener('pointermove', move); splitter.removeEventListener('pointerup', up); };
  splitter.addEventListener('pointermove', move);
  splitter.addEventListener('pointerup', up);
});
$('splitter').addEventListener('keydown', (e) => {
  const step = e.shiftKey ? 100 : 20;
  const width = $('panel').getBoundingClientRect().width;
  if (e.key === 'ArrowLeft') setPanelWidth(width - step);
  else if (e.key === 'ArrowRight') setPanelWidth(width + step);
  else return;
  e.preventDefault();
});
new ResizeObserver(() => $('splitter').setAttribute('aria-valuenow', String(Math.round($('panel').getBoundingClientRect().width)))).observe($('panel'));

// The pickers are buttons (reachable with Tab) in front of hidden file inputs.
$('open-file').addEventListener('click', () => $('file-input').click());
$('open-folder').addEventListener('click', () => $('folder-input').click());

function screenshot() {
  if (!viewer) return;
  viewer.renderFrame();  // draw and capture in the same task: the buffer is intact until compositing
  const url = $('canvas').toDataURL('image/png');
  const a = document.createElement('a');
  a.href = url;
  a.download = `sceneria-${new Date().toISOString().replace(/[:.]/g, '-')}.png`;
  a.click();
  return url;
}
$('screenshot').addEventListener('click', screenshot);

const mb = (b) => `${(b / 1048576).toFixed(1)} MB`;
setInterval(() => {
  if (!viewer || $('stats').hidden) return;
  const s = viewer.stats();
  const cam = viewer.camera();
  const lines = [
    `${s.fps.toFixed(0)} fps · ${s.frameMs.toFixed(1)} ms/frame (cull+upload ${s.planMs.toFixed(1)} ms)`,
    `draw calls  ${number.format(s.drawCalls)}`,
    `instances   ${number.format(s.instances)} of ${number.format(s.objects)} objects`,
    `meshes      ${number.format(s.meshesDrawn)} drawn of ${number.format(s.meshes)}, ${number.format(s.partsDrawn)} parts in ${number.format(s.modelDraws)} draws, ${number.format(s.modelCalls)} calls (${number.format(s.meshSlabs)} buffers${s.multiDraw ? ', multi-draw' : ''})`,
    `textures    ${number.format(s.texturesCompressed)} compressed, in ${number.format(s.textureArrays)} arrays`,
    `triangles   ${number.format(s.triangles)}`,
    `sections    ${number.format(s.sectionsDrawn)} drawn of ${number.format(s.sectionsTotal)}`,
    `memory      ${mb(s.heapBytes)} heap`,
    `GPU         ${mb(s.gpuBytes)} of ${mb(s.gpuBudget)} budget${s.gpuReleased ? `, ${number.format(s.gpuReleased)} let go` : ''}`
      + (s.meshesWaiting || s.texturesWaiting ? ` (no room: ${s.meshesWaiting} meshes, ${s.texturesWaiting} textures)` : ''),
    `camera      ${cam.mode}${cam.mode === 'drive' ? ` ${(cam.driveSpeed * 3.6).toFixed(0)} km/h` : ''}`,
  ];
  if (streaming?.stats) {
    const t = streaming.stats;
    lines.push(`stream      ${mb(t.bytes)} of ${mb(t.size)} (${(100 * t.bytes / t.size).toFixed(1)} %), ${t.requests} requests`);
    lines.push(`            sections ${t.resident} resident, ${t.inFlight} loading, ${t.ready} ready`);
    if (t.late && t.late[0] < t.late[1])
      lines.push(`            names ${number.format(t.late[0])} of ${number.format(t.late[1])} loaded`);
  }
  $('stats').textContent = lines.join('\n');
}, 300);

// Shortcuts act while the view has focus (click it, or Tab to it): typing in the list, the
// search or any control never triggers them. Esc closes the help wherever focus is.
window.addEventListener('keydown', (e) => {
  if (e.key === 'Escape' && !$('help').hidden) { toggle('help', false); e.preventDefault(); return; }
  if (e.key === '\\' && !(e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement)) {
    showPanel($('panel').hidden);
    e.preventDefault();
    return;
  }
  if (e.target !== $('canvas') || e.ctrlKey || e.metaKey || e.altKey) return;
  const key = e.key.toLowerCase();
  if (key === '1') setMode('orbit');
  else if (key === '2') setMode('fly');
  else if (key === '3') setMode('drive');
  else if (key === 'h' || key === '?') toggle('help');
  else if (key === 'i') toggle('stats');
  else if (key === 'p') screenshot();
  else if (key === 'escape') clearSelection();
  else if (key === 'g' && selection?.object != null) viewer?.goTo(selection.object);
  else if (key === 'f' && viewer) {
    // The selection if there is one, else everything.
    if (selection?.object != null) viewer.goTo(selection.object);
    else viewer.frameAll();
    updateModeButtons();
  } else return;
  e.preventDefault();
});

// Freezes streaming where it is (nothing requested, applied or evicted; a staged scenery's
// visuals not read) until called with false:
// for looking at exactly what is resident.
function pauseStreaming(on) { streamPaused = Boolean(on); }

window.sceneria = { parser, viewer: null, lastResult: null, openFile, openFiles, openUrl, openExample, example: null, recordList, screenshot, inspect,
                    shareLink, pauseStreaming, stream: null };

// Start: a shared link or ?src= opens that scenery; otherwise the built-in demo. A link pasted
// into the same tab (a hash change) opens too.
function openLink(hash) {
  const { view, problems } = parseView(hash);
  if (!view) return false;
  beginAction(`Opening ${view.src}`);
  for (const p of problems) {
    console.warn(`[sceneria] ${p}`);
    notice(p);
  }
  openUrl(view.src, view);
  return true;
}
window.addEventListener('hashchange', () => openLink(location.hash));

// The static site (npm run build:site) makes the page cross-origin isolated with a service
// worker, which reloads the page once on the first visit: nothing starts before that.
function start() {
  {
    const query = new URLSearchParams(location.search);
    const link = location.hash || (query.has('src') ? `v=1&src=${encodeURIComponent(query.get('src'))}` : '');
    const gallery = parser.examples().then((list) => { showGallery(list); return list; });
    if (!openLink(link)) gallery.then((list) => openExample(list[0], { demo: true }));
  }
  startViewer($('canvas')).then((v) => {
    viewer = v;
    window.sceneria.viewer = v;
    // ?gpu=<MB>: the GPU memory budget, where the one sized from the context's limits is wrong
    // for the machine (docs/performance.md, "GPU memory budget").
    const gpu = Number(new URLSearchParams(location.search).get('gpu'));
    if (gpu > 0) v.setGpuBudget(gpu * 1048576);
    // Block-compressed textures stay compressed where the context takes them; else the worker
    // decodes them (before this answer arrives, the renderer does).
    parser.configure({ decodeBlocks: !v.stats().s3tc });
    if (pendingScene) loadScene(pendingScene);
    if (streaming) viewer.startAt(...streaming.start);
    if (pendingView) applyView(pendingView);
    updateModeButtons();
    document.dispatchEvent(new CustomEvent('sceneria:viewer-ready'));
  }).catch((e) => {
    status(`viewer unavailable: ${e.message}`);
    console.error(`viewer failed to start: ${e.message}`);
  });
}
if (window.sceneriaIsolating && !self.crossOriginIsolated) {
  status('preparing the page (first visit)…');
  // No reload (service workers off, a private window): start anyway and say why threads fail.
  setTimeout(start, 5000);
} else {
  start();
}

