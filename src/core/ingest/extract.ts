import type { FileRecord, Role } from '../model';
import { parseJson } from './json';
import { detect, type DetectContext, type RunDraft } from './detectors';
import { baseName, nonRunByPath } from './detectors/nonRun';
import { isObj, type Obj } from './detectors/common';
import type { SourceRank } from './facts';
import { AGENT_ITEM_FILES, isAgentItemFile } from './agentRuns';
import { fieldHolding, fieldText } from './fields';
import { projectOfPlace, projectOfRow } from './project';
import { PrintedMetricsParser, reconcileUnits } from '../metrics';

/**
 * What one file contributes to a scan, computed from that file alone (and its folder's file
 * names): its record, its runs (units already settled), the commit facts it states, and for an
 * agent item file the little the linking needs. Extracts are plain data: the workspace keeps them
 * in its persistent index, keyed by path, size and mtime, and re-extracts only changed files.
 */
export interface FileExtract {
  path: string;
  record: FileRecord;
  /** Run drafts, commit ids not yet resolved against the whole folder; `commitField` names where the commit id was read. */
  drafts: Array<RunDraft & { commitField: string }>;
  facts: FactRow[];
  /**
   * The texts the runs' classification reads (embedded logs, error fields), by dotted field, when
   * they are small: classifying then needs no second read of the file.
   */
  texts?: Record<string, string>;
  /** For journal.json / run_summary.json / prompt.json of an agent item: the commits it names, or why it is unreadable. */
  agentJson?: { commits?: { human?: unknown; pre?: unknown }; status?: unknown } | { corrupt: string };
}

/** A row of commit facts, reduced to the fields CommitFacts reads (a dataset's diff text becomes its length). */
export interface FactRow {
  row: Obj;
  rank: SourceRank;
  line?: number;
}

const FACT_KEYS = [
  'commit_full',
  'human_commit_full',
  'commit_hash_full',
  'commit_hash',
  'human_full',
  'full_commit',
  'human_commit',
  'human_commit_short',
  'commit_short',
  'human_short',
  'parent_commit_full',
  'parent_commit',
  'parent_hash',
  'commit',
  'parent_short',
  'commit_subject',
  'subject',
  'pr_url',
  'gpu_config',
  'perf_command',
  'benchmark_mode',
  'benchmark_type',
  'models',
  'model',
  'repo',
  'repo_path',
];

function factRow(row: Obj, rank: SourceRank, line?: number): FactRow {
  const out: Obj = {};
  for (const k of FACT_KEYS) if (k in row) out[k] = row[k];
  if (typeof row.diff_text === 'string') out.diff_text_length = row.diff_text.length;
  return { row: out, rank, ...(line ? { line } : {}) };
}

/** Rows of a mapping / export / HF record file (a list, or a dict keyed by hash). */
function rowsOf(v: unknown, rank: SourceRank): FactRow[] {
  if (Array.isArray(v)) return v.filter(isObj).map(r => factRow(r, rank));
  if (!isObj(v)) return [];
  return Object.entries(v)
    .filter(([k, r]) => isObj(r) && /^[0-9a-f]{7,40}$/.test(k))
    .map(([k, r]) => factRow({ commit_short: k, ...(r as Obj) }, rank));
}

const ROLE_FROM_NAME = /_(baseline|human|agent)_result\.json$/;
/** Texts of a file kept in its extract at most (larger files are read again to classify). */
const TEXTS_KEPT = 256 * 1024;

/** Folder agent of a 3-way campaign folder (`omniperf_results_3way_<agent>` / `iso_bench_results_3way_<agent>`). */
export function agentFromFolder(path: string): string | null {
  const m = /(?:omniperf|iso_bench)_results_3way_([a-z0-9_]+?)(?:\/|$)/.exec(path);
  if (!m || m[1] === 'sglang') return null;
  return m[1];
}

/** Units from evidence (core/metrics/evidence): the run's own printed output and counts decide what its numbers are. */
function settleUnits(d: RunDraft, doc: unknown): void {
  const parser = new PrintedMetricsParser(d.benchmarkMode);
  let from: string | undefined;
  for (const l of d.logs) {
    const text = fieldText(doc, l.field);
    if (!text) continue;
    parser.chunk(text);
    if (parser.found && !from) from = l.field;
  }
  const printed = parser.found ? parser.result().metrics : null;
  const rec = reconcileUnits({ fields: d.metricFields ?? [], counts: d.counts, printed, printedFrom: from, untrusted: new Set(d.untrustedFields ?? []) });
  d.metrics = rec.metrics;
  d.metricSources = rec.sources;
  d.problems = [...d.problems, ...rec.notes];
  delete d.metricFields;
  delete d.untrustedFields;
}

