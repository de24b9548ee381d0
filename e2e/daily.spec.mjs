// Daily use (issue 35): the page driven by keyboard and mouse as a user would, at a laptop's size
// (1400×860) and a small window's (900×700): every control reachable by Tab with no trap, the
// outliner by arrows and Enter, shortcuts only in the view, models framed to fill it, missing
// files for a single file, display choices that keep the view, warnings per action, plain errors
// that keep the last good view, Share and Save saying what they do, a collapsible panel, and
// axe-core finding no serious accessibility violation.
import { readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, mkdirSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { test, expect, openViewer, dropFile, requireSamples, sample, samplesDir, framePixels, solidDds } from './helpers.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const AXE = readFileSync(join(here, '..', 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');

// The ids (or tags) focus visits, pressing Tab from the start of the page.
async function tabOrder(page, presses) {
  await page.evaluate(() => document.activeElement?.blur());
  const seen = [];
  for (let i = 0; i < presses; i++) {
    await page.keyboard.press('Tab');
    seen.push(await page.evaluate(() => document.activeElement?.id || document.activeElement?.tagName.toLowerCase()));
  }
  return seen;
}

// The box of pixels that differ between the frame as drawn and the same frame with nothing
// drawn (static geometry and models switched off): what the open file covers on screen.
async function drawnBox(page) {
  const size = await page.evaluate(() => { const s = window.sceneria.viewer.stats(); return { w: s.width, h: s.height }; });
  const drawn = await framePixels(page);
  await page.evaluate(() => window.sceneria.viewer.setLayers(false, false));
  const empty = await framePixels(page);
  await page.evaluate(() => window.sceneria.viewer.setLayers(true, true));
  let x0 = Infinity, y0 = Infinity, x1 = -1, y1 = -1;
  for (let y = 0; y < size.h; y++)
    for (let x = 0; x < size.w; x++) {
      const i = 4 * (y * size.w + x);
      if (Math.abs(drawn[i] - empty[i]) + Math.abs(drawn[i + 1] - empty[i + 1]) + Math.abs(drawn[i + 2] - empty[i + 2]) > 24) {
        x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y);
      }
    }
  // What the frame drew and whether GL said anything meanwhile: a box that is empty says why.
  const stats = await page.evaluate(() => {
    const s = window.sceneria.viewer.stats();
    return { meshesDrawn: s.meshesDrawn, modelDraws: s.modelDraws, glError: s.glError, contextLost: s.contextLost };
  });
  return { ...size, width: x1 - x0 + 1, height: y1 - y0 + 1, stats };
}

async function openModel(page, rel) {
  const name = rel.split('/').pop();
  await page.setInputFiles('#file-input', join(samplesDir, rel));
  await page.waitForFunction((n) => window.sceneria.lastResult?.name === n && window.sceneria.models?.done, name, { timeout: 30_000 });
}

