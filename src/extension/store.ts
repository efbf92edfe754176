import * as vscode from 'vscode';
import type { ScanResult } from '../core/ingest';
import { parseRulesFile, type Classification } from '../core/classify';
import type { CommitTriage } from '../core/compare';
import { metricDef, OVERRIDE_KEYS, type PrimaryOverride } from '../core/metrics';
import { analyze } from '../app/analyze';
import type { FileRecord } from '../core/model';
import { vscodeFileSource } from './vscodeFileSource';
import { nodeFileSource } from '../platform/nodeFileSource';

/** `benchTriage.primaryMetric`: a headline metric per benchmark mode (invalid entries are ignored). */
export function primaryMetricSetting(scope?: vscode.Uri): PrimaryOverride {
  const raw = vscode.workspace.getConfiguration('benchTriage', scope).get<unknown>('primaryMetric');
  const out: PrimaryOverride = {};
  if (!raw || typeof raw !== 'object') return out;
  for (const [k, v] of Object.entries(raw)) {
    const bad = !(OVERRIDE_KEYS as readonly string[]).includes(k) ? `"${k}" is not a benchmark mode (use ${OVERRIDE_KEYS.join(', ')})`
      : typeof v !== 'string' || metricDef(v)?.kind !== 'metric' ? `${JSON.stringify(v)} is not a metric key (e.g. ttft_mean_ms, output_throughput_tok_s)` : null;
    if (bad) { warnOnce(`benchTriage.primaryMetric.${k}: ${bad}; the built-in rule applies`); continue; }
    out[k as keyof PrimaryOverride] = v as string;
  }
  return out;
}

const warned = new Set<string>();
function warnOnce(message: string): void {
  if (warned.has(message)) return;
  warned.add(message);
  void vscode.window.showWarningMessage(`Bench Triage: settings: ${message}.`);
}

/** One workspace folder's scan. Paths in it are relative to `root`. */
export interface FolderScan {
  root: vscode.Uri;
  result: ScanResult;
  classifications: Map<string, Classification>;
  entries: CommitTriage[];
}

/**
 * Owns everything scanned from the workspace and tells subscribers when it changes. Scanning is
 * lazy: nothing is read until someone asks (`ensureScanned`) — activation does no I/O.
 */
export class Store implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  private folders: FolderScan[] = [];
  private running: { controller: AbortController; done: Promise<void> } | null = null;
  private scannedOnce = false;

  get scanned(): boolean { return this.scannedOnce; }
  get scans(): readonly FolderScan[] { return this.folders; }

  /** Stops a scan in flight; the results of the previous scan stay as they were. */
  cancel(): boolean {
    if (!this.running) return false;
    this.running.controller.abort(new vscode.CancellationError());
    // A first scan cancelled still ends the "scanning…" state: the welcome view offers a rescan.
    if (!this.scannedOnce) { this.scannedOnce = true; void this.updateContext(); }
    return true;
  }

  ensureScanned(): Promise<void> {
    if (this.running) return this.running.done;
    if (this.scannedOnce) return Promise.resolve();
    return this.rescan();
  }

  /** Starts a fresh scan, cancelling one in flight. Resolves when the data is replaced. */
  rescan(): Promise<void> {
    this.running?.controller.abort(new vscode.CancellationError());
    const controller = new AbortController();
    void vscode.commands.executeCommand('setContext', 'benchTriage.scanning', true);
    const done = Promise.resolve(vscode.window.withProgress(
      { location: { viewId: 'benchTriage.commits' }, title: 'Scanning benchmark results' },
      () => vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'Bench Triage', cancellable: false }, async progress => {
        const next: FolderScan[] = [];
        for (const folder of vscode.workspace.workspaceFolders ?? []) {
          // Local folders are read with Node's fs: vscode.workspace.fs costs a round trip per call
          // (bench/editor: 14 s vs < 1 s for the corpus); remote and virtual folders keep it.
          const source = folder.uri.scheme === 'file' ? nodeFileSource(folder.uri.fsPath) : vscodeFileSource(folder.uri);
          const config = vscode.workspace.getConfiguration('benchTriage', folder.uri);
          const an = await analyze(source, {
            signal: controller.signal, rules: await this.userRules(folder.uri), tieBand: config.get<number>('tieBand', 2), primaryMetric: primaryMetricSetting(folder.uri),
            onScanProgress: ({ done, total }) => { if (done % 50 === 0 || done === total) progress.report({ message: `scanning ${folder.name}: ${done}/${total} files` }); },
            onClassify: failed => progress.report({ message: `classifying ${folder.name}: ${failed} failed runs` }),
          });
          next.push({ root: folder.uri, result: an.scan, classifications: an.classifications, entries: an.entries });
        }
        if (controller.signal.aborted) return;
        this.folders = next;
        this.scannedOnce = true;
        await this.updateContext();
        this.changed.fire();
      }),
    )).then(() => undefined, err => {
      if (controller.signal.aborted) return;
      this.scannedOnce = true;
      void this.updateContext();
      void vscode.window.showErrorMessage(`Bench Triage: scanning failed: ${err instanceof Error ? err.message : String(err)}`);
    }).finally(() => {
      if (this.running?.controller !== controller) return;
      this.running = null;
      void vscode.commands.executeCommand('setContext', 'benchTriage.scanning', false);
    });
    this.running = { controller, done };
    return done;
  }

  /** `.bench-triage/rules.json` of a folder; its problems are shown by the language server, not here. */
  private async userRules(root: vscode.Uri) {
    try {
      const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.joinPath(root, '.bench-triage', 'rules.json')));
      return parseRulesFile(text).rules;
    } catch { return []; }
  }

  private async updateContext(): Promise<void> {
    await vscode.commands.executeCommand('setContext', 'benchTriage.scanned', true);
    await vscode.commands.executeCommand('setContext', 'benchTriage.hasResults', this.folders.some(f => f.result.runs.length > 0 || f.result.files.length > 0));
  }

  entries(): Array<{ folder: FolderScan; entry: CommitTriage }> {
    return this.folders.flatMap(folder => folder.entries.map(entry => ({ folder, entry })));
  }

  /** Files that could not be used (corrupt or unknown), each tagged with its folder. */
  problems(): Array<{ folder: FolderScan; file: FileRecord }> {
    return this.folders.flatMap(folder => folder.result.files.filter(f => f.kind === 'corrupt' || f.kind === 'unknown' || f.kind === 'skipped').map(file => ({ folder, file })));
  }

  dispose(): void { this.running?.controller.abort(); this.changed.dispose(); }
}
