import * as path from 'node:path';
import * as vscode from 'vscode';
import { timing } from '../../app/runTiming';
import type { LiveRun } from '../../app/runs';
import { RunKeys } from '../../app/identity';
import { FINAL_STATES, type RunState } from '../../core/run/records';
import { formatWhen } from '../../core/report';
import { COMMANDS } from '../commands/ids';
import type { RunService } from '../runService';
import { campaignKey, describeStatus, type CampaignChange, type CampaignService, type CampaignView } from '../campaignService';
import type { LiveBuild } from '../../app/builds';
import { FINAL_BUILD_STATES, type BuildState } from '../../core/run/records';
import type { BuildService } from '../buildService';
import type { HostConfig } from '../../core/run/hosts';
import type { SwarmNodeStatus } from '../../core/run/swarm';

const ICON: Record<RunState, [string, string?]> = {
  queued: ['clock'],
  preflight: ['sync~spin'],
  running: ['sync~spin'],
  succeeded: ['pass', 'testing.iconPassed'],
  failed: ['error', 'testing.iconFailed'],
  timeout: ['watch', 'testing.iconFailed'],
  cancelled: ['circle-slash'],
  interrupted: ['debug-disconnect', 'testing.iconErrored'],
  'agent-patch-failed': ['diff', 'testing.iconFailed'],
  refused: ['blocked', 'testing.iconErrored'],
};

/** The folder of a run's files, and its log files in phase order (stdout, stderr), then the runner's own log. */
export function runFiles(r: LiveRun): { dir: string; logs: Array<{ file: string; label: string }> } {
  const dir = path.join(r.folder, r.record.plan.resultDir);
  const logs = r.record.phases.flatMap(p => [
    { file: p.stdout, label: `${p.name} stdout` },
    { file: p.stderr, label: `${p.name} stderr` },
  ]);
  logs.push({ file: r.record.runnerLog, label: 'runner' });
  return { dir, logs };
}

export abstract class RunsNode {
  abstract readonly kind: 'host' | 'run' | 'log' | 'campaign' | 'builds' | 'build' | 'swarm' | 'swarmNode' | 'swarmRun' | 'message';
  abstract readonly contextValue: string;
  abstract item(): vscode.TreeItem;
  children(): RunsNode[] {
    return [];
  }
}

const buildKey = (b: LiveBuild) => `${b.folder}\0${b.record.buildId}`;

/** A campaign: its progress (done / running / queued / failed, ETA). */
export class CampaignNode extends RunsNode {
  readonly kind = 'campaign' as const;
  /** Replaced when the campaign changes: VS Code redraws a row by the node object it was given. */
  constructor(public view: CampaignView) {
    super();
  }
  get contextValue() {
    if (this.view.error) return 'campaign unreadable';
    const s = this.view.status;
    const open = s.running + s.queued > 0;
    // ` ablation`: a patch ablation's campaign, which has its own view (Show Ablation).
    return `campaign${this.view.live ? ' live' : ''}${open ? ' open' : ' ended'}${this.view.id.startsWith('ablate-') ? ' ablation' : ''}`;
  }
  item(): vscode.TreeItem {
    const v = this.view;
    const s = v.status;
    const t = new vscode.TreeItem(`campaign ${v.select}`, vscode.TreeItemCollapsibleState.None);
    t.id = `campaign:${v.folder.toString()}:${v.id}`;
    if (v.error) {
      t.description = 'cannot be read';
      t.iconPath = new vscode.ThemeIcon('error');
      t.tooltip = v.error;
      t.contextValue = this.contextValue;
      t.accessibilityInformation = { label: `campaign ${v.id} cannot be read: ${v.error}` };
      return t;
    }
    t.description = `${describeStatus(s)}${v.live ? '' : s.running + s.queued ? ' · not running here' : ''}`;
    t.iconPath = new vscode.ThemeIcon(v.live ? 'sync~spin' : s.failed ? 'warning' : s.cancelled ? 'circle-slash' : 'rocket');
    t.tooltip = `${v.id} in ${v.folder.fsPath}\n${s.total} ${v.builds ? 'image builds' : 'runs'}: ${describeStatus(s)}${s.findings.length ? `\n${s.findings.slice(0, 5).join('\n')}` : ''}`;
    t.contextValue = this.contextValue;
    t.accessibilityInformation = { label: `campaign ${v.select}, ${describeStatus(s)}` };
    return t;
  }
}

