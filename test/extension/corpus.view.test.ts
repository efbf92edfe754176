import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { BenchTriageApi } from '../../src/extension/extension';
import { groupOf } from '../../src/extension/tree/commitsTree';
import type { GroupNode, ProjectNode } from '../../src/extension/tree/commitNodes';

describe('Commits view on the real ISO-Bench data', () => {
  it('has one node per project, and in each the same groups and counts as `bench-triage classify` on the same folder', async function () {
    this.timeout(180000);
    const { commitsTree } = await vscode.extensions.getExtension<BenchTriageApi>('bench-triage.bench-triage')!.activate();
    // The default grouping; nothing is written into the shared data folder (no workspace settings).
    assert.equal(commitsTree.groupBy, 'category');
    const roots = await commitsTree.getChildren();
    const projects = roots.filter((n): n is ProjectNode => n.kind === 'project');
    assert.deepEqual(
      projects.map(n => n.project),
      ['sglang', 'vllm'],
    );
    const groups = (await Promise.all(projects.map(p => commitsTree.getChildren(p)))).flat();
    const view = new Map<string, number>();
    for (const n of groups)
      if (n.kind === 'group') {
        const g = n as GroupNode;
        view.set(`${g.project}/${g.key}`, g.entries.length);
      }
    const folder = vscode.workspace.workspaceFolders![0].uri.fsPath;
    const cli = JSON.parse(
      execFileSync(process.execPath, [path.resolve(__dirname, '../../dist/cli.js'), 'classify', folder, '--json'], {
        encoding: 'utf8',
        maxBuffer: 256 * 1024 * 1024,
      }),
    );
    const expected = new Map<string, number>();
    for (const e of cli) {
      const k = `${e.project}/${groupOf(e, 'category').key}`;
      expected.set(k, (expected.get(k) ?? 0) + 1);
    }
    assert.ok(expected.size > 10, `${expected.size} categories`);
    assert.deepEqual([...view.entries()].sort(), [...expected.entries()].sort());
    const labels = groups
      .filter((n): n is GroupNode => n.kind === 'group')
      .map(n => `${n.project}/${commitsTree.getTreeItem(n).label}: ${commitsTree.getTreeItem(n).description}`);
    console.log(`[bt-test]   groups: ${labels.join(', ')}`);
  });
});
