import type { Role, Run } from '../model';
import { ROLES } from '../model';
import type { ScanResult } from './scan';

/** The `bench-triage scan --json` shape (issue 2), plus a few extra fields. */
export interface ScanSummary {
  commits: number;
  runs: number;
  runsByRole: Record<Role, number>;
  runsBySchema: Record<string, number>;
  runsByStatus: Record<string, number>;
  files: {
    parsed: number;
    nonRun: number;
    nonRunByKind: Record<string, number>;
    corrupt: Array<{ path: string; error: string }>;
    unknown: Array<{ path: string; reason: string }>;
  };
  agentRuns: { linked: number; unlinked: Array<{ path: string; reason: string }> };
  commitIds: { full: number; prefixOnly: number };
  runList?: Array<Pick<Run, 'commit' | 'role' | 'source' | 'agent' | 'status' | 'originalStatus' | 'metrics' | 'image' | 'fixes' | 'timestamp'> & { file: string; schema: string }>;
}

const inc = (o: Record<string, number>, k: string) => { o[k] = (o[k] ?? 0) + 1; };

export function summarize(r: ScanResult, withRuns = false): ScanSummary {
  const runsByRole = Object.fromEntries(ROLES.map(x => [x, 0])) as Record<Role, number>;
  const runsBySchema: Record<string, number> = {};
  const runsByStatus: Record<string, number> = {};
  let full = 0;
  for (const run of r.runs) {
    runsByRole[run.role]++;
    inc(runsBySchema, run.provenance.schema);
    inc(runsByStatus, run.status);
    if (run.commit.length === 40) full++;
  }
  const nonRunByKind: Record<string, number> = {};
  let parsed = 0, nonRun = 0;
  const corrupt: ScanSummary['files']['corrupt'] = [];
  const unknown: ScanSummary['files']['unknown'] = [];
  for (const f of r.files) {
    if (f.kind === 'run') parsed++;
    else if (f.kind === 'nonRun') { nonRun++; inc(nonRunByKind, f.what); }
    else if (f.kind === 'corrupt') corrupt.push({ path: f.path, error: f.error });
    else unknown.push({ path: f.path, reason: f.reason });
  }
  const out: ScanSummary = {
    commits: new Set(r.runs.map(x => x.commit)).size,
    runs: r.runs.length,
    runsByRole,
    runsBySchema,
    runsByStatus,
    files: { parsed, nonRun, nonRunByKind, corrupt, unknown },
    agentRuns: { linked: r.agentRuns.length, unlinked: r.unlinkedAgentRuns },
    commitIds: { full, prefixOnly: r.runs.length - full },
  };
  if (withRuns) {
    out.runList = r.runs.map(x => ({
      commit: x.commit, role: x.role, source: x.source, agent: x.agent, status: x.status, originalStatus: x.originalStatus,
      metrics: x.metrics, file: x.provenance.file, schema: x.provenance.schema, image: x.image, fixes: x.fixes, timestamp: x.timestamp,
    }));
  }
  return out;
}
