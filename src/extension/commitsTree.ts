import * as vscode from 'vscode';
import type { FileRecord, Role, Run, RunStatus } from '../core/model';
import { ROLES } from '../core/model';
import { displayMetric, formatMetric } from '../core/metrics';
import { category, type Evidence, type Fixability } from '../core/classify';
import type { CommitTriage, RoleView } from '../core/compare';
import type { FolderScan, Store } from './store';
import { embeddedLogUri } from './logFs';

export const GROUP_BY = ['category', 'fixability', 'agent', 'model', 'outcome'] as const;
export type GroupBy = (typeof GROUP_BY)[number];

type Entry = { folder: FolderScan; entry: CommitTriage };
export type Node =
  | { kind: 'problems'; items: Array<{ folder: FolderScan; file: FileRecord }> }
  | { kind: 'problem'; folder: FolderScan; file: FileRecord }
  | { kind: 'project'; project: string; groups: Array<Extract<Node, { kind: 'group' }>>; entries: number }
  | { kind: 'group'; key: string; title: string; icon: vscode.ThemeIcon; entries: Entry[]; project: string | null }
  | { kind: 'entry'; folder: FolderScan; entry: CommitTriage }
  | { kind: 'role'; folder: FolderScan; entry: CommitTriage; role: Role; view: RoleView }
  | { kind: 'evidence'; folder: FolderScan; evidence: Evidence }
  | { kind: 'run'; folder: FolderScan; run: Run }
  | { kind: 'file'; folder: FolderScan; path: string; label: string };

const GLYPH: Record<RunStatus, string> = { success: '✓', failed: '✗', timeout: '⏱', skipped: '⊘', not_run: '·' };
const ICON: Record<RunStatus, vscode.ThemeIcon> = {
  success: new vscode.ThemeIcon('pass', new vscode.ThemeColor('testing.iconPassed')),
  failed: new vscode.ThemeIcon('error', new vscode.ThemeColor('testing.iconFailed')),
  timeout: new vscode.ThemeIcon('watch', new vscode.ThemeColor('testing.iconErrored')),
  skipped: new vscode.ThemeIcon('circle-slash'),
  not_run: new vscode.ThemeIcon('circle-outline'),
};
const FIX_ICON: Record<Fixability, string> = {
  retry: 'debug-restart', recipe: 'wrench', rebuild: 'package', config: 'settings-gear', 'more-gpus': 'server-environment',
  unfixable: 'circle-slash', investigate: 'search', dataset: 'database', agent: 'hubot',
};
const ROLE_LETTER: Record<Role, string> = { baseline: 'B', human: 'H', agent: 'A' };
const MEASURED: Record<string, { title: string; icon: string; rank: number }> = {
  complete: { title: 'Complete 3-way', icon: 'pass', rank: 0 },
  incomparable: { title: 'Measured, not comparable', icon: 'warning', rank: 1 },
  partial: { title: 'Partial (roles never ran)', icon: 'circle-large-outline', rank: 2 },
};

export function roleGlyphs(e: CommitTriage): string {
  return ROLES.map(r => `${ROLE_LETTER[r]}${GLYPH[e.roles[r].run?.status ?? 'not_run']}`).join(' ');
}

const firstLine = (s: string | null, max = 90) => {
  const l = (s ?? '').split('\n').find(x => x.trim()) ?? '';
  return l.length > max ? l.slice(0, max - 1) + '…' : l;
};

/** Fixability of what blocks an entry (null when it was measured). */
function fixabilityOf(e: CommitTriage): Fixability | null {
  if (!e.blockingRole) return null;
  return e.roles[e.blockingRole].classification?.fixability ?? category(e.outcome).fixability;
}

/** Group key, title and icon of an entry under a group-by. */
export function groupOf(e: CommitTriage, by: GroupBy): { key: string; title: string; icon: string } {
  const measured = MEASURED[e.outcome];
  switch (by) {
    case 'category':
      return measured ? { key: e.outcome, ...measured } : { key: e.outcome, title: category(e.outcome).title, icon: FIX_ICON[category(e.outcome).fixability] };
    case 'outcome':
      return measured ? { key: e.outcome, ...measured } : { key: `group:${category(e.outcome).group}`, title: `Failed: ${category(e.outcome).group}`, icon: 'error' };
    case 'fixability': {
      const f = fixabilityOf(e);
      return f ? { key: `fix:${f}`, title: f, icon: FIX_ICON[f] } : { key: 'measured', title: 'measured', icon: 'pass' };
    }
    case 'agent': return { key: `agent:${e.agent ?? ''}`, title: e.agent ?? '(no agent run)', icon: 'hubot' };
    case 'model': return { key: `model:${e.model ?? ''}`, title: e.model ?? '(model unknown)', icon: 'symbol-class' };
  }
}