export class HostNode extends RunsNode {
  readonly kind = 'host' as const;
  readonly contextValue = 'runHost';
  constructor(
    readonly label: string,
    public runs: LiveRun[],
    private readonly nodeOf: (r: LiveRun) => RunNode = r => new RunNode(r),
  ) {
    super();
  }
  override children(): RunsNode[] {
    return this.runs.map(this.nodeOf);
  }
  item(): vscode.TreeItem {
    const active = this.runs.filter(r => !FINAL_STATES.includes(r.record.status)).length;
    const t = new vscode.TreeItem(this.label, vscode.TreeItemCollapsibleState.Expanded);
    t.id = `host|${this.label}`;
    t.iconPath = new vscode.ThemeIcon('server');
    t.description = `${active} active, ${this.runs.length - active} finished`;
    t.contextValue = this.contextValue;
    return t;
  }
}

/** One run (live or from disk): the node Cancel Run and Open Live Log take. */
export class RunNode extends RunsNode {
  readonly kind = 'run' as const;
  constructor(readonly run: LiveRun) {
    super();
  }
  get contextValue() {
    const s = this.run.record.status;
    return `liveRun state:${s}${FINAL_STATES.includes(s) ? ' finished' : this.run.fromDisk ? ' elsewhere' : ' active'}`;
  }
  override children(): RunsNode[] {
    return runFiles(this.run).logs.map(l => new RunLogNode(this.run, l.file, l.label));
  }
  /** Whether the row as last drawn showed a finished run (its host's counts change when this does). */
  shownFinal = false;
  item(): vscode.TreeItem {
    const r = this.run.record;
    this.shownFinal = FINAL_STATES.includes(r.status);
    const t = new vscode.TreeItem(`${r.commit.slice(0, 8)} ${r.role}`, vscode.TreeItemCollapsibleState.Collapsed);
    const [icon, color] = ICON[r.status] ?? ['question'];
    t.iconPath = new vscode.ThemeIcon(icon, color ? new vscode.ThemeColor(color) : undefined);
    const phase = r.phases.filter(p => p.launchedAt).at(-1)?.name;
    const when = r.startedAt ?? r.createdAt;
    const active = !FINAL_STATES.includes(r.status);
    const took = timing(this.run);
    t.description = `${r.status}${phase && active ? ` · ${phase}` : ''} · ${active ? `since ${formatWhen(when).slice(11)}${took.queued ? ` (waited ${took.queued})` : ''}` : took.text}${this.run.fromDisk && when ? ` · ${formatWhen(when)}` : ''}`;
    t.tooltip = new vscode.MarkdownString().appendText(
      `${r.role} of ${r.commit} on ${this.run.host.label}\n\n${r.status}${r.error ? `: ${r.error}` : ''}\n\nimage ${r.image}${r.recipes.length ? `\n\nrecipes: ${r.recipes.join(', ')}` : ''}${this.run.fromDisk ? '\n\n(from disk: run.json)' : ''}`,
    );
    t.accessibilityInformation = { label: `${r.role} run of commit ${r.commit.slice(0, 8)} on ${this.run.host.label}: ${r.status}, ${took.text}` };
    t.contextValue = this.contextValue;
    t.id = RunKeys.format(this.run.key);
    return t;
  }
}

const BUILD_ICON: Record<BuildState, [string, string?]> = {
  queued: ['clock'],
  preparing: ['sync~spin'],
  building: ['sync~spin'],
  succeeded: ['pass', 'testing.iconPassed'],
  reused: ['pass', 'testing.iconPassed'],
  failed: ['error', 'testing.iconFailed'],
  cancelled: ['circle-slash'],
  interrupted: ['debug-disconnect', 'testing.iconErrored'],
};

