import * as assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

/**
 * The extension-host suite runs through @vscode/test-electron where a desktop VS Code exists. None
 * can be downloaded here, so the executable is a recorder standing in for VS Code; the wiring
 * (which VS Code is chosen, what runTests passes it, where the results come back) is the real one.
 */
describe('@vscode/test-electron entry (scripts/vscode/run-extension-tests.mjs)', function () {
  this.timeout(60_000);
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'bt-electron-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('chooses $VSCODE_EXECUTABLE, else a copy in .vscode-test/, and needs a display', async () => {
    const m = await import(path.join(ROOT, 'scripts/vscode/run-extension-tests.mjs'));
    const exe = path.join(dir, 'code');
    writeFileSync(exe, '#!/bin/sh\n');
    assert.equal(m.desktopVSCode({ DISPLAY: ':99', VSCODE_EXECUTABLE: exe }, path.join(dir, 'none')), exe);
    assert.equal(m.desktopVSCode({ VSCODE_EXECUTABLE: exe }, path.join(dir, 'none')), null, 'no display: code-server instead');
    assert.equal(m.desktopVSCode({ DISPLAY: ':99', VSCODE_EXECUTABLE: path.join(dir, 'missing') }, dir), null);
    const cache = path.join(dir, '.vscode-test');
    mkdirSync(path.join(cache, 'vscode-linux-x64-1.95.0'), { recursive: true });
    mkdirSync(path.join(cache, 'vscode-linux-x64-1.96.2'), { recursive: true });
    writeFileSync(path.join(cache, 'vscode-linux-x64-1.95.0', 'code'), '');
    writeFileSync(path.join(cache, 'vscode-linux-x64-1.96.2', 'code'), '');
    assert.equal(m.desktopVSCode({ DISPLAY: ':99' }, cache), path.join(cache, 'vscode-linux-x64-1.96.2', 'code'), 'the newest download');
  });

  it('runs the one suite entry with the workspace, the settings and the suite environment, and reads its results', async () => {
    const m = await import(path.join(ROOT, 'scripts/vscode/run-extension-tests.mjs'));
    const record = path.join(dir, 'argv.json');
    const exe = path.join(dir, 'code');
    // What VS Code would do with these arguments, in brief: run the suite, which writes its results file.
    writeFileSync(
      exe,
      `#!${process.execPath}\nconst fs = require('fs');\nfs.writeFileSync(${JSON.stringify(record)}, JSON.stringify({ argv: process.argv.slice(2), suite: process.env.BENCH_TRIAGE_SUITE, results: process.env.BENCH_TRIAGE_TEST_RESULTS }));\nfs.writeFileSync(process.env.BENCH_TRIAGE_TEST_RESULTS, JSON.stringify({ passed: 3, failed: 1, failures: [{ title: 't', error: 'e' }] }));\n`,
    );
    chmodSync(exe, 0o755);
    const workspace = path.join(dir, 'ws');
    mkdirSync(workspace);
    const r = await m.runOnDesktop({
      executable: exe,
      workspace,
      env: { BENCH_TRIAGE_SUITE: 'corpus' },
      settings: { 'benchTriage.groupBy': 'agent' },
      label: 'unit',
    });
    const got = JSON.parse(readFileSync(record, 'utf8'));
    assert.deepEqual(r.results, { passed: 3, failed: 1, failures: [{ title: 't', error: 'e' }] });
    assert.equal(r.code, 0);
    assert.equal(got.suite, 'corpus');
    assert.ok(got.argv.includes(workspace), got.argv.join(' '));
    assert.ok(got.argv.includes(`--extensionDevelopmentPath=${ROOT}`));
    assert.ok(got.argv.includes(`--extensionTestsPath=${path.join(ROOT, 'dist-test/extension/index.js')}`));
    const userData = got.argv.find((a: string) => a.startsWith('--user-data-dir='))!.slice('--user-data-dir='.length);
    assert.equal(JSON.parse(readFileSync(path.join(userData, 'User/settings.json'), 'utf8'))['benchTriage.groupBy'], 'agent');
    rmSync(path.dirname(userData), { recursive: true, force: true });
  });
});
