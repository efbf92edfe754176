import type { Commit, Run } from '../model';
import type { ReadOptions, ScanResult } from '../ingest/scan';
import { parseJson } from '../ingest/json';
import { Classifier, type Classification, type ClassifyInput, type Evidence, type TextScan } from './engine';
import { classifyInput } from './run';
import { category } from './taxonomy';
import { asBuildFailure } from './build';
import { BUILD_SOURCE } from '../model';

/** Reads files relative to the scanned folder (the caller decides how: fs, vscode.workspace.fs …). */
export type ReadText = (path: string, opts?: ReadOptions) => Promise<string>;

/** A log named by a result is read up to this much (its head and tail beyond it). */
export const LOG_READ_CAP = 64 * 1024 * 1024;

/**
 * Classifies every run that did not succeed, and every agent run that did (an agent run is
 * measured only when its whole patch applied: its log may show hunks the pipeline skipped).
 * Result files are re-read (they were not kept in memory by the scan) one at a time and dropped after use.
 */
export async function classifyRuns(
  scan: Pick<ScanResult, 'runs' | 'commits'>,
  read: ReadText,
  classifier = new Classifier(),
  signal?: AbortSignal,
  /** Only the runs of these result files (the others are known already). */
  only?: ReadonlySet<string>,
  /** A result file's texts when they are known already (its extract kept them): no second read. */
  textsOf?: (file: string) => Record<string, string> | undefined,
  /** Asked between files: a promise when the caller's thread should be given back (texts known already are classified without a read to wait on). */
  pause?: () => Promise<void> | undefined,
): Promise<Map<string, Classification>> {
  const commits = new Map<string, Commit>(scan.commits.map(c => [c.hash, c]));
  const byFile = new Map<string, Run[]>();
  for (const r of scan.runs) {
    // A build that did not fail explains nothing: its log is not read.
    if ((r.status !== 'success' || r.role === 'agent') && !(r.source === BUILD_SOURCE && r.status !== 'failed') && (!only || only.has(r.provenance.file)))
      (byFile.get(r.provenance.file) ?? byFile.set(r.provenance.file, []).get(r.provenance.file)!).push(r);
  }
  const out = new Map<string, Classification>();
  // Runs whose only texts are short and repeat (the same error in many files) are scanned once,
  // and classified once per context rule they meet: a signature's result does not depend on the
  // commit at all, any other on the context rule its command/model/subject matches, if any.
  const seen = new Map<string, Classification>();
  // A scan's evidence names the file it was made from: its conclusions are moved to each run's own.
  const scans = new Map<string, { scan: TextScan; file: string }>();
  for (const [file, runs] of byFile) {
    const wait = pause?.();
    if (wait) await wait;
    if (signal?.aborted) throw signal.reason ?? new Error('cancelled');
    let doc: unknown = null;
    const known = textsOf?.(file);
    if (known) doc = docOf(known);
    else
      try {
        const p = parseJson(await read(file));
        doc = p.ok ? p.value : null;
      } catch {
        doc = null;
      }
    const logs = new Map<string, string>();
    const notes = new Map<string, string>();
    for (const r of runs)
      for (const f of r.logFiles) {
        if (logs.has(f) || notes.has(f)) continue;
        try {
          logs.set(
            f,
            await read(f, {
              maxBytes: LOG_READ_CAP,
              onCapped: (size, kept) =>
                notes.set(f, `${f} is ${(size / 1048576).toFixed(0)} MiB: only its first and last ${(kept / 2 / 1048576).toFixed(0)} MiB were classified`),
            }),
          );
        } catch (e) {
          // A missing or refused log: classify without it, and say so.
          notes.set(f, `${f} was not read: ${e instanceof Error ? e.message.replace(/^ENOENT: no such file or directory.*/, 'it does not exist') : String(e)}`);
        }
      }
    for (const r of runs) {
      const input = classifyInput(r, doc, logs, commits.get(r.commit));
      const key = memoKey(input, r);
      let found: Classification;
      if (!key) found = classifier.classify(input);
      else {
        const sig = seen.get(key);
        if (sig) found = inFile(sig, r.provenance.file);
        else {
          let made = scans.get(key);
          if (!made) {
            made = { scan: classifier.scanTexts(input), file: r.provenance.file };
            // Bounded: a folder of distinct errors keeps no more than this many scans at once.
            if (scans.size < MEMO_MAX) scans.set(key, made);
          }
          const context = classifier.contextOf(made.scan, input);
          const withContext = `${key}\0${classifier.contextKey(context)}`;
          const hit = seen.get(withContext);
          if (hit) found = inFile(hit, r.provenance.file);
          else {
            found = classifier.conclude(made.scan, input, context);
            if (made.file !== r.provenance.file) found = inFile(found, r.provenance.file);
          }
          if (!hit && seen.size < MEMO_MAX) seen.set(found.strength === 'signature' ? key : withContext, found);
        }
      }
      const mine = r.logFiles.map(f => notes.get(f)).filter((n): n is string => !!n);
      const c = mine.length ? { ...found, notes: mine } : found;
      if (r.source === BUILD_SOURCE) {
        if (r.status === 'failed') out.set(r.id, asBuildFailure(c));
      } else if (r.status !== 'success') out.set(r.id, c);
      else {
        // A measured agent run only needs a classification when its patch did not wholly apply.
        const patch = c.findings.find(f => f.category === 'agent-patch-failed');
        if (patch)
          out.set(r.id, {
            ...patch,
            group: category(patch.category).group,
            fixability: category(patch.category).fixability,
            findings: [patch, ...c.findings.filter(f => f !== patch)],
          });
      }
    }
  }
  return out;
}

