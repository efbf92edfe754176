import { z } from 'zod';
import type { BenchmarkMode, EmbeddedLog, Role, Run, RunStatus, SchemaId } from '../../model';
import { ROLES } from '../../model';
import { detectTruncation } from '../../logs/truncation';
import { addMetrics, emptyMetrics, type AliasHint, type MetricField, type NormalisedMetrics } from '../../metrics';
import { normaliseHash } from '../commits';

/** A run before its commit id is resolved against the whole scan (and its units checked against evidence). */
export type RunDraft = Omit<Run, 'id'> & {
  id?: string;
  metricFields?: MetricField[];
  untrustedFields?: string[];
  /** A standalone tool's result: commit and role come from a manifest or the path, in the scan. */
  unattributed?: true;
  /** One of several runs of its file (appended results, a sweep): the run's id names its pointer. */
  multi?: boolean;
};

/** Facts a detector may use besides the parsed value. */
export interface DetectContext {
  path: string;
  /** Agent named by the campaign folder (`omniperf_results_3way_<agent>`), if any. */
  folderAgent: string | null;
  /** Role named by the file name (`<h8>_<role>_result.json`), if any. */
  fileRole: Role | null;
  /** Sibling files of this file (same folder), by base name → relative path. */
  siblings: ReadonlyMap<string, string>;
}

export interface Detector {
  id: SchemaId;
  /** Cheap test on the shape; a match commits the file to this schema. */
  matches(v: Record<string, unknown>, ctx: DetectContext): boolean;
  /** Validates the fields the normaliser relies on; failures name the field. */
  schema: z.ZodType;
  normalise(v: any, ctx: DetectContext): RunDraft[];
}

export type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
export const str = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : null);
export const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** zod helpers tolerant of the nulls the pipelines wrote. */
export const zStr = z.string().nullish();
export const zNum = z.number().nullish();
export const zMetrics = z.record(z.string(), z.unknown()).nullish();

export function modeFromCommand(cmd: string | null | undefined): BenchmarkMode | null {
  if (!cmd) return null;
  if (/benchmark_latency|bench\s+latency/.test(cmd)) return 'latency';
  if (/benchmark_throughput|bench\s+throughput/.test(cmd)) return 'throughput';
  if (/prefix_caching/.test(cmd)) return 'prefix_caching';
  if (/benchmark_serving|bench\s+serve|bench_serving/.test(cmd)) return 'serving';
  return 'other';
}

export function modeFromType(t: unknown): BenchmarkMode | null {
  const s = typeof t === 'string' ? t.toLowerCase() : '';
  if (s === 'serving' || s === 'throughput' || s === 'latency' || s === 'prefix_caching') return s;
  if (s === 'standalone' || s === 'unknown' || s === 'baseline' || s === '') return null;
  return 'other';
}

/** First role word an error text names (`BASELINE server failed…`, `No wheel for human …`). */
export function roleNamedIn(text: string | null): Role | null {
  if (!text) return null;
  const m = /\b(baseline|human|agent|patched)\b/i.exec(text);
  if (!m) return null;
  const w = m[1].toLowerCase();
  return w === 'patched' ? null : (w as Role);
}

/** `baseline: …; human: …` (Modal parallel mode) → per-role messages. */
export function splitCombinedError(text: string | null): Map<Role, string> {
  const out = new Map<Role, string>();
  if (!text) return out;
  const re = /(?:^|;\s*)(baseline|human|agent):\s*/gi;
  const hits = [...text.matchAll(re)];
  if (hits.length < 2) return out;
  hits.forEach((h, k) => {
    const start = h.index! + h[0].length;
    const end = k + 1 < hits.length ? hits[k + 1].index! : text.length;
    out.set(h[1].toLowerCase() as Role, text.slice(start, end).trim());
  });
  return out;
}

export function embeddedLog(field: string, text: unknown, side: 'head' | 'tail' | 'none'): EmbeddedLog | null {
  if (typeof text !== 'string' || text.length === 0) return null;
  return { field, length: text.length, truncation: side === 'none' ? null : detectTruncation(text, side) };
}

