#!/usr/bin/env node
// Runs the extension-host test suite (dist-test/extension/index.js, one entry for both runners)
// inside a real VS Code: a desktop VS Code through @vscode/test-electron's runTests wherever one is
// available ($VSCODE_EXECUTABLE, or a copy test-electron downloaded into .vscode-test/, and a
// display), else code-server opened in headless Chromium. The suite's mocha results come back
// through a JSON file; this prints them and exits non-zero on any failure.
import { prepareRunsWorkspace, stopTestEngine } from './testEngine.mjs';
import { createRequire } from 'node:module';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { runTests } from '@vscode/test-electron';
import path from 'node:path';
import util from 'node:util';

const require = createRequire(import.meta.url);
const { startCodeServer, launchBrowser, workbenchUrl } = require('./codeServer.cjs');
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');

export async function runExtensionTests({ workspace, suite = 'index.js', env = {}, settings = {}, timeoutMs = 300000, label = 'extension' }) {
  const runDir = path.join(ROOT, 'test-results', 'vscode', `${label}-${Date.now()}`);
  mkdirSync(runDir, { recursive: true });
  const resultFile = path.join(runDir, 'mocha-results.json');
  const server = await startCodeServer({ runDir, folder: workspace, settings, env: { BENCH_TRIAGE_TEST_RESULTS: resultFile, ...env } });
  console.log(`[${label}] code-server ready on ${server.base} after ${server.readyMs} ms`);
  const ctx = await launchBrowser(runDir).catch(async e => {
    await server.stop();
    throw e;
  });
  let code;
  try {
    const page = ctx.pages()[0] || (await ctx.newPage());
    const done = new Promise(resolve => page.exposeFunction('codeAutomationExit', code => resolve(code)));
    page.on('console', async msg => {
      let vals;
      try {
        vals = await Promise.all(msg.args().map(a => a.jsonValue()));
      } catch {
        vals = [msg.text()];
      }
      if (typeof vals[0] === 'string' && vals[0].startsWith('%c') && vals.length >= 3) vals = vals.slice(2);
      const text = util.format(...vals).replace(/%c/g, '');
      if (text.startsWith('[bt-test] ') || process.env.VERBOSE) console.log(text.replace(/^\[bt-test\] /, `[${label}] `));
    });
    await page.goto(workbenchUrl(server, { folder: workspace, devPaths: [ROOT], testsPath: path.join(ROOT, 'dist-test/extension', suite) }));
    code = await Promise.race([done, new Promise(r => setTimeout(() => r('timeout'), timeoutMs))]);
    if (code === 'timeout') {
      await page.screenshot({ path: path.join(runDir, 'timeout.png') }).catch(() => {});
      code = 124;
    }
  } finally {
    await ctx.close().catch(() => {});
    await server.stop();
  }
  const results = existsSync(resultFile) ? JSON.parse(readFileSync(resultFile, 'utf8')) : null;
  if (!results) console.log(`[${label}] no results file: the suite did not run (exit ${code}); artifacts in ${runDir}`);
  return { code, results, runDir };
}

/**
 * A desktop VS Code to run the suite in: $VSCODE_EXECUTABLE, else the newest copy @vscode/test-electron
 * downloaded into .vscode-test/ (never downloaded here); null without one, or without a display.
 */
export function desktopVSCode(env = process.env, cache = path.join(ROOT, '.vscode-test')) {
  if (!env.DISPLAY && process.platform === 'linux') return null;
  if (env.VSCODE_EXECUTABLE) return existsSync(env.VSCODE_EXECUTABLE) ? env.VSCODE_EXECUTABLE : null;
  if (!existsSync(cache)) return null;
  for (const d of readdirSync(cache)
    .filter(n => n.startsWith('vscode-'))
    .sort()
    .reverse()) {
    for (const exe of ['code', 'VSCode-linux-x64/code', 'Visual Studio Code.app/Contents/MacOS/Electron', 'Code.exe'])
      if (existsSync(path.join(cache, d, exe))) return path.join(cache, d, exe);
  }
  return null;
}

