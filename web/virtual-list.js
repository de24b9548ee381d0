// A virtualised list: only the visible rows exist in the DOM, rows are fetched a page at a time,
// and scrolling is proportional once the full height would exceed what browsers can lay out,
// so a million rows scroll like a hundred.
const PAGE = 100;
const MAX_SCROLL_HEIGHT = 4_000_000;  // px; browsers cap element heights near 33M
const MAX_PAGES = 60;

// Keyboard: the list is one tab stop (a listbox); arrows, Page Up/Down, Home and End move the
// active row, Enter or Space selects it (as a click does).
export class VirtualList {
  #el; #spacer; #window; #rowHeight; #fetch; #render; #onSelect;
  #count = 0; #pages = new Map(); #pending = new Set(); #generation = 0; #selected = -1; #active = -1;

  // fetchRows(first, count) -> Promise<rows | null>; renderRow(element, row); onSelect(index)
  constructor(el, { rowHeight = 22, fetchRows, renderRow, onSelect }) {
    this.#el = el;
    this.#rowHeight = rowHeight;
    this.#fetch = fetchRows;
    this.#render = renderRow;
    this.#onSelect = onSelect;
    this.#spacer = document.createElement('div');
    this.#spacer.className = 'vl-spacer';
    this.#window = document.createElement('div');
    this.#window.className = 'vl-window';
    el.replaceChildren(this.#spacer, this.#window);
    el.addEventListener('scroll', () => this.#draw(), { passive: true });
    el.addEventListener('click', (e) => {
      const row = e.target.closest('.vl-row');
      if (row && row.dataset.index) this.select(Number(row.dataset.index));
    });
    el.addEventListener('keydown', (e) => this.#key(e));
    new ResizeObserver(() => this.#draw()).observe(el);
  }

  get count() { return this.#count; }

  reset(count, fetchRows = this.#fetch) {
    this.#generation++;
    this.#fetch = fetchRows;
    this.#count = count;
    this.#pages.clear();
    this.#pending.clear();
    this.#selected = this.#active = -1;
    this.#el.removeAttribute('aria-activedescendant');
    this.#spacer.style.height = `${Math.min(count * this.#rowHeight, MAX_SCROLL_HEIGHT)}px`;
    this.#el.scrollTop = 0;
    this.#draw();
  }

  select(index) {
    this.#selected = this.#active = index;
    this.#draw();
    this.#onSelect?.(index);
  }

  // Marks `index` selected and scrolls it into view, without calling onSelect (the selection
  // came from elsewhere: a click in the 3D view).
  highlight(index) {
    this.#selected = this.#active = index;
    this.#reveal(index);
  }

  get selected() { return this.#selected; }

  #key(e) {
    if (!this.#count) return;
    const page = Math.max(1, this.#visibleRows() - 1);
    const moves = { ArrowDown: 1, ArrowUp: -1, PageDown: page, PageUp: -page, Home: -Infinity, End: Infinity };
    if (e.key in moves) {
      e.preventDefault();
      const from = this.#active < 0 ? (moves[e.key] > 0 ? -1 : this.#count) : this.#active;
      this.#active = Math.max(0, Math.min(this.#count - 1, from + moves[e.key]));
      this.#reveal(this.#active);
    } else if ((e.key === 'Enter' || e.key === ' ') && this.#active >= 0) {
      e.preventDefault();
      this.select(this.#active);
    }
  }

  #reveal(index) {
    const first = this.#firstVisible(), visible = Math.max(1, Math.floor(this.#el.clientHeight / this.#rowHeight));
    if (index < first) this.scrollToIndex(index);
    else if (index >= first + visible) this.scrollToIndex(index - visible + 1);
    else this.#draw();
  }

  // Scrolls so that `index` is the first visible row (or as close as the end allows).
  scrollToIndex(index) {
    const maxFirst = this.#maxFirst();
    const range = this.#el.scrollHeight - this.#el.clientHeight;
    this.#el.scrollTop = maxFirst > 0 ? (Math.min(index, maxFirst) / maxFirst) * range : 0;
    this.#draw();
  }

  #visibleRows() { return Math.ceil(this.#el.clientHeight / this.#rowHeight); }
  #maxFirst() { return Math.max(0, this.#count - this.#visibleRows()); }

  // Proportional: the scroll position's fraction of its range picks the first row.
  #firstVisible() {
    const range = this.#el.scrollHeight - this.#el.clientHeight;
    const maxFirst = this.#maxFirst();
    if (range <= 0) return 0;
    if (this.#el.scrollTop >= range - 1) return maxFirst;
    return Math.min(maxFirst, Math.round((this.#el.scrollTop / range) * maxFirst));
  }

  #draw() {
    const first = this.#firstVisible();
    const n = Math.min(this.#visibleRows() + 1, this.#count - first);
    this.#window.style.transform = `translateY(${this.#el.scrollTop}px)`;
    const rows = [];
    for (let i = 0; i < n; i++) {
      const index = first + i;
      const page = this.#pages.get(Math.floor(index / PAGE));
      const el = document.createElement('div');
      el.className = `vl-row${index === this.#selected ? ' selected' : ''}${index === this.#active ? ' active' : ''}`;
      el.dataset.index = String(index);
      el.id = `${this.#el.id}-row-${index}`;
      el.setAttribute('role', 'option');
      el.setAttribute('aria-selected', String(index === this.#selected));
      el.style.height = `${this.#rowHeight}px`;
      const row = page?.[index % PAGE];
      if (row) this.#render(el, row);
      else { el.textContent = '…'; this.#load(Math.floor(index / PAGE)); }
      rows.push(el);
    }
    this.#window.replaceChildren(...rows);
    // The active row for assistive technology (focus stays on the list).
    if (this.#active >= first && this.#active < first + n) this.#el.setAttribute('aria-activedescendant', `${this.#el.id}-row-${this.#active}`);
    else this.#el.removeAttribute('aria-activedescendant');
  }

  async #load(page) {
    if (this.#pending.has(page) || this.#pages.has(page)) return;
    const generation = this.#generation;
    this.#pending.add(page);
    const rows = await this.#fetch(page * PAGE, PAGE);
    if (generation !== this.#generation) return;  // the list was reset meanwhile
    this.#pending.delete(page);
    if (!rows) return;
    this.#pages.set(page, rows);
    if (this.#pages.size > MAX_PAGES) this.#pages.delete(this.#pages.keys().next().value);
    this.#draw();
  }
}
