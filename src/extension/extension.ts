import * as vscode from 'vscode';
import { Store } from './store';
import { CommitsTree } from './tree/commitsTree';
import { RunsTree } from './tree/runsTree';
import { EmbeddedLogFs } from './fileSystems/embeddedLogFs';
import { LiveLogFs } from './fileSystems/liveLogFs';
import { disposeFollow } from './logView/follow';
import { RunTranscriptFs } from './fileSystems/runTranscriptFs';
import { LogFolding, LogSymbols } from './logView/logLanguage';
import { TriageLanguageClient } from './languageClient';
import { DiffDocuments } from './patchDiff';
import { RunService } from './runService';
import { releaseSwarmSlots } from '../app/runs';
import { CODELENS_SELECTOR, PerfCodeLens } from './codeLens';
import { Webviews } from './webviews';
import { SCHEMES } from './uris';
import { COMMANDS } from './commands/ids';
import { registerViewCommands } from './commands/view';
import { registerOpenCommands } from './commands/open';
import { registerRunCommands } from './commands/run';
import { registerCompareCommands } from './commands/compare';
import { registerNoteCommands } from './commands/notes';
import { registerRuleCommands } from './commands/rules';
import { registerLabelCommands } from './commands/labels';
import { registerCampaignCommands } from './commands/campaigns';
import { registerAblateCommands } from './commands/ablate';
import { AblationViews } from './ablationView';
import { CampaignService } from './campaignService';
import { BuildService } from './buildService';
import { registerBuildCommands } from './commands/build';
import { UnclassifiedLens } from './unclassifiedLens';
import { registerSecretCommands } from './commands/secrets';
import { configuredHosts } from './settings';
import { hostKind, type HostConfig } from '../core/run/hosts';
import { swarmStatus } from '../app/swarm';

export interface BenchTriageApi {
  activationMs: number;
  store: Store;
  commitsTree: CommitsTree;
  languageClient: TriageLanguageClient;
  runs: RunService;
  webviews: Webviews;
  ablations: AblationViews;
  runsTreeForTests: RunsTree;
}

