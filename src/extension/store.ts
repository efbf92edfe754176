import { gatedSource } from './scanGate';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { FileSource, ScanResult } from '../core/ingest';
import type { Classification } from '../core/classify';
import type { CommitTriage } from '../core/compare';
import type { FileRecord } from '../core/model';
import { Workspace, type WorkspaceChange, type WorkspaceSettings } from '../app/workspace';
import { fileIndexStore, type IndexStore } from '../app/indexStore';
import { EntryKeys, type EntryKey } from '../app/identity';
import { nodeFileSource } from '../platform/nodeFileSource';
import { vscodeFileSource } from './vscodeFileSource';
import { workspaceSettings } from './settings';

/** One workspace folder's results: a thin view of its app-layer Workspace. Paths in it are relative to `root`. */
export class FolderScan {
  readonly workspace: Workspace;
  constructor(
    readonly root: vscode.Uri,
    folderId: string,
    source: FileSource,
    index: IndexStore | null,
    public settings: WorkspaceSettings,
  ) {
    this.workspace = new Workspace(folderId, source, () => this.settings, index);
  }
  get result(): ScanResult {
    return this.workspace.result;
  }
  get classifications(): Map<string, Classification> {
    return this.workspace.classifications;
  }
  get entries(): CommitTriage[] {
    return this.workspace.entries;
  }
  /** The identity of an entry of this folder. */
  keyOf(e: CommitTriage): EntryKey {
    return EntryKeys.of(this.workspace.folder, e.commit, e.agent);
  }
  /** Path of a file of this folder relative to its root, or null when outside. */
  relative(uri: vscode.Uri): string | null {
    if (uri.scheme !== this.root.scheme) return null;
    const rel = path.posix.relative(this.root.path, uri.path);
    return rel && !rel.startsWith('..') && !path.posix.isAbsolute(rel) ? rel : null;
  }
}

/** What changed in the store: everything, or some commits' entries (the tree refreshes only those when it can). */
export type StoreChange = { kind: 'full' } | { kind: 'commits'; folder: FolderScan; commits: string[] };

/**
 * The workspace's results for the UI: one app-layer Workspace per folder, opened from its
 * persistent index (in the extension's storage) and kept current by file events and finished runs,
 * each touching only its own commits. Nothing is read until someone asks (`ensureScanned`).
 */
