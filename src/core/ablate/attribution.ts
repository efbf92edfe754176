import { bootstrapRelativeChange, judge, mannWhitney, mean, relativeChange, type Basis, type Verdict } from '../compare';
import type { Variant } from './designs';
import type { PatchUnit } from './units';

/** What the runs of one variant gave: the metric of each run that measured, and why the others broke. */
export interface VariantResult {
  values: number[];
  broken: string[];
}

/** One variant against a reference variant, by the same noise-aware rule as the verdicts. */
export interface Effect {
  /** In %, positive = better for the metric's direction. */
  change: number;
  ci: [number, number] | null;
  p: number | null;
  basis: Basis;
  verdict: Verdict;
  n: [number, number];
}

export interface UnitAttribution {
  unit: string;
  label: string;
  /** The unit alone against the baseline (each-alone). */
  alone: Effect | null;
  /** The full patch without the unit against the full patch (leave-one-out): negative = the unit carries gain. */
  removal: Effect | null;
}

export interface Attribution {
  metric: string;
  direction: 'lower' | 'higher';
  /** The full patch against the baseline. */
  full: Effect | null;
  units: UnitAttribution[];
  /** Broken variants, dependencies ("U3 needs U1") and interactions, in words. */
  findings: string[];
}

/** `x` against `ref`: change, interval, p and verdict (single runs: the change alone, a hint). */
export function effect(ref: readonly number[], x: readonly number[], direction: 'lower' | 'higher', band: number): Effect | null {
  if (!ref.length || !x.length) return null;
  const change = relativeChange(mean([...ref]), mean([...x]), direction);
  if (change === null) return null;
  let basis: Basis = 'single',
    ci: [number, number] | null = null,
    p: number | null = null;
  if (ref.length >= 2 && x.length >= 2) {
    ci = bootstrapRelativeChange(ref, x, direction);
    p = mannWhitney([...x], [...ref]).p;
    if (ci) basis = 'repeats';
  }
  return { change, ci, p, basis, verdict: judge(basis, change, ci, p, band), n: [ref.length, x.length] };
}

/** Whether `name` occurs in `text` as a whole word. */
const wordIn = (text: string, name: string) => new RegExp(`(^|[^A-Za-z0-9_])${name.replace(/[.]/g, '\\.')}($|[^A-Za-z0-9_])`).test(text);

const pct = (v: number) => `${v >= 0 ? '+' : ''}${v.toFixed(1)} %`;
/** Half the interval's width, or the band for a single run: how far a sum may stray by noise alone. */
const slack = (e: Effect, band: number) => (e.ci ? (e.ci[1] - e.ci[0]) / 2 : band);

/**
 * Each unit's measured effect alone and by its removal, the variants that broke, which unit needs
 * which, and whether the units' effects add up to the full patch's.
 */
