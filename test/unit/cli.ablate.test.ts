import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { scan } from '../../src/core/ingest';
import { nodeFileSource } from '../../src/platform/nodeFileSource';
import { patchProblem, splitPatch } from '../../src/core/patch';
import { ISOBENCH, requireCorpus, runCli } from './helpers';

interface Planned {
  commit: string;
  agent: string | null;
  mode: 'files' | 'hunks';
  units: Array<{ id: string; parts: Array<{ file: number; hunk: number }> }>;
  plan: { runs: unknown[]; variants: Array<{ id: string }>; repeats: number; gpuHours: number };
}

describe('ablate plan [ISO-Bench data]', () => {
  let out: { plans: Planned[]; refusals: Array<{ commit: string; agent: string | null; reason: string }> };
  before(function () {
    requireCorpus();
    this.timeout(120_000);
    const r = runCli('ablate', 'plan', '--folder', ISOBENCH, '--json');
    assert.equal(r.status, 0, r.stderr);
    out = JSON.parse(r.stdout);
  });

  it('plans every commit with a usable agent patch and refuses every other commit, each with a reason', async () => {
    const s = await scan(nodeFileSource(ISOBENCH));
    // Independently of the planner: which commits have an agent patch that is text with a change in it.
    const usable = new Set(
      s.commits
        .filter(c =>
          s.agentRuns.some(r => {
            if (r.commit !== c.hash || !r.patch || r.patch.empty) return false;
            return patchProblem(fs.readFileSync(path.join(ISOBENCH, r.patch.path), 'utf8')) === null;
          }),
        )
        .map(c => c.hash),
    );
    const planned = new Set(out.plans.map(p => p.commit));
    const refused = new Set(out.refusals.map(r => r.commit));
    assert.equal(planned.size + refused.size, s.commits.length, 'each commit once: planned or refused');
    for (const c of planned) assert.ok(usable.has(c), `${c} planned without a usable agent patch`);
    for (const r of out.refusals) {
      assert.ok(r.reason.length > 10, JSON.stringify(r));
      // A usable patch is refused only for its perf command (GPUs, placeholders, none).
      if (usable.has(r.commit)) assert.match(r.reason, /GPU|placeholder|perf command/, JSON.stringify(r));
      else assert.match(r.reason, /no agent run|no patch|patch /, JSON.stringify(r));
    }
    assert.ok(out.plans.length >= 50, `${out.plans.length} commits planned`);
  });

  it('the units of each plan cover every hunk of its patch once, and its runs are (units + 2) × repeats', async () => {
    const s = await scan(nodeFileSource(ISOBENCH));
    for (const p of out.plans) {
      const run = s.agentRuns.find(r => r.commit === p.commit && r.agent === p.agent && r.patch && !r.patch.empty)!;
      const files = splitPatch(fs.readFileSync(path.join(ISOBENCH, run.patch!.path), 'utf8'));
      const hunks = files.reduce((n, f) => n + f.patch.hunks.length, 0);
      const parts = p.units.flatMap(u => u.parts.map(x => `${x.file}:${x.hunk}`));
      assert.equal(parts.length, hunks, p.commit);
      assert.equal(new Set(parts).size, hunks, `${p.commit}: a hunk in two units`);
      assert.equal(p.mode, hunks <= 12 ? 'hunks' : 'files', p.commit);
      const variants = p.units.length > 1 ? p.units.length + 2 : 2;
      assert.equal(p.plan.variants.length, variants, p.commit);
      assert.equal(p.plan.runs.length, variants * p.plan.repeats, p.commit);
      assert.ok(p.plan.gpuHours > 0);
    }
  });

  it('bad options are refused naming the option; an unknown commit names the folder', () => {
    const design = runCli('ablate', 'plan', '--folder', ISOBENCH, '--design', 'bisect');
    assert.equal(design.status, 2);
    assert.match(design.stderr, /--design must be one of leave-one-out, each-alone, minimise \(got bisect\)/);
    const repeats = runCli('ablate', 'plan', '--folder', ISOBENCH, '--repeats', '0');
    assert.equal(repeats.status, 2);
    assert.match(repeats.stderr, /--repeats must be a whole number from 1 to 100/);
    const commit = runCli('ablate', 'plan', '--folder', ISOBENCH, '--commit', 'ffffffffffff');
    assert.equal(commit.status, 2);
    assert.match(commit.stderr, /no commit ffffffffffff in /);
    const text = runCli('ablate', 'plan', '--folder', ISOBENCH, '--commit', out.plans[0].commit.slice(0, 10), '--design', 'minimise');
    assert.equal(text.status, 0, text.stderr);
    assert.match(text.stdout, /minimise, 3 repeats: 2 variants, 6 runs \+ up to \d+ subsets × 3 \(≤ \d+ runs\), ≤ [\d.]+ GPU-hours/);
  });
});
