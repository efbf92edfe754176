import * as path from 'node:path';
import * as vscode from 'vscode';
import { Builds, type BuildOptions, type LiveBuild } from '../app/builds';
import type { Role } from '../core/model';
import { FINAL_BUILD_STATES, type BuildRecord } from '../core/run/records';
import type { HostConfig } from '../core/run/hosts';
import { requireTrust } from './runService';
import { buildSettings, vllmCheckoutSetting } from './settings';
import type { FolderScan, Store } from './store';

/**
 * The extension's side of the app-layer Builds: settings and trust in; the Runs view, the live
 * build log and the Commits view out. A finished build's build.json reaches the store as a file
 * update of its own commit (a failed build moves its role to `build-failed` at once).
 */
export class BuildService implements vscode.Disposable {
  readonly builds = new Builds();
  private readonly changed = new vscode.EventEmitter<LiveBuild | undefined>();
  readonly onDidChange = this.changed.event;
  private readonly unsubscribe: () => void;
  private history: Promise<unknown> | null = null;

  constructor(private readonly store: Store) {
    let last = '';
    this.unsubscribe = this.builds.onEvent(b => {
      // One tree refresh per state or step, not per log line.
      const sig = `${b.record.buildId}|${b.record.status}|${b.record.step?.n ?? ''}`;
      if (sig !== last) this.changed.fire(b);
      last = sig;
      if (FINAL_BUILD_STATES.includes(b.record.status) && !b.fromDisk) void this.store.update([vscode.Uri.file(path.join(b.dir, 'build.json'))]);
    });
  }

  list(): LiveBuild[] {
    return this.builds.list();
  }

  /** The builds on disk of the workspace folders, read once (a reload keeps them visible). */
  async loadHistory(folders: readonly vscode.Uri[]): Promise<void> {
    await (this.history ??= Promise.all(folders.filter(f => f.scheme === 'file').map(f => this.builds.history(f.fsPath))).catch(() => []));
  }

  /** Build options from the folder's settings (checkout, Dockerfile, args, templates) on `host`. */
  optionsFor(root: vscode.Uri, host: HostConfig): BuildOptions {
    return { host, checkout: vllmCheckoutSetting(root), settings: buildSettings(root) };
  }

  /** Plans (refusals first, nothing touched), then builds on the host's build queue. */
  plan(scan: FolderScan, commitHash: string, role: Role, host: HostConfig) {
    const commit = scan.result.commits.find(c => c.hash === commitHash);
    if (!commit) throw new Error(`commit ${commitHash.slice(0, 12)} is not in ${scan.root.fsPath}`);
    const target = { folder: scan.root.fsPath, commit, role };
    const options = this.optionsFor(scan.root, host);
    return { target, options, plan: this.builds.plan(target, options) };
  }

  async start(scan: FolderScan, commitHash: string, role: Role, host: HostConfig, rebuild: boolean, signal?: AbortSignal): Promise<BuildRecord> {
    requireTrust('Building an image');
    if (scan.root.scheme !== 'file')
      throw new Error(`builds write their logs next to the results, which needs a local folder (${scan.root.toString()} is not)`);
    const { target, options } = this.plan(scan, commitHash, role, host);
    return this.builds.start(target, { ...options, rebuild }, signal);
  }

  cancel(b: LiveBuild): boolean {
    return this.builds.cancel(b.folder, b.record.buildId);
  }

  dispose(): void {
    this.builds.cancelAll();
    this.unsubscribe();
    this.changed.dispose();
  }
}
