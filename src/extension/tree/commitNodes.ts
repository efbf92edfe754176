import * as vscode from 'vscode';
import type { FileRecord, Role, Run, RunStatus } from '../../core/model';
import { ROLES } from '../../core/model';
import { pValueText } from '../../core/report/pValue';
import { displayMetric, formatMetric } from '../../core/metrics';
import { category, fixabilityWords, type Classification, type Evidence, type Fixability } from '../../core/classify';
import {
  earlierCategories,
  MEASURED_OUTCOMES,
  outcomeTitle,
  pipelineOf,
  shownVerdict,
  wantsMoreRuns,
  type CommitTriage,
  type RoleView,
} from '../../core/compare';
import { EntryKeys } from '../../app/identity';
import type { GroupBy } from '../settings';
import type { FolderScan } from '../store';
import { COMMANDS } from '../commands/ids';
import { evidenceUri } from '../evidence';

/**
 * The Commits view's nodes, one class per kind: each knows its `contextValue` (what menus match),
 * its children and its tree item. Commands receive these objects and check them with `instanceof`.
 */
export abstract class CommitNode {
  /** The node's kind (tests in another bundle cannot use instanceof). */
  abstract readonly kind: 'problems' | 'problem' | 'project' | 'group' | 'entry' | 'role' | 'evidence' | 'attempt' | 'file';
  abstract readonly contextValue: string;
  children(): CommitNode[] {
    return [];
  }
  abstract item(groupBy: GroupBy): vscode.TreeItem;
}

const GLYPH: Record<RunStatus, string> = { success: '✓', failed: '✗', timeout: '⏱', skipped: '⊘', not_run: '·' };
const ICON: Record<RunStatus, vscode.ThemeIcon> = {
  success: new vscode.ThemeIcon('pass', new vscode.ThemeColor('testing.iconPassed')),
  failed: new vscode.ThemeIcon('error', new vscode.ThemeColor('testing.iconFailed')),
  timeout: new vscode.ThemeIcon('watch', new vscode.ThemeColor('testing.iconErrored')),
  skipped: new vscode.ThemeIcon('circle-slash'),
  not_run: new vscode.ThemeIcon('circle-outline'),
};
export const FIX_ICON: Record<Fixability, string> = {
  retry: 'debug-restart',
  recipe: 'wrench',
  rebuild: 'package',
  config: 'settings-gear',
  'more-gpus': 'server-environment',
  unfixable: 'circle-slash',
  investigate: 'search',
  dataset: 'database',
  agent: 'hubot',
};
const ROLE_LETTER: Record<Role, string> = { baseline: 'B', human: 'H', agent: 'A' };
const MEASURED_ICON: Record<string, string> = { complete: 'pass', 'agent-vs-human': 'pass-filled', incomparable: 'warning', partial: 'circle-large-outline' };
/** The measured outcomes as the tree shows them: titles and order from core (one table for every screen), icons here. */
export const MEASURED: Record<string, { title: string; icon: string; rank: number }> = Object.fromEntries(
  Object.entries(MEASURED_OUTCOMES).map(([k, v]) => [k, { title: v.title, icon: MEASURED_ICON[k] ?? 'circle-outline', rank: v.rank }]),
);

export function roleGlyphs(e: CommitTriage): string {
  return ROLES.map(r => `${ROLE_LETTER[r]}${GLYPH[e.roles[r].run?.status ?? 'not_run']}`).join(' ');
}

const STATUS_WORDS: Record<RunStatus, string> = { success: 'succeeded', failed: 'failed', timeout: 'timed out', skipped: 'skipped', not_run: 'not run' };
/** The glyphs spelled out (`B✗ H· A·` means nothing to a newcomer): the tooltip's legend. */
export function roleGlyphLegend(e: CommitTriage): string {
  return `${roleGlyphs(e)} = ${ROLES.map(r => `${r} ${STATUS_WORDS[e.roles[r].run?.status ?? 'not_run']}`).join(', ')}`;
}

/** `commit|agent` (and `commit|`) of every agent run with a patch, once per scan result: context values are read per row. */
const PATCHED = new WeakMap<object, Set<string>>();
function patchedOf(result: FolderScan['result']): Set<string> {
  let set = PATCHED.get(result);
  if (!set) {
    set = new Set(result.agentRuns.filter(r => r.commit && r.patch && !r.patch.empty).flatMap(r => [`${r.commit}|${r.agent ?? ''}`, `${r.commit}|`]));
    PATCHED.set(result, set);
  }
  return set;
}

