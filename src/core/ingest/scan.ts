import type { AgentRun, Commit, FileRecord, Role, Run, UnlinkedAgentRun } from '../model';
import { emptyCommit } from '../model';
import { CommitIndex, isFullHash } from './commits';
import { parseJson } from './json';
import { detect, type DetectContext, type RunDraft } from './detectors';
import { baseName, nonRunByPath } from './detectors/nonRun';
import { isObj, type Obj } from './detectors/common';
import { CommitFacts } from './facts';
import { AGENT_ITEM_FILES, isAgentItemFile, linkAgentRuns, type AgentItemFiles } from './agentRuns';
import { fieldHolding, fieldText } from './fields';
import { projectOfPlace, projectOfRow } from './project';
import { PrintedMetricsParser, reconcileUnits } from '../metrics';

/** The scan reads through this; the CLI and server pass Node's fs, the extension VS Code's. */
export interface ListedFile { path: string; size: number; kind?: 'symlink' | 'special' }
export interface ReadOptions {
  /** Bytes read at most (default 256 MiB). */
  maxBytes?: number;
  /** Refuse a larger file instead of reading its head and tail. */
  whole?: boolean;
  /** Called when only the head and tail of a larger file were read. */
  onCapped?(size: number, kept: number): void;
}
export interface FileSource {
  /** Every file below the root, as posix paths relative to it. */
  list(signal?: AbortSignal): AsyncIterable<ListedFile>;
  /**
   * Reads a file below the root. Throws FileRefused when it resolves outside the root (after
   * following links) or is not a regular file; never blocks on a FIFO; reads at most the cap.
   */
  readText(path: string, opts?: ReadOptions): Promise<string>;
  /** Where a listed symbolic link leads (for the scan's record of it). */
  describe?(path: string): Promise<{ target: string | null; inside: boolean; regular: boolean; error?: string }>;
}

/** A file the scan or a data-named reference may not read, with the reason. */
export class FileRefused extends Error {}

export const DEFAULT_READ_CAP = 256 * 1024 * 1024;

/**
 * The shared tail of FileSource.readText: the whole file when it is within the cap, else (unless
 * `whole`) its head and tail around a marker line saying how much was left out.
 */
export async function readCapped(rel: string, size: number, opts: ReadOptions, readAt: (pos: number, len: number) => Promise<Uint8Array>): Promise<string> {
  const cap = opts.maxBytes ?? DEFAULT_READ_CAP;
  const dec = (b: Uint8Array) => new TextDecoder('utf-8').decode(b);
  if (size <= cap) return dec(await readAt(0, size));
  if (opts.whole) throw new FileRefused(`${rel} is ${(size / 1048576).toFixed(1)} MiB, above the ${(cap / 1048576).toFixed(0)} MiB limit: not read`);
  const half = Math.floor(cap / 2);
  opts.onCapped?.(size, 2 * half);
  return `${dec(await readAt(0, half))}\n[bench-triage: ${(size - 2 * half).toLocaleString('en')} bytes in the middle of ${rel} were not read; the first and last ${(half / 1048576).toFixed(0)} MiB were]\n${dec(await readAt(size - half, half))}`;
}

export interface ScanOptions {
  /** Result files above this size are reported, not parsed (default 64 MiB). */
  maxFileBytes?: number;
  concurrency?: number;
  onProgress?(p: { done: number; total: number; path: string }): void;
  signal?: AbortSignal;
}

/**
 * A result file names a full hash no dataset knows, while the dataset's commit with the same
 * short id is another: the runs are counted under the dataset's commit, and this says so.
 */
export interface CommitConflict { file: string; field: string; stated: string; resolvedTo: string; message: string }