/** The same suite through @vscode/test-electron's runTests: the workspace, settings and environment as on code-server. */
export async function runOnDesktop({ executable, workspace, suite = 'index.js', env = {}, settings = {}, label = 'extension' }) {
  const runDir = path.join(ROOT, 'test-results', 'vscode', `${label}-desktop-${Date.now()}`);
  const userData = path.join(runDir, 'user-data');
  mkdirSync(path.join(userData, 'User'), { recursive: true });
  writeFileSync(
    path.join(userData, 'User', 'settings.json'),
    JSON.stringify({ 'telemetry.telemetryLevel': 'off', 'workbench.startupEditor': 'none', ...settings }, null, 2),
  );
  const resultFile = path.join(runDir, 'mocha-results.json');
  const code = await runTests({
    vscodeExecutablePath: executable,
    extensionDevelopmentPath: ROOT,
    extensionTestsPath: path.join(ROOT, 'dist-test/extension', suite),
    launchArgs: [workspace, '--disable-extensions', `--user-data-dir=${userData}`, `--extensions-dir=${path.join(runDir, 'extensions')}`],
    extensionTestsEnv: { BENCH_TRIAGE_TEST_RESULTS: resultFile, ...env },
  }).catch(e => (typeof e?.code === 'number' ? e.code : 1));
  const results = existsSync(resultFile) ? JSON.parse(readFileSync(resultFile, 'utf8')) : null;
  if (!results) console.log(`[${label}] no results file: the suite did not run in ${executable} (exit ${code}); artifacts in ${runDir}`);
  return { code, results, runDir };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const desktop = desktopVSCode();
  console.log(
    desktop
      ? `extension-host: desktop VS Code ${desktop} through @vscode/test-electron`
      : 'extension-host: no desktop VS Code here ($VSCODE_EXECUTABLE, .vscode-test/): code-server in Chromium',
  );
  // Three rounds: the project's small fixture; the real ISO-Bench data as the workspace; and runs
  // on the fake H100 host (a real dockerd started for the round, stopped after it).
  const rounds = [
    { label: 'fixture', workspace: path.join(ROOT, 'test/fixtures/workspace-small'), env: {} },
    { label: 'corpus', workspace: path.resolve(ROOT, '../shared/isobench'), env: { BENCH_TRIAGE_SUITE: 'corpus' } },
  ];
  const only = process.env.BENCH_TRIAGE_ROUNDS?.split(',');
  let runsRound = null;
  if (!only || only.includes('runs') || only.includes('untrusted')) {
    try {
      runsRound = prepareRunsWorkspace();
    } catch (e) {
      console.log(`[runs] could not prepare the Docker workspace:\n${e.stderr ?? e.message}`);
      if (process.env.CI === 'true') rounds.push({ label: 'runs', broken: true });
    }
    if (runsRound) {
      rounds.push({ label: 'runs', workspace: runsRound.folder, env: { BENCH_TRIAGE_SUITE: 'runs', BENCH_TRIAGE_RUNS: runsRound.raw } });
      // The same folder with workspace trust on and the folder not trusted: browsing works, running is refused.
      rounds.push({
        label: 'untrusted',
        workspace: runsRound.folder,
        env: { BENCH_TRIAGE_SUITE: 'untrusted', BENCH_TRIAGE_RUNS: runsRound.raw },
        settings: {
          'security.workspace.trust.enabled': true,
          'security.workspace.trust.startupPrompt': 'never',
          'security.workspace.trust.emptyWindow': false,
        },
      });
    }
  }
  let passed = 0,
    failed = 0,
    ok = true;
  for (const r of rounds) {
    if (only && !only.includes(r.label)) continue;
    if (r.broken) {
      failed++;
      ok = false;
      continue;
    }
    // A round that cannot start (code-server, Chromium) counts as one failure; the others still run.
    // test-electron turns workspace trust off, so the untrusted round always runs on code-server.
    const run = desktop && r.label !== 'untrusted' ? opts => runOnDesktop({ executable: desktop, ...opts }) : runExtensionTests;
    const { code, results } = await run({ workspace: r.workspace, env: r.env, settings: r.settings, label: r.label }).catch(e => {
      console.log(
        `[${r.label}] could not start: ${String(e?.stack ?? e)
          .split('\n')
          .slice(0, 12)
          .join('\n')}`,
      );
      return { code: 1, results: null };
    });
    passed += results?.passed ?? 0;
    failed += results?.failed ?? 1;
    ok &&= code === 0 && !!results && results.failed === 0;
  }
  if (runsRound) stopTestEngine();
  console.log(`extension-host: ${passed} passed, ${failed} failed`);
  process.exit(ok ? 0 : 1);
}
