/**
 * Delta debugging (Zeller and Hildebrandt's ddmin) for the smallest subset of a patch's units that
 * still keeps its speed-up. The oracle is a measurement (a set of runs), so every distinct subset
 * is asked once and the number of subsets asked is bounded.
 */

export type Outcome = 'keeps' | 'loses' | 'broken';

export interface DdminResult {
  /** The smallest subset found that keeps the effect (the whole set when none smaller does). */
  subset: string[];
  /** Subsets asked, in order, with what each gave. */
  tests: Array<{ subset: string[]; outcome: Outcome }>;
  /** The bound was reached before the search ended: `subset` keeps the effect but may not be 1-minimal. */
  exhausted: boolean;
}

/**
 * The most subsets ddmin can ask for `n` units (its worst case, n² + 3n), so a plan can say what a
 * minimisation costs at most before anything runs.
 */
export const ddminWorstCase = (n: number) => (n <= 1 ? 0 : n * n + 3 * n);

/** `units` cut into `n` chunks of near-equal size, in order. */
function chunks<T>(units: readonly T[], n: number): T[][] {
  const out: T[][] = [];
  let start = 0;
  for (let i = 0; i < n; i++) {
    const end = start + Math.floor((units.length - start) / (n - i));
    out.push(units.slice(start, end));
    start = end;
  }
  return out.filter(c => c.length);
}

/**
 * ddmin over `units` (the full set is taken to keep the effect). `test` measures a subset; a
 * subset that breaks the run counts as not keeping it. At most `maxTests` distinct subsets are
 * measured.
 */
export async function ddmin(units: readonly string[], test: (subset: string[]) => Promise<Outcome>, maxTests: number): Promise<DdminResult> {
  const seen = new Map<string, Outcome>();
  const tests: DdminResult['tests'] = [];
  let exhausted = false;
  const order = new Map(units.map((u, i) => [u, i]));
  const key = (s: readonly string[]) => [...s].sort((a, b) => order.get(a)! - order.get(b)!).join(',');
  const ask = async (s: string[]): Promise<Outcome | null> => {
    const k = key(s);
    const known = seen.get(k);
    if (known) return known;
    if (tests.length >= maxTests) {
      exhausted = true;
      return null;
    }
    const o = await test(s);
    seen.set(k, o);
    tests.push({ subset: s, outcome: o });
    return o;
  };
  let current = [...units];
  let n = 2;
  while (current.length >= 2) {
    const parts = chunks(current, Math.min(n, current.length));
    let reduced = false;
    for (const part of parts) {
      const o = await ask(part);
      if (o === null) break;
      if (o === 'keeps') {
        current = part;
        n = 2;
        reduced = true;
        break;
      }
    }
    if (!reduced && !exhausted && parts.length > 2)
      for (const part of parts) {
        const complement = current.filter(u => !part.includes(u));
        const o = await ask(complement);
        if (o === null) break;
        if (o === 'keeps') {
          current = complement;
          n = Math.max(n - 1, 2);
          reduced = true;
          break;
        }
      }
    if (exhausted) break;
    if (reduced) continue;
    if (n >= current.length) break;
    n = Math.min(current.length, 2 * n);
  }
  return { subset: current, tests, exhausted };
}
