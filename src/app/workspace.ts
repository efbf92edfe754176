import { createHash } from 'node:crypto';
import {
  assemble,
  DEFAULT_MAX_FILE_BYTES,
  isOwnBookkeeping,
  isRelevant,
  listFolder,
  readable,
  readExtract,
  readExtractNow,
  runOf,
  siblingsOf,
  attributeAgents,
  type FileExtract,
  type FileSource,
  type ListedFile,
  type Listing,
  type ScanResult,
} from '../core/ingest';
import {
  applyLabels,
  applyPatchTruth,
  builtinModel,
  category,
  Classifier,
  classifyRuns,
  labelExamples,
  learnedFinding,
  LEARNED_THRESHOLD,
  type Classification,
  type Label,
  type Rule,
} from '../core/classify';
import { compareEntries, triage, triageYielding, type CommitTriage, type TriageOptions } from '../core/compare';
import { timeSlicer } from './timeSlices';
import type { PrimaryOverride } from '../core/metrics';
import type { Commit, FileRecord, Run } from '../core/model';
import { EntryKeys, type EntryKey } from './identity';
import { lazyStateOf, problemFile, type IndexData, type IndexStore, type LazyState, type StateData } from './indexStore';
import { LazyClassifications } from './lazyClassifications';
import { LazyLineError } from '../platform/lazyLines';
import { indexFiles, listingRows, restoredEntries, storedEntries, storedListing } from './indexForms';

export interface WorkspaceSettings {
  tieBand: number;
  rules: Rule[];
  primaryMetric: PrimaryOverride;
  /** Compare runs whose benchmark had failed requests (`--allow-failed-requests`, `benchTriage.allowFailedRequests`). */
  allowFailedRequests?: boolean;
  /** Categories people set on runs (`.bench-triage/labels.json`). */
  labels?: Label[];
}

export interface LoadOptions {
  signal?: AbortSignal;
  onProgress?(p: { phase: 'list' | 'read' | 'classify' | 'triage'; done: number; total: number }): void;
}

/** What an update changed: everything (a re-assembly), or the entries of some commits only. */
export type WorkspaceChange = { kind: 'full' } | { kind: 'commits'; commits: string[] } | { kind: 'none' };

const stampOf = (f: ListedFile) => `${f.size}:${f.mtimeMs ?? '?'}`;
const INDEX_VERSION = 3;
/** Lines of a lazy section read between two yields when revalidating (about 10 ms here). */
const REST_SLICE = 1000;

/**
 * One folder's results, kept up to date: scan → classify → patch truth → triage, the one pipeline
 * both front ends use. Every file's extract and its runs' classifications are kept, keyed by the
 * file's size and mtime (and the rules in force), in a persistent index when one is given: a
 * reopen reads only what changed. A changed result file updates only its own commit's entries
 * when it can (the runner's new result.json), else the folder is re-assembled from the extracts
 * without reading anything else.
 */
export class Workspace {
  private listingNow: Listing = { files: [], records: [] };
  /** After a warm open: the listing the state was computed from, made when first needed (revalidate, update). */
  private listingLater: (() => Listing) | null = null;
  private get listing(): Listing {
    const later = this.listingLater;
    if (later) {
      this.listingLater = null;
      this.listingNow = later();
    }
    return this.listingNow;
  }
  private set listing(l: Listing) {
    this.listingLater = null;
    this.listingNow = l;
  }
  private extracts = new Map<string, FileExtract>();
  private stampsNow = new Map<string, string>();
  /** Each listed file's stamp (made with the listing). */
  private get stamps(): Map<string, string> {
    void this.listing;
    return this.stampsNow;
  }
  /** Built when first needed: an answer restored from the index classifies nothing (its rules' automaton is costly). */
  private classifierMade: Classifier | null = null;
  private get classifier(): Classifier {
    return (this.classifierMade ??= classifierFor(this.settings()));
  }
  private set classifier(c: Classifier) {
    this.classifierMade = c;
  }
  private rulesKey: string;
  result: ScanResult = emptyResult();
  classifications = new Map<string, Classification>();
  entries: CommitTriage[] = [];
  /** Rules that ran out of their time budget (user rules stop for that file; the CLI reports them). */
  get budgetReports() {
    return this.classifierMade?.budgetReports ?? [];
  }
  /** Figures of the last load, for the benchmark and the log. */
  lastLoad: { listed: number; read: number; fromIndex: number; classified: number; ms?: Record<string, number> } = {
    listed: 0,
    read: 0,
    fromIndex: 0,
    classified: 0,
  };

