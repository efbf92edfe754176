import { dict, ROLES } from '../core/model';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { pidAlive } from '../platform/processAlive';
import type { Classification, Finding } from '../core/classify';
import type { FileExtract } from '../core/ingest';
import type { FileRecord, Role, Run } from '../core/model';
import type { ScanResult } from '../core/ingest';
import type { CommitTriage } from '../core/compare';
import { writeLinesAtomic } from '../runner/atomicJson';
import { joinedLines, jsonLines, readJsonLines, type JsonLinesDocument } from '../platform/jsonLinesDocument';
import type { LazyLines } from '../platform/lazyLines';

/** The persistent index of a folder: every file's extract and its runs' classifications, by stamp (size:mtime). */
export interface IndexData {
  version: number;
  /** The build that wrote it (extraction and rules change between builds). */
  build: string;
  /** The folder it describes (an index is never used for another). */
  folder: string;
  rulesKey: string;
  /** The folder's listing when the index was written: every relevant file and its stamp, and the files recorded unread. */
  listing: { files: Array<[path: string, size: number, mtimeMs: number | null]>; records: FileRecord[] };
  files: Record<string, { stamp: string; extract: FileExtract; classifications: Record<string, Classification> }>;
}

/**
 * The folder's results as last shown: runs, classifications and entries (runs referenced by id),
 * under the settings they were computed with. A warm reopen shows these at once; the extracts
 * (for updates) load behind them.
 */
/** An entry as the state stores it: its roles' runs named by their place in the state's runs. */
export type StoredEntry = Omit<CommitTriage, 'roles'> & { roles: Record<Role, { run: number | null; history: number[]; attempts: number[] }> };

/**
 * The folder's results as last shown: runs, classifications and entries (runs referenced by their
 * place in `result.runs`), under the settings they were computed with. A warm reopen shows these at
 * once; the extracts (for updates) load behind them.
 */
export interface StateData {
  version: number;
  build: string;
  folder: string;
  /** Rules, tie band and headline choices the entries were computed under. */
  settingsKey: string;
  result: ScanResult;
  classifications: Array<[string, Classification]>;
  entries: StoredEntry[];
  /**
   * The listing these were computed from (as in the index): a reopen compares the folder with it
   * and, when nothing changed, never loads the extracts.
   */
  listing?: IndexData['listing'];
}

/**
 * A state read from disk holds its runs, classifications and listing as lazy sections (read when
 * first asked for): `result.runs`, `classifications` and `listing` read them whole, and this gives
 * one item at a time (the first paint needs the entries alone).
 */
export interface LazyState {
  runs: LazyLines<Run>;
  classificationIds: string[];
  classifications: LazyLines<Classification>;
  /** How many files the result lists, and those a person must look at (`problemFile`), without reading them all. */
  fileCount: number;
  problemFiles: FileRecord[];
  /** Every lazy section (commits, files, runs, classifications, listing), to read behind the first paint. */
  sections: Array<LazyLines<unknown>>;
}

/** The result files the Commits tree lists as problems (not read, not attributed). */
export const problemFile = (f: FileRecord) => f.kind === 'corrupt' || f.kind === 'unknown' || f.kind === 'skipped' || f.kind === 'unattributed';
const LAZY = Symbol('lazy state');
export const lazyStateOf = (s: StateData): LazyState | null => (s as { [LAZY]?: LazyState })[LAZY] ?? null;

export interface IndexStore {
  load(): Promise<IndexData | null>;
  save(data: IndexData): Promise<void>;
  loadState(): Promise<StateData | null>;
  saveState(data: StateData): Promise<void>;
}

/**
 * On disk, fields at their default (null, '', [], {}) are left out of runs, and a classification
 * keeps only its findings and what the primary adds: the index of 10 000 commits parses in a
 * fraction of the time of its plain form.
 */
const isEmpty = (v: unknown) =>
  v === null || v === '' || (Array.isArray(v) && v.length === 0) || (!!v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0);

function compactObject(o: Record<string, unknown>, keep: readonly string[] = []): Record<string, unknown> {
  const out: Record<string, unknown> = dict();
  for (const k in o) if (o[k] !== undefined && (keep.includes(k) || !isEmpty(o[k]))) out[k] = o[k];
  return out;
}

