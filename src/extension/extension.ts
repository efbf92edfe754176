import * as vscode from 'vscode';
import { Store } from './store';
import { CommitsTree, GROUP_BY } from './commitsTree';
import { EmbeddedLogFs, LOG_SCHEME } from './logFs';
import { LiveLogFs, RUN_LOG_SCHEME } from './liveLogFs';
import { TriageLanguageClient } from './languageClient';
import { LogFolding, LogSymbols, goToFirstError } from './logLanguage';
import { DIFF_SCHEME, DiffDocuments, diffAgentVsHuman } from './patchDiff';
import type { Node } from './commitsTree';
import { RunService } from './runService';
import { RunsTree } from './runsTree';
import { registerRunCommands } from './runCommands';
import { CODELENS_SELECTOR, PerfCodeLens } from './codeLens';
import { Webviews } from './webviews';

export interface BenchTriageApi { activationMs: number; store: Store; commitsTree: CommitsTree; languageClient: TriageLanguageClient; runs: RunService; webviews: Webviews; runsTreeForTests: RunsTree }

/** Registers everything synchronously; no file is read until the view or a command asks. */
export function activate(context: vscode.ExtensionContext): BenchTriageApi {
  const t0 = performance.now();
  const store = new Store();
  const commitsTree = new CommitsTree(store);
  const view = vscode.window.createTreeView('benchTriage.commits', { treeDataProvider: commitsTree, showCollapseAll: true });
  context.subscriptions.push(store, commitsTree, view);
  context.subscriptions.push(vscode.workspace.registerFileSystemProvider(LOG_SCHEME, new EmbeddedLogFs(), { isReadonly: true, isCaseSensitive: true }));
  context.subscriptions.push(vscode.workspace.registerFileSystemProvider(RUN_LOG_SCHEME, new LiveLogFs(), { isReadonly: true, isCaseSensitive: true }));
  const logSelector: vscode.DocumentSelector = { language: 'vllm-log' };
  const diffDocs = new DiffDocuments();
  context.subscriptions.push(
    vscode.languages.registerFoldingRangeProvider(logSelector, new LogFolding()),
    vscode.languages.registerDocumentSymbolProvider(logSelector, new LogSymbols(), { label: 'Bench Triage log' }),
    vscode.workspace.registerTextDocumentContentProvider(DIFF_SCHEME, diffDocs),
    vscode.commands.registerCommand('benchTriage.diffAgentVsHuman', async (arg?: Node | string) => {
      const target = typeof arg === 'string' ? { commit: arg, agent: null } : arg && 'entry' in arg ? { commit: arg.entry.commit, agent: arg.entry.agent } : null;
      if (!target) { void vscode.window.showInformationMessage('Bench Triage: pick a commit in the Commits view.'); return; }
      await store.ensureScanned();
      return diffAgentVsHuman(store, diffDocs, target.commit, target.agent);
    }),
    vscode.commands.registerCommand('benchTriage.goToFirstError', (line?: number) => goToFirstError(typeof line === 'number' ? line : undefined)),
  );

  // Badge: failures waiting for triage; description: the active filter.
  const decorate = () => {
    const n = commitsTree.failureCount();
    view.badge = n ? { value: n, tooltip: `${n} failed commit${n === 1 ? '' : 's'} to triage` } : undefined;
    view.description = commitsTree.filter ? `filter: ${commitsTree.filter}` : undefined;
  };
  context.subscriptions.push(store.onDidChange(decorate));
  commitsTree.filter = context.workspaceState.get<string>('benchTriage.filter', '');

  context.subscriptions.push(
    vscode.commands.registerCommand('benchTriage.refresh', () => store.rescan()),
    vscode.commands.registerCommand('benchTriage.cancelScan', () => {
      if (store.cancel()) void vscode.window.showInformationMessage('Bench Triage: scan cancelled; the view keeps the previous results.');
    }),
    vscode.commands.registerCommand('benchTriage.groupBy', async (choice?: string) => {
      const pick = choice ?? (await vscode.window.showQuickPick([...GROUP_BY], { title: 'Group commits by', placeHolder: commitsTree.groupBy }));
      if (pick) await vscode.workspace.getConfiguration('benchTriage').update('groupBy', pick, vscode.ConfigurationTarget.Workspace);
    }),
    vscode.commands.registerCommand('benchTriage.filter', async (value?: string) => {
      const f = value ?? (await vscode.window.showInputBox({ title: 'Filter commits', prompt: 'Commit, subject, model, agent, category or cause', value: commitsTree.filter }));
      if (f === undefined) return;
      commitsTree.setFilter(f);
      await context.workspaceState.update('benchTriage.filter', commitsTree.filter);
      decorate();
    }),
    vscode.commands.registerCommand('benchTriage.clearFilter', async () => {
      commitsTree.setFilter('');
      await context.workspaceState.update('benchTriage.filter', '');
      decorate();
    }),
    vscode.commands.registerCommand('benchTriage.openFile', async (uri: vscode.Uri, at?: { line: number; column: number }) => {
      const doc = await vscode.workspace.openTextDocument(uri);
      const pos = at ? new vscode.Position(Math.max(0, at.line - 1), Math.max(0, at.column - 1)) : undefined;
      // An evidence line is selected whole; a parser position is a caret.
      const range = pos && at!.column <= 1 && at!.line <= doc.lineCount ? doc.lineAt(pos.line).range : pos ? new vscode.Range(pos, pos) : undefined;
      await vscode.window.showTextDocument(doc, { preview: true, selection: range });
    }),
  );

  // The language server starts with the first document it can check, not at activation.
  const languageClient = new TriageLanguageClient(context);
  context.subscriptions.push(languageClient);
  const wantsServer = (d: vscode.TextDocument) => d.uri.scheme === 'file' && (['jsonl', 'json', 'markdown'].includes(d.languageId) || d.uri.path.endsWith('.jsonl'));
  const maybeStart = (d: vscode.TextDocument) => { if (wantsServer(d)) void languageClient.start().catch(e => vscode.window.showErrorMessage(`Bench Triage: language server failed to start: ${e instanceof Error ? e.message : e}`)); };
  context.subscriptions.push(vscode.workspace.onDidOpenTextDocument(maybeStart));
  for (const d of vscode.workspace.textDocuments) maybeStart(d);

  // New or changed result files show up without a manual rescan.
  const watcher = vscode.workspace.createFileSystemWatcher('**/*.{json,jsonl,diff}');
  let timer: NodeJS.Timeout | undefined;
  const later = (uri?: vscode.Uri) => {
    // Settings and tool folders change for reasons of their own (a group-by writes settings.json).
    if (!store.scanned || (uri && /\/(\.vscode|\.git|node_modules)\//.test(uri.path))) return;
    clearTimeout(timer);
    timer = setTimeout(() => void store.rescan(), 1000);
  };
  context.subscriptions.push(watcher, watcher.onDidCreate(later), watcher.onDidChange(later), watcher.onDidDelete(later),
    vscode.workspace.onDidChangeWorkspaceFolders(() => later()), { dispose: () => clearTimeout(timer) },
    // Verdicts depend on the tie band and the headline metric chosen.
    vscode.workspace.onDidChangeConfiguration(e => { if (store.scanned && (e.affectsConfiguration('benchTriage.tieBand') || e.affectsConfiguration('benchTriage.primaryMetric'))) void store.rescan(); }));

  // Runs: the Runs view, a status-bar item while something runs, and re-attachment after a reload.
  const runs = new RunService(context.secrets);
  const runsTree = new RunsTree(runs);
  const runsView = vscode.window.createTreeView('benchTriage.runs', { treeDataProvider: runsTree });
  const status = vscode.window.createStatusBarItem('benchTriage.runs', vscode.StatusBarAlignment.Left, 10);
  status.name = 'Bench Triage runs';
  status.command = 'benchTriage.runs.focus';
  const updateStatus = () => {
    const active = runs.active();
    if (!active.length) { status.hide(); return; }
    status.text = `$(sync~spin) ${active.length} run${active.length === 1 ? '' : 's'}`;
    status.tooltip = active.map(r => `${r.record.commit.slice(0, 8)} ${r.record.role} on ${r.host.label}: ${r.record.status}`).join('\n');
    status.accessibilityInformation = { label: `Bench Triage: ${active.length} benchmark runs active` };
    status.show();
  };
  context.subscriptions.push(runs, runsTree, runsView, status, runs.onDidChange(updateStatus));
  registerRunCommands(context, store, runs, () => void vscode.commands.executeCommand('benchTriage.runs.focus'));
  // Runs a previous window left on a host are picked up again (trusted workspaces only).
  const reattach = setTimeout(() => void runs.reattach((vscode.workspace.workspaceFolders ?? []).map(f => f.uri)), 1000);
  context.subscriptions.push({ dispose: () => clearTimeout(reattach) });

  const webviews = new Webviews(context.extensionUri, store, (commit, agent, n) => vscode.commands.executeCommand('benchTriage.runMore', commit, agent, n));
  context.subscriptions.push(webviews,
    vscode.languages.registerCodeLensProvider(CODELENS_SELECTOR, new PerfCodeLens(store)),
    vscode.commands.registerCommand('benchTriage.compare', async (arg?: Node | string) => {
      const t = typeof arg === 'string' ? { commit: arg, agent: null } : arg && 'entry' in arg ? { commit: arg.entry.commit, agent: arg.entry.agent } : null;
      if (!t) { void vscode.window.showInformationMessage('Bench Triage: pick a commit in the Commits view.'); return; }
      return webviews.showComparison(t.commit, t.agent);
    }),
    vscode.commands.registerCommand('benchTriage.dashboard', () => webviews.showDashboard()),
    vscode.commands.registerCommand('benchTriage.exportReport', () => webviews.exportReport()),
  );

  return { activationMs: performance.now() - t0, store, commitsTree, languageClient, runs, webviews, runsTreeForTests: runsTree };
}

export function deactivate(): void { /* disposables do the work */ }
