import { z } from 'zod';
import { mapStatus } from '../status';
import {
  compactLogs,
  draft,
  embeddedLog,
  measured,
  fixesOf,
  hashOf,
  isObj,
  modeFromCommand,
  modeFromType,
  normalisedMetrics,
  num,
  statusFromMetrics,
  str,
  zMetrics,
  zNum,
  zStr,
  type DetectContext,
  type Detector,
  type Obj,
  type RunDraft,
} from './common';

/** Flat files carry one role each: shared tail of the per-role normalisers. */
function flatRun(
  v: Obj,
  ctx: DetectContext,
  o: {
    schema: 'S2' | 'S3' | 'S4' | 'S6';
    source: string;
    role: RunDraft['role'];
    commit: string;
    metricsFrom: unknown[];
    rawField?: string;
    rawSide?: 'head' | 'tail' | 'none';
    pointer?: string;
  },
): RunDraft[] {
  const type = modeFromType(v.benchmark_type);
  const m = normalisedMetrics(
    o.metricsFrom,
    { servingThroughputIsOutput: type === 'serving' },
    o.metricsFrom.map(c => (c === v ? '' : `${o.pointer}.`)),
  );
  const original = mapStatus(v.status);
  const { status, note } = statusFromMetrics(original, m);
  const command = str(v.perf_command) ?? str(v.benchmark_command) ?? str(v.original_command) ?? str(v.test_command);
  const error = str(v.error) ?? str(v.skip_reason) ?? note;
  const errorField = str(v.error) ? 'error' : str(v.skip_reason) ? 'skip_reason' : null;
  return [
    draft(
      { commit: o.commit, role: o.role, source: o.source, schema: o.schema, pointer: o.pointer ?? '', ctx, originalStatus: v.status, status },
      {
        error: status === 'success' ? null : error,
        errorField: status === 'success' ? null : errorField,
        ...measured(m),
        logs: compactLogs(o.rawField ? embeddedLog(o.rawField, v[o.rawField], o.rawSide ?? 'tail') : null),
        model: str(v.model),
        command,
        benchmarkMode: type ?? modeFromCommand(command),
        image: str(v.docker_image) ?? str(v.image),
        fixes: fixesOf(v.fix_applied),
        parent: hashOf(v.parent_commit, v.parent_short, v.parent_hash),
        timestamp: str(v.timestamp),
        durationS: num(v.duration_s),
      },
    ),
  ];
}

/** S2 — Docker flat per-role (`run_3way_benchmarks.py`): exactly ten keys, role from the file name. */
const S2Schema = z.looseObject({
  human_commit: z.string(),
  human_commit_full: zStr,
  parent_commit: zStr,
  model: zStr,
  status: z.string(),
  error: zStr,
  duration_s: zNum,
  metrics: z.record(z.string(), z.unknown()),
  raw_output: zStr,
  timestamp: zStr,
});
export const S2: Detector = {
  id: 'S2',
  schema: S2Schema,
  matches: (v, ctx) => !!ctx.fileRole && 'human_commit' in v && 'metrics' in v && 'raw_output' in v && !('benchmark_type' in v),
  normalise: (v, ctx) => {
    const commit = hashOf(v.human_commit_full, v.human_commit);
    const source = /\/separate_(agent|baseline)\//.test(ctx.path) ? 'separate' : 'docker';
    if (!commit) return [];
    const runs = flatRun(v, ctx, { schema: 'S2', source, role: ctx.fileRole!, commit, metricsFrom: [v.metrics], rawField: 'raw_output', pointer: 'metrics' });
    // The baseline's inline parser stored the first "throughput" it found as output tokens/s
    // (research §4.6 E): its signature is exactly these four keys.
    const keys = isObj(v.metrics) ? Object.keys(v.metrics).sort().join(',') : '';
    if (ctx.fileRole === 'baseline' && keys === 'itl_mean_ms,output_token_throughput_tok_s,tpot_mean_ms,ttft_mean_ms')
      runs[0].untrustedFields = ['metrics.output_token_throughput_tok_s'];
    return runs;
  },
};

/** S3 — legacy local-docker flat: metrics at the top level, `benchmark_type`, role from the file name. */
const S3Schema = z.looseObject({
  human_commit: z.string(),
  human_commit_full: zStr,
  status: z.string(),
  benchmark_type: zStr,
  model: zStr,
  error: zStr,
  raw_output: zStr,
  ttft_mean: zNum,
  throughput_tok_s: zNum,
  throughput_req_s: zNum,
});
export const S3: Detector = {
  id: 'S3',
  schema: S3Schema,
  matches: (v, ctx) => !!ctx.fileRole && 'human_commit' in v && !('metrics' in v),
  normalise: (v, ctx) => {
    const commit = hashOf(v.human_commit_full, v.human_commit);
    return commit
      ? flatRun(v, ctx, { schema: 'S3', source: 'separate', role: ctx.fileRole!, commit, metricsFrom: [v], rawField: 'raw_output', pointer: '' })
      : [];
  },
};

/** S4 — Docker verification runs of the human image (mostly hand-written; many key sets). */
const S4Schema = z.looseObject({
  commit_hash: z.string(),
  status: z.string(),
  benchmark_type: zStr,
  model: zStr,
  original_model: zStr,
  note: zStr,
  fix_applied: z.union([z.string(), z.array(z.string())]).nullish(),
  error: zStr,
  timestamp: zStr,
});
export const S4: Detector = {
  id: 'S4',
  schema: S4Schema,
  matches: (v, ctx) => !ctx.fileRole && 'commit_hash' in v && 'status' in v && !('instance' in v) && !('results' in v) && !('result' in v),
  normalise: (v, ctx) => {
    const commit = hashOf(v.commit_hash);
    return commit ? flatRun(v, ctx, { schema: 'S4', source: 'docker-verify', role: 'human', commit, metricsFrom: [v], pointer: '' }) : [];
  },
};

/** S6 — hand-written `separate_*` variants: commit as `commit_short`/`commit`/`commit_full`, role from the file name. */
const S6Schema = z.looseObject({
  status: z.string(),
  commit: zStr,
  commit_short: zStr,
  commit_full: zStr,
  model: zStr,
  benchmark_type: zStr,
  metrics: zMetrics,
  skip_reason: zStr,
  error: zStr,
  logs: zStr,
  docker_image: zStr,
  image: zStr,
  fix_applied: z.union([z.string(), z.array(z.string())]).nullish(),
  parent_commit: zStr,
  parent_short: zStr,
});
export const S6: Detector = {
  id: 'S6',
  schema: S6Schema,
  matches: (v, ctx) => !!ctx.fileRole && !('human_commit' in v) && ('commit_short' in v || 'commit' in v || 'commit_full' in v),
  normalise: (v, ctx) => {
    const commit = hashOf(v.commit_full, v.commit_short, v.commit);
    if (!commit) return [];
    const metricsFrom = isObj(v.metrics) ? [v.metrics, v] : [v];
    return flatRun(v, ctx, {
      schema: 'S6',
      source: 'separate',
      role: ctx.fileRole!,
      commit,
      metricsFrom,
      rawField: 'logs',
      pointer: isObj(v.metrics) ? 'metrics' : '',
    });
  },
};
