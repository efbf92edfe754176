import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { BenchTriageApi } from '../../src/extension/extension';
import type { Node } from '../../src/extension/commitsTree';

async function api(): Promise<BenchTriageApi> {
  const ext = vscode.extensions.getExtension<BenchTriageApi>('bench-triage.bench-triage');
  assert.ok(ext, 'extension bench-triage.bench-triage is installed');
  return ext.activate();
}

describe('Commits view on the small fixture workspace', () => {
  it('registers the Bench Triage container and opens the Commits view', async () => {
    await api();
    await vscode.commands.executeCommand('workbench.view.extension.benchTriage');
    await vscode.commands.executeCommand('benchTriage.commits.focus');
  });

  it('lists exactly the fixture commits, each with its roles', async () => {
    const { commitsTree } = await api();
    const roots = await commitsTree.getChildren();
    const commits = roots.filter((n): n is Extract<Node, { kind: 'commit' }> => n.kind === 'commit');
    const items = commits.map(c => commitsTree.getTreeItem(c));
    const labels = items.map(i => String(i.label)).sort();
    assert.deepEqual(labels.map(l => l.slice(0, 8)), ['1a2b3c4d', '5e6f7a8b', '9c0d1e2f']);
    assert.ok(labels.includes('1a2b3c4d [Core] Speed up decode by removing a copy'), labels.join(' | '));
    const s2 = commits.find(c => c.runs[0].commit.startsWith('5e6f7a8b'))!;
    assert.equal(s2.runs[0].commit, '5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f');
    assert.deepEqual(s2.runs.map(r => `${r.role}:${r.status}`), ['baseline:success', 'human:failed', 'agent:failed']);
    assert.match(String(commitsTree.getTreeItem(s2).description), /B✓ H✗ A✗/);
    const runItems = (await commitsTree.getChildren(s2)).map(n => commitsTree.getTreeItem(n));
    assert.match(String(runItems[1].description), /Server crashed during startup/);
  });

  it('shows the corrupt and the unknown file as warning items naming the file', async () => {
    const { commitsTree } = await api();
    const roots = await commitsTree.getChildren();
    const group = roots.find(n => n.kind === 'problems');
    assert.ok(group, 'a problems group exists');
    const children = (await commitsTree.getChildren(group)).map(n => commitsTree.getTreeItem(n));
    const byName = new Map(children.map(c => [String(c.label), String(c.description)]));
    assert.match(byName.get('3c3c3c3c_result.json') ?? '', /^corrupt: .*line 1 column 102/);
    assert.match(byName.get('mystery.json') ?? '', /^unknown: no known result schema/);
  });

  it('opens a corrupt file at the parser position', async () => {
    const { commitsTree } = await api();
    const group = (await commitsTree.getChildren()).find(n => n.kind === 'problems')!;
    const corrupt = (await commitsTree.getChildren(group)).map(n => commitsTree.getTreeItem(n)).find(i => String(i.label) === '3c3c3c3c_result.json')!;
    await vscode.commands.executeCommand(corrupt.command!.command, ...(corrupt.command!.arguments ?? []));
    const ed = vscode.window.activeTextEditor;
    assert.ok(ed);
    assert.ok(ed.document.uri.path.endsWith('results/docker/3c3c3c3c_result.json'));
    assert.equal(ed.selection.active.line, 0);
    assert.equal(ed.selection.active.character, 101);
    assert.equal(ed.document.getText().charAt(101), ',');
  });

  it('picks up a new result file without a manual rescan', async () => {
    const { commitsTree, store } = await api();
    const root = vscode.workspace.workspaceFolders![0].uri;
    const uri = vscode.Uri.joinPath(root, 'results', 'docker', 'abcdef12_result.json');
    const changed = new Promise<void>(resolve => { const d = store.onDidChange(() => { d.dispose(); resolve(); }); });
    await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(JSON.stringify({ commit_hash: 'abcdef12'.padEnd(40, '0'), status: 'success', throughput_tok_s: 1.5 })));
    try {
      await changed;
      const labels = (await commitsTree.getChildren()).filter(n => n.kind === 'commit').map(n => String(commitsTree.getTreeItem(n).label));
      assert.ok(labels.some(l => l.startsWith('abcdef12')), labels.join(' | '));
    } finally {
      await vscode.workspace.fs.delete(uri);
    }
  });
});
