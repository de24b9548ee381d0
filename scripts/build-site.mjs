// npm run build:site: the viewer as a static site in dist/ (or --out DIR), for any static host.
//
// Threads in WebAssembly need a cross-origin isolated page (COOP/COEP headers), which hosts such
// as GitHub Pages cannot send. The site therefore carries coi-serviceworker: on the first visit
// it registers a service worker that adds those headers to every response of the site, and
// reloads the page once. Hosts that can send the headers (scripts/serve.mjs, nginx) work with or
// without it. docs/site.md says more, including what fails where neither is possible.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const out = resolve(arg('out') || join(root, 'dist'));
const wasm = join(root, 'build', 'wasm', 'web');

if (!existsSync(join(wasm, 'sceneria.wasm'))) {
  console.log('build:site: building the WebAssembly module first (scripts/build wasm)');
  execFileSync(join(root, 'scripts', 'build'), ['wasm'], { stdio: 'inherit' });
}
const coi = join(root, 'node_modules', 'coi-serviceworker', 'coi-serviceworker.min.js');
if (!existsSync(coi)) {
  console.error('build:site: node_modules/coi-serviceworker is missing; run scripts/setup (npm ci)');
  process.exit(1);
}

rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, 'wasm'), { recursive: true });
cpSync(join(root, 'web'), out, { recursive: true });
cpSync(join(root, 'api'), join(out, 'api'), { recursive: true, filter: (f) => !f.endsWith('worker-node.mjs') });
for (const f of readdirSync(wasm)) if (/\.(js|wasm)$/.test(f)) cpSync(join(wasm, f), join(out, 'wasm', f));
cpSync(coi, join(out, 'coi-serviceworker.js'));
// The service worker's script first in every page, before anything that needs threads.
for (const page of readdirSync(out, { recursive: true }).filter((f) => String(f).endsWith('.html'))) {
  const file = join(out, String(page));
  const html = readFileSync(file, 'utf8');
  if (!html.includes('<head>')) throw new Error(`${page} has no <head>`);
  const depth = String(page).split(/[\\/]/).length - 1;
  // sceneriaIsolating: the app waits for the service worker's reload instead of failing first.
  const scripts = '<script>window.sceneriaIsolating = !window.crossOriginIsolated && window.isSecureContext && "serviceWorker" in navigator;</script>\n' +
                  `  <script src="${'../'.repeat(depth)}coi-serviceworker.js"></script>`;
  writeFileSync(file, html.replace('<head>', `<head>\n  ${scripts}`));
}
// Hosts that read it (Netlify, Cloudflare Pages) send the headers themselves.
writeFileSync(join(out, '_headers'), '/*\n  Cross-Origin-Opener-Policy: same-origin\n  Cross-Origin-Embedder-Policy: require-corp\n');
const files = readdirSync(out, { recursive: true }).length;
console.log(`build:site: ${out} (${files} files); publish the folder as it is`);