/** Registers everything synchronously; no file is read until the view or a command asks. */
export function activate(context: vscode.ExtensionContext): BenchTriageApi {
  const t0 = performance.now();
  // The persistent index lives in the extension's storage for this workspace.
  const store = new Store(context.storageUri ?? context.globalStorageUri);
  const commitsTree = new CommitsTree(store);
  // Several commits can be selected (Ctrl/Cmd-click) and run as one campaign.
  const view = vscode.window.createTreeView('benchTriage.commits', { treeDataProvider: commitsTree, showCollapseAll: true, canSelectMany: true });
  context.subscriptions.push(store, commitsTree, view);

  // Read-only documents: embedded logs, live run logs, run transcripts, diff sides.
  const readonly = { isReadonly: true, isCaseSensitive: true };
  const diffDocs = new DiffDocuments();
  const generatedDocs = new DiffDocuments();
  context.subscriptions.push(
    vscode.workspace.registerTextDocumentContentProvider(SCHEMES.generated, generatedDocs),
    vscode.workspace.registerFileSystemProvider(SCHEMES.embeddedLog, new EmbeddedLogFs(), readonly),
    vscode.workspace.registerFileSystemProvider(SCHEMES.liveLog, new LiveLogFs(), readonly),
    vscode.workspace.registerFileSystemProvider(SCHEMES.runTranscript, new RunTranscriptFs(), readonly),
    vscode.workspace.registerTextDocumentContentProvider(SCHEMES.diff, diffDocs),
    vscode.languages.registerFoldingRangeProvider({ language: 'vllm-log' }, new LogFolding()),
    vscode.languages.registerDocumentSymbolProvider({ language: 'vllm-log' }, new LogSymbols(), { label: 'Bench Triage log' }),
  );

  // Badge: failures waiting for triage; description: the active filter.
  const decorate = () => {
    const n = commitsTree.failureCount();
    view.badge = n ? { value: n, tooltip: `${n} failed commit${n === 1 ? '' : 's'} to triage` } : undefined;
    view.description = commitsTree.filter ? `filter: ${commitsTree.filter}` : undefined;
  };
  context.subscriptions.push(store.onDidChange(decorate));
  const savedFilter = context.workspaceState.get<unknown>('benchTriage.filter', '');
  commitsTree.setFilter(typeof savedFilter === 'string' ? savedFilter : '');

  // The language server starts with the first document it can check, not at activation.
  const languageClient = new TriageLanguageClient(context);
  context.subscriptions.push(languageClient);
  const wantsServer = (d: vscode.TextDocument) =>
    d.uri.scheme === 'file' && (['jsonl', 'json', 'markdown'].includes(d.languageId) || d.uri.path.endsWith('.jsonl'));
  const maybeStart = (d: vscode.TextDocument) => {
    if (wantsServer(d))
      void languageClient
        .start()
        .catch(e => vscode.window.showErrorMessage(`Bench Triage: language server failed to start: ${e instanceof Error ? e.message : e}`));
  };
  context.subscriptions.push(vscode.workspace.onDidOpenTextDocument(maybeStart));
  for (const d of vscode.workspace.textDocuments) maybeStart(d);

  // New, changed and deleted result files update their own commits (no rescan); rules and settings re-triage.
  const watcher = vscode.workspace.createFileSystemWatcher('**/*.{json,jsonl,diff,txt,csv}');
  const pending = new Map<string, vscode.Uri>();
  let timer: NodeJS.Timeout | undefined;
  const changed = (uri: vscode.Uri) => {
    // Settings and tool folders change for reasons of their own (a group-by writes settings.json).
    if (!store.scanned || /\/(\.vscode|\.git|node_modules)\//.test(uri.path)) return;
    if (/\/\.bench-triage\/(?:rules|labels)\.json$/.test(uri.path)) {
      void store.resettle();
      return;
    }
    pending.set(uri.toString(), uri);
    clearTimeout(timer);
    timer = setTimeout(() => {
      const uris = [...pending.values()];
      pending.clear();
      void store.update(uris);
    }, 300);
  };
  context.subscriptions.push(
    watcher,
    watcher.onDidCreate(changed),
    watcher.onDidChange(changed),
    watcher.onDidDelete(changed),
    vscode.workspace.onDidChangeWorkspaceFolders(() => {
      if (store.scanned) void store.rescan();
    }),
    { dispose: () => clearTimeout(timer) },
    vscode.workspace.onDidChangeConfiguration(e => {
      if (
        store.scanned &&
        (e.affectsConfiguration('benchTriage.tieBand') ||
          e.affectsConfiguration('benchTriage.primaryMetric') ||
          e.affectsConfiguration('benchTriage.allowFailedRequests'))
      )
        void store.resettle();
    }),
  );

  // Runs: the Runs view (history from disk), a status-bar item while something runs, re-attachment after a reload.
  const runs = new RunService(context.secrets, store);
  const builds = new BuildService(store);
  const campaigns = new CampaignService(runs, builds);
  // On shutdown both stop in the same tick: a campaign's build ends cancelled while its campaign is stopping, so it goes back to the queue.
  context.subscriptions.push(builds, campaigns);
  // Every swarm host of the workspace's settings gets a section: its nodes, GPUs and runs.
  const swarmHosts = () => {
    const seen = new Map<string, HostConfig>();
    for (const f of vscode.workspace.workspaceFolders ?? [])
      for (const h of configuredHosts(f.uri)) if (hostKind(h) === 'swarm' && !seen.has(h.label)) seen.set(h.label, h);
    return [...seen.values()];
  };
  const runsTree = new RunsTree(runs, campaigns, builds, { hosts: swarmHosts, status: swarmStatus });
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration(
      e => (e.affectsConfiguration('benchTriage.hosts') || e.affectsConfiguration('benchTriage.registry')) && runsTree.refresh(),
    ),
  );
  const runsView = vscode.window.createTreeView('benchTriage.runs', { treeDataProvider: runsTree });
  const status = vscode.window.createStatusBarItem('benchTriage.runs', vscode.StatusBarAlignment.Left, 10);
  status.name = 'Bench Triage runs';
  status.command = 'benchTriage.runs.focus';
  const updateStatus = () => {
    const active = runs.active();
    const building = builds.builds.active();
    if (!active.length && !building.length) {
      status.hide();
      return;
    }
    const parts = [
      active.length ? `${active.length} run${active.length === 1 ? '' : 's'}` : '',
      building.length ? `${building.length} build${building.length === 1 ? '' : 's'}` : '',
    ].filter(Boolean);
    status.text = `$(sync~spin) ${parts.join(' · ')}`;
    status.tooltip = [
      ...active.map(r => `${r.record.commit.slice(0, 8)} ${r.record.role} on ${r.host.label}: ${r.record.status}`),
      ...building.map(b => `${b.record.tag} on ${b.host.label}: ${b.record.status}${b.record.step ? ` (Step ${b.record.step.n}/${b.record.step.total})` : ''}`),
    ].join('\n');
    status.accessibilityInformation = { label: `Bench Triage: ${parts.join(', ')} active` };
    status.show();
  };
  context.subscriptions.push(runs, runsTree, runsView, status, runs.onDidChange(updateStatus), builds.onDidChange(updateStatus));
  // Runs a previous window left on a host are picked up again (trusted workspaces only).
  const reattach = setTimeout(() => void runs.reattach((vscode.workspace.workspaceFolders ?? []).map(f => f.uri)), 1000);
  context.subscriptions.push({ dispose: () => clearTimeout(reattach) });

  const webviews = new Webviews(context.extensionUri, store, (commit, agent, n) => vscode.commands.executeCommand(COMMANDS.runMore, commit, agent, n));
  const lenses = new PerfCodeLens(store);
  context.subscriptions.push(webviews, lenses, vscode.languages.registerCodeLensProvider(CODELENS_SELECTOR, lenses));
  const unclassified = new UnclassifiedLens(store);
  context.subscriptions.push(
    unclassified,
    vscode.languages.registerCodeLensProvider([{ language: 'vllm-log' }, { scheme: 'file', pattern: '**/*.log' }], unclassified),
  );

  registerViewCommands(context, store, commitsTree, webviews, decorate);
  registerOpenCommands(context);
  registerRunCommands(context, store, runs, () => void vscode.commands.executeCommand('benchTriage.runs.focus'), generatedDocs);
  registerCompareCommands(context, store, webviews, diffDocs);
  registerNoteCommands(context, store);
  registerRuleCommands(context);
  registerLabelCommands(context, store);
  registerCampaignCommands(context, store, campaigns);
  const ablations = new AblationViews(context.extensionUri, store, generatedDocs);
  context.subscriptions.push(ablations);
  registerAblateCommands(context, store, campaigns, ablations);
  registerBuildCommands(context, store, builds, campaigns, () => void vscode.commands.executeCommand('benchTriage.runs.focus'));
  registerSecretCommands(context);

  return { activationMs: performance.now() - t0, store, commitsTree, languageClient, runs, webviews, ablations, runsTreeForTests: runsTree };
}

export function deactivate(): Promise<void> {
  // Disposables do the rest; the followers of live documents are module state.
  disposeFollow();
  // A swarm's GPU slots held by this window go back at once, not when their holders notice.
  return releaseSwarmSlots().catch(() => undefined);
}
