import { dict } from '../model';
import type { AgentRun, Commit, FileRecord, Run, UnlinkedAgentRun } from '../model';
import { emptyCommit } from '../model';
import { CommitIndex, isFullHash } from './commits';
import { baseName, nonRunByPath } from './detectors/nonRun';
import { CommitFacts, factCommit } from './facts';
import { agentOfDatasetFile, attributeAgents } from './agentIdentity';
import { isAgentItemFile, linkAgentRuns, type AgentItemFiles } from './agentRuns';
import { extractFile, type FileExtract } from './extract';
import type { RunDraft } from './detectors';
import { FileRefused, type FileSource, type ListedFile, type ListOptions } from './source';
import { fromManifests, fromPath, MANIFEST_NAME, UNATTRIBUTED_FIX, type Attribution, type Manifest } from './manifest';

export * from './source';
export type { FileExtract } from './extract';

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
export interface CommitConflict {
  file: string;
  field: string;
  stated: string;
  resolvedTo: string;
  message: string;
}

export interface ScanResult {
  commits: Commit[];
  runs: Run[];
  files: FileRecord[];
  agentRuns: AgentRun[];
  unlinkedAgentRuns: UnlinkedAgentRun[];
  conflicts: CommitConflict[];
  /** Commits listed by an agent's own dataset (`<agent>_dataset.json`), with the agents: names agent runs that state none. */
  datasetAgents?: Record<string, string[]>;
  /** Rows of `bench-triage.csv` manifests that could not be used, each naming the file, line and column. */
  manifestProblems?: Array<{ file: string; field: string; message: string }>;
}

const SKIP_DIRS = /(^|\/)(node_modules|\.git|\.hg|\.svn|\.vscode|\.vscode-test|\.vscode-ci)(\/|$)/;
const LOG_SIBLINGS = new Set(['stdout.txt', 'stderr.txt']);
export const DEFAULT_MAX_FILE_BYTES = 64 * 1024 * 1024;

/**
 * The tool's own bookkeeping under `.bench-triage/` (run.json, campaigns, claims, rules…): read by
 * their own readers, never part of the triage, so a change to one changes no entry.
 */
export function isOwnBookkeeping(path: string): boolean {
  const k = nonRunByPath(path);
  return k === 'tool-record' || k === 'run-record';
}

export function isRelevant(path: string): boolean {
  if (SKIP_DIRS.test(path)) return false;
  return readable(path) || isAgentItemFile(path) || LOG_SIBLINGS.has(baseName(path));
}
/** Files whose content the scan reads: JSON, JSONL, and identity manifests. */
export const readable = (path: string) => path.endsWith('.json') || path.endsWith('.jsonl') || baseName(path) === MANIFEST_NAME;

/** What a folder's listing says before any file is read: the files to read, and those recorded without reading. */
export interface Listing {
  files: ListedFile[];
  records: FileRecord[];
}

/**
 * Lists the folder. With `onFolder`, and a source that lists folder by folder, each folder's
 * relevant files are handed over as soon as the folder is complete, so reading can start while
 * the walk goes on; otherwise once, folder by folder, at the end.
 */
