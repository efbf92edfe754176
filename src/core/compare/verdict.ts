import type { BenchmarkMode, Role, Run } from '../model';
import { chooseHeadline, metricDef, UNKNOWN_UNIT, type PrimaryOverride } from '../metrics';
import { bootstrapRelativeChange, mannWhitney, mean, relativeChange } from './stats';

/**
 * Agent vs human, per metric, with noise taken into account (README: How verdicts are made; modelled on Chromium
 * Pinpoint's SAME / DIFFERENT / UNKNOWN):
 *
 * - `repeats` (≥ 2 comparable attempts of both human and agent) or `per-request` (one attempt
 *   each, with vLLM's per-request samples): the relative difference of means with a 95 %
 *   bootstrap interval and a two-sided Mann–Whitney U p-value. `win`/`loss` when the interval
 *   lies outside the tie band and p < 0.05; `tie` when it lies inside the band; else `unknown`.
 * - `single`: the tie band alone, and "noise unknown".
 */
export type Verdict = 'win' | 'tie' | 'loss' | 'unknown' | 'agent-failed' | 'n/a';
export type Basis = 'single' | 'repeats' | 'per-request';

export const SIGNIFICANCE = 0.05;

/**
 * A verdict as people read it: on a single run (noise unknown) a win, loss or tie is only a hint,
 * written with a question mark (`win?`), and "Run N more" is offered as for `unknown`.
 */
export function shownVerdict(v: Verdict | string, basis: Basis | string | null | undefined): string {
  return basis === 'single' && (v === 'win' || v === 'loss' || v === 'tie') ? `${v}?` : v;
}

/** Whether more attempts would settle the verdict: unknown, or a single-run hint. */
export function wantsMoreRuns(v: Verdict | string, basis: Basis | string | null | undefined): boolean {
  return v === 'unknown' || (basis === 'single' && (v === 'win' || v === 'loss' || v === 'tie'));
}

export interface MetricComparison {
  key: string;
  label: string;
  unit: string;
  direction: 'lower' | 'higher';
  /** Means over the comparable attempts of each role. */
  baseline: number | null;
  human: number;
  agent: number;
  humanImprovement: number | null;
  agentImprovement: number | null;
  /** Agent vs human in %, positive = the agent is better. */
  agentVsHuman: number;
  basis: Basis;
  ci: [number, number] | null;
  p: number | null;
  n: Record<Role, number>;
  verdict: Verdict;
  headline: boolean;
}

export interface Comparison {
  /** The headline metric the verdict names. */
  metric: string;
  label: string;
  unit: string;
  basis: Basis;
  baseline: number | null;
  human: number;
  agent: number;
  humanImprovement: number | null;
  agentImprovement: number | null;
  agentVsHuman: number;
  ci: [number, number] | null;
  p: number | null;
  /** The headline verdict (computed even when the roles are not comparable; the entry's verdict says n/a then). */
  verdict: Verdict;
  /** The agent wins on one headline metric and loses on another. */
  mixed: boolean;
  headlineMetrics: string[];
  /** Why the user's choice of headline metric did not apply. */
  note: string | null;
  metrics: MetricComparison[];
}

export interface Attempts {
  baseline: Run[];
  human: Run[];
  agent: Run[];
}

export interface VerdictOptions {
  tieBand: number;
  override?: PrimaryOverride;
  mode: BenchmarkMode | null;
  /** The request rate the compared runs were sent at (`inf`, a number, or null when unknown). */
  requestRate?: string | null;
}

export function judge(basis: Basis, avh: number, ci: [number, number] | null, p: number | null, band: number): Verdict {
  if (basis === 'single' || !ci || p === null) return Math.abs(avh) <= band ? 'tie' : avh > 0 ? 'win' : 'loss';
  if (ci[0] > band && p < SIGNIFICANCE) return 'win';
  if (ci[1] < -band && p < SIGNIFICANCE) return 'loss';
  if (ci[0] >= -band && ci[1] <= band) return 'tie';
  return 'unknown';
}