/** A run draft's fields at their default (fresh objects each time: drafts are mutated later). */
const draftDefaults = () => ({
  agent: null,
  project: null,
  error: null,
  errorField: null,
  metrics: {},
  metricSources: {},
  counts: {},
  logs: [],
  logFiles: [],
  model: null,
  command: null,
  benchmarkMode: null,
  gpuConfig: null,
  image: null,
  fixes: [],
  version: null,
  parent: null,
  timestamp: null,
  durationS: null,
  problems: [],
});

type StoredClassification = { findings: Finding[]; group: string; fixability: string; notes?: string[] };

function pack(data: IndexData): unknown {
  const files: Record<string, unknown> = dict();
  for (const [p, f] of Object.entries(data.files)) {
    const x = f.extract;
    files[p] = {
      s: f.stamp,
      x: compactObject({ ...x, path: undefined, drafts: x.drafts.map(d => compactObject({ ...d })) } as Record<string, unknown>, ['texts']),
      c: Object.fromEntries(
        Object.entries(f.classifications).map(([id, c]) => [
          id.slice(id.lastIndexOf('#') + 1),
          compactObject({ findings: c.findings, group: c.group, fixability: c.fixability, notes: c.notes } as Record<string, unknown>),
        ]),
      ),
    };
  }
  return { version: data.version, build: data.build, folder: data.folder, rulesKey: data.rulesKey, listing: data.listing, files };
}

function unpack(raw: {
  version: number;
  build: string;
  folder: string;
  rulesKey: string;
  listing: IndexData['listing'];
  files: Record<string, { s: string; x: Record<string, unknown>; c: Record<string, StoredClassification> }>;
}): IndexData {
  const files: IndexData['files'] = dict();
  for (const [p, f] of Object.entries(raw.files)) {
    const x = f.x as unknown as FileExtract;
    const extract: FileExtract = {
      path: p,
      record: x.record,
      drafts: ((x.drafts ?? []) as object[]).map(d => ({ ...draftDefaults(), ...d })) as unknown as FileExtract['drafts'],
      facts: x.facts ?? [],
      ...(x.texts !== undefined ? { texts: x.texts } : {}),
      ...(x.agentJson ? { agentJson: x.agentJson } : {}),
      ...(x.manifest ? { manifest: x.manifest } : {}),
      ...(x.perRequest ? { perRequest: x.perRequest } : {}),
    };
    const classifications: Record<string, Classification> = dict();
    for (const [role, c] of Object.entries(f.c ?? {}))
      classifications[`${p}#${role}`] = {
        ...c.findings[0],
        group: c.group,
        fixability: c.fixability,
        findings: c.findings,
        ...(c.notes ? { notes: c.notes } : {}),
      } as Classification;
    files[p] = { stamp: f.s, extract, classifications };
  }
  return { version: raw.version, build: raw.build, folder: raw.folder, rulesKey: raw.rulesKey, listing: raw.listing, files };
}

/**
 * The two files' forms on disk (platform/jsonLinesDocument): their large arrays one item per line
 * (the index's files, the state's runs, classifications and entries), read line by line.
 */
export const indexLines = {
  lines: (packed: Record<string, unknown>) =>
    jsonLines({ ...packed, files: undefined }, { files: Object.entries((packed.files ?? {}) as Record<string, unknown>) }),
  encode: (packed: Record<string, unknown>) => joinedLines(indexLines.lines(packed)),
  decode(doc: JsonLinesDocument): unknown {
    const files: Record<string, unknown> = dict();
    for (const pair of doc.sections.files ?? []) {
      if (!Array.isArray(pair) || typeof pair[0] !== 'string') return null;
      files[pair[0]] = pair[1];
    }
    return { ...doc.head, files };
  },
};
/**
 * The state's lines: the header (with the result's commits and files), then the entries and the
 * classifications' ids, read at once; then the runs, the classifications and the listing, read
 * when first asked for (`lazyItems`).
 */