/** The text after `Logs:` / `Output tail:` in an error is a server-log tail (research §4.7). */
export function errorLog(field: string, text: unknown): EmbeddedLog | null {
  if (typeof text !== 'string') return null;
  const m = /(Logs:|Output tail:)\s?/.exec(text);
  if (!m) return null;
  const tail = text.slice(m.index + m[0].length);
  if (tail.length < 40) return null;
  return { field, length: tail.length, truncation: detectTruncation(tail, 'tail', [2000, 5000, 1000]) };
}

export function fixesOf(v: unknown): string[] {
  if (typeof v === 'string') return /^none\b/i.test(v) ? [] : [v];
  if (Array.isArray(v)) return v.filter((x): x is string => typeof x === 'string' && !/^none\b/i.test(x));
  return [];
}

/** Metrics of the given containers; `prefixes[i]` is the dotted path of container i (for field names). */
export function normalisedMetrics(containers: unknown[], hint: AliasHint = {}, prefixes: string[] = []): NormalisedMetrics {
  const m = emptyMetrics();
  containers.forEach((c, i) => addMetrics(m, c, hint, undefined, prefixes[i] ?? ''));
  return m;
}

/** The draft fields a detector's metrics fill (unit evidence is checked later, in the scan). */
export function measured(m: NormalisedMetrics): Pick<RunDraft, 'metrics' | 'counts' | 'metricFields' | 'problems'> {
  return { metrics: m.metrics, counts: m.counts, metricFields: m.fields, problems: m.problems };
}

export function hashOf(...candidates: unknown[]): string | null {
  for (const c of candidates) {
    const h = normaliseHash(c);
    if (h) return h;
  }
  return null;
}

export interface DraftInit {
  commit: string;
  role: Role;
  source: string;
  schema: SchemaId;
  pointer: string;
  ctx: DetectContext;
  originalStatus: unknown;
  status?: RunStatus;
}

/** The empty list every draft starts with (thousands of drafts, one frozen list). */
const NONE = Object.freeze([]) as never[];

export function draft(init: DraftInit, rest: Partial<RunDraft> = {}): RunDraft {
  const original = typeof init.originalStatus === 'string' ? init.originalStatus : init.originalStatus == null ? '' : String(init.originalStatus);
  const d: RunDraft = {
    commit: init.commit,
    role: init.role,
    source: init.source,
    agent: init.role === 'agent' ? init.ctx.folderAgent : null,
    project: null,
    status: init.status ?? 'not_run',
    originalStatus: original,
    error: null,
    errorField: null,
    metrics: {},
    metricSources: {},
    counts: {},
    // Shared and frozen while empty: a detector with logs, log files or fixes gives its own list.
    logs: NONE,
    logFiles: NONE,
    model: null,
    command: null,
    benchmarkMode: null,
    gpuConfig: null,
    image: null,
    fixes: NONE,
    version: null,
    parent: null,
    timestamp: null,
    durationS: null,
    problems: [],
    provenance: { file: init.ctx.path, schema: init.schema, pointer: init.pointer },
  };
  // Assigned, not spread into the literal: a spread there sent every draft through slow stores.
  return Object.assign(d, rest);
}

/** A role without metrics in a record that claims success is not a success (research §7.6). */
export function statusFromMetrics(original: RunStatus, m: NormalisedMetrics): { status: RunStatus; note: string | null } {
  const any = Object.keys(m.metrics).length > 0;
  if (original === 'success' && !any) return { status: 'failed', note: 'status says success but no metrics were recorded' };
  return { status: original, note: null };
}

export function compactLogs(...logs: Array<EmbeddedLog | null>): EmbeddedLog[] {
  return logs.filter((l): l is EmbeddedLog => !!l);
}

export { ROLES };

/** Version strings are sometimes polluted with log lines (research §1.1); keep the version only. */
export function cleanVersion(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  const m = /\d+\.\d+\.\d+[^\s"']*/.exec(v.split('\n').pop() ?? v) ?? /\d+\.\d+\.\d+[^\s"']*/.exec(v);
  return m ? m[0] : null;
}
