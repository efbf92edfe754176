import * as vscode from 'vscode';

/**
 * `tail -f` for the live documents (a run's transcript, a build's log): while the caret stays at
 * the end, new lines move it along and scroll into view; a click or a key elsewhere stops
 * following, and going back to the end starts it again.
 */
const following = new Map<string, boolean>();
let subscriptions: vscode.Disposable[] | null = null;

const endOf = (doc: vscode.TextDocument) => doc.lineAt(doc.lineCount - 1).range.end;

function toEnd(ed: vscode.TextEditor): void {
  const end = endOf(ed.document);
  ed.selection = new vscode.Selection(end, end);
  ed.revealRange(new vscode.Range(end, end), vscode.TextEditorRevealType.Default);
}

export function follow(ed: vscode.TextEditor): void {
  following.set(ed.document.uri.toString(), true);
  subscriptions ??= [
    vscode.workspace.onDidChangeTextDocument(e => {
      if (!following.get(e.document.uri.toString()) || !e.contentChanges.length) return;
      for (const ed of vscode.window.visibleTextEditors) if (ed.document === e.document) toEnd(ed);
    }),
    vscode.window.onDidChangeTextEditorSelection(e => {
      const key = e.textEditor.document.uri.toString();
      if (!following.has(key) || e.kind === undefined || e.kind === vscode.TextEditorSelectionChangeKind.Command) return;
      following.set(key, e.selections[0].active.line >= e.textEditor.document.lineCount - 1);
    }),
    vscode.workspace.onDidCloseTextDocument(d => following.delete(d.uri.toString())),
  ];
  toEnd(ed);
}

export function disposeFollow(): void {
  for (const s of subscriptions ?? []) s.dispose();
  subscriptions = null;
  following.clear();
}
