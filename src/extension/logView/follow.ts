import * as vscode from 'vscode';
import { selectionChanged, startFollowing, toTail, type FollowState, type MoveSource } from '../../app/tailFollow';

/**
 * `tail -f` for the live documents (a run's transcript, a build's log): while the caret stays at
 * the end, new lines move it along and scroll into view; a click, a key or a command elsewhere
 * stops following, and going back to the end starts it again (app/tailFollow).
 */
const states = new Map<string, FollowState<vscode.Selection>>();
let subscriptions: vscode.Disposable[] | null = null;

const endOf = (doc: vscode.TextDocument) => doc.lineAt(doc.lineCount - 1).range.end;

/** Every editor showing the document goes to its end, unless a move there is on its way (with its scroll). */
function toEnd(doc: vscode.TextDocument): void {
  const key = doc.uri.toString();
  const st = states.get(key);
  const editors = vscode.window.visibleTextEditors.filter(ed => ed.document === doc);
  if (!st || !editors.length) return;
  const end = endOf(doc);
  const { state, move } = toTail(st, end, editors.length);
  states.set(key, state);
  if (!move) return;
  for (const ed of editors) {
    ed.selection = new vscode.Selection(end, end);
    ed.revealRange(new vscode.Range(end, end), vscode.TextEditorRevealType.Default);
  }
}

const sourceOf = (kind: vscode.TextEditorSelectionChangeKind | undefined): MoveSource =>
  kind === vscode.TextEditorSelectionChangeKind.Command ? 'api' : kind === undefined ? 'other' : 'user';

export function follow(ed: vscode.TextEditor): void {
  states.set(ed.document.uri.toString(), startFollowing());
  subscriptions ??= [
    vscode.workspace.onDidChangeTextDocument(e => {
      if (!states.get(e.document.uri.toString())?.following || !e.contentChanges.length) return;
      toEnd(e.document);
    }),
    vscode.window.onDidChangeTextEditorSelection(e => {
      const key = e.textEditor.document.uri.toString();
      const st = states.get(key);
      if (!st) return;
      const sel = e.selections[0];
      const { state, restore, again } = selectionChanged(st, { caret: sel.active, source: sourceOf(e.kind), selection: sel }, endOf(e.textEditor.document));
      states.set(key, state);
      if (restore) {
        e.textEditor.selection = restore;
        e.textEditor.revealRange(restore, vscode.TextEditorRevealType.Default);
      } else if (again) toEnd(e.textEditor.document);
    }),
    vscode.workspace.onDidCloseTextDocument(d => states.delete(d.uri.toString())),
  ];
  toEnd(ed.document);
}

export function disposeFollow(): void {
  for (const s of subscriptions ?? []) s.dispose();
  subscriptions = null;
  states.clear();
}