export const stateLines = {
  encode: (data: StateData) => joinedLines(stateLines.lines(data)),
  lines: (data: StateData) =>
    jsonLines(
      {
        ...data,
        result: { ...data.result, runs: undefined, commits: undefined, files: undefined },
        problemFiles: data.result.files.filter(problemFile),
        classifications: undefined,
        entries: undefined,
        listing: undefined,
        hasListing: !!data.listing,
      },
      {
        entries: data.entries,
        classificationIds: data.classifications.map(([id]) => id),
        commits: data.result.commits,
        files: data.result.files,
        runs: data.result.runs,
        classifications: data.classifications.map(([, c]) => c),
        listing: data.listing?.files ?? [],
        listingRecords: data.listing?.records ?? [],
      },
    ),
  lazyItems: {
    commits: (v: unknown) => isObj(v) && typeof v.hash === 'string',
    files: (v: unknown) => isObj(v) && typeof v.path === 'string' && typeof v.kind === 'string',
    runs: (v: unknown) => isObj(v) && typeof v.id === 'string',
    classifications: (v: unknown) => isObj(v),
    listing: (f: unknown) => Array.isArray(f) && typeof f[0] === 'string' && typeof f[1] === 'number' && (f[2] === null || typeof f[2] === 'number'),
  },
  decode(doc: JsonLinesDocument): StateData | null {
    const { hasListing, problemFiles, ...head } = doc.head;
    const r = head.result;
    const commits = doc.lazy.commits as LazyLines<ScanResult['commits'][number]> | undefined,
      files = doc.lazy.files as LazyLines<FileRecord> | undefined;
    const runs = doc.lazy.runs as LazyLines<Run> | undefined,
      values = doc.lazy.classifications as LazyLines<Classification> | undefined,
      rows = doc.lazy.listing as LazyLines<IndexData['listing']['files'][number]> | undefined;
    const ids = doc.sections.classificationIds;
    if (
      !isObj(r) ||
      !commits ||
      !files ||
      !runs ||
      !values ||
      !rows ||
      !Array.isArray(ids) ||
      ids.length !== values.length ||
      !ids.every(id => typeof id === 'string')
    )
      return null;
    if (!Array.isArray(problemFiles) || !problemFiles.every(f => isObj(f) && typeof f.path === 'string')) return null;
    const result = { ...r } as unknown as ScanResult;
    lazyField(result, 'commits', () => commits.all());
    lazyField(result, 'files', () => files.all());
    lazyField(result, 'runs', () => runs.all());
    const state = { ...head, result, entries: doc.sections.entries } as unknown as StateData;
    let pairs: Array<[string, Classification]> | null = null;
    Object.defineProperty(state, 'classifications', {
      get: () => (pairs ??= values.all().map((c, i) => [ids[i] as string, c])),
      set: v => (pairs = v),
      enumerable: true,
      configurable: true,
    });
    if (hasListing) {
      let listing: IndexData['listing'] | null = null;
      const records = doc.sections.listingRecords ?? [];
      Object.defineProperty(state, 'listing', {
        get: () => (listing ??= { files: rows.all(), records: records as FileRecord[] }),
        set: v => (listing = v),
        enumerable: true,
        configurable: true,
      });
    }
    Object.defineProperty(state, LAZY, {
      value: {
        runs,
        classificationIds: ids,
        classifications: values,
        fileCount: files.length,
        problemFiles: problemFiles as FileRecord[],
        sections: [rows, commits, files, runs, values] as Array<LazyLines<unknown>>,
      } satisfies LazyState,
      enumerable: false,
    });
    return state;
  },
};

/** A field read when first asked for (then kept); assigning it replaces it. */
function lazyField<T extends object, K extends keyof T>(o: T, key: K, make: () => T[K]): void {
  let v: T[K] | undefined;
  let made = false;
  Object.defineProperty(o, key, {
    get: () => (made ? v : ((made = true), (v = make()))),
    set: (x: T[K]) => ((made = true), (v = x)),
    enumerable: true,
    configurable: true,
  });
}

/**
 * An index kept as two files per folder in a cache directory (the extension's storage, or the
 * CLI's `--cache DIR`), written atomically; a file that cannot be read is ignored (a cold scan).
 */
export function fileIndexStore(cacheDir: string, folder: string): IndexStore {
  const id = createHash('sha1').update(folder).digest('hex').slice(0, 16);
  const file = path.join(cacheDir, `index-${id}.jsonl`),
    state = path.join(cacheDir, `state-${id}.jsonl`);
  let swept = false;
  const sweep = async () => {
    if (swept) return;
    swept = true;
    await sweepTemporaries(cacheDir);
  };
  // The whole-document files of earlier builds: no build reads them again.
  const dropEarlierForm = (f: string) => fs.rm(f.slice(0, -1), { force: true }).catch(() => undefined);
  const read = async (f: string, what: string, form: { decode(doc: JsonLinesDocument): unknown; lazyItems?: Record<string, (v: unknown) => boolean> }) => {
    const doc = await readJsonLines(f, { maxBytes: INDEX_CAP, what, lazy: form.lazyItems });
    return doc ? form.decode(doc) : null;
  };
  return {
    async load() {
      await sweep();
      try {
        const raw = await read(file, 'the index', indexLines);
        // Valid JSON of another shape (an older build, a hand edit, another tool): a cold scan, never a crash.
        return indexShaped(raw) ? unpack(raw) : null;
      } catch {
        return null;
      }
    },
    async save(data) {
      await writeLinesAtomic(file, indexLines.lines(pack(data) as Record<string, unknown>), { durable: false });
      await dropEarlierForm(file);
    },
    async loadState() {
      await sweep();
      try {
        const raw = await read(state, 'the index state', stateLines);
        return stateShaped(raw) ? raw : null;
      } catch {
        return null;
      }
    },
    async saveState(data) {
      await writeLinesAtomic(state, stateLines.lines(data), { durable: false });
      await dropEarlierForm(state);
    },
  };
}

