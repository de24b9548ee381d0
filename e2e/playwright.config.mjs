// End-to-end tests: the real page in Debian's headless Chromium with software WebGL2.
import { defineConfig } from '@playwright/test';

const port = Number(process.env.SCENERIA_E2E_PORT || 8123);

export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.mjs',
  outputDir: '../build/e2e-results',
  forbidOnly: process.env.CI === 'true',  // a stray test.only must not shrink the CI run
  workers: 1,  // 2 cores; SwiftShader is CPU-bound
  timeout: 60_000,
  expect: { timeout: 20_000 },
  reporter: [['list'], ['./summary-reporter.mjs']],
  use: {
    baseURL: `http://127.0.0.1:${port}/`,
    viewport: { width: 1200, height: 750 },
    headless: true,
    launchOptions: {
      executablePath: '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
             '--disable-sync', '--no-first-run', '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
             '--ignore-gpu-blocklist'],
    },
  },
  webServer: {
    command: `node scripts/serve.mjs --port ${port}`,
    cwd: '..',
    url: `http://127.0.0.1:${port}/`,
    reuseExistingServer: false,
    timeout: 30_000,
  },
});
