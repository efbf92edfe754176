import type { Commit, Run } from '../model';
import type { ScanResult } from '../ingest/scan';
import { parseJson } from '../ingest/json';
import { Classifier, type Classification } from './engine';
import { classifyInput } from './run';
import { category } from './taxonomy';

/** Reads files relative to the scanned folder (the caller decides how: fs, vscode.workspace.fs …). */
export type ReadText = (path: string) => Promise<string>;

/**
 * Classifies every run that did not succeed, and every agent run that did (an agent run is
 * measured only when its whole patch applied: its log may show hunks the pipeline skipped).
 * Result files are re-read (they were not kept in memory by the scan) one at a time and dropped after use.
 */
export async function classifyRuns(scan: Pick<ScanResult, 'runs' | 'commits'>, read: ReadText, classifier = new Classifier(), signal?: AbortSignal): Promise<Map<string, Classification>> {
  const commits = new Map<string, Commit>(scan.commits.map(c => [c.hash, c]));
  const byFile = new Map<string, Run[]>();
  for (const r of scan.runs) if (r.status !== 'success' || r.role === 'agent') (byFile.get(r.provenance.file) ?? byFile.set(r.provenance.file, []).get(r.provenance.file)!).push(r);
  const out = new Map<string, Classification>();
  for (const [file, runs] of byFile) {
    if (signal?.aborted) throw signal.reason ?? new Error('cancelled');
    let doc: unknown = null;
    try { const p = parseJson(await read(file)); doc = p.ok ? p.value : null; } catch { doc = null; }
    const logs = new Map<string, string>();
    for (const r of runs) for (const f of r.logFiles) if (!logs.has(f)) { try { logs.set(f, await read(f)); } catch { /* missing log: classify without it */ } }
    for (const r of runs) {
      const c = classifier.classify(classifyInput(r, doc, logs, commits.get(r.commit)));
      if (r.status !== 'success') out.set(r.id, c);
      else {
        // A measured agent run only needs a classification when its patch did not wholly apply.
        const patch = c.findings.find(f => f.category === 'agent-patch-failed');
        if (patch) out.set(r.id, { ...patch, group: category(patch.category).group, fixability: category(patch.category).fixability, findings: [patch, ...c.findings.filter(f => f !== patch)] });
      }
    }
  }
  return out;
}

/**
 * Patch truth: an agent run whose log shows the patch did not wholly apply is not the agent's
 * result, whatever numbers it printed. Such runs become failed (original status and metrics kept).
 */
export function applyPatchTruth(runs: readonly Run[], classifications: ReadonlyMap<string, Classification>): Run[] {
  return runs.map(r => {
    const c = classifications.get(r.id);
    if (r.status !== 'success' || r.role !== 'agent' || c?.category !== 'agent-patch-failed') return r;
    return { ...r, status: 'failed', error: `the agent patch did not wholly apply (${c.evidence?.text ?? c.description}); its numbers are not the agent's result` };
  });
}
