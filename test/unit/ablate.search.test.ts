import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { ddmin, ddminWorstCase, type Outcome } from '../../src/core/ablate/ddmin';
import { planAblation } from '../../src/core/ablate/designs';
import { attribute, type VariantResult } from '../../src/core/ablate/attribution';
import type { PatchUnit } from '../../src/core/ablate/units';

const unit = (i: number): PatchUnit => ({ id: `U${i}`, label: `f.py hunk ${i}`, path: 'f.py', parts: [{ file: 0, hunk: i - 1 }], added: 1, removed: 0 });
const ids = (n: number) => Array.from({ length: n }, (_, i) => `U${i + 1}`);

/** A seeded normal sample (Box–Muller on a small LCG): the same noise on every run of the test. */
function noisy(seed: number) {
  let s = seed >>> 0 || 1;
  const u = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) + 0.5) / 4294967296;
  return (mean: number, sd: number) => mean + sd * Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u());
}

describe('patch ablation: designs, ddmin, attribution', () => {
  it('plans leave-one-out, each-alone and minimise with their runs interleaved and their cost, before anything runs', () => {
    const units = [1, 2, 3, 4].map(unit);
    const loo = planAblation(units, { design: 'leave-one-out', repeats: 3, estimateS: 1800, gpus: 2 });
    assert.deepEqual(
      loo.variants.map(v => v.id),
      ['baseline', 'full', 'without-U1', 'without-U2', 'without-U3', 'without-U4'],
    );
    assert.deepEqual(loo.variants[2].units, ['U2', 'U3', 'U4']);
    assert.equal(loo.runs.length, 18);
    // B, full, variants… then again: each repeat holds every variant once, in the same order.
    for (let r = 0; r < 3; r++)
      assert.deepEqual(
        loo.runs.slice(r * 6, r * 6 + 6).map(x => [x.variant, x.repeat]),
        loo.variants.map(v => [v.id, r + 1]),
      );
    assert.equal(loo.gpuHours, (18 * 1800 * 2) / 3600);
    const alone = planAblation(units, { design: 'each-alone', repeats: 2, estimateS: 600, gpus: 1 });
    assert.deepEqual(alone.variants[3].units, ['U2']);
    assert.equal(alone.maxRuns, 12);
    const min = planAblation(units, { design: 'minimise', repeats: 2, estimateS: 600, gpus: 1 });
    assert.equal(min.maxTests, Math.min(ddminWorstCase(4), 16));
    assert.equal(min.maxRuns, 4 + 16 * 2);
    assert.throws(() => planAblation([], { design: 'minimise', repeats: 1, estimateS: 1, gpus: 1 }), /no unit/);
    assert.throws(() => planAblation(units, { design: 'minimise', repeats: 0, estimateS: 1, gpus: 1 }), /repeats/);
  });

  it('ddmin finds the smallest subset a synthetic oracle keeps, within its worst case, and never asks a subset twice', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 12 }).chain(n => fc.tuple(fc.constant(n), fc.subarray(ids(n), { minLength: 1 }))),
        async ([n, needed]) => {
          const asked: string[] = [];
          const oracle = async (s: string[]): Promise<Outcome> => {
            asked.push([...s].sort().join(','));
            return needed.every(u => s.includes(u)) ? 'keeps' : 'loses';
          };
          const r = await ddmin(ids(n), oracle, ddminWorstCase(n));
          assert.equal(r.exhausted, false);
          assert.deepEqual([...r.subset].sort(), [...needed].sort());
          assert.equal(new Set(asked).size, asked.length, 'no subset measured twice');
          assert.ok(r.tests.length <= ddminWorstCase(n));
        },
      ),
      { numRuns: 200, seed: 27 },
    );
  });

  it('ddmin counts a broken run as not keeping, and stops at its bound with a subset that keeps', async () => {
    // U3 crashes without U1; the gain is U3's.
    const oracle = async (s: string[]): Promise<Outcome> => (s.includes('U3') && !s.includes('U1') ? 'broken' : s.includes('U3') ? 'keeps' : 'loses');
    const r = await ddmin(ids(8), oracle, 100);
    assert.deepEqual([...r.subset].sort(), ['U1', 'U3']);
    assert.ok(r.tests.some(t => t.outcome === 'broken'));
    const bounded = await ddmin(ids(8), oracle, 2);
    assert.equal(bounded.exhausted, true);
    assert.equal(bounded.tests.length, 2);
    assert.ok(bounded.subset.includes('U1') && bounded.subset.includes('U3'), 'what it returns still keeps the effect');
  });

  it('attribution recovers known effects within their intervals, names the dependent unit and the interaction', () => {
    // Throughput (higher is better): baseline 100; U1 +8 %, U2 +0, U3 −4 %, U4 +12 % but only with U1 (alone it crashes).
    const gain: Record<string, number> = { U1: 0.08, U2: 0, U3: -0.04, U4: 0.12 };
    const units = [1, 2, 3, 4].map(unit);
    const loo = planAblation(units, { design: 'leave-one-out', repeats: 8, estimateS: 60, gpus: 1 });
    const each = planAblation(units, { design: 'each-alone', repeats: 8, estimateS: 60, gpus: 1 });
    const variants = [...loo.variants, ...each.variants.filter(v => v.kind === 'alone')];
    const draw = noisy(7);
    const results = new Map<string, VariantResult>();
    for (const v of variants) {
      const r: VariantResult = { values: [], broken: [] };
      for (let i = 0; i < 8; i++) {
        if (v.units.includes('U4') && !v.units.includes('U1')) {
          r.broken.push("ImportError: cannot import name 'fast_path'");
          continue;
        }
        const total = v.units.reduce((s, u) => s + gain[u], 0);
        r.values.push(draw(100 * (1 + total), 0.8));
      }
      results.set(v.id, r);
    }
    const a = attribute(units, variants, results, { metric: 'request_throughput', direction: 'higher', band: 2 });
    assert.ok(a.full && a.full.verdict === 'win' && Math.abs(a.full.change - 16) < 1.5, JSON.stringify(a.full));
    const by = new Map(a.units.map(u => [u.unit, u]));
    const inside = (ci: [number, number] | null, v: number) => !!ci && ci[0] - 0.5 <= v && v <= ci[1] + 0.5;
    assert.ok(inside(by.get('U1')!.alone!.ci, 8), JSON.stringify(by.get('U1')!.alone));
    assert.equal(by.get('U1')!.alone!.verdict, 'win');
    assert.equal(by.get('U2')!.alone!.verdict, 'tie');
    assert.equal(by.get('U3')!.alone!.verdict, 'loss');
    assert.ok(inside(by.get('U3')!.alone!.ci, -4), JSON.stringify(by.get('U3')!.alone));
    // Removing U3 helps (+4 / 1.16 ≈ +3.4 % over the full patch); removing U2 changes nothing.
    assert.equal(by.get('U3')!.removal!.verdict, 'win');
    assert.ok(inside(by.get('U3')!.removal!.ci, (4 / 116) * 100), JSON.stringify(by.get('U3')!.removal));
    assert.equal(by.get('U2')!.removal!.verdict, 'tie');
    // U4 alone and the patch without U1 broke: no effect, and the finding names who needs whom.
    assert.equal(by.get('U4')!.alone, null);
    assert.equal(by.get('U1')!.removal, null);
    assert.ok(
      a.findings.some(f => /^U4 needs U1: without U1 the run breaks \(ImportError/.test(f)),
      a.findings.join('\n'),
    );
    // Without measured effects for every unit alone, no interaction is claimed.
    assert.ok(!a.findings.some(f => /interact/.test(f)), a.findings.join('\n'));
  });

  it('attribution names an interaction when the effects alone do not add up to the full patch', () => {
    const units = [1, 2].map(unit);
    const variants = planAblation(units, { design: 'each-alone', repeats: 6, estimateS: 60, gpus: 1 }).variants;
    const draw = noisy(3);
    // Each alone +10 %, together +10 % (the same speed-up twice): independent, they would compose to 1.1 × 1.1 = +21 %.
    const level: Record<string, number> = { baseline: 100, full: 110, 'alone-U1': 110, 'alone-U2': 110 };
    const results = new Map(variants.map(v => [v.id, { values: Array.from({ length: 6 }, () => draw(level[v.id], 0.5)), broken: [] }]));
    const a = attribute(units, variants, results, { metric: 'request_throughput', direction: 'higher', band: 1 });
    const said = a.findings.map(f => /^the units interact: alone they compose to \+(\d+\.\d) %, together \+(\d+\.\d) %$/.exec(f)).find(Boolean);
    assert.ok(said && Math.abs(Number(said[1]) - 21) < 1 && Math.abs(Number(said[2]) - 10) < 1, a.findings.join('\n'));
    // Independent units (their speed-ups multiply): no such finding.
    const additive = new Map(variants.map(v => [v.id, { values: Array.from({ length: 6 }, () => draw({ ...level, full: 121 }[v.id]!, 0.5)), broken: [] }]));
    assert.ok(!attribute(units, variants, additive, { metric: 'x', direction: 'higher', band: 1 }).findings.some(f => /interact/.test(f)));
  });

  it('the subsets minimise measured count as removals and units alone: all units but one is that unit’s removal, one unit is that unit alone', () => {
    const units = [1, 2, 3].map(unit);
    const variants = [
      ...planAblation(units, { design: 'minimise', repeats: 5, estimateS: 60, gpus: 1 }).variants,
      { id: 'subset-U1-U3', kind: 'subset' as const, unit: null, units: ['U1', 'U3'], label: 'subset U1, U3' },
      { id: 'subset-U1', kind: 'subset' as const, unit: null, units: ['U1'], label: 'subset U1' },
    ];
    // U1 +35 %, U2 ×0.9, U3 nothing (the demo's patch).
    const draw = noisy(11);
    const level: Record<string, number> = { baseline: 100, full: 121.5, 'subset-U1-U3': 135, 'subset-U1': 135 };
    const results = new Map(variants.map(v => [v.id, { values: Array.from({ length: 5 }, () => draw(level[v.id], 0.5)), broken: [] }]));
    const a = attribute(units, variants, results, { metric: 'output_throughput', direction: 'higher', band: 2 });
    const by = new Map(a.units.map(u => [u.unit, u]));
    assert.equal(by.get('U2')!.removal?.verdict, 'win', JSON.stringify(by.get('U2')));
    assert.ok(Math.abs(by.get('U2')!.removal!.change - (135 / 121.5 - 1) * 100) < 1.5, JSON.stringify(by.get('U2')!.removal));
    assert.equal(by.get('U1')!.alone?.verdict, 'win');
    // What minimise did not measure stays unmeasured, never borrowed from another subset.
    assert.equal(by.get('U1')!.removal, null);
    assert.equal(by.get('U3')!.removal, null);
    assert.equal(by.get('U2')!.alone, null);
  });

  it('speed-ups compose by multiplying: the demo’s 1.35 × 0.9 × 1 patch is no interaction, in time per token (lower is better) as in throughput', () => {
    const units = [1, 2, 3].map(unit);
    const variants = planAblation(units, { design: 'leave-one-out', repeats: 6, estimateS: 60, gpus: 1 }).variants;
    const speed: Record<string, number> = { U1: 1.35, U2: 0.9, U3: 1 };
    const draw = noisy(5);
    const run = (per: (s: number) => number, sd: number) =>
      new Map(variants.map(v => [v.id, { values: Array.from({ length: 6 }, () => draw(per(v.units.reduce((x, u) => x * speed[u], 1)), sd)), broken: [] }]));
    const tpot = attribute(
      units,
      variants,
      run(s => 20 / s, 0.05),
      { metric: 'mean_tpot_ms', direction: 'lower', band: 2 },
    );
    const tput = attribute(
      units,
      variants,
      run(s => 1000 * s, 3),
      { metric: 'output_throughput', direction: 'higher', band: 2 },
    );
    for (const a of [tpot, tput]) {
      assert.ok(!a.findings.some(f => /interact/.test(f)), `${a.metric}: ${a.findings.join('\n')}`);
      assert.equal(a.units[0].removal?.verdict, 'loss');
      assert.equal(a.units[1].removal?.verdict, 'win');
    }
    // U1 and U2 only gain together (each alone nothing): the removals compose to far less than the whole.
    const together = new Map(
      variants.map(v => [
        v.id,
        { values: Array.from({ length: 6 }, () => draw(v.units.includes('U1') && v.units.includes('U2') ? 1300 : 1000, 3)), broken: [] },
      ]),
    );
    const a = attribute(units, variants, together, { metric: 'output_throughput', direction: 'higher', band: 2 });
    assert.ok(
      a.findings.some(f => /^the units interact: the shares their removals show compose to \+\d+\.\d %, the full patch gains \+(29|30)\.\d %$/.test(f)),
      a.findings.join('\n'),
    );
  });
});
