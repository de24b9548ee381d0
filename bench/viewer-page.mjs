// The viewer served (scripts/serve.mjs) and opened in headless Chromium with SwiftShader, as the
// page benchmarks drive it: resolves once the viewer and its first document are up.
import { spawn } from 'node:child_process';
import { chromium } from '@playwright/test';

export async function openViewerPage(port) {
  const server = spawn('node', ['scripts/serve.mjs', '--port', String(port)], { stdio: 'ignore' });
  await new Promise((r) => setTimeout(r, 800));
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist'] });
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  await page.goto(`http://127.0.0.1:${port}/`);
  await page.waitForFunction(() => window.sceneria?.viewer && window.sceneria.lastResult);
  return { page, close: async () => { await browser.close(); server.kill(); } };
}