  constructor(
    readonly folder: string,
    private readonly source: FileSource,
    private readonly settings: () => WorkspaceSettings,
    private readonly index: IndexStore | null = null,
  ) {
    this.rulesKey = rulesKeyOf(settings().rules);
    this.labelsKey = labelsKeyOf(settings().labels);
  }
  private labelsKey: string;

  /**
   * The classifications triage sees: with labels, unclassified runs asked again of the learned
   * stage (the labels are examples of it) and labelled runs set to their label. Without, as computed.
   */
  private labelled(classifications = this.classifications): Map<string, Classification> {
    const labels = this.settings().labels ?? [];
    if (!labels.length) return classifications;
    const model = this.classifier.learned;
    const out = new Map(classifications);
    if (model)
      for (const [id, c] of out) {
        if (!c.learned || (c.strength !== 'none' && c.strength !== 'learned')) continue;
        const guess = model.predict(c.learned.tokens);
        const f = learnedFinding(c.candidates ?? [], guess, LEARNED_THRESHOLD, model.examples);
        const def = category(f.category);
        out.set(id, { ...c, ...f, group: def.group, fixability: def.fixability, findings: [f], learned: { tokens: c.learned.tokens, guess } });
      }
    return applyLabels(out, labels);
  }

  /** The result restored from a lazy state, and what is known of it without reading its sections. */
  private restored: { result: ScanResult; lazy: LazyState } | null = null;
  private lazyKnown(): LazyState | null {
    return this.restored && this.restored.result === this.result ? this.restored.lazy : null;
  }
  /** How many runs and result files there are (a warm open's first paint reads neither). */
  get runCount(): number {
    return this.lazyKnown()?.runs.length ?? this.result.runs.length;
  }
  get fileCount(): number {
    return this.lazyKnown()?.fileCount ?? this.result.files.length;
  }
  /** The result files a person must look at: not read, not understood, not attributed. */
  problemFiles(): FileRecord[] {
    return this.lazyKnown()?.problemFiles ?? this.result.files.filter(problemFile);
  }

  /** The entry of a key (its folder must be this workspace's). */
  entry(key: EntryKey): CommitTriage | undefined {
    return key.folder === this.folder ? this.entries.find(e => e.commit === key.commit && e.agent === key.agent) : undefined;
  }
  keyOf(e: CommitTriage): EntryKey {
    return EntryKeys.of(this.folder, e.commit, e.agent);
  }

  /**
   * Opens the folder. With a usable index the results are ready at once from it (nothing listed or
   * read), and `revalidate` is started to catch up with what changed since: its promise is
   * returned as `revalidated`. Without one, a full load.
   */
  async open(opts: LoadOptions = {}): Promise<{ warm: boolean; revalidated: Promise<WorkspaceChange> }> {
    // Fastest: the last state shown, under the same settings; the extracts follow behind.
    const state = (await this.index?.loadState().catch(() => null)) ?? null;
    if (
      state &&
      state.version === INDEX_VERSION &&
      state.build === BUILD &&
      state.folder === this.folder &&
      state.settingsKey === this.settingsKey() &&
      this.tryRestore(state)
    ) {
      if (hasListing(state)) {
        // The listing the state was computed from: the folder is compared with it, and the
        // extracts (the bulk of the index) load only when something changed. Both are made
        // after the first paint, when revalidate first asks.
        this.listingLater = () => {
          const listing = storedListing(state.listing!);
          this.stampsNow.clear();
          for (const f of listing.files) if (readable(f.path)) this.stampsNow.set(f.path, stampOf(f));
          return listing;
        };
        this.extractsLater = async () => {
          const cached = await this.usableIndex();
          if (cached && this.tryHydrate(cached, false)) return;
          this.extracts.clear();
          await this.load(opts, null);
        };
        return { warm: true, revalidated: this.revalidate(opts.signal) };
      }
      this.pending = this.usableIndex().then(cached => {
        if (cached && this.tryHydrate(cached, false)) return;
        this.pending = null;
        this.extracts.clear();
      });
      const revalidated = this.pending.then(() =>
        this.extracts.size || !this.result.runs.length ? this.revalidate(opts.signal) : this.load(opts, null).then((): WorkspaceChange => ({ kind: 'full' })),
      );
      return { warm: true, revalidated };
    }
    const cached = await this.usableIndex();
    if (!cached || !this.tryHydrate(cached, true)) {
      await this.load(opts, null);
      return { warm: false, revalidated: Promise.resolve({ kind: 'none' }) };
    }
    return { warm: true, revalidated: this.revalidate(opts.signal) };
  }

