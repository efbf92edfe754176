import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { api } from './support/api';

const ROOT = vscode.workspace.workspaceFolders![0].uri.fsPath;
const DATASET = path.join(ROOT, 'hf_cache/alpha-vllm-99-commits/combined_vllm_pr_dataset.filled.jsonl');
const PATCH = path.join(ROOT, 'ISO-Bench/state/runs/vllm/claude_code/default/2025-12-22_20-37-14/vllm_core-0000/model_patch.diff');
const REPORT = path.join(ROOT, 'archive/results/2026-01/omniperf_results_3way_claude_code/reruns/4_fixable/RERUN_REPORT.md');

async function lenses(file: string): Promise<vscode.CodeLens[]> {
  const uri = vscode.Uri.file(file);
  await vscode.workspace.openTextDocument(uri);
  return (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri, 1000)).filter(l =>
    l.command?.command.startsWith('benchTriage.'),
  );
}

describe('CodeLens on the real ISO-Bench files', function () {
  this.timeout(120_000);

  it('every perf_command line of the real dataset JSONL gets Run baseline | human | agent | 3-way on H100 | Explain', async () => {
    const a = await api();
    await a.store.ensureScanned();
    const doc = await vscode.workspace.openTextDocument(DATASET);
    const perfLines = Array.from({ length: doc.lineCount }, (_, i) => doc.lineAt(i).text).filter(t => /"perf_command":\s*"(?!")/.test(t)).length;
    const all0 = await lenses(DATASET);
    // The file's own lens first: the whole dataset as a campaign.
    const campaign = all0.filter(l => l.command!.command === 'benchTriage.runCampaign');
    assert.equal(campaign.length, 1);
    assert.equal(campaign[0].range.start.line, 0);
    assert.match(campaign[0].command!.title, /^Run campaign: \d+ commits? of this dataset on H100…$/);
    assert.equal((campaign[0].command!.arguments![0] as vscode.Uri).fsPath, DATASET);
    const ls = all0.filter(l => l !== campaign[0]);
    assert.ok(perfLines > 50, `${perfLines} perf commands`);
    assert.equal(ls.length, perfLines * 5);
    assert.deepEqual(
      ls.slice(0, 5).map(l => l.command!.title),
      ['Run baseline', 'human', 'agent', '3-way on H100', 'Explain'],
    );
    const commit = ls[0].command!.arguments![0] as string;
    assert.match(commit, /^[0-9a-f]{40}$/);
    assert.equal(commit, JSON.parse(doc.lineAt(ls[0].range.start.line).text).commit_hash);
    assert.deepEqual(ls[3].command!.arguments, [commit, 'all']);
    // Explain runs and shows the plan of each role (a document, nothing executed).
    await vscode.commands.executeCommand(ls[4].command!.command, ...ls[4].command!.arguments!);
    assert.match(vscode.window.activeTextEditor!.document.getText(), new RegExp(`What a run of ${commit.slice(0, 12)} will do[\\s\\S]*## human`));
    // A read-only document of its own, not an Untitled buffer that asks to be saved.
    assert.equal(vscode.window.activeTextEditor!.document.uri.scheme, 'bench-triage-doc');
    assert.equal(vscode.window.activeTextEditor!.document.isUntitled, false);
    const all = await vscode.commands.getCommands(true);
    for (const l of ls.slice(0, 4)) assert.ok(all.includes(l.command!.command));
  });

  it('a real model_patch.diff gets Compare with human patch | Run agent | Ablate… | Open commit, and Compare and Open commit run', async () => {
    const a = await api();
    const ls = await lenses(PATCH);
    assert.deepEqual(
      ls.map(l => l.command!.title),
      ['Compare with human patch', 'Run agent', 'Ablate…', 'Open commit 015069b0'],
    );
    // Ablate… names this patch's commit and agent (no ablation has run here: no per-hunk lens).
    assert.equal(ls[2].command!.command, 'benchTriage.ablatePatch');
    assert.equal((ls[2].command!.arguments![0] as { commit: string }).commit, '015069b01741e9ecb9e604c7fe87fbdfc306ebe5');
    assert.equal(ls[0].command!.arguments![0], '015069b01741e9ecb9e604c7fe87fbdfc306ebe5');
    await vscode.commands.executeCommand(ls[0].command!.command, ...ls[0].command!.arguments!);
    const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
    assert.match(String(tab?.label), /015069b0/);
    await vscode.commands.executeCommand(ls[3].command!.command, ...ls[3].command!.arguments!);
    assert.equal(a.commitsTree.filter, '015069b0');
    await vscode.commands.executeCommand('benchTriage.clearFilter');
  });

  it('a real ISO-Bench Markdown report gets run lenses under the commit heading', async () => {
    const ls = await lenses(REPORT);
    assert.ok(ls.length >= 5);
    const doc = await vscode.workspace.openTextDocument(REPORT);
    assert.match(doc.lineAt(ls[0].range.start.line).text, /benchmarks\/benchmark_\w+\.py/);
    assert.match(ls[0].command!.arguments![0] as string, /^3476ed08/);
  });
});
