import { z } from 'zod';
import type { Role, RunStatus } from '../../model';
import { mapStatus } from '../status';
import {
  compactLogs,
  draft,
  embeddedLog,
  measured,
  hashOf,
  isObj,
  modeFromCommand,
  modeFromType,
  normalisedMetrics,
  num,
  roleNamedIn,
  str,
  zNum,
  zStr,
  type DetectContext,
  type Detector,
  type Obj,
  type RunDraft,
} from './common';
import { addMetrics, emptyMetrics } from '../../metrics';

/** Agent named inside a historic patch path (`…/state/runs/vllm/<agent>/<model>/…`). */
function agentFromPatchPath(p: unknown): string | null {
  if (typeof p !== 'string') return null;
  const m = /\/runs\/[^/]+\/([^/]+)\/[^/]+\/[^/]+\//.exec(p);
  return m ? m[1] : null;
}

/** Error text and the field it came from; a composed fallback has no field. */
function errorOf(
  ok: boolean,
  outErr: string | null,
  outField: string,
  err: string | null,
  fallback: string,
): { error: string | null; errorField: string | null } {
  if (ok) return { error: null, errorField: null };
  if (outErr) return { error: outErr, errorField: outField };
  if (err) return { error: err, errorField: 'result.error_message' };
  return { error: fallback, errorField: null };
}

function siblingLogs(ctx: DetectContext): string[] {
  return ['stdout.txt', 'stderr.txt'].map(n => ctx.siblings.get(n)).filter((p): p is string => !!p);
}

/**
 * S9 — old OmniPerf test-script runner: `baseline_*` vs `patched_*`, where *patched is the agent's
 * patch* applied to the parent (research §1.9).
 */
const S9Schema = z.looseObject({
  instance: z.looseObject({ commit_hash: z.string() }),
  result: z.looseObject({
    status: z.string(),
    baseline_ms: zNum,
    patched_ms: zNum,
    error_message: zStr,
    stdout: zStr,
    stderr: zStr,
    baseline_output: z.unknown(),
    patched_output: z.unknown(),
    patch_path: zStr,
    duration_s: zNum,
  }),
});

export const S9: Detector = {
  id: 'S9',
  schema: S9Schema,
  matches: v => isObj(v.instance) && isObj(v.result) && ('baseline_ms' in v.result || 'baseline_output' in v.result),
  normalise(v, ctx) {
    const r: Obj = v.result;
    const commit = hashOf(v.instance.commit_hash, r.commit_hash);
    if (!commit) return [];
    const status = String(r.status);
    const agent = agentFromPatchPath(r.patch_path) ?? ctx.folderAgent ?? 'claude_code';
    const common = {
      logs: compactLogs(embeddedLog('result.stdout', r.stdout, 'none'), embeddedLog('result.stderr', r.stderr, 'none')),
      logFiles: siblingLogs(ctx),
      durationS: num(r.duration_s),
      command: str(v.instance.perf_command),
    };
    const out: RunDraft[] = [];
    const side = (key: 'baseline' | 'patched') => {
      const m = emptyMetrics();
      const o = r[`${key}_output`];
      addMetrics(m, o, {}, undefined, `result.${key}_output.`);
      if (!('test_avg_ms' in m.metrics) && num(r[`${key}_ms`]) !== null) addMetrics(m, { [`${key}_ms`]: r[`${key}_ms`] }, {}, undefined, 'result.');
      const outErr = isObj(o) ? str(o.error) : null;
      return { m, outErr };
    };
    const b = side('baseline');
    const a = side('patched');
    const err = str(r.error_message);
    const bHas = Object.keys(b.m.metrics).length > 0;
    const aHas = Object.keys(a.m.metrics).length > 0;
    // With no patch nothing was run, so the baseline has nothing to report either.
    if (bHas || status !== 'no_patch') {
      out.push(
        draft(
          {
            commit,
            role: 'baseline',
            source: 'omniperf',
            schema: 'S9',
            pointer: 'result.baseline_output',
            ctx,
            originalStatus: status,
            status: bHas ? 'success' : 'failed',
          },
          {
            ...common,
            ...measured(b.m),
            ...errorOf(bHas, b.outErr, 'result.baseline_output.error', err, 'Baseline produced no metrics'),
          },
        ),
      );
    }
    // The patched side only ran once the baseline produced numbers (or was skipped for want of a patch).
    if (aHas || bHas || status === 'no_patch') {
      const aStatus = aHas ? 'success' : status === 'no_patch' ? 'skipped' : 'failed';
      out.push(
        draft(
          { commit, role: 'agent', source: 'omniperf', schema: 'S9', pointer: 'result.patched_output', ctx, originalStatus: status, status: aStatus },
          {
            ...common,
            agent,
            ...measured(a.m),
            ...errorOf(aHas, a.outErr, 'result.patched_output.error', err, 'Patched run produced no metrics'),
          },
        ),
      );
    }
    return out;
  },
};

/**
 * S10 — old native perf-command runner: `baseline_metrics` vs `patched_metrics`, where *patched is
 * the human commit* (research §1.10). Raw output sits inside the metrics dataclass, untruncated.
 */
const S10Schema = z.looseObject({
  instance: z.looseObject({ commit_hash: z.string() }),
  result: z.looseObject({
    status: z.string(),
    baseline_metrics: z.record(z.string(), z.unknown()).nullish(),
    patched_metrics: z.record(z.string(), z.unknown()).nullish(),
    error_message: zStr,
    perf_command: zStr,
    benchmark_type: zStr,
    duration_s: zNum,
  }),
});

export const S10: Detector = {
  id: 'S10',
  schema: S10Schema,
  matches: v => isObj(v.instance) && isObj(v.result) && 'patched_metrics' in v.result,
  normalise(v, ctx) {
    const r: Obj = v.result;
    const commit = hashOf(v.instance.commit_hash, r.commit_hash);
    if (!commit) return [];
    const status = String(r.status);
    const err = str(r.error_message);
    const command = str(r.perf_command) ?? str(v.instance.perf_command);
    const blamed: Role = roleNamedIn(err) === 'human' ? 'human' : 'baseline';
    const out: RunDraft[] = [];
    for (const [role, key] of [
      ['baseline', 'baseline_metrics'],
      ['human', 'patched_metrics'],
    ] as const) {
      const container = r[key];
      const m = normalisedMetrics([container], {}, [`result.${key}.`]);
      const hasMetrics = Object.keys(m.metrics).length > 0;
      let st: RunStatus;
      if (hasMetrics) st = 'success';
      else if (role === blamed) st = mapStatus(status) === 'skipped' ? 'skipped' : 'failed';
      else if (status === 'success') st = 'failed';
      else continue; // the other side never ran
      out.push(
        draft(
          { commit, role, source: 'native', schema: 'S10', pointer: `result.${key}`, ctx, originalStatus: status, status: st },
          {
            ...measured(m),
            error: hasMetrics ? null : (err ?? `${role} produced no metrics`),
            errorField: !hasMetrics && err ? 'result.error_message' : null,
            logs: compactLogs(embeddedLog(`result.${key}.raw_output`, isObj(container) ? container.raw_output : null, 'none')),
            logFiles: siblingLogs(ctx),
            command,
            benchmarkMode: modeFromType(r.benchmark_type) ?? modeFromCommand(command),
            durationS: num(r.duration_s),
          },
        ),
      );
    }
    return out;
  },
};
