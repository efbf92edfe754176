import * as vscode from 'vscode';
import { Store } from './store';
import { CommitsTree } from './commitsTree';

export interface BenchTriageApi { store: Store; commitsTree: CommitsTree }

/** Registers everything synchronously; no file is read until the view or a command asks. */
export function activate(context: vscode.ExtensionContext): BenchTriageApi {
  const store = new Store();
  const commitsTree = new CommitsTree(store);
  const view = vscode.window.createTreeView('benchTriage.commits', { treeDataProvider: commitsTree, showCollapseAll: true });
  context.subscriptions.push(store, commitsTree, view);

  context.subscriptions.push(
    vscode.commands.registerCommand('benchTriage.refresh', () => store.rescan()),
    vscode.commands.registerCommand('benchTriage.openFile', async (uri: vscode.Uri, at?: { line: number; column: number }) => {
      const doc = await vscode.workspace.openTextDocument(uri);
      const pos = at ? new vscode.Position(Math.max(0, at.line - 1), Math.max(0, at.column - 1)) : undefined;
      await vscode.window.showTextDocument(doc, { preview: true, selection: pos ? new vscode.Range(pos, pos) : undefined });
    }),
  );

  // New or changed result files show up without a manual rescan.
  const watcher = vscode.workspace.createFileSystemWatcher('**/*.{json,jsonl,diff}');
  let timer: NodeJS.Timeout | undefined;
  const later = () => { if (!store.scanned) return; clearTimeout(timer); timer = setTimeout(() => void store.rescan(), 1000); };
  context.subscriptions.push(watcher, watcher.onDidCreate(later), watcher.onDidChange(later), watcher.onDidDelete(later),
    vscode.workspace.onDidChangeWorkspaceFolders(later), { dispose: () => clearTimeout(timer) });

  return { store, commitsTree };
}

export function deactivate(): void { /* disposables do the work */ }