export interface ScanResult {
  commits: Commit[];
  runs: Run[];
  files: FileRecord[];
  agentRuns: AgentRun[];
  unlinkedAgentRuns: UnlinkedAgentRun[];
  conflicts: CommitConflict[];
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

const ROLE_FROM_NAME = /_(baseline|human|agent)_result\.json$/;
const SKIP_DIRS = /(^|\/)(node_modules|\.git|\.hg|\.svn|\.vscode|\.vscode-test|\.vscode-ci)(\/|$)/;
const LOG_SIBLINGS = new Set(['stdout.txt', 'stderr.txt']);
export const DEFAULT_MAX_FILE_BYTES = 64 * 1024 * 1024;

/** Folder agent of a 3-way campaign folder (`omniperf_results_3way_<agent>` / `iso_bench_results_3way_<agent>`). */
export function agentFromFolder(path: string): string | null {
  const m = /(?:omniperf|iso_bench)_results_3way_([a-z0-9_]+?)(?:\/|$)/.exec(path);
  if (!m || m[1] === 'sglang') return null;
  return m[1];
}

function isRelevant(path: string): boolean {
  if (SKIP_DIRS.test(path)) return false;
  return path.endsWith('.json') || path.endsWith('.jsonl') || isAgentItemFile(path) || LOG_SIBLINGS.has(baseName(path));
}

async function pool<T>(items: T[], n: number, fn: (t: T) => Promise<void>, signal?: AbortSignal): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      if (signal?.aborted) throw signal.reason ?? new Error('scan cancelled');
      await fn(items[next++]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
}

export async function scan(source: FileSource, opts: ScanOptions = {}): Promise<ScanResult> {
  const maxBytes = opts.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const listed: ListedFile[] = [];
  const records = new Map<string, FileRecord>();
  for await (const f of source.list(opts.signal)) {
    if (!isRelevant(f.path)) continue;
    // Links and special files are recorded, never read as they are (a FIFO would hang the scan,
    // a link could lead outside the folder or make a file count twice).
    if (f.kind === 'special') { records.set(f.path, { kind: 'skipped', path: f.path, reason: 'not a regular file (FIFO, socket or device): not read' }); continue; }
    if (f.kind === 'symlink') {
      const d = await source.describe?.(f.path);
      records.set(f.path, { kind: 'skipped', path: f.path, reason: !d || d.error ? `symbolic link that cannot be resolved${d?.error ? ` (${d.error})` : ''}: not read`
        : d.inside ? `symbolic link to ${d.target}, inside the folder: read there, not twice` : `symbolic link to ${d.target}, outside the folder: not read` });
      continue;
    }
    listed.push(f);
  }
  listed.sort((a, b) => (a.path < b.path ? -1 : 1));

  const siblingsByDir = new Map<string, Map<string, string>>();
  for (const f of listed) {
    const dir = f.path.slice(0, f.path.lastIndexOf('/') + 1);
    let m = siblingsByDir.get(dir);
    if (!m) siblingsByDir.set(dir, (m = new Map()));
    m.set(baseName(f.path), f.path);
  }

  const index = new CommitIndex();
  const facts = new CommitFacts(index);
  const drafts: RunDraft[] = [];
  const commitField = new Map<RunDraft, string>();
  const agentItems = new Map<string, AgentItemFiles>();
  const itemOf = (path: string) => {
    const dir = path.slice(0, path.lastIndexOf('/'));
    let it = agentItems.get(dir);
    if (!it) agentItems.set(dir, (it = { dir, json: new Map(), patch: null }));
    return it;
  };

  const toRead = listed.filter(f => f.path.endsWith('.json') || f.path.endsWith('.jsonl'));
  for (const f of listed) {
    if (!isAgentItemFile(f.path)) continue;
    const it = itemOf(f.path);
    if (baseName(f.path) === 'model_patch.diff') it.patch = { path: f.path, bytes: f.size };
  }

  let done = 0;
  const handle = async (f: ListedFile) => {
    try {
      if (f.size > maxBytes) {
        records.set(f.path, { kind: 'unknown', path: f.path, reason: `file is ${(f.size / 1048576).toFixed(1)} MiB, above the ${(maxBytes / 1048576).toFixed(0)} MiB limit for result files; open it directly` });
        return;
      }
      const text = await source.readText(f.path, { maxBytes: maxBytes, whole: true });
      if (f.path.endsWith('.jsonl')) handleJsonl(f.path, text);
      else handleJson(f.path, text);
    } catch (e) {
      // Nothing a file contains may stop the scan: anything unexpected becomes a visible record.
      if (e instanceof FileRefused) records.set(f.path, { kind: 'skipped', path: f.path, reason: e.message });
      else records.set(f.path, { kind: 'unknown', path: f.path, reason: `could not be read: ${e instanceof Error ? e.message : String(e)}` });
    } finally {
      opts.onProgress?.({ done: ++done, total: toRead.length, path: f.path });
    }
  };

  const handleJsonl = (path: string, text: string) => {
    let firstError: FileRecord | null = null;
    let rows = 0, datasetRows = 0;
    const byPath = nonRunByPath(path);
    let lineNo = 0;
    for (const line of text.split('\n')) {
      lineNo++;
      if (!line.trim()) continue;
      const p = parseJson(line);
      if (!p.ok) { firstError ??= { kind: 'corrupt', path, error: `line ${lineNo}: ${p.message.replace(/ at line 1 column/, ' at column')}`, offset: null, line: lineNo, column: p.column }; continue; }
      if (!isObj(p.value)) continue;
      rows++;
      const row = p.value as Obj;
      if ('diff_text' in row || ('perf_command' in row && 'commit_hash' in row && !Object.keys(row).some(k => k.startsWith('human_')))) datasetRows++;
      facts.record(row, path, byPath === 'mapping' ? 1 : datasetRows > 0 ? 0 : 3, lineNo);
    }
    records.set(path, firstError ?? { kind: 'nonRun', path, what: byPath ?? (datasetRows > 0 && datasetRows >= rows / 2 ? 'dataset' : byPath ?? 'export') });
  };

  const handleJson = (path: string, text: string) => {
    const byPath = nonRunByPath(path);
    const agentFile = isAgentItemFile(path) && AGENT_ITEM_FILES.has(baseName(path));
    const parsed = parseJson(text);
    if (!parsed.ok) {
      records.set(path, { kind: 'corrupt', path, error: text.length === 0 ? 'empty file' : parsed.message, offset: parsed.offset, line: parsed.line, column: parsed.column });
      if (agentFile) itemOf(path).json.set(baseName(path), { corrupt: text.length === 0 ? 'empty file' : parsed.message });
      return;
    }
    const v = parsed.value;
    if (agentFile) itemOf(path).json.set(baseName(path), v);
    if (byPath) {
      records.set(path, { kind: 'nonRun', path, what: byPath });
      if (byPath === 'mapping') facts.recordAll(v, path, 1);
      return;
    }
    const name = baseName(path);
    const dir = path.slice(0, path.lastIndexOf('/') + 1);
    const roleMatch = ROLE_FROM_NAME.exec(name);
    const ctx: DetectContext = {
      path,
      folderAgent: agentFromFolder(path),
      fileRole: roleMatch ? (roleMatch[1] as Role) : null,
      siblings: siblingsByDir.get(dir) ?? new Map(),
    };
    const d = detect(v, ctx);
    if (d.kind === 'nonRun') {
      records.set(path, { kind: 'nonRun', path, what: d.what });
      if (d.what === 'hf-records' || d.what === 'export') facts.recordAll(v, path, 3);
      return;
    }
    if (d.kind === 'unknown') { records.set(path, { kind: 'unknown', path, reason: d.reason }); return; }
    records.set(path, { kind: 'run', path, schema: d.schema, runs: d.drafts.length });
    const rowProject = isObj(v) ? (isObj(v.instance) ? projectOfRow(v.instance as Obj) : null) ?? projectOfRow(v as Obj) : null;
    for (const r of d.drafts) {
      if (parsed.notes) r.problems.push(...parsed.notes.map(message => ({ field: '(document)', message })));
      settleUnits(r, v);
      r.project ??= rowProject ?? projectOfPlace(path, r.command, r.source);
      commitField.set(r, fieldHolding(v, r.commit) ?? 'commit');
      drafts.push(r); index.add(r.commit); if (r.parent) index.add(r.parent);
    }
    if (isObj(v)) {
      if (isObj(v.instance)) facts.record(v.instance as Obj, path, 2);
      const body = isObj(v.result) ? (v.result as Obj) : (v as Obj);
      facts.record(body, path, 2);
    }
  };

  await pool(toRead, opts.concurrency ?? 8, handle, opts.signal);

  const { redirect, conflicts } = identityConflicts(drafts, commitField, facts);
  // Resolve prefixes only now that every full hash in the folder is known.
  // Each file yields at most one run per role, so file + role identifies a run.
  const runs: Run[] = drafts.map(d => ({
    ...d,
    id: `${d.provenance.file}#${d.role}`,
    commit: redirect.get(d.commit) ?? index.resolve(d.commit),
    parent: d.parent ? index.resolve(d.parent) : null,
  }));
  const commits = facts.resolve(redirect);
  for (const r of runs) {
    let c = commits.get(r.commit);
    if (!c) commits.set(r.commit, (c = emptyCommit(r.commit)));
    if (!c.parent && r.parent) c.parent = r.parent;
    if (r.model && !c.models.includes(r.model)) c.models.push(r.model);
    if (!c.gpuConfig && r.gpuConfig) c.gpuConfig = r.gpuConfig;
    if (!c.project && r.project) c.project = r.project;
  }
  // A run that says nothing of its project belongs to its commit's.
  for (const r of runs) r.project ??= commits.get(r.commit)?.project ?? null;
  const { linked, unlinked } = linkAgentRuns(agentItems.values(), index);
  for (const a of linked) if (a.commit && !commits.has(a.commit) && isFullHash(a.commit)) commits.set(a.commit, emptyCommit(a.commit));

  const files = [...records.values()].sort((a, b) => (a.path < b.path ? -1 : 1));
  return { commits: [...commits.values()], runs, files, agentRuns: linked, unlinkedAgentRuns: unlinked, conflicts };
}

/**
 * A full hash only result files state, whose short id is a different commit a dataset or mapping
 * names, is a data conflict (9badee53d8ec… vs the dataset's 9badee53decb…): never a silent second
 * commit. The runs go to the dataset's commit; the conflict is reported with the file and field.
 */
function identityConflicts(drafts: readonly RunDraft[], commitField: ReadonlyMap<RunDraft, string>, facts: CommitFacts): { redirect: Map<string, string>; conflicts: CommitConflict[] } {
  const byShort = new Map<string, string[]>();
  for (const h of facts.authoritative) (byShort.get(h.slice(0, 8)) ?? byShort.set(h.slice(0, 8), []).get(h.slice(0, 8))!).push(h);
  const redirect = new Map<string, string>();
  const conflicts: CommitConflict[] = [];
  const known = facts.known();
  for (const d of drafts) {
    const h = d.commit;
    if (!isFullHash(h) || facts.authoritative.has(h)) continue;
    const others = (byShort.get(h.slice(0, 8)) ?? []).filter(x => x !== h);
    if (others.length !== 1) continue;
    const to = others[0];
    redirect.set(h, to);
    const info = known.get(to);
    const agree = [
      d.parent && info?.parent ? (info.parent.startsWith(d.parent) || d.parent.startsWith(info.parent) ? `same parent ${info.parent.slice(0, 12)}` : `but parent ${d.parent.slice(0, 12)} ≠ ${info.parent.slice(0, 12)}`) : null,
      d.model && info?.models.length ? (info.models.includes(d.model) ? 'same model' : `but model ${d.model} is not the dataset's`) : null,
    ].filter(Boolean).join(', ');
    const field = commitField.get(d) ?? 'commit';
    if (!conflicts.some(c => c.file === d.provenance.file && c.stated === h)) {
      conflicts.push({ file: d.provenance.file, field, stated: h, resolvedTo: to,
        message: `${d.provenance.file}: field ${field} names ${h}, which no dataset or mapping knows; the dataset's ${h.slice(0, 8)} is ${to}${agree ? ` (${agree})` : ''}. Counted as ${to.slice(0, 12)}: check the file.` });
    }
  }
  return { redirect, conflicts };
}

