import * as assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { api, locate } from './support/api';

const prep = JSON.parse(process.env.BENCH_TRIAGE_RUNS ?? '{}') as { folder: string; human: string };
const runDirs = () => readdirSync(path.join(prep.folder, '.bench-triage/runs', prep.human.slice(0, 8), 'human')).sort();

describe('untrusted workspace', () => {
  it('browsing works; run, rerun and rerun-with-fix refuse with a message and start nothing', async () => {
    assert.equal(vscode.workspace.isTrusted, false, 'the round opens the folder untrusted');
    const a = await api();
    await a.store.ensureScanned();
    const found = await locate(a.commitsTree, prep.human);
    assert.ok(found, 'the Commits view fills');
    await vscode.commands.executeCommand('benchTriage.compare', prep.human);
    assert.ok(a.webviews.panel(prep.human), 'Compare opens');
    const before = runDirs();
    await vscode.commands.executeCommand('benchTriage.rerun', found.roles[0]);
    await vscode.commands.executeCommand('benchTriage.rerunWithFix', found.entry, ['aimv2-exist-ok']);
    await vscode.commands.executeCommand('benchTriage.runCommit', prep.human, 'all');
    assert.deepEqual(runDirs(), before, 'no run folder was created');
    assert.equal(a.runs.list().length, 0);
  });
});
