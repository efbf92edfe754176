import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { api } from './support/api';
import type { EvidenceNode, GroupNode } from '../../src/extension/tree/commitNodes';
import type { BenchTriageApi } from '../../src/extension/extension';

async function groups(tree: BenchTriageApi['commitsTree']): Promise<Map<string, { node: GroupNode; count: string }>> {
  const roots = await tree.getChildren();
  const out = new Map<string, { node: GroupNode; count: string }>();
  for (const n of roots)
    if (n.kind === 'group') {
      const it = tree.getTreeItem(n);
      out.set(String(it.label), { node: n as GroupNode, count: String(it.description) });
    }
  return out;
}

describe('Commits view on the small fixture workspace', () => {
  afterEach(async () => {
    await vscode.workspace.getConfiguration('benchTriage').update('groupBy', undefined, vscode.ConfigurationTarget.Workspace);
    await vscode.commands.executeCommand('benchTriage.clearFilter');
  });

  it('registers the Bench Triage container and opens the Commits view', async () => {
    await api();
    await vscode.commands.executeCommand('workbench.view.extension.benchTriage');
    await vscode.commands.executeCommand('benchTriage.commits.focus');
  });

  it('groups commits by outcome category, with counts', async () => {
    const { commitsTree } = await api();
    const g = await groups(commitsTree);
    assert.deepEqual([...g.entries()].map(([k, v]) => `${k}: ${v.count}`).sort(), [
      'Complete 3-way: 1',
      'Model not supported: 1',
      'Partial (roles never ran): 1',
    ]);
    const entries = (await commitsTree.getChildren(g.get('Model not supported')!.node)).map(n => commitsTree.getTreeItem(n));
    assert.equal(entries.length, 1);
    assert.match(String(entries[0].label), /^5e6f7a8b/);
    assert.match(String(entries[0].description), /B✓ H✗ A✗/);
    const complete = (await commitsTree.getChildren(g.get('Complete 3-way')!.node)).map(n => commitsTree.getTreeItem(n));
    // What decides first (a 300 px sidebar cuts the end): the short id, then verdict and roles, the subject last.
    assert.equal(String(complete[0].label), '1a2b3c4d');
    const d = String(complete[0].description);
    assert.ok(d.endsWith('[Core] Speed up decode by removing a copy'), d);
    assert.ok(d.indexOf('B✓ H✓ A✓') >= 0 && d.indexOf('B✓ H✓ A✓') < d.indexOf('[Core]'), d);
    assert.match(
      (complete[0].tooltip as vscode.MarkdownString).value.replace(/&nbsp;/g, ' '),
      /B✓ H✓ A✓ = baseline succeeded, human succeeded, agent succeeded/,
    );
  });

  it('shows each role with its cause, and an evidence item that opens the log at the evidence line', async () => {
    const { commitsTree } = await api();
    const g = await groups(commitsTree);
    const [entry] = await commitsTree.getChildren(g.get('Model not supported')!.node);
    const roles = await commitsTree.getChildren(entry);
    const items = roles.map(r => commitsTree.getTreeItem(r));
    assert.deepEqual(
      items.map(i => String(i.label)),
      ['baseline', 'human', 'agent (claude_code)'],
    );
    assert.match(String(items[1].description), /^Model not supported \(rope-scaling\)/);
    assert.match(String(items[2].description), /^Docker image missing/);
    const kids = await commitsTree.getChildren(roles[1]);
    const ev = kids.find((k): k is EvidenceNode => k.kind === 'evidence');
    assert.ok(ev, 'an evidence item');
    const evItem = commitsTree.getTreeItem(ev);
    assert.match(String(evItem.label), /^line 4: ValueError: Unknown RoPE scaling type llama3/);
    await vscode.commands.executeCommand(evItem.command!.command, ...(evItem.command!.arguments ?? []));
    const ed = vscode.window.activeTextEditor;
    assert.ok(ed);
    assert.equal(ed.document.languageId, 'vllm-log');
    assert.equal(ed.selection.start.line, 3);
    assert.equal(ed.document.lineAt(ed.selection.start.line).text, 'ValueError: Unknown RoPE scaling type llama3');
    // The document is the field's text, exactly.
    const raw = JSON.parse(
      new TextDecoder().decode(
        await vscode.workspace.fs.readFile(
          vscode.Uri.joinPath(vscode.workspace.workspaceFolders![0].uri, 'omniperf_results_3way_claude_code/results/5e6f7a8b_human_result.json'),
        ),
      ),
    );
    assert.equal(ed.document.getText(), raw.raw_output);
  });

  it('regroups by fixability and by agent, and filters', async () => {
    const { commitsTree } = await api();
    await vscode.commands.executeCommand('benchTriage.groupBy', 'fixability');
    // Fixabilities in words, never raw ids.
    const byFix = await groups(commitsTree);
    assert.deepEqual([...byFix.keys()].sort(), ['measured', 'rerun with a known fix']);
    // blocked=recipe (what a Dashboard fixability row sends) shows exactly that group's commits.
    const recipeCount = byFix.get('rerun with a known fix')!.count;
    await vscode.commands.executeCommand('benchTriage.groupBy', 'category');
    await vscode.commands.executeCommand('benchTriage.filter', 'blocked=recipe');
    const filtered = [...(await groups(commitsTree)).values()];
    assert.equal(String(filtered.reduce((n, g) => n + Number(g.count), 0)), recipeCount);
    // A selector with an unknown key is said and changes nothing.
    await vscode.commands.executeCommand('benchTriage.filter', 'nokey=1');
    assert.equal(commitsTree.filter, 'blocked=recipe');
    await vscode.commands.executeCommand('benchTriage.clearFilter');
    await vscode.commands.executeCommand('benchTriage.groupBy', 'fixability');
    await vscode.commands.executeCommand('benchTriage.groupBy', 'agent');
    assert.deepEqual([...(await groups(commitsTree)).keys()].sort(), ['(no agent run)', 'claude_code']);
    await vscode.commands.executeCommand('benchTriage.groupBy', 'category');
    await vscode.commands.executeCommand('benchTriage.filter', 'rope');
    assert.deepEqual([...(await groups(commitsTree)).keys()], ['Model not supported']);
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
    assert.ok(ed.document.uri.path.endsWith('omniperf_results_3way_claude_code/results/docker/3c3c3c3c_result.json'));
    assert.equal(ed.selection.active.line, 0);
    assert.equal(ed.selection.active.character, 101);
    assert.equal(ed.document.getText().charAt(101), ',');
  });

  it('cancels a scan and keeps the previous results', async () => {
    const { store } = await api();
    await store.ensureScanned();
    const before = store
      .entries()
      .map(e => e.entry.commit)
      .sort();
    const uri = vscode.Uri.joinPath(
      vscode.workspace.workspaceFolders![0].uri,
      'omniperf_results_3way_claude_code',
      'results',
      'docker',
      'feedbeef_result.json',
    );
    await vscode.workspace.fs.writeFile(
      uri,
      new TextEncoder().encode(JSON.stringify({ commit_hash: 'feedbeef'.padEnd(40, '0'), status: 'success', throughput_tok_s: 2 })),
    );
    try {
      const scanning = store.rescan();
      assert.equal(store.cancel(), true);
      await scanning;
      // Had the scan finished, the new commit would be listed.
      assert.deepEqual(
        store
          .entries()
          .map(e => e.entry.commit)
          .sort(),
        before,
      );
      assert.equal(store.cancel(), false, 'nothing left to cancel');
    } finally {
      await vscode.workspace.fs.delete(uri);
      // Let the file watcher's own rescan settle before the next test.
      await new Promise(r => setTimeout(r, 1500));
      await store.ensureScanned();
    }
  });

  it('picks up a new result file without a manual rescan', async () => {
    const { commitsTree, store } = await api();
    const root = vscode.workspace.workspaceFolders![0].uri;
    const uri = vscode.Uri.joinPath(root, 'omniperf_results_3way_claude_code', 'results', 'docker', 'abcdef12_result.json');
    const changed = new Promise<void>(resolve => {
      const d = store.onDidChange(() => {
        d.dispose();
        resolve();
      });
    });
    await vscode.workspace.fs.writeFile(
      uri,
      new TextEncoder().encode(JSON.stringify({ commit_hash: 'abcdef12'.padEnd(40, '0'), status: 'success', throughput_tok_s: 1.5 })),
    );
    try {
      await changed;
      const g = await groups(commitsTree);
      assert.equal(g.get('Partial (roles never ran)')?.count, '2');
    } finally {
      await vscode.workspace.fs.delete(uri);
    }
  });
});