  /**
   * An index that passed its shape check can still hold what this build can't use (a hand edit,
   * another tool): anything thrown while restoring from it means a fresh scan, as promised.
   */
  private tryRestore(state: StateData): boolean {
    try {
      this.restoreState(state);
      return true;
    } catch {
      this.result = emptyResult();
      this.entries = [];
      this.classifications = new Map();
      return false;
    }
  }

  private tryHydrate(cached: IndexData, compute: boolean): boolean {
    try {
      this.hydrate(cached, compute);
      return true;
    } catch {
      this.extracts.clear();
      this.stamps.clear();
      return false;
    }
  }

  /** Set while the extracts of a warm open are still loading: updates wait for them. */
  private pending: Promise<void> | null = null;
  /** After a warm open whose state held its listing: how to load the extracts, once something needs them. */
  private extractsLater: (() => Promise<void>) | null = null;

  /** The extracts are here (loaded now if a warm open left them on disk). */
  private async extractsReady(): Promise<void> {
    await this.pending;
    const later = this.extractsLater;
    if (!later) return;
    this.extractsLater = null;
    this.pending = later();
    await this.pending;
  }

  /** Listing, extracts and classifications from the index; with `compute`, the results from them too. */
  private hydrate(cached: IndexData, compute: boolean): void {
    const listing = storedListing(cached.listing);
    const extracts = new Map<string, FileExtract>(),
      stamps = new Map<string, string>();
    for (const [p, f] of Object.entries(cached.files)) {
      extracts.set(p, f.extract);
      stamps.set(p, f.stamp);
    }
    this.listing = listing;
    this.replaceExtracts(extracts, stamps);
    this.lastLoad = { listed: listing.files.length, read: 0, fromIndex: extracts.size, classified: 0 };
    if (!compute) return;
    const raw = assemble(this.listing, extracts);
    const classifications = new Map<string, Classification>();
    for (const f of Object.values(cached.files)) for (const [id, c] of Object.entries(f.classifications)) classifications.set(id, c);
    this.classifications = classifications;
    this.result = { ...raw, runs: applyPatchTruth(raw.runs, classifications) };
    this.entries = this.triageAll();
  }

  /**
   * The state a warm open shows: entries re-linked to their runs and classifications. From disk,
   * runs and classifications are read as the entries' roles are first looked at.
   */
  private restoreState(s: StateData): void {
    const lazy = lazyStateOf(s);
    this.result = s.result;
    this.restored = lazy ? { result: s.result, lazy } : null;
    if (lazy && !this.settings().labels?.length) {
      const classifications = new LazyClassifications(lazy.classificationIds, lazy.classifications);
      this.classifications = classifications;
      this.entries = restoredEntries(
        s,
        i => lazy.runs.at(i),
        id => classifications.get(id),
      );
      this.lastLoad = { listed: 0, read: 0, fromIndex: lazy.runs.length, classified: 0 };
      return;
    }
    this.classifications = new Map(s.classifications);
    // The entries' roles carry what triage saw (labels applied), as a cold load gives them.
    const runs = s.result.runs;
    const labelled = this.labelled();
    this.entries = restoredEntries(
      s,
      i => runs[i],
      id => labelled.get(id),
    );
    this.lastLoad = { listed: 0, read: 0, fromIndex: runs.length, classified: 0 };
  }

  private settingsKey(): string {
    const s = this.settings();
    return createHash('sha1')
      .update(JSON.stringify([this.rulesKey, this.labelsKey, s.tieBand, s.primaryMetric, !!s.allowFailedRequests]))
      .digest('hex')
      .slice(0, 16);
  }