/** The image builds of the workspace (this window's and those on disk), newest first. */
export class BuildsNode extends RunsNode {
  readonly kind = 'builds' as const;
  readonly contextValue = 'builds';
  constructor(
    public builds: LiveBuild[],
    private readonly nodeOf: (b: LiveBuild) => BuildNode,
  ) {
    super();
  }
  override children(): RunsNode[] {
    return this.builds.map(this.nodeOf);
  }
  item(): vscode.TreeItem {
    const active = this.builds.filter(b => !FINAL_BUILD_STATES.includes(b.record.status)).length;
    const t = new vscode.TreeItem('image builds', vscode.TreeItemCollapsibleState.Expanded);
    t.id = 'builds';
    t.iconPath = new vscode.ThemeIcon('package');
    t.description = `${active} active, ${this.builds.length - active} finished`;
    t.contextValue = this.contextValue;
    return t;
  }
}

/** One image build: the node Cancel Build and Open Build Log take; a click opens its log. */
export class BuildNode extends RunsNode {
  readonly kind = 'build' as const;
  /** The state its row last showed: a change across active/finished also redraws the section's counts. */
  shownStatus: BuildState | null = null;
  constructor(public build: LiveBuild) {
    super();
  }
  get contextValue() {
    const s = this.build.record.status;
    return `build state:${s}${FINAL_BUILD_STATES.includes(s) ? ' finished' : this.build.fromDisk ? ' elsewhere' : ' active'}`;
  }
  item(): vscode.TreeItem {
    const r = this.build.record;
    this.shownStatus = r.status;
    const t = new vscode.TreeItem(`${r.commit.slice(0, 8)} ${r.role} image`, vscode.TreeItemCollapsibleState.None);
    const [icon, color] = BUILD_ICON[r.status] ?? ['question'];
    t.iconPath = new vscode.ThemeIcon(icon, color ? new vscode.ThemeColor(color) : undefined);
    const active = !FINAL_BUILD_STATES.includes(r.status);
    const took = r.durationS !== null ? `${Math.floor(r.durationS / 60)}m ${String(Math.round(r.durationS % 60)).padStart(2, '0')}s` : '';
    t.description = `${r.status}${active && r.step ? ` · Step ${r.step.n}/${r.step.total}` : ''}${took ? ` · ${took}` : ''} · ${r.tag}`;
    t.tooltip = new vscode.MarkdownString().appendText(
      `${r.role} image of ${r.commit} (source ${r.source}) on ${r.host.label}\n\n${r.status}${r.error ? `: ${r.error}` : ''}\n\n${r.tag} FROM ${r.base}${r.pushed ? `\n\npushed as ${r.pushed.ref} (${r.pushed.s} s)` : ''}${r.step ? `\n\nStep ${r.step.n}/${r.step.total} : ${r.step.text}` : ''}`,
    );
    t.accessibilityInformation = {
      label: `${r.role} image build of commit ${r.commit.slice(0, 8)}: ${r.status}${r.step && active ? `, step ${r.step.n} of ${r.step.total}` : ''}`,
    };
    t.contextValue = this.contextValue;
    t.id = `build|${this.build.folder}|${r.buildId}`;
    t.command = { command: COMMANDS.openBuildLog, title: 'Open Build Log', arguments: [this] };
    return t;
  }
}

export class RunLogNode extends RunsNode {
  readonly kind = 'log' as const;
  readonly contextValue = 'runLog';
  constructor(
    readonly run: LiveRun,
    readonly file: string,
    readonly label: string,
  ) {
    super();
  }
  item(): vscode.TreeItem {
    const t = new vscode.TreeItem(this.label, vscode.TreeItemCollapsibleState.None);
    t.iconPath = new vscode.ThemeIcon('output');
    t.resourceUri = vscode.Uri.file(path.join(runFiles(this.run).dir, this.file));
    t.description = this.file;
    t.command = { command: COMMANDS.openLogFile, title: 'Open Log', arguments: [t.resourceUri] };
    t.contextValue = this.contextValue;
    return t;
  }
}

/** What the swarm section shows of a manager: read from the manager when the section is expanded. */
export type SwarmStatusSource = (host: HostConfig) => Promise<SwarmNodeStatus[]>;

