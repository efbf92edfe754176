import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { api } from './support/api';

const ISOBENCH = path.resolve(__dirname, '../../../shared/isobench');
const DATASET = vscode.Uri.file(path.join(ISOBENCH, 'hf_cache/alpha-vllm-99-commits/combined_vllm_pr_dataset.filled.jsonl'));

function diagnosticsFor(uri: vscode.Uri, pred: (d: vscode.Diagnostic[]) => boolean, timeoutMs = 20000): Promise<vscode.Diagnostic[]> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const d = vscode.languages.getDiagnostics(uri).filter(x => x.source === 'bench-triage');
      if (pred(d)) {
        sub.dispose();
        clearTimeout(t);
        resolve(d);
        return true;
      }
      return false;
    };
    const sub = vscode.languages.onDidChangeDiagnostics(e => {
      if (e.uris.some(u => u.toString() === uri.toString())) check();
    });
    const t = setTimeout(() => {
      sub.dispose();
      reject(new Error(`no matching diagnostics for ${uri.fsPath} within ${timeoutMs} ms`));
    }, timeoutMs);
    check();
  });
}

/** Independent count over the file. */
function counts(text: string) {
  let placeholders = 0,
    without = 0;
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const r = JSON.parse(line);
    if (typeof r.perf_command !== 'string' || !r.perf_command) without++;
    else placeholders += (r.perf_command.match(/--[\w-]+[ =]([A-Z][A-Z0-9_]+)(?=\s|$)/g) ?? []).length;
  }
  return { placeholders, without };
}

describe('Language server in VS Code', () => {
  it('shows the dataset diagnostics in the Problems view, and a quick fix leaves valid JSONL', async () => {
    await api();
    const doc = await vscode.workspace.openTextDocument(DATASET);
    await vscode.window.showTextDocument(doc);
    const expected = counts(doc.getText());
    const diags = await diagnosticsFor(DATASET, d => d.some(x => x.code === 'placeholder'));
    assert.equal(diags.filter(d => d.code === 'placeholder').length, expected.placeholders);
    assert.equal(diags.filter(d => d.code === 'no-perf-command' && d.severity === vscode.DiagnosticSeverity.Information).length, expected.without);
    const target = diags.find(d => d.code === 'placeholder')!;
    assert.match(doc.getText(target.range), /^[A-Z][A-Z0-9_]+$/);
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>(
      'vscode.executeCodeActionProvider',
      DATASET,
      target.range,
      vscode.CodeActionKind.QuickFix.value,
    );
    const fix = actions.find(a => a.edit && /^Replace /.test(a.title));
    assert.ok(fix, `a quick fix among: ${actions.map(a => a.title).join(' | ')}`);
    try {
      assert.ok(await vscode.workspace.applyEdit(fix.edit!));
      for (const line of doc.getText().split('\n')) if (line.trim()) JSON.parse(line);
      await diagnosticsFor(DATASET, d => d.filter(x => x.code === 'placeholder').length === expected.placeholders - 1);
    } finally {
      // Never write to the shared data: drop the in-memory edit.
      await vscode.commands.executeCommand('workbench.action.files.revert');
      await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    }
  });

  it('restarts a dead server once and says so', async () => {
    const { languageClient } = await api();
    const pid = await languageClient.client.sendRequest<number>('benchTriage/pid');
    process.kill(pid, 'SIGKILL');
    const deadline = Date.now() + 30000;
    let next = pid;
    while (Date.now() < deadline) {
      await new Promise(r => setTimeout(r, 300));
      try {
        next = await languageClient.client.sendRequest<number>('benchTriage/pid');
        if (next !== pid) break;
      } catch {
        /* restarting */
      }
    }
    assert.notEqual(next, pid, 'a new server process answers');
    assert.equal(languageClient.restarts, 1);
  });
});
