import { dict } from '../model';
import type { FileRecord, Role } from '../model';
import { duplicateKey, lineColumn, parseJson } from './json';
import { aiperfRequest, aiperfSamples, detect, STANDALONE_IDS, type DetectContext, type RunDraft } from './detectors';
import { MANIFEST_NAME, parseManifest, type Manifest } from './manifest';
import { baseName, nonRunByPath } from './detectors/nonRun';
import { isObj, type Obj } from './detectors/common';
import type { SourceRank } from './facts';
import { AGENT_ITEM_FILES, isAgentItemFile } from './agentRuns';
import { fieldHolding, fieldText } from './fields';
import { projectOfPlace, projectOfRow } from './project';
import { PrintedMetricsParser, reconcileUnits, unitFamily, type MetricSource } from '../metrics';

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
  /** A `bench-triage.csv`: rows that attribute standalone result files below its folder. */
  manifest?: Manifest;
  /** AIPerf's per-request `profile_export.jsonl`: samples for the aggregate beside it. */
  perRequest?: { samples?: Record<string, number[]>; problems: Array<{ field: string; message: string }>; requests: number; failed: number };
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
/** The texts of a file whose runs have none: one shared, read-only record for them all. */
const NO_TEXTS: Record<string, string> = Object.freeze(dict<string>());
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
  const parser = d.logs.length ? new PrintedMetricsParser(d.benchmarkMode) : null;
  let from: string | undefined;
  for (const l of d.logs) {
    const text = fieldText(doc, l.field);
    if (!text) continue;
    parser!.chunk(text);
    if (parser!.found && !from) from = l.field;
  }
  const pr = parser?.found ? parser.result() : null;
  const printed = pr ? pr.metrics : null;
  // The counts the output printed (requests, tokens) stand where no field stored them: they are part of the workload.
  if (pr) for (const [k, v] of Object.entries(pr.counts)) if (!(k in d.counts)) d.counts[k] = v;
  const rec = reconcileUnits({
    fields: d.metricFields ?? [],
    counts: d.counts,
    printed,
    printedFrom: from,
    untrusted: d.untrustedFields?.length ? new Set(d.untrustedFields) : undefined,
    current: d.metrics,
  });
  d.metrics = rec.metrics;
  d.metricSources = rec.sources;
  d.problems = [...d.problems, ...rec.notes];
  // A latency benchmark prints no throughput: a stored throughput beside its printed result came
  // from elsewhere (a pipeline's `throughput:` regex takes the engine's `Avg prompt throughput`
  // log line first) and is not a result to compare.
  if (printed && printed.latency_avg_ms !== undefined && !Object.keys(printed).some(k => unitFamily(k) === 'tok/s' || unitFamily(k) === 'req/s')) {
    // The sources are shared with other runs (reconcileUnits): this run's own copy is changed.
    d.metricSources = Object.assign(dict<MetricSource>(), d.metricSources);
    for (const k of Object.keys(d.metrics))
      if (['tok/s', 'req/s', 'unknown'].includes(unitFamily(k)) && d.metricSources[k]?.evidence !== 'printed' && d.metricSources[k]?.evidence !== 'raw') {
        d.problems.push({
          field: d.metricSources[k]?.field ?? k,
          message: `the run's output is a latency benchmark, which prints no throughput: ${d.metrics[k]} is not its result (an engine log line such as "Avg prompt throughput" can be taken for one); left out`,
        });
        delete d.metrics[k];
        delete d.metricSources[k];
      }
  }
  // Not deleted: a draft keeps one shape (a deleted property sends an object to slow dictionary mode).
  d.metricFields = undefined;
  d.untrustedFields = undefined;
}

/** The first object line of a JSONL text (what kind of lines the file holds), or null. */
function firstObjectLine(text: string): unknown {
  let at = 0;
  for (let k = 0; k < 50 && at < text.length; k++) {
    const nl = text.indexOf('\n', at);
    const line = text.slice(at, nl < 0 ? text.length : nl);
    at = nl < 0 ? text.length : nl + 1;
    if (!line.trim()) continue;
    const p = parseJson(line, { keepInfinity: true });
    return p.ok ? p.value : null;
  }
  return null;
}

const isRecord = (v: unknown): v is Obj => isObj(v);

