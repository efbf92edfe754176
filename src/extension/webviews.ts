import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { buildReport, renderMarkdown } from '../core/report/report';
import { comparisonData, dashboardData } from '../core/report/viewModels';
import type { ComparisonData, DashboardData, HostToWebview, WebviewToHost } from '../webview/protocol';
import { openEvidence } from './evidence';
import { tieBandSetting } from './settings';
import type { FolderScan, Store } from './store';
import { COMMANDS } from './commands/ids';

const tieBand = (scope: vscode.Uri) => tieBandSetting(scope);

export const COMPARISON_VIEW = 'benchTriage.comparison';
export const DASHBOARD_VIEW = 'benchTriage.dashboard';

/** The page: a nonce CSP (no inline handlers, no remote content); the data goes in by message, never into the HTML. */
export function webviewHtml(webview: vscode.Webview, extensionUri: vscode.Uri, title: string): string {
  const nonce = randomBytes(16).toString('base64');
  const script = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'webview.js'));
  const style = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', 'webview.css'));
  const esc = (s: string) => s.replace(/[&<>"']/g, c => `&#${c.charCodeAt(0)};`);
  return `<!DOCTYPE html><html lang="en"><head><meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src ${webview.cspSource} data:; style-src ${webview.cspSource}; script-src 'nonce-${nonce}'; font-src ${webview.cspSource};">
<meta name="viewport" content="width=device-width, initial-scale=1.0"><link rel="stylesheet" href="${style}"><title>${esc(title)}</title></head>
<body><main id="root" aria-live="polite"><p>Loading…</p></main><script nonce="${nonce}" src="${script}"></script></body></html>`;
}

type Data = ComparisonData | DashboardData;

/** One panel per commit (Comparison) and one Dashboard; restored after a reload by the serializer. */
export class Webviews implements vscode.Disposable {
  private readonly panels = new Map<string, { panel: vscode.WebviewPanel; data: Data }>();
  private readonly subs: vscode.Disposable[] = [];
  /** The Dashboard's "Include incomparable commits" toggle (kept for the window). */
  private includeIncomparable = false;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly store: Store,
    private readonly runMore: (commit: string, agent: string | null, n: number) => Thenable<unknown> = async () => undefined,
  ) {
    for (const view of [COMPARISON_VIEW, DASHBOARD_VIEW])
      this.subs.push(
        vscode.window.registerWebviewPanelSerializer(view, {
          deserializeWebviewPanel: async (panel, state: unknown) => {
            if (state) this.attach(panel, state as Data);
          },
        }),
      );
    // Fresh numbers after a rerun or a rescan.
    this.subs.push(
      store.onDidChange(c => {
        // A change of some commits redraws their Compare panels and the Dashboard, not every panel.
        const touched = c.kind === 'commits' ? new Set(c.commits) : null;
        for (const [key, p] of this.panels) {
          if (touched && key !== 'dashboard' && !touched.has(key.split(':')[1])) continue;
          const d = this.dataFor(key);
          if (d) this.post(p.panel, (p.data = d));
        }
      }),
    );
  }

  private keyOf(d: Data): string {
    return d.view === 'comparison' ? `c:${d.commit}:${d.agent ?? ''}` : 'dashboard';
  }

  private dataFor(key: string): Data | null {
    if (key === 'dashboard') {
      const s = this.store.scans[0];
      return s ? dashboardData(this.report(s)) : null;
    }
    const [, commit, agent] = key.split(':');
    const all = this.store.entries().filter(x => x.entry.commit === commit);
    // No agent named (CodeLens, a commit hash): the entry of any agent, the exact one when named.
    const e = all.find(x => (x.entry.agent ?? '') === agent) ?? (agent ? undefined : all[0]);
    return e ? comparisonData(e.entry, tieBand(e.folder.root)) : null;
  }

  private report(s: FolderScan) {
    return buildReport(s.entries, s.root.fsPath, { tieBand: tieBand(s.root), includeIncomparable: this.includeIncomparable });
  }

  private post(panel: vscode.WebviewPanel, data: Data): void {
    void panel.webview.postMessage({ type: 'show', data } satisfies HostToWebview);
  }

  private attach(panel: vscode.WebviewPanel, data: Data): void {
    const key = this.keyOf(data);
    panel.webview.options = {
      enableScripts: true,
      localResourceRoots: [vscode.Uri.joinPath(this.extensionUri, 'dist'), vscode.Uri.joinPath(this.extensionUri, 'media')],
    };
    panel.webview.html = webviewHtml(panel.webview, this.extensionUri, panel.title);
    this.panels.set(key, { panel, data });
    panel.onDidDispose(() => this.panels.delete(key));
    panel.webview.onDidReceiveMessage((m: WebviewToHost) => this.onMessage(key, m));
  }

  private async onMessage(key: string, m: WebviewToHost): Promise<void> {
    const p = this.panels.get(key);
    if (!p) return;
    if (m.type === 'ready') return this.post(p.panel, p.data);
    if (m.type === 'openEvidence' && typeof m.file === 'string' && Number.isInteger(m.line)) {
      const scan = this.store.scans.find(s => s.entries.some(e => p.data.view === 'comparison' && e.commit === p.data.commit)) ?? this.store.scans[0];
      // Only files the data names (an evidence of this panel), resolved inside the folder.
      if (scan && !m.file.split('/').includes('..') && !m.file.startsWith('/'))
        await openEvidence(scan.root, { file: m.file, field: typeof m.field === 'string' ? m.field : null, line: m.line });
    }
    if (m.type === 'openCommit') await this.showComparison(m.commit, m.agent ?? null);
    if (m.type === 'exportReport') await this.exportReport();
    if (m.type === 'runMore' && p.data.view === 'comparison' && m.commit === p.data.commit && Number.isInteger(m.n) && m.n >= 1 && m.n <= 20)
      await this.runMore(m.commit, m.agent, m.n);
    // Only selectors of the keys the Dashboard's rows use, with a value no longer than an id.
    if (m.type === 'filterTree' && typeof m.filter === 'string' && /^(outcome|blocked|agent)=[\w.:/@+-]{1,120}$/.test(m.filter)) {
      await vscode.commands.executeCommand(COMMANDS.filter, m.filter);
      await vscode.commands.executeCommand('benchTriage.commits.focus');
    }
    if (m.type === 'setIncludeIncomparable' && typeof m.include === 'boolean') {
      this.includeIncomparable = m.include;
      const d = this.dataFor('dashboard');
      if (d) this.post(p.panel, (p.data = d));
    }
  }

  /** Writes the report (asking where unless told) and says where it went, with Open and Reveal. */
  async exportReport(target?: vscode.Uri): Promise<vscode.Uri | undefined> {
    await this.store.ensureScanned();
    const s = this.store.scans[0];
    if (!s) {
      void vscode.window.showInformationMessage('Bench Triage: open a folder with results first.');
      return;
    }
    const dest =
      target ??
      (await vscode.window.showSaveDialog({
        defaultUri: vscode.Uri.joinPath(s.root, 'bench-triage-report.md'),
        filters: { Markdown: ['md'] },
        title: 'Export the triage report',
      }));
    if (!dest) return;
    const report = this.report(s);
    await vscode.workspace.fs.writeFile(dest, new TextEncoder().encode(renderMarkdown(report)));
    const where = dest.scheme === 'file' ? dest.fsPath : dest.toString();
    void vscode.window
      .showInformationMessage(
        `Bench Triage: report written to ${where} (${report.projects.reduce((n, p) => n + p.totals.entries, 0)} entries)`,
        'Open Report',
        'Reveal in Explorer',
      )
      .then(a => (a === 'Open Report' ? vscode.window.showTextDocument(dest) : a ? vscode.commands.executeCommand('revealInExplorer', dest) : undefined));
    return dest;
  }

  async showComparison(commit: string, agent: string | null): Promise<vscode.WebviewPanel | undefined> {
    await this.store.ensureScanned();
    const data = this.dataFor(`c:${commit}:${agent ?? ''}`);
    if (!data) {
      void vscode.window.showErrorMessage(`Bench Triage: commit ${commit.slice(0, 12)} has no results in this workspace.`);
      return;
    }
    return this.open(COMPARISON_VIEW, `Compare ${commit.slice(0, 8)}`, data);
  }

  async showDashboard(): Promise<vscode.WebviewPanel | undefined> {
    await this.store.ensureScanned();
    const data = this.dataFor('dashboard');
    if (!data) {
      void vscode.window.showInformationMessage('Bench Triage: open a folder with results first.');
      return;
    }
    return this.open(DASHBOARD_VIEW, 'Bench Triage Dashboard', data);
  }

  private open(view: string, title: string, data: Data): vscode.WebviewPanel {
    const existing = this.panels.get(this.keyOf(data));
    if (existing) {
      existing.panel.reveal();
      this.post(existing.panel, (existing.data = data));
      return existing.panel;
    }
    const panel = vscode.window.createWebviewPanel(view, title, vscode.ViewColumn.Active, { enableScripts: true, retainContextWhenHidden: false });
    this.attach(panel, data);
    return panel;
  }

  /** For tests: the HTML and data of an open panel. */
  panel(commitOrDashboard: string): { html: string; data: Data } | undefined {
    const p = [...this.panels.entries()].find(([k]) => (k === 'dashboard' ? commitOrDashboard === 'dashboard' : k.startsWith(`c:${commitOrDashboard}`)));
    return p && { html: p[1].panel.webview.html, data: p[1].data };
  }

  dispose(): void {
    for (const p of this.panels.values()) p.panel.dispose();
    for (const s of this.subs) s.dispose();
  }
}
