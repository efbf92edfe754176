import type { Commit, PerfCommand } from '../model';
import { emptyCommit } from '../model';
import { CommitIndex, isFullHash, normaliseHash } from './commits';
import { modeFromCommand, modeFromType, str, type Obj } from './detectors/common';
import { projectOfRow } from './project';

/**
 * Facts about commits (parent, perf command, model, subject, PR) gathered from datasets, mapping
 * files and result files. Keys may be prefixes until the whole scan is known; `resolve` merges them.
 */
export type SourceRank = 0 | 1 | 2 | 3; // dataset, mapping, result, export

/** The commit a facts row is about (its own hash field, not its parent's). */
export function factCommit(row: Obj): string | null {
  return (
    normaliseHash(
      row.commit_full ??
        row.human_commit_full ??
        row.commit_hash_full ??
        row.commit_hash ??
        row.human_full ??
        row.full_commit ??
        (isFullHash(row.human_commit) ? row.human_commit : undefined) ??
        row.human_commit_short ??
        row.commit_short ??
        row.human_short,
    ) ?? null
  );
}

export class CommitFacts {
  private readonly byId = new Map<string, Commit & { rank: Map<string, SourceRank> }>();
  /** Full hashes a dataset or mapping file states (the commits the campaign is about). */
  readonly authoritative = new Set<string>();

  constructor(private readonly index: CommitIndex) {}

  private get(id: string) {
    let c = this.byId.get(id);
    if (!c) {
      c = { ...emptyCommit(id), rank: new Map() };
      this.byId.set(id, c);
    }
    return c;
  }

  /** What is known of each commit so far (by the id it was recorded under). */
  known(): ReadonlyMap<string, Commit> {
    return this.byId;
  }

  /** Records one row's facts. `rank` orders sources when several state the same field. */
  record(row: Obj, source: string, rank: SourceRank, line?: number): void {
    const id = factCommit(row);
    if (!id) return;
    this.index.add(id);
    if (rank <= 1 && isFullHash(id)) this.authoritative.add(id);
    const c = this.get(id);
    const set = <K extends 'parent' | 'subject' | 'prUrl' | 'gpuConfig' | 'benchmarkMode' | 'project'>(k: K, v: Commit[K] | null) => {
      if (v == null) return;
      const r = c.rank.get(k);
      if (r === undefined || rank < r || (rank === r && c[k] == null)) {
        (c as Commit)[k] = v;
        c.rank.set(k, rank);
      }
    };
    // In `all_95_baseline_commits.jsonl`, `commit` is the parent (research §2).
    const parent = normaliseHash(
      row.parent_commit_full ?? row.parent_commit ?? row.parent_hash ?? (row.human_commit ? row.commit : undefined) ?? row.parent_short,
    );
    if (parent) {
      this.index.add(parent);
      set('parent', parent);
    }
    set('subject', str(row.commit_subject) ?? str(row.subject));
    set('prUrl', str(row.pr_url));
    set('gpuConfig', str(row.gpu_config));
    set('project', projectOfRow(row));
    const cmd = str(row.perf_command);
    set('benchmarkMode', modeFromType(row.benchmark_mode) ?? modeFromType(row.benchmark_type) ?? modeFromCommand(cmd));
    if (cmd) this.addCommand(c, { command: cmd, source: line ? `${source}:${line}` : source }, rank);
    const models = Array.isArray(row.models) ? row.models.filter((m): m is string => typeof m === 'string' && m !== 'N/A') : [];
    const model = str(row.model);
    for (const m of model ? [model, ...models] : models) if (!c.models.includes(m)) c.models.push(m);
    // Extracts keep the human patch's length, not its text (datasets hold up to 168 KB per row).
    const patchLength = typeof row.diff_text === 'string' ? row.diff_text.length : typeof row.diff_text_length === 'number' ? row.diff_text_length : 0;
    if (patchLength > 0 && line) {
      if (!c.humanPatch || rank < (c.rank.get('humanPatch') ?? 9)) {
        c.humanPatch = { source, line, length: patchLength };
        c.rank.set('humanPatch', rank);
      }
    }
  }

  private addCommand(c: Commit & { rank: Map<string, SourceRank> }, pc: PerfCommand, rank: SourceRank): void {
    if (c.perfCommands.some(p => p.command === pc.command)) return;
    c.perfCommands.push(pc);
    c.rank.set(`cmd:${pc.command}`, rank);
    c.perfCommands.sort((a, b) => (c.rank.get(`cmd:${a.command}`) ?? 9) - (c.rank.get(`cmd:${b.command}`) ?? 9));
  }

  /** Final commits, keyed by resolved hash; prefix entries merge into their full hash (or into the hash a data conflict was resolved to). */
  resolve(redirect: ReadonlyMap<string, string> = new Map()): Map<string, Commit> {
    const out = new Map<string, Commit & { rank: Map<string, SourceRank> }>();
    // Full hashes first; a mistyped hash merges into its commit after the commit's own facts.
    const ids = [...this.byId.keys()].sort((a, b) => Number(redirect.has(a)) - Number(redirect.has(b)) || b.length - a.length);
    for (const id of ids) {
      const c = this.byId.get(id)!;
      const full = redirect.get(id) ?? this.index.resolve(id);
      const target = out.get(full);
      if (!target) {
        out.set(full, { ...c, hash: full, parent: c.parent ? this.index.resolve(c.parent) : null });
        continue;
      }
      for (const k of ['parent', 'subject', 'prUrl', 'gpuConfig', 'benchmarkMode', 'project', 'humanPatch'] as const) {
        if (target[k] == null && c[k] != null) (target as any)[k] = k === 'parent' ? this.index.resolve(c.parent!) : c[k];
      }
      for (const pc of c.perfCommands) if (!target.perfCommands.some(p => p.command === pc.command)) target.perfCommands.push(pc);
      for (const m of c.models) if (!target.models.includes(m)) target.models.push(m);
    }
    const result = new Map<string, Commit>();
    for (const [k, { rank: _r, ...c }] of out) result.set(k, c);
    return result;
  }
}