/**
 * A swarm host of the settings: its nodes as its manager reports them. Collapsed at first, so the
 * manager is asked only when someone looks (and again on every expand or redraw of the view).
 */
export class SwarmHostNode extends RunsNode {
  readonly kind = 'swarm' as const;
  readonly contextValue = 'swarmHost';
  constructor(
    readonly host: HostConfig,
    private readonly status: SwarmStatusSource,
  ) {
    super();
  }
  async load(): Promise<RunsNode[]> {
    try {
      const nodes = await this.status(this.host);
      return nodes.length ? nodes.map(n => new SwarmMemberNode(this.host, n)) : [new MessageNode('the manager lists no nodes', 'info')];
    } catch (e) {
      return [new MessageNode(`the manager cannot be asked: ${(e as Error).message}`, 'error')];
    }
  }
  item(): vscode.TreeItem {
    const t = new vscode.TreeItem(`swarm ${this.host.label}`, vscode.TreeItemCollapsibleState.Collapsed);
    t.id = `swarm|${this.host.label}`;
    t.iconPath = new vscode.ThemeIcon('server-environment');
    t.description = 'nodes, GPUs and runs (asked of the manager when expanded)';
    t.tooltip = `${this.host.label}: ${this.host.docker}${this.host.registry ? `\nregistry ${this.host.registry}` : ''}`;
    t.contextValue = this.contextValue;
    return t;
  }
}

/** One node of a swarm: its role, state and availability, GPUs reserved of advertised, and its runs. */
export class SwarmMemberNode extends RunsNode {
  readonly kind = 'swarmNode' as const;
  readonly contextValue = 'swarmNode';
  constructor(
    readonly host: HostConfig,
    readonly node: SwarmNodeStatus,
  ) {
    super();
  }
  override children(): RunsNode[] {
    return this.node.runs.map(r => new SwarmRunNode(this.node, r));
  }
  item(): vscode.TreeItem {
    const n = this.node;
    const t = new vscode.TreeItem(n.name, n.runs.length ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None);
    t.id = `swarm|${this.host.label}|${n.id}`;
    const fine = n.state === 'ready' && n.availability === 'active';
    t.iconPath = new vscode.ThemeIcon(
      fine ? 'vm-active' : 'vm-outline',
      fine ? undefined : new vscode.ThemeColor(n.state === 'ready' ? 'list.warningForeground' : 'list.errorForeground'),
    );
    const runs = `${n.runs.length} run${n.runs.length === 1 ? '' : 's'}`;
    t.description = `${n.role}${n.leader ? ' (leader)' : ''} · ${n.state}, ${n.availability} · GPUs ${n.gpusReserved}/${n.gpusAdvertised} · ${runs}`;
    t.tooltip = new vscode.MarkdownString().appendText(
      `${n.name} (${n.role}${n.leader ? ', leader' : ''})\n\nstate ${n.state}, availability ${n.availability}\n\n${n.gpusReserved} of ${n.gpusAdvertised} GPUs reserved\n\naddress ${n.address ?? 'unknown'}; engine ${n.engine ?? '(no bench-triage.engine label)'}`,
    );
    t.accessibilityInformation = {
      label: `swarm node ${n.name}, ${n.role}, ${n.state}, ${n.availability}, ${n.gpusReserved} of ${n.gpusAdvertised} GPUs reserved, ${runs}`,
    };
    t.contextValue = this.contextValue;
    return t;
  }
}

/** A run on a swarm node, as the manager's task list shows it. */
export class SwarmRunNode extends RunsNode {
  readonly kind = 'swarmRun' as const;
  readonly contextValue = 'swarmRun';
  constructor(
    readonly node: SwarmNodeStatus,
    readonly run: SwarmNodeStatus['runs'][number],
  ) {
    super();
  }
  item(): vscode.TreeItem {
    const r = this.run;
    const t = new vscode.TreeItem(`${r.commit.slice(0, 8)} ${r.role}`, vscode.TreeItemCollapsibleState.None);
    t.iconPath = new vscode.ThemeIcon(r.state === 'running' ? 'sync~spin' : 'clock');
    t.description = `${r.state} · ${r.runId}`;
    t.contextValue = this.contextValue;
    return t;
  }
}