for (const [width, height] of [[1400, 860], [900, 700]]) {
  test.describe(`at ${width}×${height}`, () => {
    test.use({ viewport: { width, height } });

    test('keyboard only: every control reachable, no trap, open → inspect → fly → export', async ({ page }) => {
      requireSamples();
      test.setTimeout(120_000);
      await openViewer(page);
      // Tab from the top reaches the pickers, the modes, the overlays' buttons and the view,
      // and leaves the view again.
      const order = await tabOrder(page, 40);
      for (const id of ['toggle-panel', 'open-file', 'open-folder', 'mode-orbit', 'mode-fly', 'mode-drive', 'toggle-stats', 'screenshot', 'share',
                        'toggle-help', 'records', 'splitter', 'canvas'])
        expect(order, id).toContain(id);
      await page.focus('#canvas');
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => document.activeElement?.id)).not.toBe('canvas');
      await page.focus('#canvas');
      await page.keyboard.press('Shift+Tab');
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('splitter');
      // A visible focus ring on the focused control.
      await page.focus('#open-file');
      await page.keyboard.press('Shift+Tab');
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle)).not.toBe('none');

      // Open: Enter on "Open file…" asks the browser for its file dialog (a click on the file
      // input; headless Chromium opens no dialog for keyboard-started clicks, so the files are
      // then given to the input as the dialog would).
      await page.evaluate(() => { window.__picks = 0; document.getElementById('file-input').addEventListener('click', () => window.__picks++); });
      await page.keyboard.press('Enter');
      expect(await page.evaluate(() => window.__picks)).toBe(1);
      await page.setInputFiles('#file-input', join(samplesDir, 'maszyna/models/kabina_a.e3d'));
      await page.waitForFunction(() => window.sceneria.lastResult?.name === 'kabina_a.e3d' && window.sceneria.models?.done, null, { timeout: 30_000 });

      // Inspect: the outliner by arrows and Enter.
      await page.focus('#records');
      for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowDown');
      await expect(page.locator('#records .vl-row.active')).toHaveAttribute('data-index', '2');
      await expect(page.locator('#inspector')).toBeHidden();
      await page.keyboard.press('Enter');
      await expect(page.locator('#inspector')).toBeVisible();
      await expect(page.locator('#inspector-title')).toContainText('#2');
      await expect(page.locator('#records .vl-row.selected')).toHaveAttribute('aria-selected', 'true');
      // Fields as a table, beside the list: the list did not move.
      expect(await page.locator('#record-fields tr').count()).toBeGreaterThan(3);
      // Typed in the list, a shortcut does nothing (no screenshot download, no mode change).
      let downloaded = false;
      page.on('download', () => { downloaded = true; });
      await page.keyboard.press('p');
      await page.keyboard.press('2');
      await page.waitForTimeout(300);
      expect(downloaded).toBe(false);
      await expect(page.locator('#mode-fly')).toHaveAttribute('aria-pressed', 'false');

      // Fly: in the view, 2 then W; the speed follows the model's size (a 4 m cab: not 40 m/s).
      await page.focus('#canvas');
      await page.keyboard.press('2');
      await expect(page.locator('#mode-fly')).toHaveAttribute('aria-pressed', 'true');
      await expect(page.locator('#help-line')).toContainText('W A S D');
      const before = await page.evaluate(() => window.sceneria.viewer.camera().eye);
      await page.keyboard.down('w');
      await page.evaluate(() => window.sceneria.viewer.step(2));
      await page.keyboard.up('w');
      const after = await page.evaluate(() => window.sceneria.viewer.camera().eye);
      const moved = Math.hypot(after[0] - before[0], after[1] - before[1], after[2] - before[2]);
      expect(moved).toBeGreaterThan(0.5);   // 2 s at the cab's 0.5 m/s at least
      expect(moved).toBeLessThan(8);        // not 80 m at a fixed 40 m/s
      // Leaving the view lets go of the keys: nothing keeps flying.
      await page.keyboard.down('w');
      await page.focus('#records');
      await page.keyboard.up('w');
      const still = await page.evaluate(() => window.sceneria.viewer.camera().eye);
      await page.evaluate(() => window.sceneria.viewer.step(2));
      expect(await page.evaluate(() => window.sceneria.viewer.camera().eye)).toEqual(still);

      // Export: glTF binary is offered first; Save downloads the .glb.
      await page.focus('#save-target');
      await expect(page.locator('#save-target option:checked')).toContainText('(.glb)');
      const download = page.waitForEvent('download');
      await page.focus('#save');
      await page.keyboard.press('Enter');
      expect((await download).suggestedFilename()).toBe('kabina_a.glb');
    });

    test('models open framed to fill the view; F and Go to frame the selection', async ({ page }) => {
      requireSamples();
      test.setTimeout(120_000);
      await openViewer(page);
      for (const rel of ['maszyna/models/kabina_a.e3d', 'maszyna/models/e6acta_panele_bok.e3d']) {
        await openModel(page, rel);
        const box = await drawnBox(page);
        // The limiting side fills most of the view (kabina_a filled 140 of 980 px before).
        expect(Math.max(box.width / box.w, box.height / box.h), `${rel} ${JSON.stringify(box.stats)}`).toBeGreaterThan(0.6);
        expect(box.stats).toMatchObject({ glError: 0, contextLost: false });
      }
      // A 3 cm knob selected in the list: F (in the view) and Go to come close to it.
      await openModel(page, 'maszyna/models/kabina_a.e3d');
      await page.fill('#search', 'CylHamKnob');
      await expect(page.locator('#search-status')).toContainText('match');
      await page.locator('#records .vl-row').first().click();
      await expect(page.locator('#inspector-title')).toContainText('CylHamKnob');
      await page.focus('#canvas');
      await page.keyboard.press('f');
      const cam = await page.evaluate(() => window.sceneria.viewer.camera());
      expect(cam.distance).toBeLessThan(0.5);
      await page.keyboard.press('1');
      await page.evaluate(() => window.sceneria.viewer.setOrbit(0, 0, 0, 50, 0.5, 0.5));
      await page.click('#go-to');
      expect((await page.evaluate(() => window.sceneria.viewer.camera())).distance).toBeLessThan(0.5);
      // F with nothing selected frames the whole model again.
      await page.focus('#canvas');
      await page.keyboard.press('Escape');
      await page.keyboard.press('f');
      expect((await page.evaluate(() => window.sceneria.viewer.camera())).distance).toBeGreaterThan(2);
    });

    test('a single file lists what it refers to as missing; the pickers offer companion files', async ({ page }) => {
      requireSamples();
      test.setTimeout(120_000);
      await openViewer(page);
      expect((await page.getAttribute('#file-input', 'accept')).split(',')).toEqual(expect.arrayContaining(['.mat', '.tga', '.dds', '.res']));
      await page.setInputFiles('#file-input', join(samplesDir, 'maszyna/text/TD.scn'));
      await page.waitForFunction(() => window.sceneria.lastResult?.name === 'TD.scn' && window.sceneria.models?.done, null, { timeout: 60_000 });
      await expect(page.locator('#missing')).toBeVisible();
      const missing = await page.$$eval('#missing-files li', (items) => items.map((li) => li.textContent.toLowerCase()));
      expect(missing).toContain('zwrp34r300.inc');
      expect(missing.length).toBeGreaterThanOrEqual(9);
    });

    test('a folder opens its root, asks when that is not clear, and offers the others', async ({ page }) => {
      requireSamples();
      test.setTimeout(120_000);
      await openViewer(page);
      // The allnodes folder: the text root, not the child module the registry's order put first.
      const allnodes = join(mkdtempSync(join(tmpdir(), 'sceneria-daily-')), 'allnodes');
      mkdirSync(allnodes);
      for (const f of ['allnodes.scn', 'allnodes.v9-root.eu7', 'placed.scm', 'placed.v6.eu7', 'models_small.inc'])
        copyFileSync(join(samplesDir, 'maszyna/allnodes', f), join(allnodes, f));
      await page.setInputFiles('#folder-input', allnodes);
      await page.waitForFunction(() => window.sceneria.lastResult?.name === 'allnodes.scn', null, { timeout: 30_000 });
      await expect(page.locator('#choose')).toBeHidden();
      // The others, to switch to: the child module opens with the same files beside it.
      const offered = await page.locator('#folder-file option').allTextContents();
      expect(offered[0]).toBe('allnodes/allnodes.scn');
      expect(offered).toEqual(expect.arrayContaining(['allnodes/placed.v6.eu7', 'allnodes/allnodes.v9-root.eu7']));
      await page.selectOption('#folder-file', { label: 'allnodes/placed.v6.eu7' });
      await page.waitForFunction(() => window.sceneria.lastResult?.name === 'placed.v6.eu7');
      // Three models naming none of the others: asked, by keyboard.
      const models = join(mkdtempSync(join(tmpdir(), 'sceneria-daily-')), 'models');
      mkdirSync(models);
      for (const f of ['kabina_a.e3d', 'e6acta_panele_bok.e3d', 'e6acta_pantograf.e3d']) copyFileSync(join(samplesDir, 'maszyna/models', f), join(models, f));
      await page.setInputFiles('#folder-input', models);
      await expect(page.locator('#choose')).toBeVisible();
      await expect(page.locator('#choose-files button')).toHaveCount(3);
      await page.keyboard.press('Tab');  // the second file (focus starts on the first)
      const second = await page.evaluate(() => document.activeElement.textContent);
      await page.keyboard.press('Enter');
      await expect(page.locator('#choose')).toBeHidden();
      await page.waitForFunction((n) => window.sceneria.lastResult?.name === n, second.split('/').pop());
      // Esc cancels: the open file stays.
      await page.setInputFiles('#folder-input', models);
      await expect(page.locator('#choose')).toBeVisible();
      await page.keyboard.press('Escape');
      await expect(page.locator('#choose')).toBeHidden();
      await expect(page.locator('#file-name')).toHaveText(second.split('/').pop());
    });

    test('a display choice keeps the camera, the selection and the search', async ({ page }) => {
      requireSamples();
      test.setTimeout(120_000);
      const folder = join(mkdtempSync(join(tmpdir(), 'sceneria-daily-')), 'ks');
      mkdirSync(folder);
      for (const f of ['ks.b3d', 'ks.res']) copyFileSync(join(samplesDir, 'hardtruck', f), join(folder, f));
      await openViewer(page);
      await page.setInputFiles('#folder-input', folder);
      await page.waitForFunction(() => window.sceneria.lastResult?.name === 'ks.b3d' && window.sceneria.models?.done !== false);
      const choice = page.locator('#choices input[type=checkbox]').first();
      await expect(choice).toBeVisible();
      await page.evaluate(() => window.sceneria.viewer.setOrbit(3, 1, -2, 30, 0.7, 0.4));
      await page.locator('#records .vl-row').nth(1).click();
      const title = await page.locator('#inspector-title').textContent();
      const query = title.split(' · ')[1]?.slice(0, 3) || 'a';
      await page.fill('#search', query);
      await expect(page.locator('#search-status')).toContainText('match');
      const matches = await page.locator('#search-status').textContent();
      const opened = await page.evaluate(() => window.sceneria.lastResult.doc);
      await choice.click();
      await page.waitForFunction((doc) => window.sceneria.lastResult?.doc > doc, opened);
      const cam = await page.evaluate(() => window.sceneria.viewer.camera());
      expect(cam.target).toEqual([3, 1, -2]);
      expect(cam.distance).toBeCloseTo(30, 5);
      await expect(page.locator('#inspector')).toBeVisible();
      await expect(page.locator('#inspector-title')).toHaveText(title);
      await expect(page.locator('#search')).toHaveValue(query);
      await expect(page.locator('#search-status')).toHaveText(matches);
    });

    test('warnings belong to their action; errors in plain words keep the last good view', async ({ page }) => {
      requireSamples();
      test.setTimeout(120_000);
      await openViewer(page);
      // A module without its .res: what would texture it is listed in full, not cut off in the bar.
      const ks = sample('hardtruck/ks.b3d');
      await dropFile(page, 'ks.b3d', ks);
      await expect(page.locator('#warnings')).toBeVisible();
      await expect(page.locator('#notice')).toContainText('no ks.res was opened with ks.b3d: its 12 materials are drawn in placeholder colours');
      await expect(page.locator('#warnings-badge')).toBeVisible();
      const openWarnings = await page.locator('#notice li').count();
      expect(openWarnings).toBeGreaterThan(0);
      await expect(page.locator('#warnings-action')).toHaveText('Opening ks.b3d');
      const openTexts = await page.locator('#notice li').allTextContents();
      // Saving is its own action: the open's warnings give way to the save's, and a second save's
      // replace the first's.
      for (let round = 0; round < 2; round++) {
        const saved = page.waitForEvent('download');
        await page.click('#save');
        await saved;
        if (await page.locator('#warnings').isVisible()) {
          await expect(page.locator('#warnings-action')).toHaveText('Saving ks.glb');
          for (const text of await page.locator('#notice li').allTextContents()) expect(openTexts).not.toContain(text);
          expect(await page.locator('#notice li').count()).toBe(Number((await page.locator('#warnings-badge').textContent()).replace(/\D/g, '')));
        } else {
          await expect(page.locator('#warnings-badge')).toBeHidden();
        }
      }

      // A truncated copy: said plainly, the module open before still on screen.
      await dropFile(page, 'ks-cut.b3d', ks.subarray(0, ks.length - 4));
      await expect(page.locator('#error-plain')).toContainText('ends too early');
      await expect(page.locator('#file-name')).toHaveText('ks.b3d');
      // Random bytes: said plainly, the details folded, the module still on screen.
      const before = await framePixels(page);
      await dropFile(page, 'noise.bin', Buffer.alloc(4096, 0x5a));
      await expect(page.locator('#error')).toBeVisible();
      await expect(page.locator('#error-plain')).toContainText('does not know this kind of file');
      await expect(page.locator('#error-message')).toBeHidden();  // behind "Details"
      await page.locator('#error summary').click();
      await expect(page.locator('#error-message')).toContainText('unknown_format');
      // Each extension said once.
      const detail = await page.locator('#error-message').textContent();
      expect(detail.split('(.b3d)').length - 1).toBe(1);
      await expect(page.locator('#error-kept')).toContainText('Still showing ks.b3d');
      await expect(page.locator('#file-name')).toHaveText('ks.b3d');
      const after = await framePixels(page);
      let same = 0;
      for (let i = 0; i < after.length; i += 4) if (after[i] === before[i] && after[i + 1] === before[i + 1] && after[i + 2] === before[i + 2]) same++;
      expect(same / (after.length / 4)).toBeGreaterThan(0.95);
      // The kept document still answers: its records open.
      await page.locator('#records .vl-row').first().click();
      await expect(page.locator('#inspector')).toBeVisible();
    });

    test('Share says why not for a dropped file; Save names the download; options only where they apply', async ({ page }) => {
      test.setTimeout(90_000);
      await openViewer(page);
      await expect(page.locator('#share')).toBeDisabled();
      await expect(page.locator('#share')).toHaveAttribute('title', /opened by URL/);
      // The demo railway: glTF first, an OBJ is a ZIP and says so, every export option applies.
      await expect(page.locator('#save-target option:checked')).toContainText('(.glb)');
      const obj = page.locator('#save-target option', { hasText: '.zip' });
      await expect(obj).toHaveCount(1);
      await page.selectOption('#save-target', { label: await obj.textContent() });
      for (const id of ['export-instancing', 'export-lines', 'export-area'])
        await expect(page.locator(`#${id}`)).toBeVisible();
      // A texture: nothing placed twice, no wires, one small picture.
      await dropFile(page, 'solid.dds', solidDds(0xf800));
      await page.selectOption('#save-target', { index: 0 });
      await expect(page.locator('#export-options')).toBeVisible();
      for (const id of ['export-instancing', 'export-lines', 'export-area'])
        await expect(page.locator(`#${id}`)).toBeHidden();
      await expect(page.locator('#file-format')).not.toContainText('version 0');
    });

    test('the panel collapses and resizes; overlays show their state; Esc closes the help', async ({ page }) => {
      await openViewer(page);
      const panel = await page.locator('#panel').boundingBox();
      expect(panel.width).toBeLessThanOrEqual(width * 0.4 + 1);
      // The bar stays one line and the status is not cut by it.
      expect((await page.locator('header').boundingBox()).height).toBeLessThan(48);
      await expect(page.locator('#status')).toBeVisible();
      // Resized from the keyboard on its splitter.
      await page.focus('#splitter');
      await page.keyboard.press('ArrowRight');
      expect((await page.locator('#panel').boundingBox()).width).toBeCloseTo(panel.width + 20, 0);
      // Collapsed: the view takes the whole width.
      await page.click('#toggle-panel');
      await expect(page.locator('#panel')).toBeHidden();
      await expect(page.locator('#toggle-panel')).toHaveAttribute('aria-expanded', 'false');
      await page.waitForFunction((w) => window.sceneria.viewer.stats().width >= w - 2, width);
      await page.click('#toggle-panel');
      await expect(page.locator('#panel')).toBeVisible();
      // Stats and help say whether they are on; Esc closes the help from anywhere.
      await page.click('#toggle-stats');
      await expect(page.locator('#toggle-stats')).toHaveAttribute('aria-pressed', 'true');
      await page.click('#toggle-help');
      await expect(page.locator('#help')).toBeVisible();
      await expect(page.locator('#toggle-help')).toHaveAttribute('aria-pressed', 'true');
      await page.keyboard.press('Escape');
      await expect(page.locator('#help')).toBeHidden();
      await expect(page.locator('#toggle-help')).toHaveAttribute('aria-pressed', 'false');
      // Drive without a selection says what to do; orbit clears it again.
      await page.click('#mode-drive');
      await expect(page.locator('#status')).toContainText('select a track or a vehicle first');
      await page.click('#mode-orbit');
      await expect(page.locator('#status')).not.toContainText('select a track');
    });

    test('axe-core finds no serious or critical accessibility violation', async ({ page }) => {
      await openViewer(page);
      await page.addScriptTag({ content: AXE });
      const violations = await page.evaluate(async () => {
        const r = await window.axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
        return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
          .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')})`);
      });
      expect(violations).toEqual([]);
    });
  });
}