const valuesOf = (runs: Run[], key: string) => runs.map(r => r.metrics[key]).filter((v): v is number => typeof v === 'number');

/** One metric, agent vs human (and both vs baseline), over every comparable attempt. */
export function compareMetric(key: string, a: Attempts, band: number): MetricComparison | null {
  const def = metricDef(key);
  if (!def || def.kind !== 'metric' || def.direction === 'none') return null;
  const dir = def.direction;
  const hv = valuesOf(a.human, key),
    av = valuesOf(a.agent, key),
    bv = valuesOf(a.baseline, key);
  if (!hv.length || !av.length) return null;
  const h = mean(hv),
    g = mean(av),
    b = bv.length ? mean(bv) : null;
  const avh = relativeChange(h, g, dir);
  if (avh === null) return null;
  let basis: Basis = 'single',
    ci: [number, number] | null = null,
    p: number | null = null;
  const hs = a.human.length === 1 ? a.human[0].samples?.[key] : undefined,
    as = a.agent.length === 1 ? a.agent[0].samples?.[key] : undefined;
  if (hv.length >= 2 && av.length >= 2) {
    basis = 'repeats';
    ci = bootstrapRelativeChange(hv, av, dir);
    p = mannWhitney(av, hv).p;
  } else if (hs && as && hs.length >= 2 && as.length >= 2) {
    basis = 'per-request';
    ci = bootstrapRelativeChange(hs, as, dir, { iterations: hs.length + as.length > 20_000 ? 500 : 2000 });
    p = mannWhitney(as, hs).p;
  }
  if (basis !== 'single' && !ci) basis = 'single';
  return {
    key,
    label: def.label,
    unit: def.unit,
    direction: dir,
    baseline: b,
    human: h,
    agent: g,
    humanImprovement: b !== null ? relativeChange(b, h, dir) : null,
    agentImprovement: b !== null ? relativeChange(b, g, dir) : null,
    agentVsHuman: avh,
    basis,
    ci,
    p,
    n: { baseline: bv.length, human: hv.length, agent: av.length },
    verdict: judge(basis, avh, ci, p, band),
    headline: false,
  };
}

/** Every metric both human and agent measured (unknown units only against the same unknown), and the headline verdict. */
export function compareAttempts(a: Attempts, opts: VerdictOptions): Comparison | null {
  const keys = new Set<string>();
  for (const r of [...a.human, ...a.agent]) for (const k of Object.keys(r.metrics)) keys.add(k);
  // With a measured baseline, the 3-way table holds what all three measured.
  const rows = [...keys].map(k => compareMetric(k, a, opts.tieBand)).filter((m): m is MetricComparison => !!m && (!a.baseline.length || m.baseline !== null));
  if (!rows.length) return null;
  const h = chooseHeadline(
    rows.map(m => m.key),
    opts.mode,
    opts.override,
    opts.requestRate ?? null,
  );
  if (!h) return null;
  for (const m of rows) m.headline = h.headline.includes(m.key);
  rows.sort((x, y) => Number(y.key === h.primary) - Number(x.key === h.primary) || Number(y.headline) - Number(x.headline) || x.label.localeCompare(y.label));
  const primary = rows[0];
  const heads = rows.filter(m => m.headline);
  return {
    metric: primary.key,
    label: primary.label,
    unit: primary.unit === UNKNOWN_UNIT ? UNKNOWN_UNIT : primary.unit,
    basis: primary.basis,
    baseline: primary.baseline,
    human: primary.human,
    agent: primary.agent,
    humanImprovement: primary.humanImprovement,
    agentImprovement: primary.agentImprovement,
    agentVsHuman: primary.agentVsHuman,
    ci: primary.ci,
    p: primary.p,
    verdict: primary.verdict,
    mixed: heads.some(m => m.verdict === 'win') && heads.some(m => m.verdict === 'loss'),
    headlineMetrics: h.headline,
    note: h.note,
    metrics: rows,
  };
}
