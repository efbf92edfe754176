import type { FailedRequests, Workload, WorkloadKey } from '../../../model';
import { workloadNumber } from '../../../model';
import { emptyMetrics, metricDef, type NormalisedMetrics } from '../../../metrics';
import type { Obj } from '../common';

/**
 * What a standalone tool's key means. Every key of these files is one of these, or a finding:
 * no key is silently dropped (`IGNORED` below says why each ignored key is).
 */
export type KeyUse =
  | { metric: string; scale?: number }
  | { count: string; scale?: number }
  | { workload: WorkloadKey; format?: (v: unknown) => string | null }
  | { ignore: string }
  /** Read by the detector's own code (identity, per-request arrays, failures, settings). */
  | { handled: string };

export type KeyTable = Readonly<Record<string, KeyUse>>;
/** Keys made from a pattern (percentiles of `--metric-percentiles`, metadata …). */
export type KeyPattern = readonly [RegExp, (m: RegExpExecArray) => KeyUse | null];

/** What a reader gathered from one result object. */
export interface Reading {
  metrics: NormalisedMetrics;
  workload: Workload;
  problems: Array<{ field: string; message: string }>;
  labels: Record<string, string>;
}

export function newReading(): Reading {
  return { metrics: emptyMetrics(), workload: {}, problems: [], labels: {} };
}

const MAX_SHOWN = 60;
const show = (v: unknown) => {
  const s =
    typeof v === 'string'
      ? JSON.stringify(v)
      : Array.isArray(v)
        ? `an array of ${v.length}`
        : v === null
          ? 'null'
          : typeof v === 'object'
            ? 'an object'
            : String(v);
  return s.length > MAX_SHOWN ? s.slice(0, MAX_SHOWN) + '…' : s;
};

/** A measured number: finite and not negative, else a problem naming the field. */
export function measuredNumber(r: Reading, field: string, v: unknown): number | null {
  if (v === null || v === undefined) return null;
  if (typeof v !== 'number') {
    r.problems.push({ field, message: `${show(v)} is not a number: not read` });
    return null;
  }
  if (!Number.isFinite(v)) {
    r.problems.push({ field, message: `${v} is not a finite number: not read` });
    return null;
  }
  if (v < 0) {
    r.problems.push({ field, message: `negative value ${v} is impossible here: not read` });
    return null;
  }
  return v;
}

export function addMetric(r: Reading, field: string, canonical: string, value: number): void {
  const def = metricDef(canonical);
  if (!def) {
    r.problems.push({ field, message: `no metric ${canonical} in the catalogue: not read` });
    return;
  }
  const bucket = def.kind === 'count' ? r.metrics.counts : r.metrics.metrics;
  if (canonical in bucket) return;
  bucket[canonical] = value;
  if (def.kind === 'metric') r.metrics.fields.push({ field, value, canonical });
}

/**
 * Workload entries, one frozen object per field and value: a sweep of thousands of runs states the
 * same few settings, and each run holding its own copies was a tenth of a scan's kept objects.
 * Bounded: past ENTRIES_KEPT, a run gets its own.
 */
const ENTRIES_KEPT = 20_000;
let entriesKept = 0;
const entries = new Map<string, Map<string, Readonly<{ value: string; from: string }>>>();
function entryOf(value: string, from: string): { value: string; from: string } {
  let byValue = entries.get(from);
  let e = byValue?.get(value);
  if (e) return e;
  e = Object.freeze({ value, from });
  if (entriesKept < ENTRIES_KEPT && value.length <= 256) {
    if (!byValue) entries.set(from, (byValue = new Map()));
    byValue.set(value, e);
    entriesKept++;
  }
  return e;
}

export function setWorkload(r: Reading, key: WorkloadKey, value: string | null, from: string): void {
  if (value === null || value === '') return;
  r.workload[key] ??= entryOf(value, from);
}

/** A workload number as the file states it (`"inf"` or a number), else null with a problem. */
export function workloadOf(r: Reading, field: string, v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (v === 'inf' || v === Infinity) return 'inf';
  if (typeof v === 'number' && Number.isFinite(v)) return workloadNumber(v);
  if (typeof v === 'string' && v.trim()) return v.trim();
  r.problems.push({ field, message: `${show(v)} is not a value this setting takes: not read` });
  return null;
}

/**
 * Reads the keys of one object by its table: metrics and counts into canonical keys (units
 * converted), workload settings, and a finding for every key the table does not know.
 */
/** What each key of a table (and its patterns) means, looked up once per key: files repeat their keys. */
const uses = new WeakMap<KeyTable, Map<string, KeyUse | null>>();
function memoOf(table: KeyTable): Map<string, KeyUse | null> {
  let memo = uses.get(table);
  if (!memo) uses.set(table, (memo = new Map()));
  return memo;
}
function useOf(memo: Map<string, KeyUse | null>, table: KeyTable, patterns: readonly KeyPattern[], key: string): KeyUse | null {
  let use = memo.get(key);
  if (use !== undefined) return use;
  use = Object.hasOwn(table, key) ? table[key] : null;
  if (!use)
    for (const [re, make] of patterns) {
      const m = re.exec(key);
      if (m && (use = make(m))) break;
    }
  if (memo.size < 10_000) memo.set(key, use);
  return use;
}

export function readKeys(
  r: Reading,
  doc: Obj,
  table: KeyTable,
  patterns: readonly KeyPattern[],
  prefix = '',
  onUnknown?: (key: string, v: unknown) => boolean,
): void {
  const memo = memoOf(table);
  for (const key in doc) {
    const v = doc[key];
    const use = useOf(memo, table, patterns, key);
    const field = prefix + key;
    if (!use) {
      if (onUnknown?.(key, v)) continue;
      r.problems.push({ field, message: `key not known to this reader (${show(v)}): not read` });
      continue;
    }
    if ('ignore' in use || 'handled' in use) continue;
    if ('workload' in use) {
      setWorkload(r, use.workload, use.format ? use.format(v) : workloadOf(r, field, v), field);
      continue;
    }
    const n = measuredNumber(r, field, v);
    if (n === null) continue;
    addMetric(r, field, 'metric' in use ? use.metric : use.count, use.scale ? n * use.scale : n);
  }
}

/** Failed requests as a finding's data; null when none failed. */
export function failures(failed: number, total: number | null, firstError: string | null, field: string): FailedRequests | null {
  if (!(failed > 0)) return null;
  const err = firstError?.trim() ? firstError.trim().split('\n').filter(Boolean).slice(-1)[0].slice(0, 500) : null;
  return { failed: Math.round(failed), total: total === null ? null : Math.round(total), firstError: err, field };
}

/** The first non-empty string of an array (the first error a client recorded). */
export function firstText(v: unknown): string | null {
  if (!Array.isArray(v)) return null;
  for (let i = 0; i < v.length && i < 1_000_000; i++) if (typeof v[i] === 'string' && v[i].trim()) return v[i];
  return null;
}

/** Non-empty strings of an array, counted (the errors of the failed requests). */
export function countTexts(v: unknown): number {
  if (!Array.isArray(v)) return 0;
  let n = 0;
  for (const x of v) if (typeof x === 'string' && x.trim()) n++;
  return n;
}

/** `20250101-120000` (vLLM's `date`) → ISO, local time as written. */
export function vllmDate(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  const m = /^(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})$/.exec(v);
  return m ? `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}` : null;
}

/** Epoch seconds → ISO (GuideLLM's times). */
export function epochSeconds(v: unknown): string | null {
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0 || v > 4e9) return null;
  return new Date(v * 1000).toISOString();
}
