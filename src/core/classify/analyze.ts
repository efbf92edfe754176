import type { Commit, Run } from '../model';
import type { ScanResult } from '../ingest/scan';
import { parseJson } from '../ingest/json';
import { Classifier, type Classification } from './engine';
import { classifyInput } from './run';

/** Reads files relative to the scanned folder (the caller decides how: fs, vscode.workspace.fs …). */
export type ReadText = (path: string) => Promise<string>;

/**
 * Classifies every run that did not succeed. Result files are re-read (they were not kept in
 * memory by the scan) one at a time and dropped after use.
 */
export async function classifyRuns(scan: ScanResult, read: ReadText, classifier = new Classifier(), signal?: AbortSignal): Promise<Map<string, Classification>> {
  const commits = new Map<string, Commit>(scan.commits.map(c => [c.hash, c]));
  const byFile = new Map<string, Run[]>();
  for (const r of scan.runs) if (r.status !== 'success') (byFile.get(r.provenance.file) ?? byFile.set(r.provenance.file, []).get(r.provenance.file)!).push(r);
  const out = new Map<string, Classification>();
  for (const [file, runs] of byFile) {
    if (signal?.aborted) throw signal.reason ?? new Error('cancelled');
    let doc: unknown = null;
    try { const p = parseJson(await read(file)); doc = p.ok ? p.value : null; } catch { doc = null; }
    const logs = new Map<string, string>();
    for (const r of runs) for (const f of r.logFiles) if (!logs.has(f)) { try { logs.set(f, await read(f)); } catch { /* missing log: classify without it */ } }
    for (const r of runs) out.set(r.id, classifier.classify(classifyInput(r, doc, logs, commits.get(r.commit))));
  }
  return out;
}
