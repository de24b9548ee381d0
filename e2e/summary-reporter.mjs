// Prints one closing line, "playwright: N passed, N failed[, N skipped]", counting only each
// test's final attempt, and writes the counts for scripts/test to sum: with how many tests the run
// held (`expected`), errors outside tests (a spec file that failed to load reports one), and the
// spec files in e2e/ that contributed no test at all.
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

export default class SummaryReporter {
  #final = new Map();
  #expected = 0;
  #errors = 0;
  #files = new Set();
  printsToStdio() { return true; }
  onBegin(config, suite) {
    const tests = suite.allTests();
    this.#expected = tests.length;
    for (const t of tests) this.#files.add(basename(t.location.file));
  }
  onError() { this.#errors++; }
  onTestEnd(test) { this.#final.set(test.id, test.outcome()); }
  onEnd() {
    let passed = 0, failed = 0, skipped = 0;
    for (const outcome of this.#final.values()) {
      if (outcome === 'expected' || outcome === 'flaky') passed++;
      else if (outcome === 'skipped') skipped++;
      else failed++;
    }
    const specs = readdirSync(here).filter((f) => f.endsWith('.spec.mjs'));
    const filesWithoutTests = specs.filter((f) => !this.#files.has(f));
    const out = join(here, '..', 'build', 'test-results');
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, 'playwright.counts.json'),
                  JSON.stringify({ passed, failed, skipped, expected: this.#expected, errors: this.#errors, filesWithoutTests }));
    console.log(`playwright: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}` +
                `${this.#errors ? `, ${this.#errors} errors` : ''} (of ${this.#expected})`);
  }
}
