import * as vscode from 'vscode';
import { MINIMISE_FILE, readAblationRecord, runMinimise, variantPatchOf } from '../app/ablationCampaign';
import { existsSync, watch, type FSWatcher } from 'node:fs';
import * as path from 'node:path';
import type { CommitTriage } from '../core/compare';
import type { CampaignPlan } from '../core/campaign/plan';
import { CampaignQueue, CampaignRecordError, type CampaignStatus } from '../app/campaigns';
import { buildCampaignPlanFor, campaignPlanFor } from '../app/campaignPlans';
import { driveCampaign, type CampaignWiring } from '../app/campaignDriver';
import type { Role } from '../core/model';
import type { HostConfig } from '../core/run/hosts';
import type { BuildRole } from '../core/run/buildPlan';
import type { BuildService } from './buildService';
import { agentRunFor, requireTrust, type RunService } from './runService';
import { configuredHosts, imageTemplates } from './settings';
import type { FolderScan } from './store';

/** Which campaign changed (its folder's path and id); undefined: the set of campaigns may have. */
export type CampaignChange = { folder: string; id: string } | undefined;

/** The campaign a run record's path belongs to: `<folder>/.bench-triage/campaigns/<id>/runs/<n>.json`. */
export function campaignOfRecord(file: string): CampaignChange {
  const m = /^(.*)[\\/]\.bench-triage[\\/]campaigns[\\/]([^\\/]+)[\\/]runs[\\/][^\\/]+$/.exec(file);
  return m ? { folder: m[1], id: m[2] } : undefined;
}

/** One key per campaign (folder and id), for the view's rows and the watches alike. */
export const campaignKey = (folder: string, id: string): string => `${folder}\0${id}`;

/** A campaign the Runs view shows: one this window runs, or one read from disk. */
export interface CampaignView {
  id: string;
  folder: vscode.Uri;
  select: string;
  status: CampaignStatus;
  /** Running in this window (cancellable here); otherwise as its records on disk say. */
  live: boolean;
  /** A campaign of image builds rather than runs. */
  builds: boolean;
  /** Its records can't be used: why, naming the file and field (shown, never hidden). */
  error?: string;
}

const eta = (s: number | null) =>
  s === null ? '' : s >= 3600 ? ` · about ${(s / 3600).toFixed(1)} h left` : ` · about ${Math.max(1, Math.round(s / 60))} min left`;
export const describeStatus = (s: CampaignStatus) =>
  `${s.done} done · ${s.running} running · ${s.queued} queued · ${s.failed} failed${s.cancelled ? ` · ${s.cancelled} cancelled` : ''}${s.unreadable ? ` · ${s.unreadable} unreadable` : ''}${eta(s.etaS)}`;

/**
 * Campaigns in the editor, on the app's durable queue: planned from a Commits-view group, run on
 * the configured hosts as a pool, shown in the Runs view with a status-bar item, announced when
 * they end. A window reload finds them on disk; Resume picks them up where they are.
 */
