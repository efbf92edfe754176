#!/usr/bin/env node
// Runs the README's main command (bash scripts/demo.sh) as a user would, requests the URL it
// prints, and finds the Bench Triage view with the demo commits in Chromium. Prints
// "demo: N passed, N failed".
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { launchBrowser } = require('./codeServer.cjs');
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const port = await new Promise(r => {
  const s = net.createServer().listen(0, '127.0.0.1', () => {
    const p = s.address().port;
    s.close(() => r(p));
  });
});
const demo = spawn('bash', [path.join(ROOT, 'scripts/demo.sh')], {
  env: { ...process.env, BENCH_TRIAGE_PORT: String(port) },
  stdio: ['ignore', 'pipe', 'pipe'],
  detached: true,
});
let out = '';
demo.stdout.on('data', d => {
  out += d;
});
demo.stderr.on('data', d => {
  out += d;
});
const results = [];
const runDir = path.join(ROOT, 'test-results', 'vscode', `demo-${Date.now()}`);
mkdirSync(runDir, { recursive: true });
try {
  const url = await new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no "Open: <url>" within 300 s:\n${out.slice(-2000)}`)), 300000);
    const check = () => {
      const m = /Open: (http\S+)/.exec(out);
      if (m) {
        clearTimeout(t);
        resolve(m[1]);
      }
    };
    demo.stdout.on('data', check);
    demo.on('exit', c => reject(new Error(`demo.sh exited ${c}:\n${out.slice(-2000)}`)));
  });
  const res = await fetch(url);
  results.push(['the printed URL answers', res.ok ? null : new Error(`HTTP ${res.status}`)]);
  const ctx = await launchBrowser(runDir);
  try {
    const page = ctx.pages()[0] || (await ctx.newPage());
    page.setDefaultTimeout(60000);
    await page.goto(url);
    await page.locator('.activitybar .action-item a[aria-label^="Bench Triage"]').first().click();
    const pane = page.locator('.pane', { has: page.locator('.pane-header', { hasText: /Commits/i }) });
    let err = null;
    try {
      for (const g of ['Complete 3-way', 'Dependency drift', 'GPU out of memory']) await pane.locator('.monaco-list-row', { hasText: g }).first().waitFor();
      await page.screenshot({ path: path.join(ROOT, 'test-results', 'e2e', 'demo-commits-view.png') });
    } catch (e) {
      err = e;
    }
    results.push(['the demo workbench shows the Commits view with the demo categories', err]);
  } finally {
    await ctx.close().catch(() => {});
  }
} catch (e) {
  results.push(['the README main command prints a URL', e]);
} finally {
  try {
    process.kill(-demo.pid, 'SIGTERM');
  } catch {
    /* gone */
  }
}
for (const [n, e] of results) console.log(`[demo]   ${e ? '✗' : '✔'} ${n}${e ? `\n${String(e.message ?? e).slice(0, 800)}` : ''}`);
const failed = results.filter(([, e]) => e).length;
console.log(`demo: ${results.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
