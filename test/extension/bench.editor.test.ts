// Not a test: the editor benchmark (bench/editor.mjs runs it in a real VS Code). Writes its
// figures to $BENCH_TRIAGE_BENCH_OUT: activation, first tree (scan + classify + root items),
// the root items alone, and for a large log the first screen and Go to First Error.
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
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
    // A finished run: its result.json reaches the store as the runner's notice does, then the tree is read again.
    const root = vscode.workspace.workspaceFolders![0].uri.fsPath;
    const runs = path.join(root, '.bench-triage/runs');
    if (existsSync(runs)) {
      const target = a.store.entries()[Math.floor(a.store.entries().length / 2)].entry;
      const dir = path.join(runs, target.commit.slice(0, 8), 'human', 'r-bench-finished');
      mkdirSync(dir, { recursive: true });
      const file = path.join(dir, 'result.json');
      writeFileSync(
        file,
        JSON.stringify({
          schema: 'bench-triage.run/v1',
          commit: target.commit,
          role: 'human',
          status: 'succeeded',
          error: null,
          metrics: { request_throughput_req_s: 99, ttft_mean_ms: 12 },
          model: 'facebook/opt-125m',
          startedAt: new Date().toISOString(),
          durationS: 60,
        }),
      );
      t = performance.now();
      await a.store.update([vscode.Uri.file(file)]);
      const after = await a.commitsTree.getChildren();
      after.slice(0, 50).forEach(n => a.commitsTree.getTreeItem(n));
      out.finishedRunToTreeMs = performance.now() - t;
      rmSync(dir, { recursive: true, force: true });
    }
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
