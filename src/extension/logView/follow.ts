import * as vscode from 'vscode';
import { commanded, selectionChanged, startFollowing, toTail, type FollowState, type MoveSource } from '../../app/tailFollow';

/**
 * `tail -f` for the live documents (a run's transcript, a build's log): while the caret stays at
 * the end, new lines move it along and scroll into view; a click, a key or a command elsewhere
 * stops following, and going back to the end starts it again (app/tailFollow).
 */
/** The user's place is kept with its editor: with a split view, it is given back where it was taken. */
type Place = { readonly editor: vscode.TextEditor; readonly selection: vscode.Selection };
const states = new Map<string, FollowState<Place>>();
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
      const { state, restore, again } = selectionChanged(
        st,
        { caret: sel.active, empty: sel.isEmpty, source: sourceOf(e.kind), selection: { editor: e.textEditor, selection: sel } },
        endOf(e.textEditor.document),
      );
      states.set(key, state);
      if (restore) {
        restore.editor.selection = restore.selection;
        restore.editor.revealRange(restore.selection, vscode.TextEditorRevealType.Default);
      } else if (again) toEnd(e.textEditor.document);
    }),
    // An editor shown again (a tab brought back) catches up with the lines that came while it was hidden.
    vscode.window.onDidChangeVisibleTextEditors(eds => {
      for (const doc of new Set(eds.map(ed => ed.document))) if (states.get(doc.uri.toString())?.following) toEnd(doc);
    }),
    vscode.workspace.onDidCloseTextDocument(d => states.delete(d.uri.toString())),
  ];
  toEnd(ed.document);
}

/**
 * A command's move of the caret (Go to First Error): on a followed document the follower hears of
 * it before it is sent, so that it is never taken for a move of its own nor undone by one.
 */
export function selectInEditor(ed: vscode.TextEditor, selection: vscode.Selection, reveal: vscode.TextEditorRevealType): void {
  const key = ed.document.uri.toString();
  const st = states.get(key);
  if (st) {
    const { state, move } = commanded(st, selection.active, selection.isEmpty, endOf(ed.document));
    states.set(key, state);
    if (!move) return; // the same move is on its way, with its scroll
  }
  ed.selection = selection;
  ed.revealRange(selection, reveal);
}

export function disposeFollow(): void {
  for (const s of subscriptions ?? []) s.dispose();
  subscriptions = null;
  states.clear();
}
