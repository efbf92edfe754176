import * as vscode from 'vscode';
import { ablationResults, minimalPatchText, unitHunk } from '../app/ablationCampaign';
import { CampaignQueue } from '../app/campaigns';
import { ablationMarkdown, type AblationReportInput } from '../core/ablate/report';
import { ablationData } from '../core/ablate/viewModel';
import { SAFE_ID } from '../core/campaign/records';
import type { AblationData, HostToWebview, WebviewToHost } from '../webview/protocol';
import type { Store } from './store';
import { SCHEMES } from './uris';
import { webviewHtml } from './webviews';

export const ABLATION_VIEW = 'benchTriage.ablation';

interface Panel {
  panel: vscode.WebviewPanel;
  data: AblationData;
  root: vscode.Uri;
}

/**
 * The Ablation view: one panel per ablation campaign, each unit a row with its measured effect that
 * shows its hunk in the patch, the minimal subset exportable as a `.diff`. Redrawn when runs end
 * (the store changes), restored after a reload from the campaign's own records.
 */
export class AblationViews implements vscode.Disposable {
  private readonly panels = new Map<string, Panel>();
  private readonly subs: vscode.Disposable[] = [];
  private reports = 0;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly store: Store,
    private readonly docs: { put(uri: vscode.Uri, text: string): vscode.Uri },
  ) {
    this.subs.push(
      vscode.window.registerWebviewPanelSerializer(ABLATION_VIEW, {
        deserializeWebviewPanel: async (panel, state: unknown) => {
          const id = (state as Partial<AblationData> | undefined)?.id;
          const root = typeof id === 'string' && SAFE_ID.test(id) ? await this.rootOf(id) : undefined;
          if (!root || !id) return panel.dispose();
          this.attach(panel, state as AblationData, root);
          void this.refresh(id);
        },
      }),
      store.onDidChange(() => {
        for (const id of this.panels.keys()) void this.refresh(id);
      }),
    );
  }

  /** The workspace folder whose `.bench-triage/campaigns/` holds campaign `id`. */
  private async rootOf(id: string): Promise<vscode.Uri | undefined> {
    await this.store.ensureScanned();
    for (const s of this.store.scans) if ((await CampaignQueue.list(s.root.fsPath).catch(() => [] as string[])).includes(id)) return s.root;
    return undefined;
  }

  private async read(root: vscode.Uri, id: string): Promise<{ data: AblationData; input: AblationReportInput }> {
    const r = await ablationResults(root.fsPath, id);
    const input: AblationReportInput = { ...r.record, results: r.results, pending: r.pending, attribution: r.attribution, why: r.why, minimal: r.minimal };
    return { data: ablationData(id, input), input };
  }

  /** Opens (or brings forward) the view of ablation campaign `id` of folder `root`. */
  async show(root: vscode.Uri, id: string): Promise<vscode.WebviewPanel> {
    const { data } = await this.read(root, id);
    const open = this.panels.get(id);
    if (open) {
      open.panel.reveal();
      this.post(open, data);
      return open.panel;
    }
    const panel = vscode.window.createWebviewPanel(ABLATION_VIEW, `Ablation ${data.commit.slice(0, 8)}`, vscode.ViewColumn.Active, { enableScripts: true });
    this.attach(panel, data, root);
    return panel;
  }

  private attach(panel: vscode.WebviewPanel, data: AblationData, root: vscode.Uri): void {
    panel.webview.options = {
      enableScripts: true,
      localResourceRoots: [vscode.Uri.joinPath(this.extensionUri, 'dist'), vscode.Uri.joinPath(this.extensionUri, 'media')],
    };
    panel.webview.html = webviewHtml(panel.webview, this.extensionUri, panel.title);
    const p: Panel = { panel, data, root };
    this.panels.set(data.id, p);
    panel.onDidDispose(() => this.panels.delete(data.id));
    panel.webview.onDidReceiveMessage((m: WebviewToHost) =>
      this.onMessage(p, m).catch((e: Error) => void vscode.window.showErrorMessage(`Bench Triage: ablation ${p.data.id}: ${e.message}`)),
    );
  }

  private post(p: Panel, data: AblationData): void {
    p.data = data;
    void p.panel.webview.postMessage({ type: 'show', data } satisfies HostToWebview);
  }

  private async refresh(id: string): Promise<void> {
    const p = this.panels.get(id);
    if (!p) return;
    const next = await this.read(p.root, id).catch(() => null);
    if (next && this.panels.get(id) === p) this.post(p, next.data);
  }

  private async onMessage(p: Panel, m: WebviewToHost): Promise<void> {
    if (m.type === 'ready') return this.post(p, p.data);
    // Only units of this ablation, by the ids its own record gives.
    if (m.type === 'openHunk' && typeof m.unit === 'string' && p.data.files.some(f => f.units.some(u => u.id === m.unit))) {
      const at = await unitHunk(p.root.fsPath, p.data.id, m.unit);
      if (!at) {
        void vscode.window.showWarningMessage(`Bench Triage: ${m.unit} of ablation ${p.data.id}: its hunk is no longer in the patch.`);
        return;
      }
      const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(at.file));
      const range = new vscode.Range(at.line, 0, at.end, doc.lineAt(Math.min(at.end, doc.lineCount - 1)).text.length);
      // Beside the view, so the table stays in sight while one reads hunk after hunk.
      await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, selection: range, preserveFocus: false, preview: true });
    }
    if (m.type === 'exportMinimal') await this.exportMinimal(p);
    if (m.type === 'openMarkdown') {
      const { input } = await this.read(p.root, p.data.id);
      const uri = this.docs.put(
        vscode.Uri.from({ scheme: SCHEMES.generated, path: `/ablation ${p.data.commit.slice(0, 8)} (${++this.reports}).md` }),
        ablationMarkdown(input),
      );
      await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri), { preview: false });
    }
  }

  /** Saves the minimal subset's patch where the user says, and says where it went. */
  private async exportMinimal(p: Panel): Promise<void> {
    const m = p.data.minimal;
    if (!m || m.whole) {
      void vscode.window.showInformationMessage(`Bench Triage: ablation ${p.data.id} has no subset smaller than the whole patch to export.`);
      return;
    }
    const text = await minimalPatchText(p.root.fsPath, p.data.id);
    const dest = await vscode.window.showSaveDialog({
      defaultUri: vscode.Uri.joinPath(p.root, `minimal-${p.data.commit.slice(0, 8)}.diff`),
      filters: { Patch: ['diff', 'patch'] },
      title: `Export the minimal patch of ${p.data.commit.slice(0, 12)} (${m.units.join(', ')})`,
    });
    if (!dest) return;
    await vscode.workspace.fs.writeFile(dest, new TextEncoder().encode(text));
    const where = dest.scheme === 'file' ? dest.fsPath : dest.toString();
    void vscode.window
      .showInformationMessage(`Bench Triage: minimal patch (${m.units.join(', ')}) written to ${where}`, 'Open Patch')
      .then(a => (a ? vscode.window.showTextDocument(dest) : undefined));
  }

  /** For tests: the data of an open panel. */
  panel(id: string): AblationData | undefined {
    return this.panels.get(id)?.data;
  }

  dispose(): void {
    for (const p of this.panels.values()) p.panel.dispose();
    for (const s of this.subs) s.dispose();
  }
}
