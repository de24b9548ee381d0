// A real static host for the streaming tests: Debian's nginx on loopback, serving one directory
// with the CORS and CORP headers a cross-origin, cross-origin-isolated viewer needs, and an access
// log that records the bytes of every response (the server-side count).
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export async function startNginx(www, port) {
  const prefix = mkdtempSync(join(tmpdir(), 'sceneria-nginx-'));
  for (const d of ['tmp', 'logs']) mkdirSync(join(prefix, d));
  // nginx started as root serves as 'nobody': the files must be readable by it.
  chmodSync(prefix, 0o755);
  chmodSync(www, 0o755);
  const log = join(prefix, 'logs', 'access.log');
  const conf = join(prefix, 'nginx.conf');
  writeFileSync(conf, `
worker_processes 1;
pid ${prefix}/nginx.pid;
error_log ${prefix}/logs/error.log;
events { worker_connections 64; }
http {
  log_format bytes '$request_uri $status $body_bytes_sent';
  access_log ${log} bytes;
  client_body_temp_path ${prefix}/tmp/body;
  proxy_temp_path ${prefix}/tmp/proxy;
  fastcgi_temp_path ${prefix}/tmp/fastcgi;
  uwsgi_temp_path ${prefix}/tmp/uwsgi;
  scgi_temp_path ${prefix}/tmp/scgi;
  types { application/octet-stream eu7; }
  server {
    listen 127.0.0.1:${port};
    root ${www};
    location / {
      add_header Access-Control-Allow-Origin * always;
      add_header Access-Control-Expose-Headers "ETag, Content-Range, Content-Length, Last-Modified" always;
      add_header Cross-Origin-Resource-Policy cross-origin always;
    }
  }
}
`);
  const proc = spawn('/usr/sbin/nginx', ['-p', prefix, '-c', conf, '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  proc.stderr.on('data', (d) => { stderr += d; });
  for (let i = 0; i < 100; i++) {
    try {
      const r = await fetch(`http://127.0.0.1:${port}/`, { method: 'HEAD' });
      if (r.status) break;
    } catch {
      if (proc.exitCode !== null) throw new Error(`nginx exited: ${stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  const logged = (path) => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter((l) => l.startsWith(path)) : []);
  return {
    stop: () => proc.kill('SIGQUIT'),
    // Bytes nginx sent for paths starting with `path` (body bytes, from the access log).
    bytesSent: (path) => logged(path).reduce((n, l) => n + Number(l.split(' ')[2] || 0), 0),
    // How many responses for paths starting with `path` had each status: {206: 40, 200: 1}.
    statuses: (path) => logged(path).reduce((n, l) => ({ ...n, [l.split(' ')[1]]: (n[l.split(' ')[1]] || 0) + 1 }), {}),
  };
}