export const firstLine = (s: string | null, max = 90) => {
  const l = (s ?? '').split('\n').find(x => x.trim()) ?? '';
  return l.length > max ? l.slice(0, max - 1) + '…' : l;
};

const warningIcon = () => new vscode.ThemeIcon('warning', new vscode.ThemeColor('problemsWarningIcon.foreground'));

export class ProblemsNode extends CommitNode {
  readonly kind = 'problems' as const;
  readonly contextValue = 'problems';
  constructor(readonly items: Array<{ folder: FolderScan; file: FileRecord }>) {
    super();
  }
  override children(): CommitNode[] {
    return this.items.map(p => new ProblemNode(p.folder, p.file));
  }
  item(): vscode.TreeItem {
    const t = new vscode.TreeItem(
      `${this.items.length} file${this.items.length === 1 ? '' : 's'} could not be used`,
      vscode.TreeItemCollapsibleState.Collapsed,
    );
    t.id = 'problems';
    t.iconPath = warningIcon();
    t.contextValue = this.contextValue;
    t.tooltip = 'Corrupt JSON, files whose shape is not a known result schema, and links or special files that were not read. Nothing else was skipped.';
    return t;
  }
}

export class ProblemNode extends CommitNode {
  readonly kind = 'problem' as const;
  get contextValue() {
    return `problem.${this.file.kind}`;
  }
  constructor(
    readonly folder: FolderScan,
    readonly file: FileRecord,
  ) {
    super();
  }
  item(): vscode.TreeItem {
    const f = this.file;
    const name = f.path.slice(f.path.lastIndexOf('/') + 1);
    const t = new vscode.TreeItem(name, vscode.TreeItemCollapsibleState.None);
    const why =
      f.kind === 'corrupt'
        ? `corrupt: ${f.error}`
        : f.kind === 'unknown'
          ? `unknown: ${f.reason}`
          : f.kind === 'skipped'
            ? `not read: ${f.reason}`
            : f.kind === 'unattributed'
              ? `not attributed (${f.runs} ${f.runs === 1 ? 'run' : 'runs'} of ${f.schema}): ${f.reason}`
              : '';
    t.description = why;
    t.tooltip = new vscode.MarkdownString().appendText(`${f.path}\n\n${why}`);
    t.iconPath = warningIcon();
    t.contextValue = this.contextValue;
    const at = f.kind === 'corrupt' && f.line ? { line: f.line, column: f.column ?? 1 } : undefined;
    t.command = { command: COMMANDS.openFile, title: 'Open File', arguments: [vscode.Uri.joinPath(this.folder.root, f.path), at] };
    t.accessibilityInformation = { label: `${name}, ${why}` };
    return t;
  }
}

export class ProjectNode extends CommitNode {
  readonly kind = 'project' as const;
  readonly contextValue = 'project';
  constructor(
    readonly project: string,
    readonly groups: GroupNode[],
    readonly count: number,
  ) {
    super();
  }
  override children(): CommitNode[] {
    return this.groups;
  }
  item(): vscode.TreeItem {
    const t = new vscode.TreeItem(this.project === 'unknown' ? '(project unknown)' : this.project, vscode.TreeItemCollapsibleState.Expanded);
    t.id = `project:${this.project}`;
    t.description = `${this.count} entr${this.count === 1 ? 'y' : 'ies'}`;
    t.iconPath = new vscode.ThemeIcon('repo');
    t.contextValue = this.contextValue;
    t.tooltip = `Commits of ${this.project}: never counted or compared with another project's.`;
    t.accessibilityInformation = { label: `project ${this.project}, ${this.count} entries` };
    return t;
  }
}

export class GroupNode extends CommitNode {
  readonly kind = 'group' as const;
  get contextValue() {
    return `group ${this.key}`;
  }
  constructor(
    readonly key: string,
    readonly title: string,
    readonly icon: string,
    readonly entries: EntryNode[],
    readonly project: string | null,
  ) {
    super();
  }
  override children(): CommitNode[] {
    return this.entries;
  }
  item(groupBy: GroupBy): vscode.TreeItem {
    const t = new vscode.TreeItem(this.title, vscode.TreeItemCollapsibleState.Collapsed);
    t.id = `group:${this.project ?? ''}:${groupBy}:${this.key}`;
    t.description = String(this.entries.length);
    t.iconPath = new vscode.ThemeIcon(this.icon);
    t.contextValue = this.contextValue;
    const def = MEASURED[this.key] ? null : category(this.key.replace(/^(fix|group|agent|model):/, ''));
    t.tooltip = def && groupBy === 'category' ? `${def.description}\n\nFixability: ${fixabilityWords(def.fixability)} (${def.fixability})` : this.title;
    t.accessibilityInformation = { label: `${this.title}, ${this.entries.length} commit${this.entries.length === 1 ? '' : 's'}` };
    return t;
  }
}