  /** Lists the folder again and applies what changed since the last look (new, changed and deleted files). */
  async revalidate(signal?: AbortSignal): Promise<WorkspaceChange> {
    const listing = await listFolder(this.source, signal);
    // After the walk: what a warm open left on disk is read only now, behind the first paint, in
    // slices (the extension host stays responsive), and checked line by line.
    try {
      void this.listing;
      await this.readRestoredRest(signal);
    } catch (e) {
      // The state was damaged on disk: what was shown came from the same file, so a cold load.
      if (!(e instanceof LazyLineError)) throw e;
      this.extractsLater = null;
      this.restored = null;
      await this.load({ signal }, null);
      return { kind: 'full' };
    }
    const now = new Map(listing.files.map(f => [f.path, f]));
    const changed: string[] = [];
    const before = new Set(this.listing.files.map(f => f.path));
    for (const f of listing.files) if (readable(f.path) ? this.stamps.get(f.path) !== stampOf(f) : !before.has(f.path)) changed.push(f.path);
    for (const f of this.listing.files) if (!now.has(f.path)) changed.push(f.path);
    const recordsChanged = JSON.stringify(listing.records) !== JSON.stringify(this.listing.records);
    if (!changed.length && !recordsChanged) return { kind: 'none' };
    await this.extractsReady();
    if (recordsChanged) this.listing = { ...this.listing, records: listing.records };
    return this.update(changed, true);
  }

  /** Reads every line of a warm open's lazy sections not read yet, a slice at a time. */
  private async readRestoredRest(signal?: AbortSignal): Promise<void> {
    const lazy = this.restored?.lazy;
    if (!lazy) return;
    for (const section of lazy.sections)
      while (!section.whole) {
        section.readSome(REST_SLICE);
        await new Promise(r => setImmediate(r));
        if (signal?.aborted) throw signal.reason ?? new Error('cancelled');
      }
  }

  private async usableIndex(): Promise<IndexData | null> {
    const cached = (await this.index?.load().catch(() => null)) ?? null;
    return cached && cached.version === INDEX_VERSION && cached.folder === this.folder && cached.build === BUILD && cached.listing ? cached : null;
  }