export function matchesFilter(e: CommitTriage, filter: string): boolean {
  if (!filter) return true;
  const f = filter.toLowerCase();
  const hay = [e.commit, e.subject ?? '', e.model ?? '', e.agent ?? '', e.outcome, category(e.outcome).title,
    ...ROLES.map(r => e.roles[r].classification?.cause ?? '')].join('\n').toLowerCase();
  return hay.includes(f);
}

export class CommitsTree implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly subs: vscode.Disposable[] = [];
  filter = '';

  constructor(private readonly store: Store) {
    this.subs.push(store.onDidChange(() => this.changed.fire(undefined)),
      vscode.workspace.onDidChangeConfiguration(e => { if (e.affectsConfiguration('benchTriage.groupBy')) this.changed.fire(undefined); }));
  }

  dispose(): void { for (const s of this.subs) s.dispose(); this.changed.dispose(); }

  get groupBy(): GroupBy {
    const v = vscode.workspace.getConfiguration('benchTriage').get<string>('groupBy', 'category');
    return (GROUP_BY as readonly string[]).includes(v) ? (v as GroupBy) : 'category';
  }

  setFilter(f: string): void { this.filter = f.trim(); this.changed.fire(undefined); }

  async getChildren(node?: Node): Promise<Node[]> {
    if (!node) {
      await this.store.ensureScanned(); // the first look at the view starts the scan
      return this.roots();
    }
    switch (node.kind) {
      case 'problems': return node.items.map(p => ({ kind: 'problem', ...p }));
      case 'project': return node.groups;
      case 'group': return node.entries.map(e => ({ kind: 'entry', ...e }));
      case 'entry': return ROLES.filter(r => node.entry.roles[r].run).map(role => ({ kind: 'role', folder: node.folder, entry: node.entry, role, view: node.entry.roles[role] }));
      case 'role': {
        const out: Node[] = [];
        const ev = node.view.classification?.evidence;
        if (ev) out.push({ kind: 'evidence', folder: node.folder, evidence: ev });
        const run = node.view.run!;
        out.push({ kind: 'file', folder: node.folder, path: run.provenance.file, label: `result file (${run.provenance.schema})` });
        for (const p of run.logFiles) out.push({ kind: 'file', folder: node.folder, path: p, label: p.slice(p.lastIndexOf('/') + 1) });
        for (const h of node.view.history) out.push({ kind: 'run', folder: node.folder, run: h });
        return out;
      }
      case 'run': return [{ kind: 'file', folder: node.folder, path: node.run.provenance.file, label: `result file (${node.run.provenance.schema})` }];
      default: return [];
    }
  }

  /** Groups of the given entries in a stable order: measured first, then by count. */
  private groups(entries: Entry[], project: string | null): Array<Extract<Node, { kind: 'group' }>> {
    const by = this.groupBy;
    const groups = new Map<string, Extract<Node, { kind: 'group' }>>();
    for (const e of entries) {
      const g = groupOf(e.entry, by);
      let node = groups.get(g.key);
      if (!node) groups.set(g.key, (node = { kind: 'group', key: g.key, title: g.title, icon: new vscode.ThemeIcon(g.icon), entries: [], project }));
      node.entries.push(e);
    }
    const rank = (k: string) => MEASURED[k]?.rank ?? 10;
    const sorted = [...groups.values()].sort((a, b) => rank(a.key) - rank(b.key) || b.entries.length - a.entries.length || a.title.localeCompare(b.title));
    for (const g of sorted) g.entries.sort((a, b) => a.entry.commit.localeCompare(b.entry.commit));
    return sorted;
  }

  /** Groups; with more than one project in the workspace, one node per project first (projects are never mixed). */
  roots(): Node[] {
    const entries = this.store.entries().filter(e => matchesFilter(e.entry, this.filter));
    const projects = [...new Set(entries.map(e => e.entry.project))].sort();
    // Entries nothing names a project for stay with the others unless two real projects are there.
    const known = projects.filter(p => p !== 'unknown');
    const top: Node[] = known.length > 1
      ? projects.map(p => { const mine = entries.filter(e => e.entry.project === p); return { kind: 'project' as const, project: p, groups: this.groups(mine, p), entries: mine.length }; })
      : this.groups(entries, projects[0] ?? null);
    const problems = this.store.problems();
    return problems.length ? [{ kind: 'problems', items: problems }, ...top] : top;
  }

  /** Failures nobody has triaged yet (for the view badge). */
  failureCount(): number { return this.store.entries().filter(e => e.entry.blockingRole).length; }

  getTreeItem(node: Node): vscode.TreeItem {
    switch (node.kind) {
      case 'problems': {
        const t = new vscode.TreeItem(`${node.items.length} file${node.items.length === 1 ? '' : 's'} could not be used`, vscode.TreeItemCollapsibleState.Collapsed);
        t.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('problemsWarningIcon.foreground'));
        t.contextValue = 'problems';
        t.tooltip = 'Corrupt JSON or files whose shape is not a known result schema. Nothing else was skipped.';
        return t;
      }
      case 'problem': {
        const f = node.file;
        const name = f.path.slice(f.path.lastIndexOf('/') + 1);
        const t = new vscode.TreeItem(name, vscode.TreeItemCollapsibleState.None);
        const why = f.kind === 'corrupt' ? `corrupt: ${f.error}` : f.kind === 'unknown' ? `unknown: ${f.reason}` : f.kind === 'skipped' ? `not read: ${f.reason}` : '';
        t.description = why;
        t.tooltip = new vscode.MarkdownString().appendText(`${f.path}\n\n${why}`);
        t.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('problemsWarningIcon.foreground'));
        t.contextValue = `problem.${f.kind}`;
        const at = f.kind === 'corrupt' && f.line ? { line: f.line, column: f.column ?? 1 } : undefined;
        t.command = { command: 'benchTriage.openFile', title: 'Open File', arguments: [vscode.Uri.joinPath(node.folder.root, f.path), at] };
        t.accessibilityInformation = { label: `${name}, ${why}` };
        return t;
      }
      case 'project': {
        const t = new vscode.TreeItem(node.project === 'unknown' ? '(project unknown)' : node.project, vscode.TreeItemCollapsibleState.Expanded);
        t.id = `project:${node.project}`;
        t.description = `${node.entries} entr${node.entries === 1 ? 'y' : 'ies'}`;
        t.iconPath = new vscode.ThemeIcon('repo');
        t.contextValue = 'project';
        t.tooltip = `Commits of ${node.project}: never counted or compared with another project's.`;
        t.accessibilityInformation = { label: `project ${node.project}, ${node.entries} entries` };
        return t;
      }
      case 'group': {
        const t = new vscode.TreeItem(node.title, vscode.TreeItemCollapsibleState.Collapsed);
        t.id = `group:${node.project ?? ''}:${this.groupBy}:${node.key}`;
        t.description = String(node.entries.length);
        t.iconPath = node.icon;
        t.contextValue = `group ${node.key}`;
        const def = MEASURED[node.key] ? null : category(node.key.replace(/^(fix|group|agent|model):/, ''));
        t.tooltip = def && this.groupBy === 'category' ? `${def.description}\n\nFixability: ${def.fixability}` : node.title;
        t.accessibilityInformation = { label: `${node.title}, ${node.entries.length} commit${node.entries.length === 1 ? '' : 's'}` };
        return t;
      }
      case 'entry': {
        const e = node.entry;
        const t = new vscode.TreeItem(`${e.commit.slice(0, 8)}${e.subject ? ' ' + e.subject : ''}`, vscode.TreeItemCollapsibleState.Collapsed);
        t.id = `entry:${node.folder.root.toString()}:${e.commit}:${e.agent ?? ''}:${this.groupBy}`;
        t.description = [e.conflicts.length ? '⚠ data conflict' : '', e.model, e.agent, roleGlyphs(e), e.verdict !== 'n/a' ? e.verdict : ''].filter(Boolean).join(' · ');
        t.iconPath = e.conflicts.length ? new vscode.ThemeIcon('warning', new vscode.ThemeColor('problemsWarningIcon.foreground')) : new vscode.ThemeIcon('git-commit');
        t.contextValue = `entry outcome:${e.outcome} ${ROLES.map(r => `${r}:${e.roles[r].run?.status ?? 'none'}`).join(' ')}`;
        const md = new vscode.MarkdownString();
        md.appendMarkdown(`**${e.commit}**\n\n`).appendText(e.subject ? e.subject + '\n\n' : '');
        md.appendText(`${e.project} · outcome: ${e.outcome}${e.blockingRole ? ` (${e.blockingRole})` : ''} · verdict: ${e.verdict}\n\n`);
        const c = e.comparison;
        if (c) md.appendText(`${e.comparability.ok ? '' : '(withheld) '}${c.verdict} on ${c.label}: agent vs human ${c.agentVsHuman > 0 ? '+' : ''}${c.agentVsHuman.toFixed(1)} %${c.basis === 'single' ? ' — single run, noise unknown' : ` — ${c.basis}, 95 % CI [${c.ci![0].toFixed(1)}, ${c.ci![1].toFixed(1)}] %, p ${c.p!.toFixed(3)}`}${c.mixed ? ' — mixed headline metrics' : ''}\n\n`);
        if (!e.comparability.ok) md.appendText(`not comparable: ${e.comparability.reasons.join('; ')}\n\n`);
        for (const x of e.conflicts) md.appendText(`data conflict: ${x}\n\n`);
        t.tooltip = md;
        t.accessibilityInformation = { label: `commit ${e.commit.slice(0, 8)} ${e.subject ?? ''}, ${e.outcome}, ${ROLES.map(r => `${r} ${(e.roles[r].run?.status ?? 'not run').replace('_', ' ')}`).join(', ')}` };
        return t;
      }
      case 'role': {
        const r = node.view.run!;
        const c = node.view.classification;
        const t = new vscode.TreeItem(node.role === 'agent' && r.agent ? `agent (${r.agent})` : node.role, vscode.TreeItemCollapsibleState.Collapsed);
        const pm = displayMetric(r.metrics, r.benchmarkMode);
        const what = r.status === 'success' ? (pm ? formatMetric(pm.def, pm.value) : 'success')
          : c ? `${category(c.category).title}${c.cause ? ` (${c.cause})` : ''}` : firstLine(r.error) || r.originalStatus;
        t.description = `${what} · ${r.source}${node.view.history.length ? ` · ${node.view.history.length + 1} attempts` : ''}`;
        t.iconPath = ICON[r.status];
        t.id = `role:${node.folder.root.toString()}:${node.entry.commit}:${node.entry.agent ?? ''}:${node.role}:${this.groupBy}`;
        t.contextValue = `role role:${node.role} status:${r.status} source:${r.source}${c ? ` category:${c.category} fixability:${c.fixability}` : ''}`;
        const md = new vscode.MarkdownString();
        md.appendText(`${node.role} · ${r.status} (original status "${r.originalStatus}") · ${r.provenance.file} (${r.provenance.schema})\n\n`);
        if (c) md.appendText(`${category(c.category).title}: ${c.description}\nFixability: ${c.fixability} · rule ${c.rule ?? '—'} · ${c.strength}\n\n`);
        if (c && c.findings.length > 1) md.appendText(`Also found: ${c.findings.slice(1).map(f => `${category(f.category).title}${f.cause ? ` (${f.cause})` : ''}`).join('; ')}\n\n`);
        for (const n of c?.notes ?? []) md.appendText(`Note: ${n}\n\n`);
        for (const p of r.problems.slice(0, 5)) md.appendText(`Data: ${p.field}: ${p.message}\n\n`);
        if (r.error) md.appendCodeblock(r.error.slice(0, 1500), 'text');
        t.tooltip = md;
        t.accessibilityInformation = { label: `${node.role}, ${r.status}, ${what}` };
        return t;
      }
      case 'evidence': {
        const ev = node.evidence;
        const t = new vscode.TreeItem(`line ${ev.line}: ${firstLine(ev.text, 120)}`, vscode.TreeItemCollapsibleState.None);
        t.description = ev.field ? `${ev.file} · ${ev.field}` : ev.file;
        t.iconPath = new vscode.ThemeIcon('debug-breakpoint-log');
        t.contextValue = 'evidence';
        t.tooltip = new vscode.MarkdownString().appendText(`Evidence at ${ev.file}${ev.field ? ` (${ev.field})` : ''}, line ${ev.line}\n\n`).appendCodeblock(ev.text, 'text');
        const file = vscode.Uri.joinPath(node.folder.root, ev.file);
        t.command = { command: 'benchTriage.openFile', title: 'Open Evidence', arguments: [ev.field ? embeddedLogUri(file, ev.field) : file, { line: ev.line, column: 1 }] };
        t.accessibilityInformation = { label: `evidence at line ${ev.line}: ${ev.text.slice(0, 120)}` };
        return t;
      }
      case 'run': {
        const r = node.run;
        const t = new vscode.TreeItem(`earlier attempt (${r.source})`, vscode.TreeItemCollapsibleState.Collapsed);
        const pm = displayMetric(r.metrics, r.benchmarkMode);
        t.description = `${r.status}${pm ? ' · ' + formatMetric(pm.def, pm.value) : r.error ? ' · ' + firstLine(r.error, 60) : ''}${r.timestamp ? ' · ' + r.timestamp : ''}`;
        t.iconPath = ICON[r.status];
        t.contextValue = `run role:${r.role} status:${r.status}`;
        return t;
      }
      case 'file': {
        const t = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.None);
        t.description = node.path;
        t.resourceUri = vscode.Uri.joinPath(node.folder.root, node.path);
        t.iconPath = vscode.ThemeIcon.File;
        t.command = { command: 'benchTriage.openFile', title: 'Open File', arguments: [t.resourceUri] };
        t.contextValue = 'file';
        return t;
      }
    }
  }
}