/** One (commit, agent) entry: the node the commit-level commands (Compare, Rerun all roles, Diff, Note) take. */
export class EntryNode extends CommitNode {
  readonly kind = 'entry' as const;
  constructor(
    readonly folder: FolderScan,
    /** Replaced in place when only this commit changed: the view refreshes this node alone. */
    public entry: CommitTriage,
  ) {
    super();
  }
  get key() {
    return this.folder.keyOf(this.entry);
  }
  get contextValue() {
    const e = this.entry;
    const fix = e.blockingRole ? e.roles[e.blockingRole].classification?.fixability : null;
    const more = e.comparison && e.pair.ok && wantsMoreRuns(e.verdict, e.comparison.basis) ? ' verdict:needs-runs' : '';
    // "patch": an agent patch to ablate (Ablate Agent Patch… is offered on those only).
    const patch = patchedOf(this.folder.result).has(`${e.commit}|${e.agent ?? ''}`) ? ' patch' : '';
    return `entry outcome:${e.outcome}${fix ? ` fixability:${fix}` : ''}${more} ${ROLES.map(r => `${r}:${e.roles[r].run?.status ?? 'none'}`).join(' ')}${patch}`;
  }
  override children(): CommitNode[] {
    return ROLES.filter(r => this.entry.roles[r].run).map(role => new RoleNode(this.folder, this.entry, role, this.entry.roles[role]));
  }
  item(groupBy: GroupBy): vscode.TreeItem {
    const e = this.entry;
    // What decides comes first: at the default 300 px sidebar a subject in the label pushed the
    // verdict, agent and model out of sight, so the label is the short id and the subject goes last.
    const t = new vscode.TreeItem(e.commit.slice(0, 8), vscode.TreeItemCollapsibleState.Collapsed);
    t.id = `${EntryKeys.format(this.key)}|${groupBy}`;
    const earlier = earlierCategories(e, id => this.folder.classifications.get(id)?.category ?? null);
    t.description = [
      e.conflicts.length ? '⚠ data conflict' : '',
      e.verdict !== 'n/a' ? shownVerdict(e.verdict, e.comparison?.basis) : '',
      roleGlyphs(e),
      e.agent,
      e.model,
      earlier.length ? `was: ${earlier.map(x => x.category).join(', ')}` : '',
      e.subject,
    ]
      .filter(Boolean)
      .join(' · ');
    // A verdict on a single run is a hint: its icon says so (the label reads "win?").
    t.iconPath = e.conflicts.length
      ? warningIcon()
      : e.comparison && e.pair.ok && e.comparison.basis === 'single' && e.verdict !== 'n/a'
        ? new vscode.ThemeIcon('question')
        : new vscode.ThemeIcon('git-commit');
    t.contextValue = this.contextValue;
    const md = new vscode.MarkdownString();
    md.appendMarkdown(`**${e.commit}**\n\n`).appendText(e.subject ? e.subject + '\n\n' : '');
    md.appendText(
      `${e.project} · ${outcomeTitle(e.outcome)}${e.blockingRole ? ` (${e.blockingRole})` : ''} · verdict: ${shownVerdict(e.verdict, e.comparison?.basis)}\n\n`,
    );
    const c = e.comparison;
    if (c)
      md.appendText(
        `${e.pair.ok ? '' : '(no verdict: not comparable) '}${e.pair.ok ? `${shownVerdict(c.verdict, c.basis)} on ` : ''}${c.label}: agent vs human ${c.agentVsHuman > 0 ? '+' : ''}${c.agentVsHuman.toFixed(1)} %${c.basis === 'single' ? ' — a single run each: noise unknown, a hint only (Run More Attempts… settles it)' : ` — ${c.basis}, 95 % CI [${c.ci![0].toFixed(1)}, ${c.ci![1].toFixed(1)}] %, p ${pValueText(c.p)}`}${c.mixed ? ' — mixed headline metrics' : ''}\n\n`,
      );
    if (!e.pair.ok && e.pair.reasons.length) md.appendText(`not comparable: ${e.pair.reasons.join('; ')}\n\n`);
    if (e.baselineNote) md.appendText(`baseline not comparable: ${e.baselineNote}\n\n`);
    if (e.chosen) md.appendText(`compared: ${e.chosen.why}\n\n`);
    for (const n of e.comparability.notes ?? []) md.appendText(`note: ${n}\n\n`);
    for (const x of e.conflicts) md.appendText(`data conflict: ${x}\n\n`);
    if (earlier.length)
      md.appendText(`earlier attempts failed with: ${earlier.map(x => `${category(x.category).title} (${x.category}) ×${x.count}`).join(', ')}\n\n`);
    md.appendText(`${roleGlyphLegend(e)}\n\n`);
    t.tooltip = md;
    t.accessibilityInformation = {
      label: `commit ${e.commit.slice(0, 8)} ${e.subject ?? ''}, ${e.outcome}, ${ROLES.map(r => `${r} ${(e.roles[r].run?.status ?? 'not run').replace('_', ' ')}`).join(', ')}`,
    };
    return t;
  }
}