  /** Lists the folder, reads what the index does not hold (or holds stale), assembles, classifies, triages. */
  async load(opts: LoadOptions = {}, index?: IndexData | null): Promise<void> {
    const usable = index === undefined ? await this.usableIndex() : index;
    const pause = timeSlicer();
    opts.onProgress?.({ phase: 'list', done: 0, total: 0 });
    const t0 = Date.now();
    const extracts = new Map<string, FileExtract>();
    const stamps = new Map<string, string>();
    const fresh: ListedFile[] = [];
    const limit = limiter(32, opts.signal);
    const reads: Array<Promise<void>> = [];
    let done = 0,
      readableCount = 0;
    // Each folder is read as soon as the walk has finished it: extraction overlaps the listing.
    const listing = await listFolder(
      this.source,
      opts.signal,
      folder => {
        const siblings = siblingsOf(folder).values().next().value ?? new Map<string, string>();
        for (const f of folder) {
          if (!readable(f.path)) continue;
          readableCount++;
          const hit = usable?.files[f.path];
          if (hit && hit.stamp === stampOf(f)) {
            extracts.set(f.path, hit.extract);
            stamps.set(f.path, hit.stamp);
            continue;
          }
          fresh.push(f);
          const got = (x: FileExtract) => {
            extracts.set(f.path, x);
            stamps.set(f.path, stampOf(f));
            if (++done % 100 === 0) opts.onProgress?.({ phase: 'read', done, total: readableCount });
          };
          // Read at once where the source can (Node's fs, a small file): no promise per file.
          const now = readExtractNow(this.source, f, siblings, DEFAULT_MAX_FILE_BYTES);
          if (now) got(now);
          else reads.push(limit(async () => got(await readExtract(this.source, f, siblings, DEFAULT_MAX_FILE_BYTES))));
        }
      },
      { statOnRead: !usable },
    ).catch(async e => {
      await Promise.allSettled(reads);
      throw e;
    });
    await Promise.all(reads);
    const tRead = Date.now();
    opts.onProgress?.({ phase: 'read', done, total: done });
    // What follows is CPU alone when every text is known: given back between its steps (the clock
    // runs from the load's start, so the first pause follows the reads).
    await pause();
    const result = assemble(listing, extracts);
    const tAsm = Date.now();
    // Classifications of unchanged files under the same rules are reused.
    const classifications = new Map<string, Classification>();
    const changedFiles = new Set<string>(fresh.map(f => f.path));
    if (usable && usable.rulesKey === this.rulesKey) {
      for (const r of result.runs) {
        if (changedFiles.has(r.provenance.file)) continue;
        const c = usable.files[r.provenance.file]?.classifications?.[r.id];
        if (c) classifications.set(r.id, c);
        else if (r.status !== 'success' || r.role === 'agent') {
          if (!usable.files[r.provenance.file]?.classifications) changedFiles.add(r.provenance.file);
        }
      }
    } else for (const r of result.runs) changedFiles.add(r.provenance.file);
    if (opts.signal?.aborted) throw opts.signal.reason ?? new Error('cancelled');
    opts.onProgress?.({ phase: 'classify', done: 0, total: changedFiles.size });
    await pause();
    const computed = await classifyRuns(
      result,
      (p, o) => this.source.readText(p, o),
      this.classifier,
      opts.signal,
      changedFiles,
      f => extracts.get(f)?.texts,
      pause,
    );
    for (const [k, v] of computed) classifications.set(k, v);
    const tCls = Date.now();
    const patched = { ...result, runs: applyPatchTruth(result.runs, classifications) };
    // Triaged before anything is replaced: a cancel during it leaves the workspace as it was.
    const entries = await this.triageYielding(
      patched,
      classifications,
      opts.signal,
      (d, total) => opts.onProgress?.({ phase: 'triage', done: d, total }),
      pause,
    );
    this.listing = listing;
    this.replaceExtracts(extracts, stamps);
    this.result = patched;
    this.classifications = classifications;
    this.entries = entries;
    this.lastLoad = {
      listed: listing.files.length,
      read: fresh.length,
      fromIndex: readableCount - fresh.length,
      classified: changedFiles.size,
      ms: { listAndRead: tRead - t0, assemble: tAsm - tRead, classify: tCls - tAsm, triage: Date.now() - tCls },
    };
    this.saveIndexSoon();
  }

  /** New tie band, headline metrics or rules: re-triage (and re-classify for rules) without reading result files. */
  async resettle(): Promise<void> {
    await this.extractsReady();
    const s = this.settings();
    const key = rulesKeyOf(s.rules);
    const labelsKey = labelsKeyOf(s.labels);
    // New labels change only the learned stage's examples: a new classifier, nothing re-read.
    if (labelsKey !== this.labelsKey && key === this.rulesKey) {
      this.classifier = classifierFor(s);
      this.labelsKey = labelsKey;
      this.saveIndexSoon();
    }
    if (key !== this.rulesKey) {
      this.classifier = classifierFor(s);
      this.rulesKey = key;
      this.labelsKey = labelsKey;
      const raw = assemble(this.listing, this.extracts);
      const classifications = await classifyRuns(raw, (p, o) => this.source.readText(p, o), this.classifier, undefined, undefined, this.textsOf);
      const result = { ...raw, runs: applyPatchTruth(raw.runs, classifications) };
      const entries = await this.triageYielding(result, classifications);
      this.classifications = classifications;
      this.result = result;
      this.entries = entries;
      this.saveIndexSoon();
      return;
    }
    const [result, classifications] = [this.result, this.classifications];
    const entries = await this.triageYielding(result, classifications);
    // Something replaced the runs meanwhile (a caller that does not queue): triaged again at once, never stale.
    this.entries = this.result === result && this.classifications === classifications ? entries : this.triageAll();
  }