export class Store implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<StoreChange>();
  readonly onDidChange = this.changed.event;
  private folders: FolderScan[] = [];
  private running: { controller: AbortController; done: Promise<void> } | null = null;
  private scannedOnce = false;
  /** Updates queue behind each other (a burst of file events is applied in order). */
  private updates: Promise<void> = Promise.resolve();
  /** Timings of the last operations, for the benchmark and the output log. */
  readonly timings: { openMs?: number; warm?: boolean; lastUpdateMs?: number } = {};

  constructor(private readonly cacheDir: vscode.Uri | undefined) {}

  get scanned(): boolean {
    return this.scannedOnce;
  }
  get scans(): readonly FolderScan[] {
    return this.folders;
  }

  /** Stops a scan in flight; the results of the previous scan stay as they were. */
  cancel(): boolean {
    if (!this.running) return false;
    this.running.controller.abort(new vscode.CancellationError());
    if (!this.scannedOnce) {
      this.scannedOnce = true;
      void this.updateContext();
    }
    return true;
  }

  ensureScanned(): Promise<void> {
    if (this.running) return this.running.done;
    if (this.scannedOnce) return Promise.resolve();
    return this.load(false);
  }

  /** Reads the workspace again (the Refresh button): every file listed, those changed since the index read. */
  rescan(): Promise<void> {
    return this.load(true);
  }

  private newFolder(f: vscode.WorkspaceFolder, settings: WorkspaceSettings): FolderScan {
    // Local folders are read with Node's fs: vscode.workspace.fs costs a round trip per call
    // (bench/editor: 14 s vs < 1 s for the corpus); remote and virtual folders keep it.
    const local = f.uri.scheme === 'file';
    const source = gatedSource(local ? nodeFileSource(f.uri.fsPath) : vscodeFileSource(f.uri));
    const folderId = local ? f.uri.fsPath : f.uri.toString();
    const index = local && this.cacheDir?.scheme === 'file' ? fileIndexStore(this.cacheDir.fsPath, folderId) : null;
    return new FolderScan(f.uri, folderId, source, index, settings);
  }

  private load(full: boolean): Promise<void> {
    this.running?.controller.abort(new vscode.CancellationError());
    const controller = new AbortController();
    void vscode.commands.executeCommand('setContext', 'benchTriage.scanning', true);
    const t0 = performance.now();
    const done = Promise.resolve(
      vscode.window.withProgress({ location: { viewId: 'benchTriage.commits' }, title: 'Scanning benchmark results' }, () =>
        vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'Bench Triage', cancellable: false }, async progress => {
          const next: FolderScan[] = [];
          const revalidations: Array<Promise<void>> = [];
          let warmAll = true;
          for (const f of vscode.workspace.workspaceFolders ?? []) {
            const scan = this.folders.find(s => s.root.toString() === f.uri.toString()) ?? this.newFolder(f, await workspaceSettings(f.uri));
            const onProgress = ({ phase, done: d, total }: { phase: string; done: number; total: number }) =>
              progress.report({
                message:
                  phase === 'triage'
                    ? `comparing ${f.name}: ${d}/${total} commits`
                    : `${phase === 'read' ? 'reading' : phase === 'list' ? 'listing' : 'classifying'} ${f.name}${total ? `: ${d}/${total} files` : ''}`,
              });
            if (full || this.scannedOnce) {
              await scan.workspace.load({ signal: controller.signal, onProgress });
              warmAll = false;
            } else {
              // A warm open shows the last state at once; what changed since is applied behind it.
              const { warm, revalidated } = await scan.workspace.open({ signal: controller.signal, onProgress });
              warmAll &&= warm;
              revalidations.push(
                revalidated.then(
                  change => this.applied(scan, change),
                  () => undefined,
                ),
              );
            }
            next.push(scan);
          }
          if (controller.signal.aborted) return;
          this.folders = next;
          this.scannedOnce = true;
          this.timings.openMs = performance.now() - t0;
          this.timings.warm = warmAll;
          await this.updateContext();
          this.changed.fire({ kind: 'full' });
          void Promise.all(revalidations);
        }),
      ),
    )
      .then(
        () => undefined,
        err => {
          if (controller.signal.aborted) return;
          this.scannedOnce = true;
          void this.updateContext();
          void vscode.window.showErrorMessage(`Bench Triage: scanning failed: ${err instanceof Error ? err.message : String(err)}`);
        },
      )
      .finally(() => {
        if (this.running?.controller !== controller) return;
        this.running = null;
        void vscode.commands.executeCommand('setContext', 'benchTriage.scanning', false);
      });
    this.running = { controller, done };
    return done;
  }

  private applied(scan: FolderScan, change: WorkspaceChange): void {
    if (change.kind === 'none' || !this.folders.includes(scan)) return;
    void this.updateContext();
    this.changed.fire(change.kind === 'commits' ? { kind: 'commits', folder: scan, commits: change.commits } : { kind: 'full' });
  }

  /**
   * Files created, changed or deleted (file events, a finished run's result.json): each folder's
   * Workspace updates the commits of those files only. Resolves when the entries are current.
   */
  update(uris: readonly vscode.Uri[]): Promise<void> {
    const run = async () => {
      if (!this.scannedOnce) return;
      await this.running?.done;
      const t0 = performance.now();
      for (const scan of this.folders) {
        const rel = uris.map(u => scan.relative(u)).filter((p): p is string => p !== null);
        if (!rel.length) continue;
        const change = await scan.workspace.update(rel);
        this.applied(scan, change);
      }
      this.timings.lastUpdateMs = performance.now() - t0;
    };
    this.updates = this.updates.then(run, run);
    return this.updates;
  }

  /**
   * Files of a folder the tool itself wrote (a finished run's result.json), by their path relative
   * to the folder: that folder's Workspace updates their commits, with no Uri round trip.
   */
  filesWritten(folder: string, rels: readonly string[]): Promise<void> {
    const run = async () => {
      if (!this.scannedOnce) return;
      await this.running?.done;
      for (const scan of this.folders) if (scan.root.scheme === 'file' && scan.root.fsPath === folder) this.applied(scan, await scan.workspace.update(rels));
    };
    this.updates = this.updates.then(run, run);
    return this.updates;
  }

  /** Resolves when the file updates already asked for are in the entries (nothing new is read). */
  idle(): Promise<void> {
    return this.updates;
  }

  /** Settings or rules changed: each folder re-triages (and re-classifies for new rules) without reading result files. */
  async resettle(): Promise<void> {
    if (!this.scannedOnce) return;
    // In the updates' queue: a re-triage gives the thread back between commits, and a file's update
    // applied meanwhile would be overwritten by entries triaged before it.
    const run = async () => {
      await this.running?.done;
      for (const scan of this.folders) {
        scan.settings = await workspaceSettings(scan.root);
        await scan.workspace.resettle();
      }
      this.changed.fire({ kind: 'full' });
    };
    this.updates = this.updates.then(run, run);
    return this.updates;
  }

  private async updateContext(): Promise<void> {
    await vscode.commands.executeCommand('setContext', 'benchTriage.scanned', true);
    await vscode.commands.executeCommand(
      'setContext',
      'benchTriage.hasResults',
      this.folders.some(f => f.workspace.runCount > 0 || f.workspace.fileCount > 0),
    );
  }

  /** Every entry with its folder; kept until the next change (the tree and the badge both read it). */
  entries(): Array<{ folder: FolderScan; entry: CommitTriage }> {
    const key = this.folders.map(f => f.entries);
    if (!this.entriesCache || this.entriesCache.key.length !== key.length || this.entriesCache.key.some((k, i) => k !== key[i]))
      this.entriesCache = { key, value: this.folders.flatMap(folder => folder.entries.map(entry => ({ folder, entry }))) };
    return this.entriesCache.value;
  }
  private entriesCache: { key: CommitTriage[][]; value: Array<{ folder: FolderScan; entry: CommitTriage }> } | null = null;

  /** The entry of a key, with its folder. */
  entry(key: EntryKey): { folder: FolderScan; entry: CommitTriage } | undefined {
    for (const folder of this.folders) {
      const entry = folder.workspace.entry(key);
      if (entry) return { folder, entry };
    }
    return undefined;
  }

  /** The folder whose results know a commit (a full hash, or a prefix naming one commit). */
  folderOfCommit(commit: string): { folder: FolderScan; hash: string } | undefined {
    for (const folder of this.folders) {
      const hits = folder.result.commits.filter(c => c.hash.startsWith(commit));
      if (hits.length === 1) return { folder, hash: hits[0].hash };
    }
    return undefined;
  }

  /** Files that could not be used (corrupt, unknown, not read, not attributed), each tagged with its folder. */
  problems(): Array<{ folder: FolderScan; file: FileRecord }> {
    return this.folders.flatMap(folder => folder.workspace.problemFiles().map(file => ({ folder, file })));
  }

  dispose(): void {
    this.running?.controller.abort();
    for (const f of this.folders) void f.workspace.saveIndex();
    this.changed.dispose();
  }
}
