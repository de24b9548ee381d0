// A deliberately misbehaving static server for the Range tests (hand-written on purpose: a
// well-kept library would not misbehave). Serves one file under several paths:
//   /ok/NAME             correct 206/416 with a strong ETag
//   /short/NAME          the first answer for each range is a 206 with a short body (Chromium's bug)
//   /flaky/NAME          the first answer for each range is a 500
//   /norange/NAME        ignores Range: 200 with the whole body
//   /changing/NAME       after the third request: other bytes (`changed`, another file) and a new ETag
//   /wrongrange/NAME     every 206 names a Content-Range one byte off
//   /nocontentrange/NAME every 206 comes without Content-Range
//   /down/NAME           503 to everything
//   /missing/NAME        404
//   /hang/NAME           never answers (the client must time out)
//   /weaketag/NAME       correct 206s with a weak ETag that changes on every answer, no Last-Modified
//   /stats               {bytes, requests, maxConcurrent} per path, and /reset
// Every response carries CORS (the page is on another origin) and CORP headers.
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';

export function startFaultServer(file, port, { changed = null } = {}) {
  const original = readFileSync(file);
  const other = changed ? readFileSync(changed) : original;
  const stats = {};
  const seen = new Set();
  const hanging = new Set();
  const mode = (url) => url.split('/')[1];
  const server = createServer(async (req, res) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Access-Control-Allow-Headers', 'Range, If-Match');
    res.setHeader('Access-Control-Expose-Headers', 'ETag, Content-Range, Content-Length, Last-Modified');
    res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    if (req.method === 'OPTIONS') { res.writeHead(204); res.end(); return; }
    if (req.url === '/stats') { res.writeHead(200, { 'Content-Type': 'application/json' }); res.end(JSON.stringify(stats)); return; }
    if (req.url === '/reset') { for (const k of Object.keys(stats)) delete stats[k]; seen.clear(); res.writeHead(204); res.end(); return; }
    const m = mode(req.url);
    const s = (stats[m] ??= { bytes: 0, requests: 0, heads: 0, inFlight: 0, maxConcurrent: 0 });
    // HEADs (the viewer looking for model files) are counted apart: the Range traffic is what
    // the tests compare with the page's own count.
    if (req.method === 'HEAD') s.heads++;
    else s.requests++;
    s.inFlight++;
    s.maxConcurrent = Math.max(s.maxConcurrent, s.inFlight);
    if (m === 'hang') {  // keep the request open until the client gives up
      hanging.add(res);
      req.on('close', () => { s.inFlight--; hanging.delete(res); });
      return;
    }
    await new Promise((r) => setTimeout(r, 40));  // long enough for concurrency to show
    const done = (status, headers, data) => {
      s.inFlight--;
      s.bytes += data && req.method !== 'HEAD' ? data.length : 0;  // a HEAD answer has no body
      res.writeHead(status, headers);
      res.end(data);
    };
    if (m === 'missing') return done(404, { 'Content-Type': 'text/plain' }, Buffer.from('not found'));
    if (m === 'down') return done(503, { 'Content-Type': 'text/plain' }, Buffer.from('unavailable'));
    const isChanged = m === 'changing' && s.requests > 3;
    const body = isChanged ? other : original;
    const etag = m === 'weaketag' ? `W/"${s.requests}"` : isChanged ? '"v2"' : '"v1"';
    const range = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range || '');
    if (m === 'norange' || !range) return done(200, { 'Content-Length': body.length, ETag: etag }, body);
    const begin = Number(range[1]), last = Math.min(Number(range[2]), body.length - 1);
    if (begin >= body.length) return done(416, { 'Content-Range': `bytes */${body.length}` });
    const key = `${m}:${begin}-${last}`;
    const first = !seen.has(key);
    seen.add(key);
    if (m === 'flaky' && first) return done(500, {});
    const headers = { 'Content-Range': `bytes ${begin}-${last}/${body.length}`, ETag: etag, 'Accept-Ranges': 'bytes' };
    if (m === 'wrongrange') headers['Content-Range'] = `bytes ${begin + 1}-${last + 1}/${body.length}`;
    if (m === 'nocontentrange') delete headers['Content-Range'];
    let slice = body.subarray(begin, last + 1);
    if (m === 'short' && first) slice = slice.subarray(0, 4096 - (begin % 4096));
    // The header promises the full length even when the body is short, as the bug does.
    headers['Content-Length'] = slice.length;
    return done(206, headers, slice);
  });
  server.closeAll = () => {
    for (const res of hanging) res.destroy();
    server.closeAllConnections?.();
    server.close();
  };
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}
