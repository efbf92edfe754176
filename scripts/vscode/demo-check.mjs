#!/usr/bin/env node
// Runs the README's main command (bash scripts/demo.sh) as a user would, requests the URL it
// prints, and finds the Bench Triage view with the demo commits in Chromium. Prints
// "demo: N passed, N failed".
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import net from 'node:net';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { launchBrowser } = require('./codeServer.cjs');
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
// The set-up waits for another apt instead of failing on its lock: a real holder of dpkg's
// frontend lock for 10 s, and the set-up's own apt wrapper running `apt-get check` meanwhile.
const results = [];
{
  const holder = spawn(
    'python3',
    ['-c', "import fcntl,time\nf=open('/var/lib/dpkg/lock-frontend','w')\nfcntl.lockf(f,fcntl.LOCK_EX)\nprint('held',flush=True)\ntime.sleep(10)"],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  await new Promise(r => holder.stdout.once('data', r));
  const t0 = Date.now();
  const r = spawnSync('bash', ['-c', `. ${JSON.stringify(path.join(ROOT, 'scripts/apt-lib.sh'))}; apt_retry apt-get check -qq`], { encoding: 'utf8' });
  const s = (Date.now() - t0) / 1000;
  holder.kill();
  results.push([
    `the set-up waits for the apt lock another process holds, and goes on when it is free (${s.toFixed(0)} s)`,
    r.status === 0 && /waiting for the apt lock \(held by python3, pid \d+\)/.test(r.stderr) && s >= 8
      ? null
      : new Error(`status ${r.status} after ${s} s\n${r.stderr.slice(-1500)}`),
  ]);
}
const freePort = () =>
  new Promise(r => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = s.address().port;
      s.close(() => r(p));
    });
  });
// Two runs at once, as two checkouts of a team would, sharing one fresh tools cache: one installs
// VS Code, the other waits for it; both come up.
const tools = mkdtempSync(path.join(os.tmpdir(), 'bt-tools-'));
const startDemo = async () => {
  const port = await freePort();
  const proc = spawn('bash', [path.join(ROOT, 'scripts/demo.sh')], {
    env: { ...process.env, BENCH_TRIAGE_PORT: String(port), BENCH_TRIAGE_TOOLS: tools },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const d = { proc, port, out: '' };
  proc.stdout.on('data', x => (d.out += x));
  proc.stderr.on('data', x => (d.out += x));
  d.url = new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no "Open: <url>" within 900 s:\n${d.out.slice(-2000)}`)), 900000);
    const check = () => {
      const m = /Open: (http\S+)/.exec(d.out);
      if (m) {
        clearTimeout(t);
        resolve(m[1]);
      }
    };
    proc.stdout.on('data', check);
    proc.on('exit', c => reject(new Error(`demo.sh exited ${c}:\n${d.out.slice(-2000)}`)));
  });
  d.url.catch(() => {});
  return d;
};
const demos = [await startDemo(), await startDemo()];
const runDir = path.join(ROOT, 'test-results', 'vscode', `demo-${Date.now()}`);
mkdirSync(runDir, { recursive: true });
try {
  const urls = await Promise.all(demos.map(d => d.url));
  const url = urls[0];
  // Each step said, with how long it took.
  for (const d of demos) {
    const steps = d.out.match(/^\[demo\] [^\n]*: \d+ s$/gm) ?? [];
    results.push([
      `demo on port ${d.port} says each set-up step and its time (${steps.length} steps)`,
      steps.length >= 6 && /\[demo\] set-up: \d+ s/.test(d.out) ? null : new Error(d.out.slice(0, 3000)),
    ]);
  }
  const waited = demos.filter(d => /another set-up is installing VS Code into .*; waiting for it/.test(d.out)).length;
  results.push([
    'two at once share one tools install: one installs, the other waits',
    waited === 1 && existsSync(path.join(tools, 'node_modules/.bin/code-server'))
      ? null
      : new Error(`${waited} waited\n${demos.map(d => d.out.slice(-1500)).join('\n---\n')}`),
  ]);
  const second = await fetch(urls[1]);
  results.push(['the second demo answers too', second.ok ? null : new Error(`HTTP ${second.status}`)]);
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
  results.push(['the README main command (twice at once) prints a URL', e]);
} finally {
  for (const d of demos)
    try {
      process.kill(-d.proc.pid, 'SIGTERM');
    } catch {
      /* gone */
    }
  await new Promise(r => setTimeout(r, 2000));
  rmSync(tools, { recursive: true, force: true });
}
for (const [n, e] of results) console.log(`[demo]   ${e ? '✗' : '✔'} ${n}${e ? `\n${String(e.message ?? e).slice(0, 800)}` : ''}`);
const failed = results.filter(([, e]) => e).length;
console.log(`demo: ${results.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
