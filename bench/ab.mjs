// Two builds of one benchmark side by side (before and after a change), alternating so both see
// the same machine noise: the best of each `*_ms` field and the ratio. Any benchmark that prints
// one JSON line works. With `--wall 1`, any command: the whole process timed (a CLI as a user
// runs it), minimum and median of each side, and its peak resident memory (/usr/bin/time).
//   node bench/ab.mjs --before OLD_BINARY --after NEW_BINARY [--rounds 5] [--wall 1] -- ARGS...
import { execFileSync, spawnSync } from 'node:child_process';

const argv = process.argv.slice(2);
const split = argv.indexOf('--');
const opts = Object.fromEntries((split < 0 ? argv : argv.slice(0, split)).join(' ').split('--').filter(Boolean)
  .map((p) => p.trim().split(/\s+/)).map(([k, v]) => [k, v]));
const args = split < 0 ? [] : argv.slice(split + 1);
if (!opts.before || !opts.after) {
  console.error('usage: node bench/ab.mjs --before OLD --after NEW [--rounds N] -- ARGS...');
  process.exit(2);
}
const rounds = Number(opts.rounds || 5);
if (opts.wall) {
  const times = { before: [], after: [] }, peaks = { before: [], after: [] };
  for (let r = 0; r < rounds; r++)
    for (const side of r % 2 ? ['after', 'before'] : ['before', 'after']) {
      const t = performance.now();
      const run = spawnSync('/usr/bin/time', ['-f', 'peak %M', opts[side], ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
      if (run.status !== 0) throw new Error(`${opts[side]} failed: ${run.stderr}`);
      const err = run.stderr.toString();
      times[side].push(performance.now() - t);
      peaks[side].push(Number(/peak (\d+)\s*$/.exec(err)?.[1] ?? NaN) / 1024);
    }
  const median = (v) => [...v].sort((a, b) => a - b)[Math.floor((v.length - 1) / 2)];
  const [b, a] = [times.before, times.after];
  console.log(`${rounds} alternating rounds of: ${args.join(' ')}`);
  console.log('| before: min / median | after: min / median | median before / after | peak before → after |');
  console.log('|---|---|---|---|');
  console.log(`| ${Math.min(...b).toFixed(0)} / ${median(b).toFixed(0)} ms | ${Math.min(...a).toFixed(0)} / ${median(a).toFixed(0)} ms | ` +
              `${(median(b) / median(a)).toFixed(2)} | ${median(peaks.before).toFixed(0)} MB → ${median(peaks.after).toFixed(0)} MB |`);
  process.exit(0);
}
const best = { before: {}, after: {} };
for (let r = 0; r < rounds; r++) {
  for (const side of r % 2 ? ['after', 'before'] : ['before', 'after']) {
    const j = JSON.parse(execFileSync(opts[side], args, { encoding: 'utf8', maxBuffer: 1 << 26 }).trim().split('\n').pop());
    for (const [k, v] of Object.entries(j))
      if (k.endsWith('_ms') && v < 1e100) best[side][k] = Math.min(best[side][k] ?? Infinity, v);
  }
}
console.log(`${rounds} alternating rounds of: ${args.join(' ')}`);
console.log('| measure | before | after | before / after |');
console.log('|---|---|---|---|');
for (const k of Object.keys(best.before))
  console.log(`| ${k} | ${best.before[k].toFixed(1)} ms | ${best.after[k].toFixed(1)} ms | ${(best.before[k] / best.after[k]).toFixed(2)} |`);
