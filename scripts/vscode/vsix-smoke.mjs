#!/usr/bin/env node
// Installs the packaged VSIX into a fresh code-server (no development path, no node_modules) and
// uses it through the real workbench in Chromium: the Commits view fills, a failure's evidence
// opens its log. Screenshots go to test-results/e2e/. Prints "vsix: N passed, N failed".
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const require = createRequire(import.meta.url);
const { TOOLS, startCodeServer, launchBrowser, isolatedEnv } = require('./codeServer.cjs');
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const version = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;
const vsix = path.join(ROOT, `bench-triage-${version}.vsix`);
const shots = path.join(ROOT, 'test-results', 'e2e');
const runDir = path.join(ROOT, 'test-results', 'vscode', `vsix-${Date.now()}`);
const workspace = path.join(ROOT, 'test/fixtures/workspace-small');
mkdirSync(shots, { recursive: true });

const results = [];
const step = async (name, fn) => {
  try { await fn(); results.push([name, null]); console.log(`[vsix]   ✔ ${name}`); }
  catch (e) { results.push([name, e]); console.log(`[vsix]   ✗ ${name}\n${String(e?.stack ?? e).split('\n').slice(0, 6).join('\n')}`); }
};

if (!existsSync(vsix)) { console.error(`missing ${vsix}: run npm run package`); process.exit(1); }
const extDir = path.join(runDir, 'extensions');
mkdirSync(extDir, { recursive: true });
execFileSync(path.join(TOOLS, 'node_modules/.bin/code-server'), ['--install-extension', vsix, '--extensions-dir', extDir], { env: isolatedEnv(runDir), stdio: 'ignore' });
const installed = readdirSync(extDir).find(d => d.startsWith('bench-triage.bench-triage'));

const server = await startCodeServer({ runDir, folder: workspace, extensionsDir: extDir });
const ctx = await launchBrowser(runDir);
try {
  const page = ctx.pages()[0] || await ctx.newPage();
  page.setDefaultTimeout(60000);
  await step('the VSIX installs with production bundles only (no node_modules)', async () => {
    if (!installed) throw new Error(`not installed in ${extDir}`);
    if (existsSync(path.join(extDir, installed, 'node_modules'))) throw new Error('node_modules shipped in the VSIX');
    for (const f of ['dist/extension.js', 'dist/server.js', 'syntaxes/vllm-log.tmLanguage.json']) if (!existsSync(path.join(extDir, installed, f))) throw new Error(`${f} missing`);
  });
  await page.goto(`${server.base}/?folder=${encodeURIComponent(workspace)}`);
  await page.locator('.monaco-workbench').waitFor();
  const pane = page.locator('.pane', { has: page.locator('.pane-header', { hasText: /Commits/i }) });
  await step('the Commits view fills with the fixture commits, grouped', async () => {
    await page.locator('.activitybar .action-item a[aria-label^="Bench Triage"]').first().click();
    await pane.locator('.monaco-list-row', { hasText: 'Complete 3-way' }).waitFor();
    await pane.locator('.monaco-list-row', { hasText: 'Model not supported' }).waitFor();
    await page.screenshot({ path: path.join(shots, 'vsix-commits-view.png') });
  });
  await step("a failure's evidence opens its log at the evidence line", async () => {
    await pane.locator('.monaco-list-row', { hasText: 'Model not supported' }).click();
    await pane.locator('.monaco-list-row', { hasText: '5e6f7a8b' }).click();
    await pane.locator('.monaco-list-row[aria-label^="human,"]').click();
    await pane.locator('.monaco-list-row', { hasText: 'line 4: ValueError' }).click();
    await page.locator('.monaco-editor .view-line', { hasText: 'Unknown RoPE scaling type llama3' }).first().waitFor();
    await page.locator('.tab', { hasText: 'raw_output.vllm.log' }).first().waitFor();
    await page.screenshot({ path: path.join(shots, 'vsix-evidence-log.png') });
  });
} finally {
  await ctx.close().catch(() => {});
  await server.stop();
}
const failed = results.filter(([, e]) => e).length;
console.log(`vsix: ${results.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