/** One role of an entry: the node the role-level commands (Open Log, Open Result, Rerun this role) take. */
/** A role's category as the tree shows it: where it comes from when a person or the learned stage gave it. */
function roleWhat(c: Classification): string {
  const t = `${category(c.category).title}${c.cause ? ` (${c.cause})` : ''}`;
  if (c.strength === 'label') return `${t} · set by you`;
  if (c.strength === 'learned' && c.learned?.guess) return `${t}? · learned, p ${c.learned.guess.p.toFixed(2)}`;
  if (c.category === 'unclassified' && c.learned?.guess)
    return `${t} · most like ${category(c.learned.guess.category).title} (p ${c.learned.guess.p.toFixed(2)})`;
  return t;
}

export class RoleNode extends CommitNode {
  readonly kind = 'role' as const;
  constructor(
    readonly folder: FolderScan,
    readonly entry: CommitTriage,
    readonly role: Role,
    readonly view: RoleView,
  ) {
    super();
  }
  get run(): Run {
    return this.view.run!;
  }
  get contextValue() {
    const r = this.run,
      c = this.view.classification;
    return `role role:${this.role} status:${r.status} source:${r.source}${c ? ` category:${c.category} fixability:${c.fixability}` : ''}`;
  }
  override children(): CommitNode[] {
    const out: CommitNode[] = [];
    const c = this.view.classification;
    // No rule explains the run: its last error lines, where a person starts reading (and makes a rule).
    if (c?.category === 'unclassified' && c.candidates?.length) for (const ev of c.candidates) out.push(new EvidenceNode(this.folder, ev, 'last error'));
    else if (c?.evidence) out.push(new EvidenceNode(this.folder, c.evidence));
    out.push(new FileNode(this.folder, this.run.provenance.file, `result file (${pipelineOf(this.run)})`));
    for (const p of this.run.logFiles) out.push(new FileNode(this.folder, p, p.slice(p.lastIndexOf('/') + 1)));
    for (const h of this.view.history) out.push(new AttemptNode(this.folder, h));
    return out;
  }
  item(groupBy: GroupBy): vscode.TreeItem {
    const r = this.run;
    const c = this.view.classification;
    const t = new vscode.TreeItem(this.role === 'agent' && r.agent ? `agent (${r.agent})` : this.role, vscode.TreeItemCollapsibleState.Collapsed);
    const pm = displayMetric(r.metrics, r.benchmarkMode);
    const what = r.status === 'success' ? (pm ? formatMetric(pm.def, pm.value) : 'success') : c ? roleWhat(c) : firstLine(r.error) || r.originalStatus;
    t.description = `${what} · ${r.source}${this.view.history.length ? ` · ${this.view.history.length + 1} attempts` : ''}`;
    t.iconPath = ICON[r.status];
    t.id = `${EntryKeys.format(this.folder.keyOf(this.entry))}|${this.role}|${groupBy}`;
    t.contextValue = this.contextValue;
    const md = new vscode.MarkdownString();
    md.appendText(`${this.role} · ${r.status} (original status "${r.originalStatus}") · ${r.provenance.file} (written by ${pipelineOf(r)})\n\n`);
    if (c) md.appendText(`${category(c.category).title}: ${c.description}\nFixability: ${c.fixability} · rule ${c.rule ?? '—'} · ${c.strength}\n\n`);
    if (c && c.findings.length > 1)
      md.appendText(
        `Also found: ${c.findings
          .slice(1)
          .map(f => `${category(f.category).title}${f.cause ? ` (${f.cause})` : ''}`)
          .join('; ')}\n\n`,
      );
    for (const n of c?.notes ?? []) md.appendText(`Note: ${n}\n\n`);
    for (const p of r.problems.slice(0, 5)) md.appendText(`Data: ${p.field}: ${p.message}\n\n`);
    if (r.error) md.appendCodeblock(r.error.slice(0, 1500), 'text');
    t.tooltip = md;
    t.accessibilityInformation = { label: `${this.role}, ${r.status}, ${what}` };
    return t;
  }
}