/** Larger than a JS string can hold anyway: such an index is a cold scan. */
const INDEX_CAP = 512 * 1024 * 1024;
const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

function listingShaped(l: unknown): l is IndexData['listing'] {
  if (!isObj(l) || !Array.isArray(l.files) || !Array.isArray(l.records)) return false;
  if (!l.files.every(f => Array.isArray(f) && typeof f[0] === 'string' && typeof f[1] === 'number' && (f[2] === null || typeof f[2] === 'number')))
    return false;
  return l.records.every(isObj);
}

/** The index's shape, checked field by field before use (cheap next to parsing it). */
function indexShaped(raw: unknown): raw is Parameters<typeof unpack>[0] {
  if (!isObj(raw) || typeof raw.version !== 'number' || typeof raw.build !== 'string' || typeof raw.folder !== 'string' || typeof raw.rulesKey !== 'string')
    return false;
  if (!listingShaped(raw.listing)) return false;
  if (!isObj(raw.files)) return false;
  for (const f of Object.values(raw.files)) {
    if (!isObj(f) || typeof f.s !== 'string' || !isObj(f.x) || (f.c !== undefined && !isObj(f.c))) return false;
    if (f.x.drafts !== undefined && !Array.isArray(f.x.drafts)) return false;
    if (f.x.facts !== undefined && !Array.isArray(f.x.facts)) return false;
    for (const c of Object.values((f.c as Record<string, unknown> | undefined) ?? {}))
      if (!isObj(c) || !Array.isArray(c.findings) || !c.findings.length) return false;
  }
  return true;
}

/** The state's shape where it is read at once (the lazy sections check each line as it is read). */
function stateShaped(raw: unknown): raw is StateData {
  if (!isObj(raw) || typeof raw.version !== 'number' || typeof raw.build !== 'string' || typeof raw.folder !== 'string' || typeof raw.settingsKey !== 'string')
    return false;
  const r = raw.result;
  if (!isObj(r)) return false;
  if (!Array.isArray(raw.entries)) return false;
  const runs = lazyStateOf(raw as unknown as StateData)?.runs.length ?? 0;
  const ref = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0 && (v as number) < runs;
  for (const e of raw.entries) {
    if (!isObj(e) || typeof e.commit !== 'string' || !isObj(e.roles)) return false;
    // Every role, as the entries' roles are made when first read (too late to fall back to a scan).
    for (const role of ROLES) {
      const v = e.roles[role];
      if (
        !isObj(v) ||
        !(v.run === null || ref(v.run)) ||
        !Array.isArray(v.history) ||
        !v.history.every(ref) ||
        !Array.isArray(v.attempts) ||
        !v.attempts.every(ref)
      )
        return false;
    }
  }
  return true;
}

/**
 * Temporary files of writes a killed process never finished (`index-….jsonl.<pid>.tmp`): removed
 * when their process is gone, or when they are older than a day (another machine's).
 */
export async function sweepTemporaries(cacheDir: string, now = Date.now()): Promise<string[]> {
  const removed: string[] = [];
  for (const name of await fs.readdir(cacheDir).catch(() => [] as string[])) {
    const m = /^(?:(?:index|state)-[0-9a-f]{16}\.jsonl?|listings-[0-9a-f]{16}\.json|answer-[0-9a-f]{16}\.txt)\.(\d+)\.tmp$/.exec(name);
    if (!m) continue;
    const pid = Number(m[1]);
    const p = path.join(cacheDir, name);
    const st = await fs.lstat(p).catch(() => null);
    if (!st?.isFile()) continue;
    if (pidAlive(pid) && now - st.mtimeMs < 86_400_000) continue;
    await fs.rm(p, { force: true });
    removed.push(name);
  }
  return removed;
}
