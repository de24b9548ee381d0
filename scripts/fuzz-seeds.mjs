// Seeds for the fuzz targets from the sample files (read in place; written under build/).
//   node scripts/fuzz-seeds.mjs SAMPLES_DIR MODULE_SEEDS_DIR SECTION_SEEDS_DIR
// Section seeds are [u32 PIDX model count][u32 PROT size][section bytes], the section fuzzer's input.
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';

const [samples, moduleDir, sectionDir] = process.argv.slice(2);
mkdirSync(moduleDir, { recursive: true });
mkdirSync(sectionDir, { recursive: true });

const files = [];
const walk = (dir) => {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (name.endsWith('.eu7')) files.push(path);
  }
};
walk(samples);

let sections = 0;
for (const path of files) {
  const bytes = readFileSync(path);
  writeFileSync(join(moduleDir, basename(path)), bytes);
  const chunks = {};
  for (let at = 8; at + 8 <= bytes.length;) {
    const size = bytes.readUInt32LE(at + 4);
    chunks[bytes.toString('latin1', at, at + 4)] = { at: at + 8, size: size - 8 };
    if (size < 8) break;
    at += size;
  }
  if (!chunks.PIDX || !chunks.PACK) continue;
  const prot = chunks.PROT && chunks.PROT.size >= 4 ? bytes.readUInt32LE(chunks.PROT.at) : 0;
  const count = bytes.readUInt32LE(chunks.PIDX.at);
  const entries = [];
  for (let i = 0; i < count; i++) {
    const e = chunks.PIDX.at + 4 + 16 * i;
    entries.push({ models: bytes.readUInt32LE(e + 4), offset: Number(bytes.readBigUInt64LE(e + 8)) });
  }
  const offsets = [...new Set(entries.map((e) => e.offset))].sort((a, b) => a - b);
  entries.forEach((e, i) => {
    const next = offsets.find((o) => o > e.offset) ?? chunks.PACK.size;
    const head = Buffer.alloc(8);
    head.writeUInt32LE(e.models, 0);
    head.writeUInt32LE(prot, 4);
    const body = bytes.subarray(chunks.PACK.at + e.offset, chunks.PACK.at + next);
    writeFileSync(join(sectionDir, `${basename(path)}.${i}`), Buffer.concat([head, body]));
    sections++;
  });
}
console.log(`fuzz seeds: ${files.length} modules, ${sections} sections`);