/** A line that says why a section is empty or could not be read. */
export class MessageNode extends RunsNode {
  readonly kind = 'message' as const;
  readonly contextValue = 'message';
  constructor(
    readonly text: string,
    private readonly icon: 'info' | 'error',
  ) {
    super();
  }
  item(): vscode.TreeItem {
    const t = new vscode.TreeItem(this.text, vscode.TreeItemCollapsibleState.None);
    t.iconPath = new vscode.ThemeIcon(this.icon, this.icon === 'error' ? new vscode.ThemeColor('list.errorForeground') : undefined);
    t.tooltip = this.text;
    return t;
  }
}

/** Queued, running and finished runs per host (this window's and those on disk), with their state, phase and times. */
export class RunsTree implements vscode.TreeDataProvider<RunsNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<RunsNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly sub: vscode.Disposable;
  private history: Promise<unknown> | null = null;

  private readonly subCampaigns: vscode.Disposable | undefined;

  private readonly subBuilds: vscode.Disposable | undefined;

  /** Nodes kept by id so that a change refreshes its own row (VS Code knows a node by its object). */
  private readonly runNodes = new Map<string, RunNode>();
  private readonly hostNodes = new Map<string, HostNode>();
  /** Campaigns as last read from disk: re-read when a campaign changes, never for a run's phase. */
  private campaignViews: CampaignView[] | null = null;
  /** Shown campaigns and builds by key: a change redraws its own row, not the view. */
  private readonly campaignNodes = new Map<string, CampaignNode>();
  private readonly campaignReads = new Map<string, number>();
  private buildsNode: BuildsNode | null = null;
  private readonly buildNodes = new Map<string, BuildNode>();

  constructor(
    private readonly service: RunService,
    private readonly campaigns?: CampaignService,
    private readonly builds?: BuildService,
    /** The swarm hosts of the settings, and how to ask a manager for its nodes. */
    private readonly swarms?: { hosts(): HostConfig[]; status: SwarmStatusSource },
  ) {
    // States and phases change what a row says; the runner's notes do not (they are in the log).
    // No clock ticks the tree, and a change redraws only its own row: a re-render closes the
    // context menu a person just opened on a row.
    this.sub = service.onDidChange(e => {
      if (e?.kind === 'note') return;
      const node = e ? this.rowOf(e.run, e.kind) : undefined;
      this.changed.fire(node);
    });
    this.subCampaigns = campaigns?.onDidChange(c => this.campaignChanged(c));
    this.subBuilds = builds?.onDidChange(b => this.changed.fire(b ? this.buildRowOf(b) : undefined));
  }

  /**
   * A campaign the view shows: read again alone (the newest read wins), then its row redrawn.
   * One it does not show (new, or another process's): the whole view, campaigns read again.
   */
  private campaignChanged(c: CampaignChange): void {
    const key = c && campaignKey(c.folder, c.id);
    const node = key ? this.campaignNodes.get(key) : undefined;
    if (!c || !key || !node || !this.campaigns) {
      this.campaignViews = null;
      this.changed.fire(undefined);
      return;
    }
    const seq = (this.campaignReads.get(key) ?? 0) + 1;
    this.campaignReads.set(key, seq);
    void this.campaigns
      .view(node.view.folder, c.id)
      .then(v => {
        if (this.campaignReads.get(key) !== seq || this.campaignNodes.get(key) !== node) return;
        node.view = v;
        if (this.campaignViews) this.campaignViews = this.campaignViews.map(x => (x.id === v.id && x.folder.fsPath === v.folder.fsPath ? v : x));
        this.changed.fire(node);
      })
      .catch(() => {
        this.campaignViews = null;
        this.changed.fire(undefined);
      });
  }

  /**
   * The node to refresh for a build's change: its row for a step; its section when it starts or
   * ends (the section counts active and finished); undefined (all) for a build not shown yet.
   */
  private buildRowOf(b: LiveBuild): RunsNode | undefined {
    const node = this.buildNodes.get(buildKey(b));
    const section = this.buildsNode;
    if (!node || !section || !section.builds.some(x => buildKey(x) === buildKey(b))) return undefined;
    const wasFinal = FINAL_BUILD_STATES.includes(node.shownStatus ?? b.record.status);
    node.build = b;
    return wasFinal !== FINAL_BUILD_STATES.includes(b.record.status) ? section : node;
  }

  private buildNode = (b: LiveBuild): BuildNode => {
    let n = this.buildNodes.get(buildKey(b));
    if (n) n.build = b;
    else this.buildNodes.set(buildKey(b), (n = new BuildNode(b)));
    return n;
  };

  /**
   * The node to refresh for a run's change: its row for a phase, or for a state that keeps it
   * active (or finished); its host when the host's counts change; undefined (all) for a run the
   * view does not show yet.
   */
  private rowOf(run: LiveRun, kind: 'state' | 'phase'): RunsNode | undefined {
    const node = this.runNodes.get(RunKeys.format(run.key));
    const host = this.hostNodes.get(run.host.label);
    if (!node || !host || !host.runs.includes(run)) return undefined;
    const wasFinal = node.shownFinal;
    const isFinal = FINAL_STATES.includes(run.record.status);
    return kind === 'state' && wasFinal !== isFinal ? host : node;
  }

  private runNode = (r: LiveRun): RunNode => {
    const id = RunKeys.format(r.key);
    let n = this.runNodes.get(id);
    if (!n || n.run !== r) this.runNodes.set(id, (n = new RunNode(r)));
    return n;
  };

  async getChildren(node?: RunsNode): Promise<RunsNode[]> {
    if (node) return node instanceof SwarmHostNode ? node.load() : node.children();
    // The first look reads the history from disk (a reload keeps the runs visible).
    await (this.history ??= this.service.loadHistory((vscode.workspace.workspaceFolders ?? []).map(f => f.uri)).catch(() => []));
    const byHost = new Map<string, LiveRun[]>();
    for (const r of this.service.list()) byHost.set(r.host.label, [...(byHost.get(r.host.label) ?? []), r]);
    const folders = (vscode.workspace.workspaceFolders ?? []).map(f => f.uri);
    if (this.campaigns && !this.campaignViews) this.campaignViews = await this.campaigns.list(folders).catch(() => []);
    const shown = new Map<string, CampaignNode>();
    const campaigns = (this.campaignViews ?? []).map(v => {
      const key = campaignKey(v.folder.fsPath, v.id);
      const n = this.campaignNodes.get(key);
      if (n) n.view = v;
      shown.set(key, n ?? new CampaignNode(v));
      return shown.get(key)!;
    });
    this.campaignNodes.clear();
    for (const [k, n] of shown) this.campaignNodes.set(k, n);
    await this.builds?.loadHistory(folders);
    const builds = this.builds?.list() ?? [];
    for (const k of [...this.buildNodes.keys()]) if (!builds.some(b => buildKey(b) === k)) this.buildNodes.delete(k);
    if (builds.length) {
      this.buildsNode ??= new BuildsNode(builds, this.buildNode);
      this.buildsNode.builds = builds;
    } else this.buildsNode = null;
    const hosts = [...byHost].map(([label, runs]) => {
      let h = this.hostNodes.get(label);
      if (!h) this.hostNodes.set(label, (h = new HostNode(label, runs, this.runNode)));
      h.runs = runs;
      return h;
    });
    for (const label of [...this.hostNodes.keys()]) if (!byHost.has(label)) this.hostNodes.delete(label);
    const swarms = (this.swarms?.hosts() ?? []).map(h => new SwarmHostNode(h, this.swarms!.status));
    return [...campaigns, ...(this.buildsNode ? [this.buildsNode] : []), ...hosts, ...swarms];
  }

  /** Redraws the whole view (the swarm sections ask their managers again when expanded). */
  refresh(): void {
    this.changed.fire(undefined);
  }

  getTreeItem(node: RunsNode): vscode.TreeItem {
    return node.item();
  }

  dispose(): void {
    this.sub.dispose();
    this.subCampaigns?.dispose();
    this.subBuilds?.dispose();
    this.changed.dispose();
  }
}