  /**
   * Files created, changed or deleted (paths relative to the folder). A changed run file whose
   * commits are all known updates only those commits; anything else re-assembles the folder from
   * the extracts (reading only the changed files).
   */
  async update(paths: readonly string[], force = false): Promise<WorkspaceChange> {
    await this.extractsReady();
    const changed: Array<{ path: string; listed: ListedFile | null }> = [];
    for (const p of new Set(paths)) {
      if (!isRelevant(p)) continue;
      const listed = this.source.stat ? await this.source.stat(p) : { path: p, size: 0 };
      if (listed && this.stamps.get(p) === stampOf(listed)) continue; // seen already (a runner's notice and the watcher's)
      changed.push({ path: p, listed });
    }
    if (!changed.length && !force) return { kind: 'none' };
    const extracts: Array<{ path: string; x: FileExtract | null; listed: ListedFile | null }> = [];
    for (const c of changed) {
      const x = c.listed && !c.listed.kind && readable(c.path) ? await readExtract(this.source, c.listed, this.siblingsIn(dirOf(c.path))) : null;
      extracts.push({ path: c.path, x, listed: c.listed });
    }
    // A runner writes run.json at every phase, a campaign its records at every run: the listing
    // follows them, and nothing is re-assembled or re-triaged for them.
    const results = extracts.filter(e => !isOwnBookkeeping(e.path));
    const fast =
      results.length > 0 &&
      results.every(
        e =>
          e.x &&
          e.x.record.kind === 'run' &&
          this.extracts.get(e.path)?.record.kind !== 'nonRun' &&
          e.x.drafts.every(d => !d.unattributed && this.knownCommit(d.commit) !== null) &&
          search(this.listing.files, e.path, f => f.path).found === this.extracts.has(e.path),
      );
    // The listing follows the change either way (kept sorted: each path put in its place).
    const files = this.listing.files.slice();
    for (const e of extracts) {
      const at = search(files, e.path, f => f.path);
      if (e.listed && !e.listed.kind) {
        if (at.found) files[at.index] = e.listed;
        else files.splice(at.index, 0, e.listed);
      } else if (at.found) files.splice(at.index, 1);
      if (e.x) {
        this.extracts.set(e.path, e.x);
        this.stamps.set(e.path, stampOf(e.listed!));
      } else {
        this.extracts.delete(e.path);
        this.stamps.delete(e.path);
      }
    }
    const changedPaths = new Set(changed.map(c => c.path));
    this.listing = { files, records: this.listing.records.filter(r => !changedPaths.has(r.path)) };
    if (results.length < extracts.length) {
      const own = new Set(extracts.filter(e => isOwnBookkeeping(e.path)).map(e => e.path));
      const records = this.result.files.filter(r => !own.has(r.path));
      for (const e of extracts) if (e.x && own.has(e.path)) records.splice(search(records, e.path, f => f.path).index, 0, e.x.record);
      this.result = { ...this.result, files: records };
    }
    if (!results.length && !force) {
      this.saveIndexSoon();
      return { kind: 'none' };
    }
    if (fast) return this.updateCommits(results.map(e => e.x!));
    const raw = assemble(this.listing, this.extracts);
    const only = new Set(extracts.map(e => e.path));
    const fresh = await classifyRuns(raw, (p, o) => this.source.readText(p, o), this.classifier, undefined, only, this.textsOf);
    const classifications = new Map([...this.classifications].filter(([id]) => !only.has(id.slice(0, id.lastIndexOf('#')))));
    for (const [k, v] of fresh) classifications.set(k, v);
    const result = { ...raw, runs: applyPatchTruth(raw.runs, classifications) };
    const entries = await this.triageYielding(result, classifications);
    this.classifications = classifications;
    this.result = result;
    this.entries = entries;
    this.saveIndexSoon();
    return { kind: 'full' };
  }

  /** The files of one folder of the listing, by base name (a result's siblings). */
  private siblingsIn(dir: string): Map<string, string> {
    const out = new Map<string, string>();
    const files = this.listing.files;
    for (let i = search(files, dir, f => f.path).index; i < files.length && files[i].path.startsWith(dir); i++) {
      const p = files[i].path;
      if (!p.includes('/', dir.length)) out.set(p.slice(dir.length), p);
    }
    return out;
  }

  /** Commits of the current result by hash (rebuilt after a re-assembly). */
  private commitIndex: Map<string, Commit> | null = null;
  private commitsByHash(): Map<string, Commit> {
    if (!this.commitIndex || this.commitIndexOf !== this.result) {
      this.commitIndex = new Map(this.result.commits.map(c => [c.hash, c]));
      this.commitIndexOf = this.result;
    }
    return this.commitIndex;
  }
  private commitIndexOf: ScanResult | null = null;

