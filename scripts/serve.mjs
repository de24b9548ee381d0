// Development server for the viewer: serves web/ and the built WebAssembly artefacts (never the
// source tree) with the headers that pthreads need (cross-origin isolation) and HTTP Range
// support (206/416/HEAD, from express.static's `send`).
//   node scripts/serve.mjs [--port 8080] [--host 127.0.0.1]
import express from 'express';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
};
const port = Number(arg('port', process.env.PORT || 8080));
const host = arg('host', '127.0.0.1');
const wasmDir = join(root, 'build', 'wasm', 'web');

if (!existsSync(join(wasmDir, 'sceneria.wasm'))) {
  console.error(`serve: ${wasmDir}/sceneria.wasm is missing; run "npm run build:wasm" first`);
  process.exit(1);
}

const app = express();
app.disable('x-powered-by');
app.use((req, res, next) => {
  // SharedArrayBuffer (pthreads) exists only in cross-origin isolated pages.
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  res.setHeader('Cross-Origin-Embedder-Policy', 'require-corp');
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
  next();
});
const statics = { acceptRanges: true, etag: true, lastModified: true, cacheControl: false,
                  setHeaders: (res) => res.setHeader('Cache-Control', 'no-cache') };
app.use('/wasm', express.static(wasmDir, statics));
app.use('/api', express.static(join(root, 'api'), statics));
app.use('/', express.static(join(root, 'web'), statics));

const server = app.listen(port, host, () => {
  console.log(`sceneria viewer: http://${host}:${port}/`);
});
server.on('error', (e) => {
  console.error(`serve: cannot listen on ${host}:${port}: ${e.message}`);
  process.exit(1);
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.close(() => process.exit(0)));
