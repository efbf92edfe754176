import { dict } from '../../model';
import { z } from 'zod';
import { mapStatus } from '../status';
import { ROLES, draft, hashOf, isObj, measured, normalisedMetrics, str, zNum, zStr, type Detector } from './common';

/**
 * BT1 — the extension's own `result.json` (`schema: "bench-triage.run/v1"`), written by the runner
 * under `.bench-triage/runs/<commit8>/<role>/<runId>/`.
 */
export const OWN_SCHEMA = 'bench-triage.run/v1';
const BT1Schema = z.looseObject({
  schema: z.literal(OWN_SCHEMA),
  commit: z.string(),
  role: z.enum(ROLES),
  status: z.string(),
  error: zStr,
  metrics: z.record(z.string(), z.unknown()),
  agent: zStr,
  model: zStr,
  command: zStr,
  image: zStr,
  fixes: z.array(z.string()).nullish(),
  startedAt: zStr,
  durationS: zNum,
  logs: z.array(z.string()).nullish(),
  project: zStr,
  samples: z.unknown().optional(),
});

/**
 * Log files a result names: relative paths inside the run's folder only. Anything else (`..`,
 * absolute paths, odd characters) is a problem naming the field, and is not read.
 */
export function logsOf(
  v: unknown,
  dir: string,
  problems: Array<{ field: string; message: string }>,
): { logFiles: string[]; problems: Array<{ field: string; message: string }> } {
  const logFiles: string[] = [];
  if (Array.isArray(v))
    v.forEach((l, i) => {
      const bad =
        typeof l !== 'string'
          ? 'is not a path'
          : !l || l.startsWith('/') || /^[A-Za-z]:/.test(l) || l.split(/[\\/]/).some(s => s === '..' || s === '.')
            ? `"${l.slice(0, 120)}" is not a path inside the run's folder`
            : /[\u0000-\u001f]/.test(l)
              ? 'contains control characters'
              : null;
      if (bad) problems.push({ field: `logs.${i}`, message: `${bad}: not read` });
      else logFiles.push(dir + (l as string));
    });
  return { logFiles, problems };
}

/** Per-request samples as written by the runner: finite, non-negative, bounded in count. */
function samplesOf(v: unknown): Record<string, number[]> | undefined {
  if (!isObj(v)) return undefined;
  const out: Record<string, number[]> = dict();
  for (const [k, xs] of Object.entries(v))
    if (Array.isArray(xs) && xs.length <= 200_000) out[k] = xs.filter((x): x is number => typeof x === 'number' && Number.isFinite(x) && x >= 0);
  return Object.keys(out).length ? out : undefined;
}

export const BT1: Detector = {
  id: 'BT1',
  schema: BT1Schema,
  matches: v => v.schema === OWN_SCHEMA || (typeof v.schema === 'string' && v.schema.startsWith('bench-triage.run/')),
  normalise(v, ctx) {
    const commit = hashOf(v.commit);
    if (!commit) return [];
    const m = normalisedMetrics([v.metrics], {}, ['metrics.']);
    const dir = ctx.path.slice(0, ctx.path.lastIndexOf('/') + 1);
    return [
      draft(
        { commit, role: v.role, source: 'bench-triage', schema: 'BT1', pointer: 'metrics', ctx, originalStatus: v.status, status: mapStatus(v.status) },
        {
          agent: v.role === 'agent' ? str(v.agent) : null,
          error: str(v.error),
          errorField: str(v.error) ? 'error' : null,
          ...measured(m),
          model: str(v.model),
          command: str(v.command),
          image: str(v.image),
          fixes: Array.isArray(v.fixes) ? v.fixes : [],
          timestamp: str(v.startedAt),
          durationS: typeof v.durationS === 'number' ? v.durationS : null,
          project: str(v.project),
          samples: samplesOf(v.samples),
          ...logsOf(v.logs, dir, m.problems),
        },
      ),
    ].filter(() => isObj(v.metrics));
  },
};