function extractJsonl(path: string, text: string): FileExtract {
  let firstError: FileRecord | null = null;
  let rows = 0,
    datasetRows = 0;
  const byPath = nonRunByPath(path);
  const facts: FactRow[] = [];
  let lineNo = 0;
  for (const line of text.split('\n')) {
    lineNo++;
    if (!line.trim()) continue;
    const p = parseJson(line);
    if (!p.ok) {
      firstError ??= {
        kind: 'corrupt',
        path,
        error: `line ${lineNo}: ${p.message.replace(/ at line 1 column/, ' at column')}`,
        offset: null,
        line: lineNo,
        column: p.column,
      };
      continue;
    }
    if (!isObj(p.value)) continue;
    rows++;
    const row = p.value as Obj;
    if ('diff_text' in row || ('perf_command' in row && 'commit_hash' in row && !Object.keys(row).some(k => k.startsWith('human_')))) datasetRows++;
    facts.push(factRow(row, byPath === 'mapping' ? 1 : datasetRows > 0 ? 0 : 3, lineNo));
  }
  const record: FileRecord = firstError ?? {
    kind: 'nonRun',
    path,
    what: byPath ?? (datasetRows > 0 && datasetRows >= rows / 2 ? 'dataset' : (byPath ?? 'export')),
  };
  return { path, record, drafts: [], facts };
}

function extractJson(path: string, text: string, siblings: ReadonlyMap<string, string>): FileExtract {
  const byPath = nonRunByPath(path);
  const agentFile = isAgentItemFile(path) && AGENT_ITEM_FILES.has(baseName(path));
  const parsed = parseJson(text);
  if (!parsed.ok) {
    const error = text.length === 0 ? 'empty file' : parsed.message;
    return {
      path,
      record: { kind: 'corrupt', path, error, offset: parsed.offset, line: parsed.line, column: parsed.column },
      drafts: [],
      facts: [],
      ...(agentFile ? { agentJson: { corrupt: error } } : {}),
    };
  }
  const v = parsed.value;
  const agentJson = agentFile
    ? isObj(v)
      ? { commits: isObj(v.commits) ? { human: v.commits.human, pre: v.commits.pre } : undefined, status: v.status }
      : {}
    : undefined;
  if (byPath)
    return {
      path,
      record: { kind: 'nonRun', path, what: byPath },
      drafts: [],
      facts: byPath === 'mapping' ? rowsOf(v, 1) : [],
      ...(agentJson ? { agentJson } : {}),
    };
  const roleMatch = ROLE_FROM_NAME.exec(baseName(path));
  const ctx: DetectContext = { path, folderAgent: agentFromFolder(path), fileRole: roleMatch ? (roleMatch[1] as Role) : null, siblings };
  const d = detect(v, ctx);
  if (d.kind === 'nonRun')
    return { path, record: { kind: 'nonRun', path, what: d.what }, drafts: [], facts: d.what === 'hf-records' || d.what === 'export' ? rowsOf(v, 3) : [] };
  if (d.kind === 'unknown') return { path, record: { kind: 'unknown', path, reason: d.reason }, drafts: [], facts: [] };
  const rowProject = isObj(v) ? ((isObj(v.instance) ? projectOfRow(v.instance as Obj) : null) ?? projectOfRow(v as Obj)) : null;
  const drafts = d.drafts.map(r => {
    if (parsed.notes) r.problems.push(...parsed.notes.map(message => ({ field: '(document)', message })));
    settleUnits(r, v);
    r.project ??= rowProject ?? projectOfPlace(path, r.command, r.source);
    return Object.assign(r, { commitField: fieldHolding(v, r.commit) ?? 'commit' });
  });
  const facts: FactRow[] = [];
  if (isObj(v)) {
    if (isObj(v.instance)) facts.push(factRow(v.instance as Obj, 2));
    facts.push(factRow(isObj(v.result) ? (v.result as Obj) : (v as Obj), 2));
  }
  const texts: Record<string, string> = {};
  let size = 0;
  for (const r of drafts)
    for (const f of [...r.logs.map(l => l.field), ...(r.errorField ? [r.errorField] : [])]) {
      const t = fieldText(v, f);
      if (t !== null && !(f in texts)) {
        texts[f] = t;
        size += t.length;
      }
    }
  return { path, record: { kind: 'run', path, schema: d.schema, runs: drafts.length }, drafts, facts, ...(size <= TEXTS_KEPT ? { texts } : {}) };
}

/** One file's extract, from its text. `siblings`: the other files of its folder (base name → path). */
export function extractFile(path: string, text: string, siblings: ReadonlyMap<string, string>): FileExtract {
  return path.endsWith('.jsonl') ? extractJsonl(path, text) : extractJson(path, text, siblings);
}
