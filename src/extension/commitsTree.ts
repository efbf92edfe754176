import * as vscode from 'vscode';
import type { Commit, FileRecord, Role, Run, RunStatus } from '../core/model';
import { ROLES } from '../core/model';
import { formatMetric, primaryMetric } from '../core/ingest';
import type { FolderScan, Store } from './store';

export type Node =
  | { kind: 'problems'; items: Array<{ folder: FolderScan; file: FileRecord }> }
  | { kind: 'problem'; folder: FolderScan; file: FileRecord }
  | { kind: 'commit'; folder: FolderScan; commit: Commit; runs: Run[] }
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
const ROLE_LETTER: Record<Role, string> = { baseline: 'B', human: 'H', agent: 'A' };

/** Best status per role: one success makes the role measured; otherwise the worst seen. */
export function roleSummary(runs: Run[]): Record<Role, RunStatus> {
  const rank: RunStatus[] = ['success', 'failed', 'timeout', 'skipped', 'not_run'];
  const out = { baseline: 'not_run', human: 'not_run', agent: 'not_run' } as Record<Role, RunStatus>;
  for (const r of runs) if (rank.indexOf(r.status) < rank.indexOf(out[r.role])) out[r.role] = r.status;
  return out;
}

export function roleGlyphs(runs: Run[]): string {
  const s = roleSummary(runs);
  return ROLES.map(r => `${ROLE_LETTER[r]}${GLYPH[s[r]]}`).join(' ');
}

const firstLine = (s: string | null, max = 90) => {
  const l = (s ?? '').split('\n').find(x => x.trim()) ?? '';
  return l.length > max ? l.slice(0, max - 1) + '…' : l;
};

export class CommitsTree implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly sub: vscode.Disposable;

  constructor(private readonly store: Store) {
    this.sub = store.onDidChange(() => this.changed.fire(undefined));
  }

  dispose(): void { this.sub.dispose(); this.changed.dispose(); }

  async getChildren(node?: Node): Promise<Node[]> {
    if (!node) {
      await this.store.ensureScanned(); // the first look at the view starts the scan
      return this.roots();
    }
    if (node.kind === 'problems') return node.items.map(p => ({ kind: 'problem', ...p }));
    if (node.kind === 'commit') return node.runs.map(run => ({ kind: 'run', folder: node.folder, run }));
    if (node.kind === 'run') {
      const files: Node[] = [{ kind: 'file', folder: node.folder, path: node.run.provenance.file, label: `result file (${node.run.provenance.schema})` }];
      for (const p of node.run.logFiles) files.push({ kind: 'file', folder: node.folder, path: p, label: p.slice(p.lastIndexOf('/') + 1) });
      return files;
    }
    return [];
  }

  roots(): Node[] {
    const { runs, commits, problems } = this.store.all();
    const byCommit = new Map<string, { folder: FolderScan; runs: Run[] }>();
    for (const { folder, run } of runs) {
      const key = folder.root.toString() + '\0' + run.commit;
      let e = byCommit.get(key);
      if (!e) byCommit.set(key, (e = { folder, runs: [] }));
      e.runs.push(run);
    }
    const commitInfo = new Map(commits.map(c => [c.folder.root.toString() + '\0' + c.commit.hash, c.commit]));
    const nodes: Node[] = [...byCommit.entries()].map(([key, e]) => ({
      kind: 'commit' as const, folder: e.folder, commit: commitInfo.get(key)!,
      runs: e.runs.sort((a, b) => ROLES.indexOf(a.role) - ROLES.indexOf(b.role) || a.provenance.file.localeCompare(b.provenance.file)),
    }));
    const failing = (n: Node) => (n.kind === 'commit' && n.runs.some(r => r.status !== 'success') ? 0 : 1);
    nodes.sort((a, b) => failing(a) - failing(b) || (a.kind === 'commit' && b.kind === 'commit' ? a.commit.hash.localeCompare(b.commit.hash) : 0));
    return problems.length ? [{ kind: 'problems', items: problems }, ...nodes] : nodes;
  }

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
        const why = f.kind === 'corrupt' ? `corrupt: ${f.error}` : f.kind === 'unknown' ? `unknown: ${f.reason}` : '';
        t.description = why;
        t.tooltip = new vscode.MarkdownString().appendText(`${f.path}\n\n${why}`);
        t.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('problemsWarningIcon.foreground'));
        t.contextValue = `problem.${f.kind}`;
        const at = f.kind === 'corrupt' && f.line ? { line: f.line, column: f.column ?? 1 } : undefined;
        t.command = { command: 'benchTriage.openFile', title: 'Open File', arguments: [vscode.Uri.joinPath(node.folder.root, f.path), at] };
        t.accessibilityInformation = { label: `${name}, ${why}` };
        return t;
      }
      case 'commit': {
        const c = node.commit;
        const subject = c?.subject ?? '';
        const t = new vscode.TreeItem(`${node.runs[0].commit.slice(0, 8)}${subject ? ' ' + subject : ''}`, vscode.TreeItemCollapsibleState.Collapsed);
        const model = c?.models[0] ?? node.runs.find(r => r.model)?.model ?? '';
        t.description = [model, c?.gpuConfig ?? '', roleGlyphs(node.runs)].filter(Boolean).join(' · ');
        t.id = `commit:${node.folder.root.toString()}:${node.runs[0].commit}`;
        const s = roleSummary(node.runs);
        t.iconPath = new vscode.ThemeIcon('git-commit');
        t.contextValue = `commit ${ROLES.map(r => `${r}:${s[r]}`).join(' ')}`;
        const md = new vscode.MarkdownString();
        md.appendMarkdown(`**${node.runs[0].commit}**\n\n`).appendText(subject ? subject + '\n\n' : '');
        if (c?.parent) md.appendText(`parent ${c.parent}\n\n`);
        if (c?.prUrl) md.appendMarkdown(`[${c.prUrl}](${c.prUrl})\n\n`);
        md.appendText(`${node.runs.length} run(s): ${ROLES.map(r => `${r} ${s[r]}`).join(', ')}`);
        t.tooltip = md;
        t.accessibilityInformation = { label: `commit ${node.runs[0].commit.slice(0, 8)} ${subject}, ${ROLES.map(r => `${r} ${s[r].replace('_', ' ')}`).join(', ')}` };
        return t;
      }
      case 'run': {
        const r = node.run;
        const t = new vscode.TreeItem(r.role === 'agent' && r.agent ? `agent (${r.agent})` : r.role, vscode.TreeItemCollapsibleState.Collapsed);
        const pm = primaryMetric(r.metrics);
        t.description = `${r.source} · ${r.status === 'success' && pm ? formatMetric(pm.def, pm.value) : r.status === 'success' ? 'success' : firstLine(r.error) || r.originalStatus}`;
        t.iconPath = ICON[r.status];
        t.id = `run:${node.folder.root.toString()}:${r.id}`;
        t.contextValue = `run role:${r.role} status:${r.status} source:${r.source}`;
        const md = new vscode.MarkdownString();
        md.appendText(`${r.role} · ${r.status} (original status "${r.originalStatus}")\n\n${r.provenance.file} (${r.provenance.schema}${r.provenance.pointer ? ', ' + r.provenance.pointer : ''})\n\n`);
        if (r.error) md.appendCodeblock(r.error.slice(0, 2000), 'text');
        t.tooltip = md;
        t.accessibilityInformation = { label: `${r.role} run from ${r.source}, ${r.status}${r.error ? ', ' + firstLine(r.error) : ''}` };
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
