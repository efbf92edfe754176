import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { BenchTriageApi } from '../../src/extension/extension';

const api = () => vscode.extensions.getExtension<BenchTriageApi>('bench-triage.bench-triage')!.activate();
const text = async (u: vscode.Uri) => (await vscode.workspace.openTextDocument(u)).getText();
const BASE = 'import torch\n\n\n# Model runner fixture.\n\n\n\n\ndef prepare(batch):\n    out = torch.tensor(batch).clone()\n    return out\n';

describe('Diff agent vs human patch', () => {
  it('without a vLLM checkout, opens the two patches file by file: files both touch first, then each one only one patch touches, apart', async () => {
    await api();
    const root = vscode.workspace.workspaceFolders![0].uri;
    const r = await vscode.commands.executeCommand<{ mode: string; files: string[] }>(
      'benchTriage.diffAgentVsHuman',
      '5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f',
    );
    assert.equal(r.mode, 'patch-files');
    const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input as { textDiffs?: Array<{ original: vscode.Uri; modified: vscode.Uri }> } | undefined;
    assert.ok(input?.textDiffs, 'a multi-file diff editor is open');
    // What the two patches touch, computed here from their texts (diff's own parser).
    const { parsePatch } = await import('diff');
    const files = (t: string) =>
      new Set(parsePatch(t).flatMap(p => (p.hunks.length ? [(p.newFileName !== '/dev/null' ? p.newFileName : p.oldFileName)!.replace(/^[ab]\//, '')] : [])));
    const humanText = JSON.parse(fs.readFileSync(vscode.Uri.joinPath(root, 'dataset.jsonl').fsPath, 'utf8').split('\n')[0]).diff_text as string;
    const agentText = fs.readFileSync(
      vscode.Uri.joinPath(root, 'state/runs/vllm/claude_code/default/2025-12-22_21-40-38/vllm_core-0000/model_patch.diff').fsPath,
      'utf8',
    );
    const h = files(humanText),
      a = [...files(agentText)].filter(f => !f.endsWith('model_patch.diff'));
    const expected = [
      ...[...h].filter(f => a.includes(f)).sort(),
      ...[...h]
        .filter(f => !a.includes(f))
        .sort()
        .map(f => `only in human patch/${f}`),
      ...a
        .filter(f => !h.has(f))
        .sort()
        .map(f => `only in agent patch/${f}`),
    ];
    assert.deepEqual(r.files, expected);
    assert.equal(input.textDiffs.length, expected.length);
    // Each side holds that file's hunks as the patch wrote them, never the other files'.
    for (const d of input.textDiffs) {
      const label = d.original.path.replace(/^\/\w+\/human\//, '');
      const file = label.replace(/^only in (human|agent) patch\//, '');
      const [left, right] = [await text(d.original), await text(d.modified)];
      assert.ok(left.startsWith(file) || /leaves this file alone/.test(left), left.slice(0, 80));
      assert.ok(right.startsWith(file) || /leaves this file alone/.test(right), right.slice(0, 80));
      for (const side of [left, right]) for (const line of side.split('\n')) if (line.startsWith('@@')) assert.match(line, /^@@ -\d+,\d+ \+\d+,\d+ @@$/);
    }
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('with a vLLM checkout, opens one diff per touched file: parent + human vs parent + agent', async () => {
    const { store } = await api();
    const root = vscode.workspace.workspaceFolders![0].uri;
    // A small vLLM checkout: the parent commit holds the files the patches touch.
    const repo = fs.mkdtempSync(path.join(os.tmpdir(), 'bt-vllm-'));
    const git = (...a: string[]) =>
      execFileSync('git', ['-C', repo, ...a], {
        encoding: 'utf8',
        env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' },
      }).trim();
    git('init', '-q');
    fs.mkdirSync(path.join(repo, 'vllm/worker'), { recursive: true });
    fs.writeFileSync(path.join(repo, 'vllm/worker/model_runner.py'), BASE);
    git('add', '.');
    git('commit', '-q', '-m', 'parent');
    const parent = git('rev-parse', 'HEAD');
    // The commit under test, its dataset row (human patch) and an agent run, written into the workspace.
    const human = fs.readFileSync(vscode.Uri.joinPath(root, 'dataset.jsonl').fsPath, 'utf8').split('\n')[0];
    const commit = 'c0ffee00'.padEnd(40, '1');
    const dir = vscode.Uri.joinPath(root, 'tmp-diff');
    const runDir = vscode.Uri.joinPath(dir, 'state/runs/vllm/claude_code/default/2025-01-01_00-00-00/vllm_core-0001');
    const enc = (s: string) => new TextEncoder().encode(s);
    await vscode.workspace.fs.writeFile(
      vscode.Uri.joinPath(dir, 'dataset.jsonl'),
      enc(JSON.stringify({ ...JSON.parse(human), commit_hash: commit, parent_commit: parent }) + '\n'),
    );
    await vscode.workspace.fs.writeFile(
      vscode.Uri.joinPath(runDir, 'journal.json'),
      enc(JSON.stringify({ commits: { pre: parent, human: commit }, status: 'success' })),
    );
    await vscode.workspace.fs.copy(
      vscode.Uri.joinPath(root, 'state/runs/vllm/claude_code/default/2025-12-22_21-40-38/vllm_core-0000/model_patch.diff'),
      vscode.Uri.joinPath(runDir, 'model_patch.diff'),
    );
    const cfg = vscode.workspace.getConfiguration('benchTriage');
    try {
      await cfg.update('vllmCheckout', repo, vscode.ConfigurationTarget.Workspace);
      await store.rescan();
      const r = await vscode.commands.executeCommand<{ mode: string; files: string[] }>('benchTriage.diffAgentVsHuman', commit);
      assert.equal(r.mode, 'files');
      assert.deepEqual(r.files, ['vllm/fast_path.py', 'vllm/worker/model_runner.py']);
      const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input as
        { textDiffs?: Array<{ original: vscode.Uri; modified: vscode.Uri }> } | undefined;
      assert.ok(input?.textDiffs, 'a multi-file diff editor is open');
      assert.equal(input.textDiffs.length, 2);
      const byPath = new Map(
        await Promise.all(
          input.textDiffs.map(
            async d => [d.original.path.replace(/^\/\w+\/human\//, ''), { human: await text(d.original), agent: await text(d.modified) }] as const,
          ),
        ),
      );
      const runner = byPath.get('vllm/worker/model_runner.py')!;
      assert.equal(runner.human, BASE.replace('torch.tensor(batch).clone()', 'torch.tensor(batch)'));
      assert.equal(runner.agent, BASE.replace('torch.tensor(batch).clone()', 'torch.as_tensor(batch)'));
      const fast = byPath.get('vllm/fast_path.py')!;
      assert.equal(fast.human, 'def fast(batch):\n    return batch\n');
      assert.equal(fast.agent, '', 'the agent did not touch it: the parent has no such file');
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await cfg.update('vllmCheckout', undefined, vscode.ConfigurationTarget.Workspace);
      await vscode.workspace.fs.delete(dir, { recursive: true });
      fs.rmSync(repo, { recursive: true, force: true });
      await store.rescan();
    }
  });
});