  /** The full hash a run's commit id resolves to, among the commits already known. */
  private knownCommit(id: string): string | null {
    if (id.length === 40) return this.commitsByHash().has(id) ? id : null;
    const m = this.result.commits.filter(c => c.hash.startsWith(id));
    return m.length === 1 ? m[0].hash : null;
  }

  /** The fast path: the runs of the changed files replaced, classified, and their commits re-triaged. */
  private async updateCommits(xs: FileExtract[]): Promise<WorkspaceChange> {
    const files = new Set(xs.map(x => x.path));
    const added: Run[] = xs.flatMap(x => x.drafts.map(d => runOf(d, this.knownCommit(d.commit)!, d.parent ? (this.knownCommit(d.parent) ?? d.parent) : null)));
    const commitsHit = new Set(added.map(r => r.commit));
    // One pass over the runs: those of the changed files go (their commits are hit too).
    const kept: Run[] = [];
    for (const r of this.result.runs) {
      if (!files.has(r.provenance.file)) kept.push(r);
      else {
        commitsHit.add(r.commit);
        this.classifications.delete(r.id);
      }
    }
    const byHash = this.commitsByHash();
    for (const r of added) r.project ??= byHash.get(r.commit)?.project ?? null;
    const datasets = this.result.datasetAgents ?? {};
    attributeAgents(added, this.result.agentRuns, new Map(Object.entries(datasets).map(([k, v]) => [k, new Set(v)])));
    const fresh = await classifyRuns(
      { runs: added, commits: this.result.commits },
      (p, o) => this.source.readText(p, o),
      this.classifier,
      undefined,
      undefined,
      this.textsOf,
    );
    for (const [k, v] of fresh) this.classifications.set(k, v);
    const runs = [...kept, ...applyPatchTruth(added, fresh)];
    const records = this.result.files.slice();
    for (const x of xs) {
      const at = search(records, x.path, f => f.path);
      if (at.found) records[at.index] = x.record;
      else records.splice(at.index, 0, x.record);
    }
    this.result = { ...this.result, runs, files: records };
    this.commitIndexOf = this.result;
    const mine: Run[] = [];
    for (const r of runs) if (commitsHit.has(r.commit)) mine.push(r);
    const s = this.settings();
    const updated = triage(mine, this.labelled(), {
      tieBand: s.tieBand,
      primaryMetric: s.primaryMetric,
      allowFailedRequests: !!s.allowFailedRequests,
      conflicts: this.result.conflicts,
      commits: new Map([...commitsHit].flatMap(h => (byHash.has(h) ? [[h, byHash.get(h)!] as const] : []))),
    });
    // The entries stay sorted: the updated ones are put in their places.
    const entries = this.entries.filter(e => !commitsHit.has(e.commit));
    for (const e of updated) entries.splice(search(entries, e, x => x, compareEntries).index, 0, e);
    this.entries = entries;
    this.saveIndexSoon();
    return { kind: 'commits', commits: [...commitsHit] };
  }

  private readonly textsOf = (file: string) => this.extracts.get(file)?.texts;

  private triageAll(): CommitTriage[] {
    return triage(this.result.runs, this.labelled(), this.triageOptions(this.result));
  }

  /** Every commit triaged, the thread given back between commits (seconds of bootstraps on a large folder). */
  private triageYielding(
    result: ScanResult,
    classifications: Map<string, Classification>,
    signal?: AbortSignal,
    onProgress?: (done: number, total: number) => void,
    pause = timeSlicer(),
  ): Promise<CommitTriage[]> {
    return triageYielding(result.runs, this.labelled(classifications), this.triageOptions(result), pause, signal, onProgress);
  }

  private triageOptions(result: ScanResult): TriageOptions {
    const s = this.settings();
    return {
      tieBand: s.tieBand,
      primaryMetric: s.primaryMetric,
      allowFailedRequests: !!s.allowFailedRequests,
      conflicts: result.conflicts,
      commits: new Map(result.commits.map(c => [c.hash, c])),
    };
  }

  private replaceExtracts(extracts: Map<string, FileExtract>, stamps: Map<string, string>): void {
    // Taken as they are: nothing else holds the old maps (copying 30 000 entries cost a cold load 10 ms).
    this.extracts = extracts;
    this.stampsNow = stamps;
  }

