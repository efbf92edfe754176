import { dict } from '../model';
import type { Role, Run } from '../model';
import { ROLES } from '../model';
import type { ScanResult } from './scan';
import { metricDef, UNKNOWN_UNIT } from '../metrics';

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
    /** Listed but not read on purpose (links, FIFOs, files refused), with the reason. */
    skipped: Array<{ path: string; reason: string }>;
    /** Standalone result files that neither a manifest nor their path attributes, with the fixes. */
    unattributed: Array<{ path: string; schema: string; runs: number; reason: string }>;
  };
  agentRuns: { linked: number; unlinked: Array<{ path: string; reason: string }> };
  commitIds: { full: number; prefixOnly: number };
  /** Full hashes in result files that conflict with the dataset's commit of the same short id. */
  conflicts: Array<{ file: string; field: string; stated: string; resolvedTo: string; message: string }>;
  /** Values read with caution or refused (numbers as strings, negative values, units re-labelled), per file and field. */
  dataProblems: Array<{ file: string; field: string; message: string }>;
  runList?: Array<
    Pick<Run, 'commit' | 'role' | 'source' | 'agent' | 'project' | 'status' | 'originalStatus' | 'metrics' | 'image' | 'fixes' | 'timestamp' | 'model'> & {
      file: string;
      schema: string;
      /** Where in the file (files with several runs). */
      pointer: string;
      /** How commit and role were found: `file` (the result names them), or the manifest row / path. */
      identity: { by: 'file' | 'manifest' | 'path'; source?: string; line?: number };
      units: Record<string, string>;
      workload?: Record<string, string>;
      failedRequests?: Run['failedRequests'];
    }
  >;
}

const inc = (o: Record<string, number>, k: string) => {
  o[k] = (o[k] ?? 0) + 1;
};

export function summarize(r: ScanResult, withRuns = false): ScanSummary {
  const runsByRole = Object.fromEntries(ROLES.map(x => [x, 0])) as Record<Role, number>;
  const runsBySchema: Record<string, number> = dict();
  const runsByStatus: Record<string, number> = dict();
  let full = 0;
  for (const run of r.runs) {
    runsByRole[run.role]++;
    inc(runsBySchema, run.provenance.schema);
    inc(runsByStatus, run.status);
    if (run.commit.length === 40) full++;
  }
  const nonRunByKind: Record<string, number> = dict();
  let parsed = 0,
    nonRun = 0;
  const corrupt: ScanSummary['files']['corrupt'] = [];
  const unknown: ScanSummary['files']['unknown'] = [];
  const skipped: ScanSummary['files']['skipped'] = [];
  const unattributed: ScanSummary['files']['unattributed'] = [];
  for (const f of r.files) {
    if (f.kind === 'run') parsed++;
    else if (f.kind === 'nonRun') {
      nonRun++;
      inc(nonRunByKind, f.what);
    } else if (f.kind === 'corrupt') corrupt.push({ path: f.path, error: f.error });
    else if (f.kind === 'skipped') skipped.push({ path: f.path, reason: f.reason });
    else if (f.kind === 'unattributed') unattributed.push({ path: f.path, schema: f.schema, runs: f.runs, reason: f.reason });
    else unknown.push({ path: f.path, reason: f.reason });
  }
  const out: ScanSummary = {
    commits: new Set(r.runs.map(x => x.commit)).size,
    runs: r.runs.length,
    runsByRole,
    runsBySchema,
    runsByStatus,
    files: { parsed, nonRun, nonRunByKind, corrupt, unknown, skipped, unattributed },
    agentRuns: { linked: r.agentRuns.length, unlinked: r.unlinkedAgentRuns },
    commitIds: { full, prefixOnly: r.runs.length - full },
    conflicts: r.conflicts,
    dataProblems: [
      ...r.runs.flatMap(x => x.problems.map(p => ({ file: x.provenance.file, field: p.field, message: p.message }))),
      ...(r.manifestProblems ?? []),
    ],
  };
  if (withRuns) {
    out.runList = r.runs.map(x => ({
      commit: x.commit,
      role: x.role,
      source: x.source,
      agent: x.agent,
      project: x.project,
      status: x.status,
      originalStatus: x.originalStatus,
      metrics: x.metrics,
      file: x.provenance.file,
      schema: x.provenance.schema,
      image: x.image,
      fixes: x.fixes,
      timestamp: x.timestamp,
      model: x.model,
      pointer: x.provenance.pointer,
      identity: x.identity ?? { by: 'file' },
      units: Object.fromEntries(Object.keys(x.metrics).map(k => [k, metricDef(k)?.unit ?? UNKNOWN_UNIT])),
      ...(x.workload ? { workload: Object.fromEntries(Object.entries(x.workload).map(([k, v]) => [k, v.value])) } : {}),
      ...(x.failedRequests ? { failedRequests: x.failedRequests } : {}),
    }));
  }
  return out;
}