export class CampaignService implements vscode.Disposable {
  private readonly live = new Map<string, { queue: CampaignQueue; view: CampaignView; ctl: AbortController }>();
  private readonly changed = new vscode.EventEmitter<CampaignChange>();
  readonly onDidChange = this.changed.event;
  private readonly bar = vscode.window.createStatusBarItem('benchTriage.campaigns', vscode.StatusBarAlignment.Left, 9);
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly runs: RunService,
    private readonly builds: BuildService,
  ) {
    this.bar.name = 'Bench Triage campaigns';
    this.bar.command = 'benchTriage.runs.focus';
    // Campaigns other processes drive (a CLI, another window) change on disk only: their records
    // tell the view, at most once a second, each changed campaign once (its row alone is redrawn:
    // a whole-view redraw re-renders the row under a person's click and loses it).
    // The campaign folders too: a watcher can miss the files a process writes in a folder it has
    // just made (the watch on it comes after), and a new campaign is told by its folder instead.
    const watcher = vscode.workspace.createFileSystemWatcher('**/.bench-triage/{campaigns,campaigns/*,campaigns/*/runs/*.json}');
    const later = (uri: vscode.Uri, created: boolean) => {
      const c = uri.scheme === 'file' ? campaignOfRecord(uri.fsPath) : undefined;
      // A folder made is a new campaign (the whole view); a folder's own change says nothing.
      if (c || created) this.touch(c);
    };
    this.disposables.push(
      watcher,
      watcher.onDidChange(u => later(u, false)),
      watcher.onDidCreate(u => later(u, true)),
      { dispose: () => clearTimeout(this.timer) },
    );
  }

  private timer: NodeJS.Timeout | undefined;
  private readonly touched = new Map<string, CampaignChange>();
  /** Campaigns changed on disk, told at most once a second, each once. */
  private touch(c: CampaignChange): void {
    this.touched.set(c ? campaignKey(c.folder, c.id) : '', c);
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      const all = [...this.touched.values()];
      this.touched.clear();
      if (all.includes(undefined)) this.changed.fire(undefined);
      else for (const c of all) this.changed.fire(c);
    }, 1000);
  }

  /**
   * The run records of each open campaign another process runs, watched in their folder itself:
   * the workspace watcher can miss a folder a process made and wrote at once (a CLI's new
   * campaign), and then every later change in it. Ended or gone campaigns are let go.
   */
  private readonly recordWatches = new Map<string, FSWatcher>();
  private followRecords(views: readonly CampaignView[], all: boolean): void {
    const open = new Set<string>();
    for (const v of views) {
      const key = campaignKey(v.folder.fsPath, v.id);
      if (v.live || v.error || v.folder.scheme !== 'file' || v.status.running + v.status.queued === 0) continue;
      open.add(key);
      if (this.recordWatches.has(key)) continue;
      try {
        const w = watch(path.join(CampaignQueue.dirOf(v.folder.fsPath, v.id), 'runs'), () => this.touch({ folder: v.folder.fsPath, id: v.id }));
        w.on('error', () => {
          w.close();
          this.recordWatches.delete(key);
        });
        this.recordWatches.set(key, w);
      } catch {
        /* its folder is gone: nothing to follow */
      }
    }
    for (const [key, w] of this.recordWatches)
      if (!open.has(key) && (all || views.some(v => campaignKey(v.folder.fsPath, v.id) === key))) {
        w.close();
        this.recordWatches.delete(key);
      }
  }

  /** Throws what is wrong with the folder's run environment (`benchTriage.runEnv`): said before a campaign is proposed. */
  async checkRunEnv(scan: FolderScan): Promise<void> {
    await this.runs.runEnvFor(scan.root);
  }

  /** The plan of running `entries` (each role, `repeats` times, interleaved) on the folder's hosts. */
  plan(scan: FolderScan, entries: readonly CommitTriage[], repeats = 1): CampaignPlan {
    return campaignPlanFor({
      all: scan.entries,
      picked: entries,
      commits: scan.result.commits,
      roles: ['baseline', 'human', 'agent'],
      repeats,
      host: configuredHosts(scan.root)[0],
      templates: imageTemplates(scan.root),
    });
  }

  /** The plan of building the images `entries` need (or of the `only` roles) on `host`: one build per image. */
  planBuilds(scan: FolderScan, entries: readonly CommitTriage[], host: HostConfig, only?: readonly Role[]): CampaignPlan {
    return buildCampaignPlanFor({
      all: scan.entries,
      picked: entries,
      commits: scan.result.commits,
      only,
      builds: this.builds.builds,
      options: this.builds.optionsFor(scan.root, host),
    });
  }

  /** Creates the campaign on disk and runs it (on `hosts`, else every configured host); resolves when it ends (or is cancelled). */
  async start(
    scan: FolderScan,
    plan: CampaignPlan,
    select: string,
    repeats = 1,
    hosts?: readonly HostConfig[],
    /** False when the caller says how it ended (with its own next step). */
    announce = true,
  ): Promise<CampaignStatus> {
    requireTrust(plan.items.some(i => i.kind === 'build') ? 'Building images' : 'Running a campaign');
    if (plan.items.some(i => i.kind === 'build') && scan.root.scheme !== 'file')
      throw new Error(`builds write their logs next to the results, which needs a local folder (${scan.root.toString()} is not)`);
    const labels = (hosts ?? configuredHosts(scan.root)).map(h => h.label);
    const queue = await CampaignQueue.create(scan.root.fsPath, plan, { select, repeats, hosts: labels });
    return this.drive(scan, queue, false, announce);
  }

  /**
   * Runs a patch ablation's campaign (see `app/ablationCampaign`): minimise goes on with delta
   * debugging between passes of the queue, from the subsets already measured when resumed.
   */
  async runAblation(scan: FolderScan, queue: CampaignQueue, resume = false): Promise<CampaignStatus> {
    requireTrust('Running a patch ablation');
    const rec = await readAblationRecord(queue.dir);
    if (rec.design !== 'minimise' || existsSync(path.join(queue.dir, MINIMISE_FILE))) return this.drive(scan, queue, resume);
    let first = resume;
    const drive = async () => {
      const s = await this.drive(scan, queue, first, false);
      first = false;
      return s;
    };
    await runMinimise(scan.root.fsPath, queue, drive, { maxTests: rec.maxTests ?? 4 * rec.units.length, repeats: rec.repeats ?? queue.record.repeats }).catch(
      (e: Error) => void vscode.window.showWarningMessage(`Bench Triage: minimise stopped: ${e.message}`),
    );
    return queue.status();
  }

  /** Picks a campaign up where its records say it is (after a reload or a crash). */
  async resume(scan: FolderScan, id: string): Promise<CampaignStatus> {
    requireTrust('Resuming a campaign');
    // A second driver in this process would take the first one's claims for a dead process's.
    const running = this.live.get(id);
    if (running) return running.view.status;
    const queue = await CampaignQueue.load(scan.root.fsPath, id);
    if (id.startsWith('ablate-')) return this.runAblation(scan, queue, true);
    return this.drive(scan, queue, true);
  }

  private async drive(scan: FolderScan, queue: CampaignQueue, reconcile = false, announce = true): Promise<CampaignStatus> {
    const root = scan.root;
    // The campaign's own hosts (as it was started), as long as they are still configured.
    const configured = configuredHosts(root);
    const hosts = configured.filter(h => queue.record.hosts.includes(h.label));
    if (!hosts.length) hosts.push(...configured);
    const builds = queue.record.items.some(i => i.kind === 'build');
    const ctl = new AbortController();
    const view: CampaignView = { id: queue.record.id, folder: root, select: queue.record.select, status: await queue.status(), live: true, builds };
    this.live.set(view.id, { queue, view, ctl });
    const wiring: CampaignWiring = {
      runs: this.runs.runs,
      builds: this.builds.builds,
      folder: root.fsPath,
      hosts,
      runTarget: async (item, runId) => {
        const commit = scan.result.commits.find(c => c.hash === item.commit);
        if (!commit) throw new Error(`commit ${item.commit.slice(0, 12)} is not in ${root.fsPath}`);
        // An ablation's variant applies its own subset of the patch.
        const variant = await variantPatchOf(root.fsPath, item);
        return {
          folder: root.fsPath,
          commit,
          roles: [item.role],
          agentRun: agentRunFor(scan, item.commit, item.agent),
          runId,
          ...(variant ? { agentPatch: variant } : {}),
        };
      },
      buildTarget: async item => {
        const commit = scan.result.commits.find(c => c.hash === item.commit);
        if (!commit) throw new Error(`commit ${item.commit.slice(0, 12)} is not in ${root.fsPath}`);
        return { folder: root.fsPath, commit, role: item.role as BuildRole };
      },
      // SecretStorage is read when a run starts on a host, never to plan or queue one.
      runSettings: host => this.runs.settingsFor(root, host, []),
      buildOptions: async host => this.builds.optionsFor(root, host),
      secretValues: names => this.runs.secretValues(names),
    };
    const refresh = async () => {
      view.status = await queue.status();
      this.changed.fire({ folder: root.fsPath, id: view.id });
      this.updateBar();
    };
    // A new campaign: the view's list of campaigns changes.
    this.changed.fire(undefined);
    this.updateBar();
    try {
      const s = await driveCampaign(queue, wiring, { signal: ctl.signal, resume: reconcile, onChange: () => void refresh() });
      view.status = s;
      const tail = builds
        ? `${s.done} of ${s.total} ${view.select} ready${s.failed ? `, ${s.failed} failed (see the Runs view)` : ''}${s.cancelled ? `, ${s.cancelled} cancelled` : ''}`
        : `${s.done} succeeded, ${s.failed} failed${s.cancelled ? `, ${s.cancelled} cancelled` : ''} of ${s.total}`;
      if (!announce) return s;
      const what = builds ? `campaign ${view.id}` : `campaign ${view.id} (${view.select})`;
      if (s.cancelled) void vscode.window.showWarningMessage(`Bench Triage: ${what} cancelled: ${tail}.`);
      else if (s.failed) void vscode.window.showWarningMessage(`Bench Triage: ${what} finished: ${tail}.`);
      else void vscode.window.showInformationMessage(`Bench Triage: ${what} finished: ${tail}.`);
      return s;
    } finally {
      view.live = false;
      this.live.delete(view.id);
      this.changed.fire({ folder: root.fsPath, id: view.id });
      this.updateBar();
    }
  }

  /** Cancels a campaign: this window's runs stop, and any other process running it sees the cancel file. */
  async cancel(folder: vscode.Uri, id: string): Promise<void> {
    const l = this.live.get(id);
    if (l) {
      await l.queue.requestCancel();
      l.ctl.abort();
    } else await (await CampaignQueue.load(folder.fsPath, id)).requestCancel();
    this.changed.fire({ folder: folder.fsPath, id });
  }

  /** This window's campaigns, then the newest ones on disk of each folder (at most 10 per folder). */
  async list(folders: readonly vscode.Uri[]): Promise<CampaignView[]> {
    const out = [...this.live.values()].map(l => l.view);
    for (const f of folders) {
      if (f.scheme !== 'file') continue;
      for (const id of (await CampaignQueue.list(f.fsPath)).slice(0, 10)) if (!this.live.has(id)) out.push(await this.readView(f, id));
    }
    this.followRecords(out, true);
    return out;
  }

  /** One campaign as the Runs view shows it: this window's own, or read from its records. */
  async view(folder: vscode.Uri, id: string): Promise<CampaignView> {
    const v = this.live.get(id)?.view ?? (await this.readView(folder, id));
    this.followRecords([v], false);
    return v;
  }

  private async readView(folder: vscode.Uri, id: string): Promise<CampaignView> {
    try {
      const q = await CampaignQueue.load(folder.fsPath, id);
      return { id, folder, select: q.record.select, status: await q.status(), live: false, builds: q.record.items.some(i => i.kind === 'build') };
    } catch (e) {
      if (!(e instanceof CampaignRecordError)) throw e;
      const none = { id, total: 0, done: 0, running: 0, queued: 0, failed: 0, cancelled: 0, unreadable: 0, findings: [], etaS: null };
      return { id, folder, select: id, status: none, live: false, builds: false, error: e.message };
    }
  }

  private updateBar(): void {
    const views = [...this.live.values()].map(l => l.view.status);
    if (!views.length) {
      this.bar.hide();
      return;
    }
    const done = views.reduce((n, s) => n + s.done + s.failed + s.cancelled, 0);
    const total = views.reduce((n, s) => n + s.total, 0);
    this.bar.text = `$(rocket) campaign ${done}/${total}`;
    this.bar.tooltip = [...this.live.values()].map(l => `${l.view.id} (${l.view.select}): ${describeStatus(l.view.status)}`).join('\n');
    this.bar.accessibilityInformation = { label: `Bench Triage: campaign progress ${done} of ${total} runs` };
    this.bar.show();
  }

  dispose(): void {
    for (const l of this.live.values()) l.ctl.abort();
    for (const w of this.recordWatches.values()) w.close();
    this.recordWatches.clear();
    for (const d of this.disposables) d.dispose();
    this.bar.dispose();
    this.changed.dispose();
  }
}