export class EvidenceNode extends CommitNode {
  readonly kind = 'evidence' as const;
  readonly contextValue = 'evidence';
  constructor(
    readonly folder: FolderScan,
    readonly evidence: Evidence,
    /** What the line is, when it is not the evidence of a category ("last error" of an unclassified run). */
    readonly role: 'evidence' | 'last error' = 'evidence',
  ) {
    super();
  }
  item(): vscode.TreeItem {
    const ev = this.evidence;
    const t = new vscode.TreeItem(
      `${this.role === 'last error' ? 'last error, ' : ''}line ${ev.line}: ${firstLine(ev.text, 120)}`,
      vscode.TreeItemCollapsibleState.None,
    );
    t.description = ev.field ? `${ev.file} · ${ev.field}` : ev.file;
    t.iconPath = new vscode.ThemeIcon('debug-breakpoint-log');
    t.contextValue = this.contextValue;
    t.tooltip = new vscode.MarkdownString()
      .appendText(
        `${this.role === 'last error' ? 'No rule explains this run. A last error line' : 'Evidence'} at ${ev.file}${ev.field ? ` (${ev.field})` : ''}, line ${ev.line}${this.role === 'last error' ? ': open it, select the words that state the failure and run Create Rule from Selection' : ''}\n\n`,
      )
      .appendCodeblock(ev.text, 'text');
    t.command = { command: COMMANDS.openFile, title: 'Open Evidence', arguments: [evidenceUri(this.folder.root, ev), { line: ev.line, column: 1 }] };
    t.accessibilityInformation = { label: `evidence at line ${ev.line}: ${ev.text.slice(0, 120)}` };
    return t;
  }
}

/** An earlier attempt of a role (kept as history). */
export class AttemptNode extends CommitNode {
  readonly kind = 'attempt' as const;
  get contextValue() {
    return `run role:${this.run.role} status:${this.run.status}`;
  }
  constructor(
    readonly folder: FolderScan,
    readonly run: Run,
  ) {
    super();
  }
  override children(): CommitNode[] {
    return [new FileNode(this.folder, this.run.provenance.file, `result file (${pipelineOf(this.run)})`)];
  }
  item(): vscode.TreeItem {
    const r = this.run;
    const t = new vscode.TreeItem(`earlier attempt (${r.source})`, vscode.TreeItemCollapsibleState.Collapsed);
    const pm = displayMetric(r.metrics, r.benchmarkMode);
    t.description = `${r.status}${pm ? ' · ' + formatMetric(pm.def, pm.value) : r.error ? ' · ' + firstLine(r.error, 60) : ''}${r.timestamp ? ' · ' + r.timestamp : ''}`;
    t.iconPath = ICON[r.status];
    t.contextValue = this.contextValue;
    return t;
  }
}

export class FileNode extends CommitNode {
  readonly kind = 'file' as const;
  readonly contextValue = 'file';
  constructor(
    readonly folder: FolderScan,
    readonly path: string,
    readonly label: string,
  ) {
    super();
  }
  get uri() {
    return vscode.Uri.joinPath(this.folder.root, this.path);
  }
  item(): vscode.TreeItem {
    const t = new vscode.TreeItem(this.label, vscode.TreeItemCollapsibleState.None);
    t.description = this.path;
    t.resourceUri = this.uri;
    t.iconPath = vscode.ThemeIcon.File;
    t.command = { command: COMMANDS.openFile, title: 'Open File', arguments: [t.resourceUri] };
    t.contextValue = this.contextValue;
    return t;
  }
}
