// Page glue: file input and drag-and-drop -> Parser (worker) -> panel; the viewer draws.
// Everything that comes from a file is inserted with textContent, never as HTML.
import { Parser, startViewer } from './sceneria-api.js';
import { VirtualList } from './virtual-list.js';

const $ = (id) => document.getElementById(id);
const status = (text) => { $('status').textContent = text; };
const number = new Intl.NumberFormat('en-US');
const hex = (n) => `0x${n.toString(16)}`;
const STRING_ROWS = 200;  // the worker sends this many

const parser = new Parser();
let latest = 0;  // a newer file always wins over a slower older parse

function showError(name, error) {
  $('file-info').hidden = true;
  $('error').hidden = false;
  $('error-file').textContent = name;
  const where = error.offset !== undefined ? ` at byte ${number.format(error.offset)} (${hex(error.offset)})` : '';
  $('error-message').textContent = `${error.code}${where}: ${error.message}`;
  status(`${name}: error`);
}

function showSummary(name, s) {
  $('error').hidden = true;
  $('file-info').hidden = false;
  $('file-name').textContent = name;
  $('file-format').textContent = `${s.format.toUpperCase()} version ${s.version}`;
  $('file-size').textContent = `${number.format(s.size)} bytes`;
  $('file-strings').textContent = number.format(s.strings);
  $('file-chunk-count').textContent = number.format(s.chunks.length);

  const body = $('chunks').tBodies[0];
  body.replaceChildren(...s.chunks.map((c, i) => {
    const row = document.createElement('tr');
    if (c.known === false) { row.className = 'unknown'; row.title = 'unknown chunk: listed and skipped'; }
    const records = c.records === undefined ? '' : number.format(c.records);
    for (const [text, cls, title] of [[String(i), ''], [c.id, 'id'], [number.format(c.offset), 'num', hex(c.offset)],
                                      [number.format(c.size), 'num', `${hex(c.size)} (payload ${number.format(c.size - 8)})`],
                                      [records, 'num']]) {
      const cell = document.createElement('td');
      cell.textContent = text;
      if (cls) cell.className = cls;
      if (title) cell.title = title;
      row.append(cell);
    }
    row.dataset.chunk = c.id;
    return row;
  }));

  const sample = (s.stringSample || []).slice(0, STRING_ROWS);
  $('strings').replaceChildren(...sample.map((text) => {
    const li = document.createElement('li');
    li.textContent = text;
    return li;
  }));
  $('strings-shown').textContent = s.strings > sample.length ? `(first ${sample.length} of ${number.format(s.strings)})` : '';
  status(`${name}: ${s.format.toUpperCase()} v${s.version}, ${s.chunks.length} chunks`);
}

// ---- records panel ----
let openDoc = 0;
let kinds = [];
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
    const detail = document.createElement('span');
    detail.className = 'detail';
    detail.textContent = row.detail;
    el.replaceChildren(idx, name, detail);
    el.title = `${row.name} ${row.detail}`;
  },
  onSelect: (index) => showRecord(index),
});

function formatValue(v) {
  if (v === null) return '—';
  if (Array.isArray(v) && v.every((x) => typeof x !== 'object')) return v.join(', ');
  if (typeof v === 'object') return JSON.stringify(v, null, 1);
  return String(v);
}

async function showRecord(index) {
  const doc = openDoc;
  const kind = $('record-kind').value;
  const record = await parser.record(doc, kind, index);
  if (doc !== openDoc || kind !== $('record-kind').value) return;
  const fields = $('record-fields');
  fields.replaceChildren();
  fields.hidden = !record;
  if (!record) return;
  for (const [key, value] of Object.entries(record)) {
    const dt = document.createElement('dt');
    dt.textContent = key;
    const dd = document.createElement('dd');
    dd.textContent = formatValue(value);
    fields.append(dt, dd);
  }
  document.dispatchEvent(new CustomEvent('sceneria:record', { detail: { kind, index, record } }));
}

function showKind(id) {
  const kind = kinds.find((k) => k.id === id);
  const doc = openDoc;
  $('record-fields').hidden = true;
  recordList.reset(kind ? kind.count : 0, (first, count) => parser.rows(doc, id, first, count));
}

function showKinds(list) {
  kinds = list || [];
  $('record-kind').replaceChildren(...kinds.map((k) => {
    const option = document.createElement('option');
    option.value = k.id;
    option.textContent = `${k.label} (${number.format(k.count)})`;
    return option;
  }));
  showKind(kinds[0]?.id);
}
$('record-kind').addEventListener('change', (e) => showKind(e.target.value));

async function open(name, request) {
  const ticket = ++latest;
  status(`reading ${name}…`);
  const result = await request;
  if (ticket !== latest) return;  // superseded by a newer file
  window.sceneria.lastResult = { name, ...result };
  openDoc = result.doc || 0;
  if (result.ok) {
    showSummary(name, result.summary);
    showKinds(result.kinds);
  } else {
    showError(name, result.error);
    showKinds([]);
  }
  document.dispatchEvent(new CustomEvent('sceneria:loaded', { detail: window.sceneria.lastResult }));
}

function openFile(file) {
  return open(file.name, parser.inspect(file));
}

window.sceneria = { parser, viewer: null, lastResult: null, openFile, recordList };

$('file-input').addEventListener('change', (e) => {
  const [file] = e.target.files;
  if (file) openFile(file);
  e.target.value = '';  // picking the same file again must reload it
});

let dragDepth = 0;
window.addEventListener('dragenter', (e) => { e.preventDefault(); dragDepth++; $('drop-hint').hidden = false; });
window.addEventListener('dragleave', () => { if (--dragDepth <= 0) { dragDepth = 0; $('drop-hint').hidden = true; } });
window.addEventListener('dragover', (e) => { e.preventDefault(); e.dataTransfer.dropEffect = 'copy'; });
window.addEventListener('drop', (e) => {
  e.preventDefault();
  dragDepth = 0;
  $('drop-hint').hidden = true;
  const [file] = e.dataTransfer.files;
  if (file) openFile(file);
});

open('demo.eu7', parser.inspectDemo());

startViewer($('canvas')).then((viewer) => {
  window.sceneria.viewer = viewer;
  document.dispatchEvent(new CustomEvent('sceneria:viewer-ready'));
}).catch((e) => {
  status(`viewer unavailable: ${e.message}`);
  console.error(`viewer failed to start: ${e.message}`);
});
