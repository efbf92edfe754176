import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';

describe('Logs in the editor', () => {
  it('gives run logs the vllm-log language, phase folding, an outline and Go to First Error', async () => {
    await vscode.extensions.getExtension('bench-triage.bench-triage')!.activate();
    const uri = vscode.Uri.joinPath(vscode.workspace.workspaceFolders![0].uri, 'omniperf_results_v2/vllm/1a2b3c4d/stdout.txt');
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc);
    assert.equal(doc.languageId, 'vllm-log');
    const symbols = await vscode.commands.executeCommand<vscode.DocumentSymbol[]>('vscode.executeDocumentSymbolProvider', uri);
    assert.deepEqual(
      symbols.map(s => `${s.name}@${s.range.start.line + 1}-${s.range.end.line + 1}`),
      ['human server@1-3', 'benchmark (server ready after 42s)@4-4', 'human serving benchmark@5-11', 'agent serving benchmark@12-18'],
    );
    assert.deepEqual(
      symbols[2].children.map(c => c.name),
      ['benchmark result'],
    );
    assert.deepEqual(
      symbols[3].children.map(c => c.name),
      ['ValueError: Unknown RoPE scaling type llama3'],
    );
    const folds = await vscode.commands.executeCommand<vscode.FoldingRange[]>('vscode.executeFoldingRangeProvider', uri);
    assert.ok(
      folds.some(f => f.start === 4 && f.end === 10),
      JSON.stringify(folds),
    );
    await vscode.commands.executeCommand('benchTriage.goToFirstError');
    const ed = vscode.window.activeTextEditor!;
    assert.equal(ed.selection.start.line, 13, 'the traceback line, not the echoed "Fixing …" line');
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });
});
