// The closing line of `npm test`: sums the GoogleTest JSON reports (native, wasm) and the
// Playwright counts, and reports the fuzz smoke apart. It never says "0 failed" for something that
// did not run:
//   - a suite whose report is missing or empty counts as one failure;
//   - a suite that ran fewer tests than it listed before running (a crash, an early stop) counts
//     the missing ones as failures;
//   - GoogleTest's SUPPRESSED (disabled) and SKIPPED tests count as skipped, not passed; under
//     CI=true a skipped test is a failure (a CI run that skips something did not check it);
//   - a fuzz target that failed, did not build, ran no input or had no seeds is a failure; fuzz
//     runs are not tests, so they never add to "passed".
// Usage: node scripts/count-results.mjs RESULTS_DIR   (exit 1 if anything failed or nothing ran)
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2];
const underCi = process.env.CI === 'true';
const totals = { passed: 0, failed: 0, skipped: 0 };
const problems = [];
const readJson = (path) => { try { return JSON.parse(readFileSync(path, 'utf8')); } catch { return null; } };
const readNumber = (path) => {
  const n = existsSync(path) ? Number(readFileSync(path, 'utf8').trim()) : NaN;
  return Number.isInteger(n) ? n : null;
};

// `extraFailed`: failures that are not tests (errors outside them), added after the count check.
function add(name, c, expected, extraFailed = 0) {
  const ran = c.passed + c.failed + c.skipped;
  if (ran === 0) {
    problems.push(`${name}: no test ran`);
    c.failed += 1;
  } else if (expected === null || expected === 0) {
    problems.push(`${name}: the number of tests it holds is unknown (no listing before the run)`);
    c.failed += 1;
  } else if (ran < expected) {
    problems.push(`${name}: ${ran} of ${expected} tests reported; the other ${expected - ran} count as failed`);
    c.failed += expected - ran;
  }
  if (underCi && c.skipped > 0) {
    problems.push(`${name}: ${c.skipped} skipped under CI=true, counted as failed`);
    c.failed += c.skipped;
    c.skipped = 0;
  }
  c.failed += extraFailed;
  const of = expected !== null ? ` (of ${expected})` : '';
  console.log(`${name}: ${c.passed} passed, ${c.failed} failed${c.skipped ? `, ${c.skipped} skipped` : ''}${of}`);
  for (const k of Object.keys(totals)) totals[k] += c[k];
}

// GoogleTest: one JSON per process (native: one per test via gtest_discover_tests; wasm: one).
for (const suite of ['native', 'wasm']) {
  const c = { passed: 0, failed: 0, skipped: 0 };
  const folder = join(dir, suite);
  for (const file of existsSync(folder) ? readdirSync(folder) : []) {
    if (!file.endsWith('.json')) continue;
    const report = readJson(join(folder, file));
    if (!report) { problems.push(`${suite}: unreadable report ${file}`); c.failed++; continue; }
    for (const s of report.testsuites || []) {
      for (const t of s.testsuite || []) {
        if (t.failures && t.failures.length) c.failed++;
        else if (t.result === 'SKIPPED' || t.result === 'SUPPRESSED' || t.status === 'NOTRUN') c.skipped++;
        else if (t.result === 'COMPLETED') c.passed++;
        else { problems.push(`${suite}: ${s.name}.${t.name} ended as '${t.result}'`); c.failed++; }
      }
    }
  }
  add(suite, c, readNumber(join(dir, `${suite}.expected`)));
}

// node --test (TAP): its own closing counts, against the listing made before the run (scripts/test).
{
  const tap = existsSync(join(dir, 'node.tap')) ? readFileSync(join(dir, 'node.tap'), 'utf8') : '';
  const count = (key) => Number((tap.match(new RegExp(`^# ${key} (\\d+)$`, 'm')) || [])[1] ?? 0);
  const c = { passed: count('pass'), failed: count('fail') + count('cancelled'), skipped: count('skipped') + count('todo') };
  add('node', c, readNumber(join(dir, 'node.expected')));
}

// Playwright: the summary reporter's counts, with the number of tests the run held and any
// spec file that failed to load.
{
  const p = readJson(join(dir, 'playwright.counts.json'));
  const c = { passed: p?.passed ?? 0, failed: p?.failed ?? 0, skipped: p?.skipped ?? 0 };
  const files = p?.filesWithoutTests ?? [];
  if (p?.errors) problems.push(`e2e: ${p.errors} error(s) outside tests (a spec that did not load?)`);
  for (const f of files) problems.push(`e2e: ${f} ran no test`);
  add('e2e', c, p ? p.expected : null, (p?.errors ?? 0) + files.length);
}

// Fuzz smoke: reported apart; only its failures reach the total.
{
  const f = readJson(join(dir, 'fuzz.json'));
  let failed = 0;
  if (!f) {
    problems.push('fuzz: no report (the smoke run did not happen)');
    failed = 1;
  } else if (!f.ran) {
    problems.push(`fuzz: did not run: ${f.error || 'see build/fuzz'}`);
    failed = 1;
  } else {
    const parts = [];
    for (const t of f.targets) {
      const bad = !t.ok ? 'FAILED' : t.runs <= 0 ? 'ran no input' : t.seeds <= 0 ? 'had no seeds' : '';
      if (bad) { failed++; problems.push(`fuzz: ${t.name} ${bad}`); }
      parts.push(`${t.name} ${t.runs.toLocaleString('en-US')} runs from ${t.seeds} seeds in ${t.seconds} s${bad ? ` (${bad})` : ''}`);
    }
    if (f.targets.length === 0) { failed = 1; problems.push('fuzz: no target ran'); }
    console.log(`fuzz: ${parts.join('; ')}`);
  }
  totals.failed += failed;
}

for (const p of problems) console.log(`  problem: ${p}`);
console.log(`total: ${totals.passed} passed, ${totals.failed} failed${totals.skipped ? `, ${totals.skipped} skipped` : ''}`);
process.exit(totals.failed > 0 || totals.passed === 0 ? 1 : 0);