export async function listFolder(
  source: FileSource,
  signal?: AbortSignal,
  onFolder?: (files: ListedFile[]) => void,
  listOptions?: ListOptions,
): Promise<Listing> {
  const files: ListedFile[] = [];
  const records: FileRecord[] = [];
  let batch: ListedFile[] = [];
  let batchDir: string | null = null;
  const flush = () => {
    if (batch.length) onFolder?.(batch);
    batch = [];
  };
  // The caller reads each folder handed over at once: the thread is given back between folders
  // when the source says it has been held long enough, or nothing else (a cancel, a view's
  // request) is heard until the walk ends (the walk's own pauses let only other walks run).
  const breathe = async () => {
    const pause = source.breather?.();
    if (pause) await pause;
  };
  for await (const f of source.list(signal, listOptions)) {
    // A linked folder (no extension) is recorded like a linked file, whatever its name.
    if (!isRelevant(f.path) && !(f.kind === 'symlink' && !baseName(f.path).includes('.'))) continue;
    if (onFolder && source.groupedByFolder) {
      const dir = f.path.slice(0, f.path.lastIndexOf('/') + 1);
      if (dir !== batchDir) {
        flush();
        batchDir = dir;
        await breathe();
      }
    }
    // Links and special files are recorded, never read as they are (a FIFO would hang the scan,
    // a link could lead outside the folder or make a file count twice).
    if (f.kind === 'special') {
      records.push({ kind: 'skipped', path: f.path, reason: 'not a regular file (FIFO, socket or device): not read' });
      continue;
    }
    if (f.kind === 'symlink') {
      const d = await source.describe?.(f.path);
      // An extension-less link to a regular file (a venv's `python`) is no result: passed over as any such file is.
      if (!isRelevant(f.path) && d?.regular) continue;
      records.push({
        kind: 'skipped',
        path: f.path,
        reason:
          !d || d.error
            ? `symbolic link that cannot be resolved${d?.error ? ` (${d.error})` : ''}: not read`
            : d.inside
              ? `symbolic link to ${d.target}, inside the folder: read there, not twice`
              : `symbolic link to ${d.target}, outside the folder: not read`,
      });
      continue;
    }
    files.push(f);
    if (onFolder && source.groupedByFolder) batch.push(f);
  }
  flush();
  files.sort((a, b) => (a.path < b.path ? -1 : 1));
  if (onFolder && !source.groupedByFolder)
    for (const group of siblingsGroups(files)) {
      onFolder(group);
      await breathe();
    }
  return { files, records };
}

function siblingsGroups(files: readonly ListedFile[]): ListedFile[][] {
  const out = new Map<string, ListedFile[]>();
  for (const f of files) {
    const dir = f.path.slice(0, f.path.lastIndexOf('/') + 1);
    (out.get(dir) ?? out.set(dir, []).get(dir)!).push(f);
  }
  return [...out.values()];
}

/** Base name → path of every listed file in each folder (detectors look at a result's siblings). */
export function siblingsOf(files: readonly ListedFile[]): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>();
  for (const f of files) {
    const dir = f.path.slice(0, f.path.lastIndexOf('/') + 1);
    let m = out.get(dir);
    if (!m) out.set(dir, (m = new Map()));
    m.set(baseName(f.path), f.path);
  }
  return out;
}

/**
 * Reads and extracts one listed file; anything a file contains becomes a record, never an
 * exception. A listing entry whose stat was left to the read (size -1) gets its size and mtime
 * filled in here.
 */
export async function readExtract(
  source: FileSource,
  f: ListedFile,
  siblings: ReadonlyMap<string, string>,
  maxBytes = DEFAULT_MAX_FILE_BYTES,
): Promise<FileExtract> {
  if (f.size > maxBytes) return tooBig(f, f.size, maxBytes);
  try {
    return extractFile(f.path, await source.readText(f.path, readOptions(f, maxBytes)), siblings);
  } catch (e) {
    return unreadable(f, e, maxBytes);
  }
}

/** readExtract at once, where the source reads the file at once (`readListedNow`); undefined where it cannot. */
export function readExtractNow(
  source: FileSource,
  f: ListedFile,
  siblings: ReadonlyMap<string, string>,
  maxBytes = DEFAULT_MAX_FILE_BYTES,
): FileExtract | undefined {
  if (!source.readListedNow) return undefined;
  if (f.size > maxBytes) return tooBig(f, f.size, maxBytes);
  try {
    const text = source.readListedNow(f.path, readOptions(f, maxBytes));
    return text === undefined ? undefined : extractFile(f.path, text, siblings);
  } catch (e) {
    return unreadable(f, e, maxBytes);
  }
}

const readOptions = (f: ListedFile, maxBytes: number) => ({
  maxBytes,
  whole: true,
  listed: true,
  onStat: (s: { size: number; mtimeMs?: number }) => {
    f.size = s.size;
    if (s.mtimeMs !== undefined) f.mtimeMs = s.mtimeMs;
  },
});
const noExtract = (f: ListedFile, record: FileRecord): FileExtract => ({ path: f.path, record, drafts: [], facts: [] });
const tooBig = (f: ListedFile, size: number, maxBytes: number) =>
  noExtract(f, {
    kind: 'unknown',
    path: f.path,
    reason: `file is ${(size / 1048576).toFixed(1)} MiB, above the ${(maxBytes / 1048576).toFixed(0)} MiB limit for result files; open it directly`,
  });