export function attribute(
  units: readonly PatchUnit[],
  variants: readonly Variant[],
  results: ReadonlyMap<string, VariantResult>,
  opts: {
    metric: string;
    direction: 'lower' | 'higher';
    band: number;
    /** Each unit's added lines: a name a broken run's error quotes, found in another unit, names who needs whom. */
    unitText?: ReadonlyMap<string, string>;
  },
): Attribution {
  const { direction, band } = opts;
  const of = (id: string) => results.get(id) ?? { values: [], broken: [] };
  const base = of('baseline').values,
    fullValues = of('full').values;
  const full = effect(base, fullValues, direction, band);
  const findings: string[] = [];
  const brokenOnly = (id: string) => {
    const r = of(id);
    return r.broken.length > 0 && r.values.length === 0 ? r.broken[0] : null;
  };
  for (const id of ['baseline', 'full']) {
    const why = brokenOnly(id);
    if (why) findings.push(`${id === 'full' ? 'the full patch' : 'the baseline'} broke in every run (${why}): no unit can be measured against it`);
  }
  const needs = new Map<string, string>(); // removal breaks: others need this unit
  const breaksAlone = new Map<string, string>();
  // A subset that minimise measured counts too: all units but one is that unit's removal, one unit is that unit alone.
  const n = units.length;
  const subsetIs = (v: Variant, size: number, has: (id: string) => boolean) => v.kind === 'subset' && v.units.length === size && v.units.every(has);
  const out: UnitAttribution[] = units.map(u => {
    const without =
      variants.find(v => v.kind === 'without' && v.unit === u.id) ?? (n > 1 ? variants.find(v => subsetIs(v, n - 1, id => id !== u.id)) : undefined);
    const alone = variants.find(v => v.kind === 'alone' && v.unit === u.id) ?? (n > 1 ? variants.find(v => subsetIs(v, 1, id => id === u.id)) : undefined);
    const w = without ? brokenOnly(without.id) : null;
    const a = alone ? brokenOnly(alone.id) : null;
    if (w) needs.set(u.id, w);
    if (a) breaksAlone.set(u.id, a);
    return {
      unit: u.id,
      label: u.label,
      alone: alone ? effect(base, of(alone.id).values, direction, band) : null,
      removal: without ? effect(fullValues, of(without.id).values, direction, band) : null,
    };
  });
  for (const [needed, why] of needs) {
    // With each-alone too, the unit that breaks alone is the one that needs it; named when only one does.
    const dependents = [...breaksAlone.keys()].filter(x => x !== needed);
    if (dependents.length !== 1 && opts.unitText) {
      // Else the names the error quotes (`cannot import name 'fast_path'`): the other unit that uses one of them.
      const names = [...why.matchAll(/['"`]([A-Za-z_][A-Za-z0-9_.]{2,})['"`]/g)].map(m => m[1]);
      const users = units.filter(u => u.id !== needed && names.some(n => wordIn(opts.unitText!.get(u.id) ?? '', n))).map(u => u.id);
      if (users.length === 1) {
        findings.push(`${users[0]} needs ${needed}: without ${needed} the run breaks (${why}), and ${users[0]} uses what it names`);
        continue;
      }
    }
    findings.push(
      dependents.length === 1
        ? `${dependents[0]} needs ${needed}: without ${needed} the run breaks (${why}), and ${dependents[0]} alone breaks too`
        : `without ${needed} the run breaks (${why}): another unit needs ${needed}`,
    );
  }
  for (const [u, why] of breaksAlone) if (![...needs.keys()].some(n => n !== u)) findings.push(`${u} alone breaks the run (${why})`);
  if (full) {
    // Speed-ups compose by multiplying (each unit scales the time the others left), so effects are
    // composed as ratios of the metric, not summed as percentages: 1.35 × 0.9 is +21.5 %, not +25 %.
    const sign = direction === 'higher' ? 1 : -1;
    const ratio = (e: Effect) => 1 + (sign * e.change) / 100;
    const changeOf = (r: number) => sign * (r - 1) * 100;
    const tolerance = Math.max(band, slack(full, band));
    const alones = out.map(x => x.alone).filter((e): e is Effect => !!e);
    if (alones.length === units.length && units.length > 1 && alones.every(e => ratio(e) > 0)) {
      const composed = changeOf(alones.reduce((r, e) => r * ratio(e), 1));
      if (Math.abs(composed - full.change) > tolerance)
        findings.push(`the units interact: alone they compose to ${pct(composed)}, together ${pct(full.change)}`);
    }
    const removals = out.map(x => x.removal).filter((e): e is Effect => !!e);
    if (removals.length === units.length && units.length > 1 && removals.every(e => ratio(e) > 0)) {
      // Removing a unit divides out its own factor: the factors removals show compose to the full effect when the units are independent.
      const composed = changeOf(removals.reduce((r, e) => r / ratio(e), 1));
      if (Math.abs(composed - full.change) > tolerance)
        findings.push(`the units interact: the shares their removals show compose to ${pct(composed)}, the full patch gains ${pct(full.change)}`);
    }
  }
  return { metric: opts.metric, direction, full, units: out, findings };
}
