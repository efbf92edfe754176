import * as vscode from 'vscode';
import { ROLES } from '../../core/model';
import { category, fixabilityWords, type Fixability } from '../../core/classify';
import type { CategoryOf, CommitTriage } from '../../core/compare';
import { parseSelector, selectEntries, type Selector } from '../../core/campaign/plan';
import { groupBySetting, type GroupBy } from '../settings';
import type { FolderScan, Store } from '../store';
import { EntryKeys, type EntryKey } from '../../app/identity';
import { CommitNode, EntryNode, FIX_ICON, GroupNode, MEASURED, ProblemsNode, ProjectNode } from './commitNodes';

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
      return measured
        ? { key: e.outcome, ...measured }
        : { key: `group:${category(e.outcome).group}`, title: `Failed: ${category(e.outcome).group}`, icon: 'error' };
    case 'fixability': {
      const f = fixabilityOf(e);
      return f ? { key: `fix:${f}`, title: fixabilityWords(f), icon: FIX_ICON[f] } : { key: 'measured', title: 'measured', icon: 'pass' };
    }
    case 'agent':
      return { key: `agent:${e.agent ?? ''}`, title: e.agent ?? '(no agent run)', icon: 'hubot' };
    case 'model':
      return { key: `model:${e.model ?? ''}`, title: e.model ?? '(model unknown)', icon: 'symbol-class' };
  }
}

/**
 * A filter is either text (commit, subject, model, agent, category or cause) or, written as
 * `key=value[,key=value]`, a selector as campaigns and `classify --select` take it: `ever=` finds
 * earlier attempts, `outcome=`/`blocked=`/`agent=` exactly what the Dashboard's rows count.
 */
export function filterSelector(filter: string): Selector | null {
  if (!/^\s*[a-z]+\s*!?=/.test(filter)) return null;
  return parseSelector(filter);
}

export function matchesFilter(e: CommitTriage, filter: string, categoryOf?: CategoryOf): boolean {
  if (!filter) return true;
  let selector: Selector | null = null;
  try {
    selector = filterSelector(filter);
  } catch {
    /* not a selector after all: read as text */
  }
  if (selector) return selectEntries([e], selector, categoryOf).length === 1;
  const f = filter.toLowerCase();
  const hay = [
    e.commit,
    e.subject ?? '',
    e.model ?? '',
    e.agent ?? '',
    e.outcome,
    category(e.outcome).title,
    ...ROLES.map(r => e.roles[r].classification?.cause ?? ''),
  ]
    .join('\n')
    .toLowerCase();
  return hay.includes(f);
}

const shownKey = (folder: FolderScan, key: EntryKey) => `${folder.root.toString()}\n${EntryKeys.format(key)}`;