/** Anything a read or an extraction throws, as the file's record. */
function unreadable(f: ListedFile, e: unknown, maxBytes: number): FileExtract {
  if (e instanceof FileRefused && f.size > maxBytes) return tooBig(f, f.size, maxBytes);
  if (e instanceof FileRefused) return noExtract(f, { kind: 'skipped', path: f.path, reason: e.message });
  return noExtract(f, { kind: 'unknown', path: f.path, reason: `could not be read: ${e instanceof Error ? e.message : String(e)}` });
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

/** Lists, reads and extracts every file, then assembles the folder. */
export async function scan(source: FileSource, opts: ScanOptions = {}): Promise<ScanResult> {
  // Result files are sized by their read (one system call less each).
  const listing = await listFolder(source, opts.signal, undefined, { statOnRead: true });
  const siblings = siblingsOf(listing.files);
  const toRead = listing.files.filter(f => readable(f.path));
  const extracts = new Map<string, FileExtract>();
  let done = 0;
  const siblingsOfFile = (f: ListedFile) => siblings.get(f.path.slice(0, f.path.lastIndexOf('/') + 1)) ?? new Map<string, string>();
  if (source.readListedNow) {
    // A source that reads at once (Node's fs): file after file, no promise each, the thread given
    // back whenever the source says it has been held long enough.
    for (const f of toRead) {
      if (opts.signal?.aborted) throw opts.signal.reason ?? new Error('scan cancelled');
      const pause = source.breather?.();
      if (pause) await pause;
      extracts.set(
        f.path,
        readExtractNow(source, f, siblingsOfFile(f), opts.maxFileBytes) ?? (await readExtract(source, f, siblingsOfFile(f), opts.maxFileBytes)),
      );
      opts.onProgress?.({ done: ++done, total: toRead.length, path: f.path });
    }
    return assemble(listing, extracts);
  }
  await pool(
    toRead,
    opts.concurrency ?? 8,
    async f => {
      extracts.set(f.path, await readExtract(source, f, siblingsOfFile(f), opts.maxFileBytes));
      opts.onProgress?.({ done: ++done, total: toRead.length, path: f.path });
    },
    opts.signal,
  );
  return assemble(listing, extracts);
}

/**
 * The folder from its extracts: commit ids resolved against every full hash known, facts merged
 * by the rank of their source, data conflicts found, agent item folders linked. Deterministic
 * (files in path order), and cheap enough to run again after a change without reading anything.
 */
export function assemble(listing: Listing, extracts: ReadonlyMap<string, FileExtract>): ScanResult {
  const index = new CommitIndex();
  const facts = new CommitFacts(index);
  const drafts: FileExtract['drafts'] = [];
  // Where each draft's identity came from when the file states none (a manifest row, its path).
  const placements: Array<Placement | null> = [];
  const agentItems = new Map<string, AgentItemFiles>();
  const itemOf = (path: string) => {
    const dir = path.slice(0, path.lastIndexOf('/'));
    let it = agentItems.get(dir);
    if (!it) agentItems.set(dir, (it = { dir, json: new Map(), patch: null }));
    return it;
  };
  for (const f of listing.files) if (isAgentItemFile(f.path) && baseName(f.path) === 'model_patch.diff') itemOf(f.path).patch = { path: f.path, bytes: f.size };
  const records = new Map<string, FileRecord>(listing.records.map(r => [r.path, r]));
  const manifests = new Map<string, { path: string; manifest: Manifest }>();
  const perRequest = new Map<string, NonNullable<FileExtract['perRequest']>>();
  const manifestProblems: NonNullable<ScanResult['manifestProblems']> = [];
  for (const f of listing.files) {
    const x = extracts.get(f.path);
    if (x?.manifest) {
      manifests.set(f.path.slice(0, f.path.lastIndexOf('/') + 1), { path: f.path, manifest: x.manifest });
      manifestProblems.push(...x.manifest.problems.map(p => ({ file: f.path, ...p })));
    }
    if (x?.perRequest) perRequest.set(f.path.slice(0, f.path.lastIndexOf('/') + 1), x.perRequest);
  }
  for (const f of listing.files) {
    const x = extracts.get(f.path);
    if (!x) continue;
    records.set(f.path, x.record);
    for (const row of x.facts) facts.record(row.row, f.path, row.rank, row.line);
    // A standalone tool's file is attributed by the nearest manifest row, else by its path; never guessed.
    const who = x.drafts.some(d => d.unattributed) ? (fromManifests(f.path, manifests) ?? fromPath(f.path)) : null;
    if (!who && x.record.kind === 'run' && x.drafts.some(d => d.unattributed)) {
      records.set(f.path, { kind: 'unattributed', path: f.path, schema: x.record.schema, runs: x.record.runs, reason: UNATTRIBUTED_FIX });
      continue;
    }
    const place: Placement | null = who ? { who, perRequest: perRequest.get(f.path.slice(0, f.path.lastIndexOf('/') + 1)) } : null;
    for (const d of x.drafts) {
      const p = place && d.unattributed ? place : null;
      drafts.push(d);
      placements.push(p);
      index.add(p ? p.who.commit : d.commit);
      if (d.parent) index.add(d.parent);
    }
    if (x.agentJson) itemOf(f.path).json.set(baseName(f.path), x.agentJson);
  }
  const { redirect, conflicts } = identityConflicts(drafts, placements, facts);
  // Resolve prefixes only now that every full hash in the folder is known.
  // Each file yields at most one run per role, so file + role identifies a run.
  const runs: Run[] = drafts.map((d, i) => {
    const p = placements[i];
    const stated = p ? p.who.commit : d.commit;
    const run = runOf(d, redirect.get(stated) ?? index.resolve(stated), d.parent ? index.resolve(d.parent) : null, p);
    if (run.commit.length < 40 && !redirect.has(stated)) {
      // A prefix two commits share: attributed to neither, and said so (not a silent "unknown").
      const both = index.matches(run.commit);
      if (both.length > 1)
        run.problems = [
          ...run.problems,
          {
            field: d.commitField ?? 'commit',
            message: `commit id ${run.commit} matches ${both.length > 2 ? 'several' : 'two'} commits (${both.map(h => h.slice(0, 12)).join(', ')}): not attributed to either; give the full hash`,
          },
        ];
    }
    return run;
  });
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
  const datasetAgents: Record<string, string[]> = dict();
  for (const f of listing.files) {
    const agent = agentOfDatasetFile(f.path);
    if (!agent) continue;
    for (const row of extracts.get(f.path)?.facts ?? []) {
      const id = factCommit(row.row);
      if (!id) continue;
      const list = (datasetAgents[index.resolve(id)] ??= []);
      if (!list.includes(agent)) list.push(agent);
    }
  }
  attributeAgents(runs, linked, new Map(Object.entries(datasetAgents).map(([k, v]) => [k, new Set(v)])));
  const files = [...records.values()].sort((a, b) => (a.path < b.path ? -1 : 1));
  return {
    commits: [...commits.values()],
    runs,
    files,
    agentRuns: linked,
    unlinkedAgentRuns: unlinked,
    conflicts,
    datasetAgents,
    ...(manifestProblems.length ? { manifestProblems } : {}),
  };
}

/**
 * A standalone draft's identity, from a manifest or its path, with AIPerf's per-request export of
 * its folder. The draft itself stays as extracted (extracts are shared with the index): the run
 * made from it takes the identity (runOf), no copy of the draft in between.
 */
interface Placement {
  who: Attribution;
  perRequest?: FileExtract['perRequest'];
}

/**
 * A full hash only result files state, whose short id is a different commit a dataset or mapping
 * names, is a data conflict (9badee53d8ec… vs the dataset's 9badee53decb…): never a silent second
 * commit. The runs go to the dataset's commit; the conflict is reported with the file and field.
 */
function identityConflicts(
  drafts: FileExtract['drafts'],
  placements: ReadonlyArray<Placement | null>,
  facts: CommitFacts,
): { redirect: Map<string, string>; conflicts: CommitConflict[] } {
  const byShort = new Map<string, string[]>();
  for (const h of facts.authoritative) (byShort.get(h.slice(0, 8)) ?? byShort.set(h.slice(0, 8), []).get(h.slice(0, 8))!).push(h);
  const redirect = new Map<string, string>();
  const conflicts: CommitConflict[] = [];
  const known = facts.known();
  for (let i = 0; i < drafts.length; i++) {
    const d = drafts[i];
    const p = placements[i];
    const h = p ? p.who.commit : d.commit;
    const model = p ? (d.model ?? p.who.model) : d.model;
    if (!isFullHash(h) || facts.authoritative.has(h)) continue;
    const others = (byShort.get(h.slice(0, 8)) ?? []).filter(x => x !== h);
    if (others.length !== 1) continue;
    const to = others[0];
    redirect.set(h, to);
    const info = known.get(to);
    const agree = [
      d.parent && info?.parent
        ? info.parent.startsWith(d.parent) || d.parent.startsWith(info.parent)
          ? `same parent ${info.parent.slice(0, 12)}`
          : `but parent ${d.parent.slice(0, 12)} ≠ ${info.parent.slice(0, 12)}`
        : null,
      model && info?.models.length ? (info.models.includes(model) ? 'same model' : `but model ${model} is not the dataset's`) : null,
    ]
      .filter(Boolean)
      .join(', ');
    if (!conflicts.some(c => c.file === d.provenance.file && c.stated === h)) {
      conflicts.push({
        file: d.provenance.file,
        field: d.commitField,
        stated: h,
        resolvedTo: to,
        message: `${d.provenance.file}: field ${d.commitField} names ${h}, which no dataset or mapping knows; the dataset's ${h.slice(0, 8)} is ${to}${agree ? ` (${agree})` : ''}. Counted as ${to.slice(0, 12)}: check the file.`,
      });
    }
  }
  return { redirect, conflicts };
}

/**
 * A run from its draft, as one literal: every run has the same shape (V8 keeps one hidden class
 * for them all, which an Object.assign over 30 000 drafts did not), and the extract's own
 * bookkeeping (`commitField`) stays behind. Drafts are shared with the index, so never mutated.
 */
export function runOf(d: RunDraft, commit: string, parent: string | null, placed?: Placement | null): Run {
  const durationS = plausibleDuration(d.durationS);
  const a = placed?.who;
  const role = a ? a.role : d.role;
  let problems = d.problems;
  let samples = d.samples;
  if (a && a.model && d.model && a.model !== d.model)
    problems = [
      ...problems,
      { field: 'model', message: `the file ran ${d.model}; ${a.identity.source} line ${a.identity.line} says ${a.model}: the file's is kept` },
    ];
  // AIPerf's aggregate holds no per-request values: its folder's per-request export gives them.
  if (a && !samples && d.provenance.schema === 'aiperf' && placed.perRequest?.samples) {
    samples = placed.perRequest.samples;
    problems = [...problems, ...placed.perRequest.problems];
  }
  if (durationS !== d.durationS)
    problems = [
      ...problems,
      { field: 'durationS', message: `${d.durationS} s is not a run's duration (at most ${MAX_RUN_S / 86_400} days): left out of estimates` },
    ];
  const run: Run = {
    id: `${d.provenance.file}#${role}${d.multi ? `@${d.provenance.pointer.replace(/\s+/g, '')}` : ''}`,
    commit,
    role,
    source: d.source,
    agent: a ? (a.role === 'agent' ? a.agent : null) : d.agent,
    project: d.project,
    status: d.status,
    originalStatus: d.originalStatus,
    error: d.error,
    errorField: d.errorField,
    metrics: d.metrics,
    metricSources: d.metricSources,
    counts: d.counts,
    logs: d.logs,
    logFiles: d.logFiles,
    model: a ? (d.model ?? a.model) : d.model,
    command: a ? (a.command ?? d.command) : d.command,
    benchmarkMode: d.benchmarkMode,
    gpuConfig: d.gpuConfig,
    image: d.image,
    fixes: d.fixes,
    version: d.version,
    parent,
    timestamp: d.timestamp,
    durationS,
    problems,
    provenance: d.provenance,
  };
  // The optional parts assigned, not spread into the literal (spreads there cost a tenth of a scan).
  if (samples) run.samples = samples;
  if (a) run.identity = a.identity;
  else if (d.identity) run.identity = d.identity;
  if (d.workload) run.workload = d.workload;
  if (d.failedRequests) run.failedRequests = d.failedRequests;
  if (d.labels) run.labels = d.labels;
  return run;
}

/** A run longer than this is a writer's error, not a duration (it would plan 1e296 GPU-hours). */
const MAX_RUN_S = 30 * 86_400;
function plausibleDuration<T extends number | null | undefined>(d: T): T | null {
  return typeof d === 'number' && !(Number.isFinite(d) && d >= 0 && d <= MAX_RUN_S) ? null : d;
}