function extractJsonl(path: string, text: string, siblings: ReadonlyMap<string, string>): FileExtract {
  const first = firstObjectLine(text);
  if (isRecord(first) && aiperfRequest(first)) return extractPerRequest(path, text);
  if (isRecord(first) && !nonRunByPath(path)) {
    const d = detect(first, contextOf(path, siblings));
    if (d.kind === 'run' && STANDALONE_IDS.has(d.schema)) return extractResultLines(path, text, siblings);
  }
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

function contextOf(path: string, siblings: ReadonlyMap<string, string>): DetectContext {
  const roleMatch = ROLE_FROM_NAME.exec(baseName(path));
  return { path, folderAgent: agentFromFolder(path), fileRole: roleMatch ? (roleMatch[1] as Role) : null, siblings };
}

/**
 * Results appended one per line (`vllm bench serve --append-result`, SGLang's `--output-file`):
 * each object is one attempt. A line that is not JSON, or not a result, is a finding naming the
 * line; the others still count.
 */
function extractResultLines(path: string, text: string, siblings: ReadonlyMap<string, string>): FileExtract {
  const ctx = contextOf(path, siblings);
  const drafts: FileExtract['drafts'] = [];
  const problems: Array<{ field: string; message: string }> = [];
  let lineNo = 0,
    schema: FileRecord & { kind: 'run' } = { kind: 'run', path, schema: 'vllm-serve', runs: 0 };
  let at = 0;
  while (at < text.length) {
    const nl = text.indexOf('\n', at);
    const line = text.slice(at, nl < 0 ? text.length : nl);
    at = nl < 0 ? text.length : nl + 1;
    lineNo++;
    if (!line.trim()) continue;
    const p = parseJson(line, { keepInfinity: true });
    const field = `line ${lineNo}`;
    if (!p.ok) {
      problems.push({ field, message: `not JSON (${p.message.replace(/ at line 1 column/, ' at column')}): this attempt is not read` });
      continue;
    }
    const d = isObj(p.value) ? detect(p.value, ctx) : null;
    if (!d || d.kind !== 'run' || !STANDALONE_IDS.has(d.schema)) {
      problems.push({ field, message: `not a result object (${d?.kind === 'unknown' ? d.reason : 'not an object'}): not read` });
      continue;
    }
    schema = { ...schema, schema: d.schema };
    for (const r of d.drafts) {
      r.provenance.pointer = r.multi ? `${field} ${r.provenance.pointer}` : field;
      r.multi = true;
      r.problems.push(...nanNotes(p.notes).map(message => ({ field, message })));
      settleUnits(r, p.value);
      r.project ??= projectOfPlace(path, r.command, r.source);
      drafts.push(Object.assign(r, { commitField: 'commit' }));
    }
  }
  if (!drafts.length)
    return {
      path,
      record: { kind: 'unknown', path, reason: `no line holds a result${problems[0] ? ` (${problems[0].field}: ${problems[0].message})` : ''}` },
      drafts: [],
      facts: [],
    };
  // Findings about lines that could not be read belong to the file: the first attempt carries them.
  drafts[0].problems.push(...problems);
  if (drafts.length === 1) drafts[0].multi = false;
  return { path, record: { ...schema, runs: drafts.length }, drafts, facts: [] };
}

/** AIPerf's per-request export: samples of the profiling requests, for the aggregate file beside it. */
function extractPerRequest(path: string, text: string): FileExtract {
  const lines: ReturnType<typeof aiperfRequest>[] = [];
  const problems: Array<{ field: string; message: string }> = [];
  let lineNo = 0,
    at = 0,
    failed = 0;
  while (at < text.length) {
    const nl = text.indexOf('\n', at);
    const line = text.slice(at, nl < 0 ? text.length : nl);
    at = nl < 0 ? text.length : nl + 1;
    lineNo++;
    if (!line.trim()) continue;
    const p = parseJson(line);
    const r = p.ok ? aiperfRequest(p.value) : null;
    if (!r) {
      if (problems.length < 20) problems.push({ field: `line ${lineNo}`, message: 'not a per-request record: not read' });
      continue;
    }
    if (r.error && !r.warmup) failed++;
    lines.push(r);
  }
  const samples = aiperfSamples(lines, problems);
  return {
    path,
    record: { kind: 'nonRun', path, what: 'per-request' },
    drafts: [],
    facts: [],
    perRequest: { ...(samples ? { samples } : {}), problems, requests: lines.length, failed },
  };
}

function extractManifest(path: string, text: string): FileExtract {
  return { path, record: { kind: 'nonRun', path, what: 'manifest' }, drafts: [], facts: [], manifest: parseManifest(text) };
}

/** The tools' Python writes Infinity on purpose (an unbounded rate): only a NaN is worth a finding. */
const nanNotes = (notes: string[] | undefined) => (notes ?? []).filter(n => !/read as -?Infinity$/.test(n));

/** A text that starts with an object and has a line that starts another right after one ends. */
function appendedShape(text: string): boolean {
  let i = 0;
  while (i < text.length && (text.charCodeAt(i) <= 32 || text.charCodeAt(i) === 0xfeff)) i++;
  if (text.charCodeAt(i) !== 0x7b) return false;
  const nl = text.indexOf('}\n{');
  return nl > 0 && text.indexOf('\n') === nl + 1;
}

/** `{…}\n{…}` with no enclosing array: appended results, one object per line. */
const looksAppended = (message: string, text: string) => /extra data after the JSON value/.test(message) && /\}\s*\r?\n\s*\{/.test(text.slice(0, 1 << 20));

function extractJson(path: string, text: string, siblings: ReadonlyMap<string, string>): FileExtract {
  const byPath = nonRunByPath(path);
  // The tool's own records are read by their own readers (with their own findings), never as results.
  if (byPath === 'tool-record') return { path, record: { kind: 'nonRun', path, what: byPath }, drafts: [], facts: [] };
  const agentFile = isAgentItemFile(path) && AGENT_ITEM_FILES.has(baseName(path));
  // Appended results (`{…}\n{…}`) go line by line at once: parsing the whole text first only finds "extra data".
  if (!byPath && !agentFile && appendedShape(text)) {
    const x = extractResultLines(path, text, siblings);
    if (x.record.kind === 'run') return x;
  }
  let parsed = parseJson(text, { keepInfinity: true });
  if (!parsed.ok && !byPath && !agentFile && looksAppended(parsed.message, text)) {
    const x = extractResultLines(path, text, siblings);
    if (x.record.kind === 'run') return x;
  }
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
  let v = parsed.value;
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
  const ctx = contextOf(path, siblings);
  let d = detect(v, ctx);
  // Infinity is kept for the tools that write it on purpose; ISO-Bench's schemas read it as null, as before.
  if (parsed.notes && !(d.kind === 'run' && STANDALONE_IDS.has(d.schema))) {
    const plain = parseJson(text);
    if (plain.ok) {
      parsed = plain;
      v = plain.value;
      d = detect(v, ctx);
    }
  }
  if (d.kind === 'nonRun')
    return { path, record: { kind: 'nonRun', path, what: d.what }, drafts: [], facts: d.what === 'hf-records' || d.what === 'export' ? rowsOf(v, 3) : [] };
  if (d.kind === 'unknown') return { path, record: { kind: 'unknown', path, reason: d.reason }, drafts: [], facts: [] };
  // A result holding a key twice (`"status": "error", …, "status": "success"`) reads as whichever
  // came last: which was meant is unknown, so the file is not used, and the key is named.
  const dup = duplicateKey(text, v);
  if (dup) {
    const { line, column } = lineColumn(text, dup.offset);
    return {
      path,
      record: { kind: 'corrupt', path, error: `${dup.message} at line ${line} column ${column}`, offset: dup.offset, line, column },
      drafts: [],
      facts: [],
    };
  }
  const rowProject = isObj(v) ? ((isObj(v.instance) ? projectOfRow(v.instance as Obj) : null) ?? projectOfRow(v as Obj)) : null;
  const drafts = d.drafts.map(r => {
    const notes = r.unattributed ? nanNotes(parsed.notes) : (parsed.notes ?? []);
    r.problems.push(...notes.map(message => ({ field: '(document)', message })));
    settleUnits(r, v);
    r.project ??= rowProject ?? projectOfPlace(path, r.command, r.source);
    return Object.assign(r, { commitField: (r.unattributed ? null : fieldHolding(v, r.commit)) ?? 'commit' });
  });
  const facts: FactRow[] = [];
  if (isObj(v)) {
    if (isObj(v.instance)) facts.push(factRow(v.instance as Obj, 2));
    const row = factRow(isObj(v.result) ? (v.result as Obj) : (v as Obj), 2);
    // A row with none of the facts' keys says nothing (a standalone tool's result): not kept.
    for (const _ in row.row) {
      facts.push(row);
      break;
    }
  }
  let texts: Record<string, string> = NO_TEXTS;
  let size = 0;
  for (const r of drafts)
    for (const f of [...r.logs.map(l => l.field), ...(r.errorField ? [r.errorField] : [])]) {
      const t = fieldText(v, f);
      if (t !== null && !(f in texts)) {
        if (texts === NO_TEXTS) texts = dict();
        texts[f] = t;
        size += t.length;
      }
    }
  return { path, record: { kind: 'run', path, schema: d.schema, runs: drafts.length }, drafts, facts, ...(size <= TEXTS_KEPT ? { texts } : {}) };
}

/** One file's extract, from its text. `siblings`: the other files of its folder (base name → path). */
export function extractFile(path: string, text: string, siblings: ReadonlyMap<string, string>): FileExtract {
  if (baseName(path) === MANIFEST_NAME) return extractManifest(path, text);
  return path.endsWith('.jsonl') ? extractJsonl(path, text, siblings) : extractJson(path, text, siblings);
}