/** The Commits view: problems first, then projects (when two are known) or groups of entries. */
export class CommitsTree implements vscode.TreeDataProvider<CommitNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<CommitNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly subs: vscode.Disposable[] = [];
  private filterText = '';

  /**
   * The entry nodes the view shows, by folder and entry key, with the group each was put in: a
   * change of some commits that moves none of them refreshes those nodes alone (VS Code knows a
   * node by the object it was given, so they are kept and updated in place).
   */
  private readonly shown = new Map<string, { node: EntryNode; group: string }>();
  private problemCount = 0;

  constructor(private readonly store: Store) {
    this.subs.push(
      store.onDidChange(c => {
        const nodes = c.kind === 'commits' ? this.inPlace(c.folder, c.commits) : null;
        if (!nodes) this.changed.fire(undefined);
        else for (const n of nodes) this.changed.fire(n);
      }),
      vscode.workspace.onDidChangeConfiguration(e => {
        if (e.affectsConfiguration('benchTriage.groupBy')) this.changed.fire(undefined);
      }),
    );
  }

  dispose(): void {
    for (const s of this.subs) s.dispose();
    this.changed.dispose();
  }

  get groupBy(): GroupBy {
    return groupBySetting();
  }
  get filter(): string {
    return this.filterText;
  }

  setFilter(f: string): void {
    this.filterText = f.trim();
    this.changed.fire(undefined);
  }

  async getChildren(node?: CommitNode): Promise<CommitNode[]> {
    if (node) return node.children();
    await this.store.ensureScanned(); // the first look at the view starts the scan
    return this.roots();
  }

  /**
   * The nodes of the changed commits, updated in place, when the change moves nothing: the same
   * entries, each still in its group and still matching the filter, and the same problems. Null
   * when the view must be rebuilt.
   */
  private inPlace(folder: FolderScan, commits: readonly string[]): EntryNode[] | null {
    if (!this.shown.size || this.store.problems().length !== this.problemCount) return null;
    const changed = new Set(commits);
    const now = this.store.entries().filter(e => e.folder === folder && changed.has(e.entry.commit));
    const before = [...this.shown.values()].filter(v => v.node.folder === folder && changed.has(v.node.entry.commit));
    const categoryOf = (id: string) => folder.classifications.get(id)?.category ?? null;
    const visible = now.filter(e => matchesFilter(e.entry, this.filterText, categoryOf));
    if (visible.length !== before.length) return null;
    const updates: Array<[EntryNode, CommitTriage]> = [];
    for (const e of visible) {
      const was = this.shown.get(shownKey(folder, folder.keyOf(e.entry)));
      if (!was || was.group !== groupOf(e.entry, this.groupBy).key) return null;
      updates.push([was.node, e.entry]);
    }
    for (const [node, entry] of updates) node.entry = entry;
    return updates.map(([node]) => node);
  }

  getTreeItem(node: CommitNode): vscode.TreeItem {
    return node.item(this.groupBy);
  }

  /** Groups of the given entries in a stable order: measured first, then by count. */
  private groups(entries: EntryNode[], project: string | null): GroupNode[] {
    const by = this.groupBy;
    const groups = new Map<string, GroupNode>();
    for (const e of entries) {
      const g = groupOf(e.entry, by);
      let node = groups.get(g.key);
      if (!node) groups.set(g.key, (node = new GroupNode(g.key, g.title, g.icon, [], project)));
      node.entries.push(e);
    }
    const rank = (k: string) => MEASURED[k]?.rank ?? 10;
    const sorted = [...groups.values()].sort((a, b) => rank(a.key) - rank(b.key) || b.entries.length - a.entries.length || a.title.localeCompare(b.title));
    for (const g of sorted) g.entries.sort((a, b) => (a.entry.commit < b.entry.commit ? -1 : a.entry.commit > b.entry.commit ? 1 : 0));
    return sorted;
  }

  /** Groups; with more than one project in the workspace, one node per project first (projects are never mixed). */
  roots(): CommitNode[] {
    const before = new Map(this.shown);
    this.shown.clear();
    const entries = this.store
      .entries()
      .filter(e => matchesFilter(e.entry, this.filterText, id => e.folder.classifications.get(id)?.category ?? null))
      .map(e => {
        const k = shownKey(e.folder, e.folder.keyOf(e.entry));
        const node = before.get(k)?.node ?? new EntryNode(e.folder, e.entry);
        node.entry = e.entry;
        this.shown.set(k, { node, group: groupOf(e.entry, this.groupBy).key });
        return node;
      });
    const projects = [...new Set(entries.map(e => e.entry.project))].sort();
    // Entries nothing names a project for stay with the others unless two real projects are there.
    const known = projects.filter(p => p !== 'unknown');
    const top: CommitNode[] =
      known.length > 1
        ? projects.map(p => {
            const mine = entries.filter(e => e.entry.project === p);
            return new ProjectNode(p, this.groups(mine, p), mine.length);
          })
        : this.groups(entries, projects[0] ?? null);
    const problems = this.store.problems();
    this.problemCount = problems.length;
    return problems.length ? [new ProblemsNode(problems), ...top] : top;
  }

  /** Failures nobody has triaged yet (for the view badge). */
  failureCount(): number {
    return this.store.entries().filter(e => e.entry.blockingRole).length;
  }
}
