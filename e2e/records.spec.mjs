// The records panel: record counts in the chunk table, every list browsable, a million rows.
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test, expect, requireSamples, openViewer, dropFile, sample, referenceCounts } from './helpers.mjs';

const cli = resolve('build/native/sceneria');

function generate(models, seed) {
  const file = join(mkdtempSync(join(tmpdir(), 'sceneria-e2e-')), `generated-${models}.eu7`);
  execFileSync(cli, ['generate', file, '--models', String(models), '--seed', String(seed)]);
  const info = JSON.parse(execFileSync(cli, ['info', '--json', file], { maxBuffer: 64 << 20 }).toString());
  return { file, info };
}

const rowTexts = (page) => page.$$eval('#records .vl-row', (rows) => rows.map((r) => r.textContent));

test('TD.v6: record counts in the chunk table and browsable tracks and events', async ({ page }) => {
  requireSamples();
  await openViewer(page);
  await dropFile(page, 'TD.v6.eu7', sample('maszyna/eu7/TD.v6.eu7'));
  // The counts the reference runtime reader printed for this file.
  const ref = referenceCounts('maszyna/eu7/TD.v6.eu7');
  const records = await page.$$eval('#structure tbody tr', (rows) => rows.map((r) => [r.cells[1].textContent, r.cells[4].textContent]));
  expect(records).toEqual([['STRS', ref.strings], ['INCL', ref.includes], ['TRAK', ref.tracks], ['MESH', ref.shapes],
                           ['TRAC', ref.traction], ['DYNM', ref.dynamics], ['TRSE', ref.trainsets], ['EVNT', ref.events],
                           ['FINT', ref.firstInit]].map(([id, n]) => [id, String(n)]));
  const options = await page.$$eval('#record-kind option', (o) => o.map((x) => x.textContent));
  expect(options).toEqual([`Tracks (${ref.tracks})`, `Traction (${ref.traction})`, `Shapes (${ref.shapes})`,
                           `Events (${ref.events})`, `Vehicles (${ref.dynamics})`, `Trainsets (${ref.trainsets})`,
                           `Includes (${ref.includes})`, `Strings (${ref.strings})`]);
  await page.selectOption('#record-kind', 'events');
  await expect(page.locator('#records .vl-row')).toHaveCount(ref.events);
  await page.selectOption('#record-kind', 'tracks');
  await expect(page.locator('#records .vl-row').first()).not.toHaveText('…');
  await page.locator('#records .vl-row').first().click();
  await expect(page.locator('#inspector')).toBeVisible();
  await expect(page.locator('#inspector-title')).toContainText('Tracks #0');
  const fields = await page.$$eval('#record-fields th', (d) => d.map((x) => x.textContent));
  expect(fields).toEqual(expect.arrayContaining(['node', 'type', 'length', 'paths', 'tails']));
  // 32-bit floats at their own precision: TD.scn says gauge 1.435, stored as the float
  // 1.434999942779541; the exact value is on hover.
  const width = page.locator('#record-fields th:text-is("width") + td');
  await expect(width).toHaveText('1.435');
  await expect(width).toHaveAttribute('title', String(Math.fround(1.435)));
});

test('a generated 1,000,000-model scenery: every list is there and the last PACK model is one scroll away', async ({ page }) => {
  test.setTimeout(120_000);
  const { file, info } = generate(1_000_000, 7);
  expect(info.counts.pack_models).toBe(1_000_000);
  await openViewer(page);
  await page.setInputFiles('#file-input', file);
  await page.waitForFunction(() => window.sceneria.lastResult?.name?.startsWith('generated-'), null, { timeout: 60_000 });
  await expect(page.locator('#record-kind')).toHaveValue('pack_models');
  await expect(page.locator('#record-kind option').first()).toHaveText('PACK models (1,000,000)');
  const kinds = await page.$$eval('#record-kind option', (o) => o.map((x) => x.value));
  for (const k of ['tracks', 'traction', 'power', 'shapes', 'lines', 'models', 'memcells', 'launchers', 'dynamics',
                   'sounds', 'trainsets', 'events', 'prototypes', 'sections', 'terrain', 'includes', 'strings'])
    expect(kinds).toContain(k);

  // First rows: section of the first PIDX entry.
  const first = info.sections[0];
  await expect(page.locator('#records .vl-row').first()).toContainText(`section ${first.row},${first.col}`);
  // Jump to the end: the last model is in the last section.
  await page.evaluate(() => window.sceneria.recordList.scrollToIndex(1e9));
  const last = info.sections[info.sections.length - 1];
  const lastRow = page.locator('#records .vl-row[data-index="999999"]');
  await expect(lastRow).toContainText('999,999');
  await expect(lastRow).toContainText(`section ${last.row},${last.col}`);
  // Its full record.
  await lastRow.click();
  await expect(page.locator('#record-fields th', { hasText: 'section' })).toHaveCount(2);  // section, section_format
  await expect(page.locator('#inspector-title')).toContainText('PACK models #999,999');
  const record = await page.evaluate(() => new Promise((done) => {
    document.addEventListener('sceneria:record', (e) => done(e.detail), { once: true });
    window.sceneria.recordList.select(999999);
  }));
  expect(record.index).toBe(999999);
  expect(record.record.section).toEqual([last.row, last.col]);
  expect(record.record.section_format).toBe('6');
  // A model in the middle, by wheel scrolling through the list.
  await page.evaluate(() => window.sceneria.recordList.scrollToIndex(500000));
  await expect(page.locator('#records .vl-row[data-index="500000"]')).toContainText('500,000');
  const texts = await rowTexts(page);
  expect(texts.filter((t) => t === '…')).toEqual([]);
});