/** At most this many texts' scans and classifications are kept for runs that repeat them. */
const MEMO_MAX = 4096;

/** The texts of a run as a key, when they are all short and from its own result file; null otherwise. */
function memoKey(input: ClassifyInput, r: Run): string | null {
  if (r.logFiles.length) return null;
  let size = 0;
  for (const t of input.texts) {
    size += t.text.length;
    if (size > 4096 || t.source.file !== r.provenance.file) return null;
  }
  return JSON.stringify([input.role, input.status, input.texts.map(t => [t.scope, t.source.field, t.text])]);
}

/** A classification made for another file's identical texts, its evidence pointed at this file. */
function inFile(c: Classification, file: string): Classification {
  const at = (e: Evidence): Evidence => ({ ...e, file });
  const move = <T extends { evidence: Evidence | null; candidates?: Evidence[] }>(f: T): T => ({
    ...f,
    evidence: f.evidence && at(f.evidence),
    ...(f.candidates ? { candidates: f.candidates.map(at) } : {}),
  });
  return { ...move(c), findings: c.findings.map(move) };
}

/** A document holding just the given dotted fields (what fieldText needs). */
function docOf(texts: Record<string, string>): Record<string, unknown> {
  const doc: Record<string, unknown> = {};
  for (const [dotted, text] of Object.entries(texts)) {
    const keys = dotted.split('.');
    let o = doc;
    for (const k of keys.slice(0, -1)) o = (o[k] && typeof o[k] === 'object' ? o[k] : (o[k] = {})) as Record<string, unknown>;
    o[keys[keys.length - 1]] = text;
  }
  return doc;
}

/**
 * Patch truth: an agent run whose log shows the patch did not wholly apply is not the agent's
 * result, whatever numbers it printed. Such runs become failed (original status and metrics kept).
 */
export function applyPatchTruth(runs: readonly Run[], classifications: ReadonlyMap<string, Classification>): Run[] {
  return runs.map(r => {
    const c = classifications.get(r.id);
    if (r.status !== 'success' || r.role !== 'agent' || c?.category !== 'agent-patch-failed') return r;
    return {
      ...r,
      status: 'failed',
      error: `the agent patch did not wholly apply (${c.evidence?.text ?? c.description}); its numbers are not the agent's result`,
    };
  });
}