  private saveTimer: ReturnType<typeof setTimeout> | null = null;
  /** Writes the index a moment after the last change (a burst of runs finishing writes it once). */
  private saveIndexSoon(): void {
    if (!this.index) return;
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.saveTimer = setTimeout(() => {
      this.saveTimer = null;
      void this.saveIndex();
    }, 500);
    this.saveTimer.unref?.();
  }

  /** The index now (the CLI saves before it exits). */
  async saveIndex(): Promise<void> {
    // Extracts still on disk: nothing changed since the index was written.
    if (!this.index || this.extractsLater) return;
    if (this.saveTimer) {
      clearTimeout(this.saveTimer);
      this.saveTimer = null;
    }
    const listing = listingRows(this.listing);
    const data: IndexData = {
      version: INDEX_VERSION,
      build: BUILD,
      folder: this.folder,
      rulesKey: this.rulesKey,
      listing,
      files: indexFiles(this.extracts, this.stamps, this.classifications),
    };
    await this.index.save(data).catch(() => undefined);
    const state: StateData = {
      version: INDEX_VERSION,
      build: BUILD,
      folder: this.folder,
      settingsKey: this.settingsKey(),
      listing,
      result: this.result,
      classifications: [...this.classifications],
      entries: storedEntries(this.entries, new Map(this.result.runs.map((r, i) => [r.id, i]))),
    };
    await this.index.saveState(state).catch(() => undefined);
  }
}

/** Whether a state holds its listing, without reading it (a lazy state reads it when first asked). */
function hasListing(state: StateData): boolean {
  const d = Object.getOwnPropertyDescriptor(state, 'listing');
  return !!d && (d.get !== undefined || d.value !== undefined);
}

const dirOf = (p: string) => p.slice(0, p.lastIndexOf('/') + 1);

/** Binary search in a sorted array: where `key` is, or where it would go. */
function search<T, K>(
  xs: readonly T[],
  key: K,
  of: (x: T) => K,
  cmp: (a: K, b: K) => number = (a, b) => (a < b ? -1 : a > b ? 1 : 0),
): { index: number; found: boolean } {
  let lo = 0,
    hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cmp(of(xs[mid]), key) < 0) lo = mid + 1;
    else hi = mid;
  }
  return { index: lo, found: lo < xs.length && cmp(of(xs[lo]), key) === 0 };
}

/** Identifies the rules in force, so classifications made under other rules are not reused. */
function classifierFor(s: WorkspaceSettings): Classifier {
  const labels = s.labels ?? [];
  return new Classifier({ userRules: s.rules, ...(labels.length ? { learned: builtinModel().with(labelExamples(labels)) } : {}) });
}

function labelsKeyOf(labels: readonly Label[] | undefined): string {
  return labels?.length ? createHash('sha1').update(JSON.stringify(labels)).digest('hex').slice(0, 16) : '';
}

function rulesKeyOf(rules: readonly Rule[]): string {
  return createHash('sha1').update(JSON.stringify(rules)).update(BUILD).digest('hex').slice(0, 16);
}

/** The build (a hash of the core's sources, set by esbuild): extracts and classifications of another build are not reused. */
/** The build that wrote an index or a saved answer (extraction and rules change between builds). */
export const BUILD = process.env.BENCH_TRIAGE_BUILD ?? 'dev';

/** Runs at most `n` tasks at once, in the order given; a cancelled signal fails the tasks not yet started. */
function limiter(n: number, signal?: AbortSignal): (task: () => Promise<void>) => Promise<void> {
  let active = 0,
    head = 0;
  const queue: Array<() => void> = [];
  const next = () => {
    if (head < queue.length) {
      const r = queue[head];
      queue[head++] = undefined!;
      r();
    }
  };
  return async task => {
    if (active >= n) await new Promise<void>(r => queue.push(r));
    active++;
    try {
      if (signal?.aborted) throw signal.reason ?? new Error('cancelled');
      await task();
    } finally {
      active--;
      next();
    }
  };
}

function emptyResult(): ScanResult {
  return { commits: [], runs: [], files: [], agentRuns: [], unlinkedAgentRuns: [], conflicts: [] };
}
