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

function toEnd(ed: vscode.TextEditor): void {
  const key = ed.document.uri.toString();
  const end = endOf(ed.document);
  const st = states.get(key);
  if (!st) return;
  // `ed.selection` is what this host last set or heard; where it is already the end, the caret is left alone.
  const { state, move } = toTail(st, end, { caret: ed.selection.active, empty: ed.selection.isEmpty });
  states.set(key, state);
  if (move) ed.selection = new vscode.Selection(end, end);
  ed.revealRange(new vscode.Range(end, end), vscode.TextEditorRevealType.Default);
}

const sourceOf = (kind: vscode.TextEditorSelectionChangeKind | undefined): MoveSource =>
  kind === vscode.TextEditorSelectionChangeKind.Command ? 'api' : kind === undefined ? 'other' : 'user';

export function follow(ed: vscode.TextEditor): void {
  states.set(ed.document.uri.toString(), startFollowing());
  subscriptions ??= [
    vscode.workspace.onDidChangeTextDocument(e => {
      if (!states.get(e.document.uri.toString())?.following || !e.contentChanges.length) return;
      for (const ed of vscode.window.visibleTextEditors) if (ed.document === e.document) toEnd(ed);
    }),
    vscode.window.onDidChangeTextEditorSelection(e => {
      const key = e.textEditor.document.uri.toString();
      const st = states.get(key);
      if (!st) return;
      const sel = e.selections[0];
      const { state, restore, reveal } = selectionChanged(
        st,
        { caret: sel.active, empty: sel.isEmpty, source: sourceOf(e.kind), selection: sel },
        e.textEditor.document.lineCount,
      );
      states.set(key, state);
      if (restore) {
        e.textEditor.selection = restore;
        e.textEditor.revealRange(restore, vscode.TextEditorRevealType.Default);
      } else if (reveal) {
        const at = new vscode.Position(reveal.line, reveal.character);
        e.textEditor.revealRange(new vscode.Range(at, at), vscode.TextEditorRevealType.Default);
      }
    }),
    vscode.workspace.onDidCloseTextDocument(d => states.delete(d.uri.toString())),
  ];
  toEnd(ed);
}

export function disposeFollow(): void {
  for (const s of subscriptions ?? []) s.dispose();
  subscriptions = null;
  states.clear();
}
