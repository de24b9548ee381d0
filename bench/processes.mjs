// Commands timed as whole processes, as a user runs them: wall time and peak resident memory
// (/usr/bin/time), each side run once a round, the order reversed every other round so that all
// see the same noise. `sides`: [{ name, cmd, args }]; each gets `ms` and `mb` lists.
import { spawnSync } from 'node:child_process';

export function timeProcess(cmd, args, cwd) {
  const t = performance.now();
  const r = spawnSync('/usr/bin/time', ['-f', 'peak %M', cmd, ...args], { stdio: ['ignore', 'ignore', 'pipe'], cwd });
  const ms = performance.now() - t;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`);
  return { ms, mb: Number(/peak (\d+)\s*$/.exec(r.stderr.toString())?.[1] ?? NaN) / 1024 };
}

export function alternate(sides, rounds, cwd) {
  for (const s of sides) s.ms = [], s.mb = [];
  for (let r = 0; r < rounds; r++)
    for (const s of r % 2 ? [...sides].reverse() : sides) {
      const m = timeProcess(s.cmd, s.args, cwd);
      s.ms.push(m.ms);
      s.mb.push(m.mb);
    }
  return sides;
}

export const median = (v) => [...v].sort((a, b) => a - b)[Math.floor((v.length - 1) / 2)];
