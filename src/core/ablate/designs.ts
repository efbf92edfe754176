import { ddminWorstCase } from './ddmin';
import type { PatchUnit } from './units';

/**
 * leave-one-out: the full patch minus each unit; each-alone: the parent plus each unit;
 * minimise: ddmin for the smallest subset that keeps the full patch's effect.
 */
export type Design = 'leave-one-out' | 'each-alone' | 'minimise';
export const DESIGNS: readonly Design[] = ['leave-one-out', 'each-alone', 'minimise'];

/** One patch variant a run applies: the units it includes (none: the parent as it is). */
export interface Variant {
  id: string;
  kind: 'baseline' | 'full' | 'without' | 'alone' | 'subset';
  /** The unit a without/alone variant is about. */
  unit: string | null;
  units: string[];
  label: string;
}

export interface AblationRun {
  n: number;
  variant: string;
  repeat: number;
}

export interface AblationPlan {
  design: Design;
  repeats: number;
  /** Variants known before anything runs (minimise adds its subsets as ddmin asks for them). */
  variants: Variant[];
  /** Runs in their interleaved order: every repeat runs the baseline, the full patch and each variant before the next repeat. */
  runs: AblationRun[];
  /** Runs at most (minimise: its bound; the others: exactly `runs`). */
  maxRuns: number;
  estimateS: number;
  gpus: number;
  /** GPU-hours at most. */
  gpuHours: number;
  /** Subsets ddmin may ask at most (minimise only). */
  maxTests: number | null;
}

export interface PlanOptions {
  design: Design;
  repeats: number;
  /** One run's duration estimate, in seconds. */
  estimateS: number;
  gpus: number;
  /** Subsets minimise may measure at most (default: its worst case, capped at 4 × the units). */
  maxTests?: number;
}

const baseline: Variant = { id: 'baseline', kind: 'baseline', unit: null, units: [], label: 'the parent (no patch)' };

/** The variants and runs of a design on `units`, with what they cost, before anything runs. */
export function planAblation(units: readonly PatchUnit[], o: PlanOptions): AblationPlan {
  if (!Number.isInteger(o.repeats) || o.repeats < 1 || o.repeats > 100) throw new Error(`repeats must be a whole number from 1 to 100 (got ${o.repeats})`);
  if (!units.length) throw new Error('the patch has no unit to ablate');
  const all = units.map(u => u.id);
  const full: Variant = { id: 'full', kind: 'full', unit: null, units: all, label: 'the full patch' };
  const variants: Variant[] = [baseline, full];
  // One unit: its leave-one-out variant is the parent, its alone variant the full patch.
  if (o.design === 'leave-one-out' && units.length > 1)
    for (const u of units)
      variants.push({ id: `without-${u.id}`, kind: 'without', unit: u.id, units: all.filter(x => x !== u.id), label: `full patch without ${u.label}` });
  if (o.design === 'each-alone' && units.length > 1)
    for (const u of units) variants.push({ id: `alone-${u.id}`, kind: 'alone', unit: u.id, units: [u.id], label: `${u.label} alone` });
  const runs: AblationRun[] = [];
  for (let repeat = 1; repeat <= o.repeats; repeat++) for (const v of variants) runs.push({ n: runs.length + 1, variant: v.id, repeat });
  const maxTests = o.design === 'minimise' ? Math.min(ddminWorstCase(units.length), o.maxTests ?? 4 * units.length) : null;
  const maxRuns = runs.length + (maxTests ?? 0) * o.repeats;
  return {
    design: o.design,
    repeats: o.repeats,
    variants,
    runs,
    maxRuns,
    estimateS: o.estimateS,
    gpus: o.gpus,
    gpuHours: (maxRuns * o.estimateS * Math.max(1, o.gpus)) / 3600,
    maxTests,
  };
}
