// Sums GoogleTest JSON reports (native, wasm) and the Playwright counts into the closing line.
// Exits 1 if anything failed or if no test ran at all.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2];
const totals = { passed: 0, failed: 0, skipped: 0 };
const add = (name, c) => {
  console.log(`${name}: ${c.passed} passed, ${c.failed} failed${c.skipped ? `, ${c.skipped} skipped` : ''}`);
  for (const k of Object.keys(totals)) totals[k] += c[k];
};

for (const suite of ['native', 'wasm']) {
  const c = { passed: 0, failed: 0, skipped: 0 };
  const folder = join(dir, suite);
  for (const file of existsSync(folder) ? readdirSync(folder) : []) {
    if (!file.endsWith('.json')) continue;
    const report = JSON.parse(readFileSync(join(folder, file), 'utf8'));
    for (const s of report.testsuites || []) {
      for (const t of s.testsuite || []) {
        if (t.failures && t.failures.length) c.failed++;
        else if (t.result === 'SKIPPED') c.skipped++;
        else c.passed++;
      }
    }
  }
  add(suite, c);
}
const counts = (file) => (existsSync(join(dir, file)) ? JSON.parse(readFileSync(join(dir, file), 'utf8'))
                                                      : { passed: 0, failed: 0, skipped: 0 });
add('e2e', counts('playwright.counts.json'));
add('fuzz', counts('fuzz.counts.json'));

console.log(`total: ${totals.passed} passed, ${totals.failed} failed${totals.skipped ? `, ${totals.skipped} skipped` : ''}`);
process.exit(totals.failed > 0 || totals.passed === 0 ? 1 : 0);
