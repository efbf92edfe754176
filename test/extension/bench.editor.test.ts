// Not a test: the editor benchmark (bench/editor.mjs runs it in a real VS Code). Writes its
// figures to $BENCH_TRIAGE_BENCH_OUT: activation, first tree (scan + classify + root items),
// the root items alone, and for a large log the first screen and Go to First Error.
import { existsSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { api } from './support/api';

describe('bench: editor', function () {
  this.timeout(600_000);
  it('measures', async () => {
    const out: Record<string, number> = {};
    const a = await api();
    out.activationMs = a.activationMs;
    let t = performance.now();
    await vscode.commands.executeCommand('benchTriage.commits.focus');
    await a.store.ensureScanned();
    const roots = await a.commitsTree.getChildren();
    roots.slice(0, 50).forEach(n => a.commitsTree.getTreeItem(n));
    out.firstTreeMs = performance.now() - t;
    t = performance.now();
    const again = await a.commitsTree.getChildren();
    for (const g of again.slice(0, 3)) (await a.commitsTree.getChildren(g)).slice(0, 50).forEach(n => a.commitsTree.getTreeItem(n));
    out.treeOnlyMs = performance.now() - t;
    out.entries = a.store.entries().length;
    const big = path.join(vscode.workspace.workspaceFolders![0].uri.fsPath, 'logs/big.vllm.log');
    if (existsSync(big)) {
      t = performance.now();
      await vscode.commands.executeCommand('benchTriage.openLogFile', vscode.Uri.file(big));
      out.bigLogFirstScreenMs = performance.now() - t;
      t = performance.now();
      out.bigLogErrorLine = (await vscode.commands.executeCommand<number>('benchTriage.goToFirstErrorInFile', vscode.Uri.file(big))) ?? -1;
      out.bigLogFirstErrorMs = performance.now() - t;
    }
    writeFileSync(process.env.BENCH_TRIAGE_BENCH_OUT!, JSON.stringify(out));
  });
});
