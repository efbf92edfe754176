import { z } from 'zod';
import { mapStatus } from '../status';
import {
  ROLES,
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
  statusFromMetrics,
  str,
  zMetrics,
  zNum,
  zStr,
  type Detector,
  type RunDraft,
} from './common';

const RoleBlock = z.looseObject({ status: z.string(), metrics: zMetrics, error: zStr, raw_output: zStr, duration_s: zNum, model: zStr }).optional();

/** S5 — Docker 3-way reruns: `{commit, timestamp, results: {baseline, human, agent}}`. */
const S5Schema = z.looseObject({
  commit: z.string(),
  timestamp: zStr,
  results: z.looseObject({ baseline: RoleBlock, human: RoleBlock, agent: RoleBlock }),
});
export const S5: Detector = {
  id: 'S5',
  schema: S5Schema,
  matches: v => 'commit' in v && isObj(v.results) && ROLES.some(r => r in (v.results as object)),
  normalise(v, ctx) {
    const commit = hashOf(v.commit);
    if (!commit) return [];
    const out: RunDraft[] = [];
    for (const role of ROLES) {
      const b = v.results[role];
      if (!isObj(b)) continue;
      const m = normalisedMetrics([b.metrics], {}, [`results.${role}.metrics.`]);
      const { status, note } = statusFromMetrics(mapStatus(b.status), m);
      out.push(
        draft(
          { commit, role, source: 'rerun', schema: 'S5', pointer: `results.${role}`, ctx, originalStatus: b.status, status },
          {
            error: status === 'success' ? null : (str(b.error) ?? note),
            errorField: status !== 'success' && str(b.error) ? `results.${role}.error` : null,
            ...measured(m),
            logs: compactLogs(embeddedLog(`results.${role}.raw_output`, b.raw_output, 'tail')),
            model: str(b.model),
            benchmarkMode: modeFromType(b.benchmark_type),
            timestamp: str(v.timestamp),
            durationS: num(b.duration_s),
          },
        ),
      );
    }
    return out;
  },
};

/** S7 — `reruns/4_fixable`: per-role blocks plus an `analysis`, and possibly asymmetric commands. */
const S7Schema = z.looseObject({
  commit_full: zStr,
  commit_short: zStr,
  parent_hash: zStr,
  model: zStr,
  benchmark_type: zStr,
  baseline_command: zStr,
  test_command: zStr,
  timestamp: zStr,
  baseline: RoleBlock,
  human: RoleBlock,
  agent: RoleBlock,
  analysis: z.looseObject({}),
});
export const S7: Detector = {
  id: 'S7',
  schema: S7Schema,
  matches: v => isObj(v.analysis) && ROLES.some(r => isObj(v[r])),
  normalise(v, ctx) {
    const commit = hashOf(v.commit_full, v.commit_short);
    if (!commit) return [];
    const out: RunDraft[] = [];
    for (const role of ROLES) {
      const b = v[role];
      if (!isObj(b)) continue;
      const m = normalisedMetrics([b.metrics], {}, [`${role}.metrics.`]);
      const { status, note } = statusFromMetrics(mapStatus(b.status), m);
      const command = role === 'baseline' ? str(v.baseline_command) : (str(v.test_command) ?? str(v.baseline_command));
      out.push(
        draft(
          { commit, role, source: 'rerun', schema: 'S7', pointer: role, ctx, originalStatus: b.status, status },
          {
            error: status === 'success' ? null : (str(b.error) ?? note),
            errorField: status !== 'success' && str(b.error) ? `${role}.error` : null,
            ...measured(m),
            logs: compactLogs(embeddedLog(`${role}.raw_output`, b.raw_output, 'tail')),
            model: str(v.model),
            command,
            benchmarkMode: modeFromType(v.benchmark_type) ?? modeFromCommand(command),
            parent: hashOf(v.parent_hash),
            timestamp: str(v.timestamp),
            durationS: num(b.duration_s),
            fixes: str(v.fix) ? [String(v.fix)] : [],
          },
        ),
      );
    }
    return out;
  },
};
