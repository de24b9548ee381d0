// Prints one closing line, "playwright: N passed, N failed[, N skipped]", counting only each
// test's final attempt, and writes the counts for scripts/test to sum.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export default class SummaryReporter {
  #final = new Map();
  printsToStdio() { return true; }
  onTestEnd(test) { this.#final.set(test.id, test.outcome()); }
  onEnd() {
    let passed = 0, failed = 0, skipped = 0;
    for (const outcome of this.#final.values()) {
      if (outcome === 'expected' || outcome === 'flaky') passed++;
      else if (outcome === 'skipped') skipped++;
      else failed++;
    }
    const out = join(dirname(fileURLToPath(import.meta.url)), '..', 'build', 'test-results');
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, 'playwright.counts.json'), JSON.stringify({ passed, failed, skipped }));
    console.log(`playwright: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
  }
}
