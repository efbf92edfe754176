import * as path from 'node:path';
import * as vscode from 'vscode';
import { FINAL_STATES, type RunState } from '../runner/runRecord';
import type { LiveRun, RunService } from './runService';

export type RunNode =
  | { kind: 'host'; label: string; runs: LiveRun[] }
  | { kind: 'run'; run: LiveRun }
  | { kind: 'log'; run: LiveRun; file: string; label: string };

const ICON: Record<RunState, [string, string?]> = {
  queued: ['clock'], preflight: ['sync~spin'], running: ['sync~spin'], succeeded: ['pass', 'testing.iconPassed'], failed: ['error', 'testing.iconFailed'],
  timeout: ['watch', 'testing.iconFailed'], cancelled: ['circle-slash'], interrupted: ['debug-disconnect', 'testing.iconErrored'],
  'agent-patch-failed': ['diff', 'testing.iconFailed'], refused: ['blocked', 'testing.iconErrored'],
};

export function elapsed(r: LiveRun, now = Date.now()): string {
  const s = Math.round(((r.endedMs ?? now) - r.startedMs) / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
}

/** The folder of a run's files, and its log files in phase order (stdout, stderr), then the runner's own log. */
export function runFiles(r: LiveRun): { dir: string; logs: Array<{ file: string; label: string }> } {
  const dir = path.join(r.folder.fsPath, r.record.plan.resultDir);
  const logs = r.record.phases.flatMap(p => [{ file: p.stdout, label: `${p.name} stdout` }, { file: p.stderr, label: `${p.name} stderr` }]);
  logs.push({ file: r.record.runnerLog, label: 'runner' });
  return { dir, logs };
}

/** Queued, running and finished runs per host, with live status and elapsed time. */
export class RunsTree implements vscode.TreeDataProvider<RunNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<RunNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly ticker: NodeJS.Timeout;
  private readonly sub: vscode.Disposable;

  constructor(private readonly service: RunService) {
    this.sub = service.onDidChange(() => this.changed.fire(undefined));
    // Elapsed times move while something runs.
    this.ticker = setInterval(() => { if (service.active().length) this.changed.fire(undefined); }, 1000);
  }

  getChildren(node?: RunNode): RunNode[] {
    if (!node) {
      const byHost = new Map<string, LiveRun[]>();
      for (const r of this.service.list()) byHost.set(r.host.label, [...(byHost.get(r.host.label) ?? []), r]);
      return [...byHost].map(([label, runs]) => ({ kind: 'host', label, runs }));
    }
    if (node.kind === 'host') return node.runs.map(run => ({ kind: 'run', run }));
    if (node.kind === 'run') return runFiles(node.run).logs.map(l => ({ kind: 'log', run: node.run, ...l }));
    return [];
  }

  getTreeItem(node: RunNode): vscode.TreeItem {
    if (node.kind === 'host') {
      const active = node.runs.filter(r => !FINAL_STATES.includes(r.record.status)).length;
      const t = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.Expanded);
      t.iconPath = new vscode.ThemeIcon('server');
      t.description = `${active} active, ${node.runs.length - active} finished`;
      t.contextValue = 'runHost';
      return t;
    }
    if (node.kind === 'run') {
      const r = node.run.record;
      const t = new vscode.TreeItem(`${r.commit.slice(0, 8)} ${r.role}`, vscode.TreeItemCollapsibleState.Collapsed);
      const [icon, color] = ICON[r.status];
      t.iconPath = new vscode.ThemeIcon(icon, color ? new vscode.ThemeColor(color) : undefined);
      const phase = r.phases.filter(p => p.launchedAt).at(-1)?.name;
      t.description = `${r.status}${phase && !FINAL_STATES.includes(r.status) ? ` · ${phase}` : ''} · ${elapsed(node.run)}`;
      t.tooltip = new vscode.MarkdownString(`**${r.role}** of \`${r.commit}\` on ${node.run.host.label}\n\n${r.status}${r.error ? `: ${r.error}` : ''}\n\nimage \`${r.image}\`${r.recipes.length ? `\n\nrecipes: ${r.recipes.join(', ')}` : ''}`);
      t.accessibilityInformation = { label: `${r.role} run of commit ${r.commit.slice(0, 8)} on ${node.run.host.label}: ${r.status}, ${elapsed(node.run)}` };
      t.contextValue = `liveRun state:${r.status}${FINAL_STATES.includes(r.status) ? ' finished' : ' active'}`;
      t.id = node.run.key;
      return t;
    }
    const { dir } = runFiles(node.run);
    const t = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.None);
    t.iconPath = new vscode.ThemeIcon('output');
    t.resourceUri = vscode.Uri.file(path.join(dir, node.file));
    t.description = node.file;
    t.command = { command: 'benchTriage.openLogFile', title: 'Open Log', arguments: [t.resourceUri] };
    t.contextValue = 'runLog';
    return t;
  }

  dispose(): void { clearInterval(this.ticker); this.sub.dispose(); this.changed.dispose(); }
}
