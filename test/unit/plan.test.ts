import * as assert from 'node:assert/strict';
import { emptyCommit } from '../../src/core/model';
import { planRun, PlanError } from '../../src/core/run/plan';
import { RECIPES, proposeRecipes, recipe } from '../../src/core/run/recipes';
import { ISOBENCH, requireCorpus, runCli } from './helpers';

const commit = (cmd: string | null, parent: string | null = 'b'.repeat(40)) => ({
  ...emptyCommit('a'.repeat(40)),
  parent,
  perfCommands: cmd ? [{ command: cmd, source: 'test' }] : [],
});
const host = { label: 'h100-1', docker: 'unix:///var/run/docker.sock', gpus: 1 };

describe('runner plans (no Docker needed) [ISO-Bench data]', () => {
  it('names the images from the templates and moves engine flags of a serving command to the server', () => {
    const c = commit('python benchmarks/benchmark_serving.py --model m --dtype float16 --num-prompts 10');
    const h = planRun(c, 'human', { host, runId: 'r1' });
    assert.equal(h.image, `anonymous/vllm-bench:${'a'.repeat(40)}`);
    assert.deepEqual(h.server!.argv.slice(-2), ['--dtype', 'float16']);
    assert.ok(!h.benchmark.argv.includes('--dtype'));
    assert.ok(h.benchmark.argv.includes('--save-result'));
    assert.equal(h.benchmark.scriptSource, `git show ${'a'.repeat(40)}:benchmarks/benchmark_serving.py`);
    assert.equal(h.resultDir, '.bench-triage/runs/aaaaaaaa/human/r1');
    const b = planRun(c, 'baseline', { host, runId: 'r1' });
    assert.equal(b.image, 'anonymous/vllm-baseline:baseline-bbbbbbbbbbbb');
    assert.equal(b.benchmark.scriptSource, `git show ${'b'.repeat(40)}:benchmarks/benchmark_serving.py`);
    const a = planRun(c, 'agent', { host, runId: 'r1', agentPatch: 'p/model_patch.diff' });
    assert.equal(a.image, b.image);
    assert.equal(a.agentPatch, 'p/model_patch.diff');
    const off = planRun(commit('python benchmarks/benchmark_latency.py --model m --batch-size 8'), 'human', { host, runId: 'r' });
    assert.equal(off.server, null);
    assert.equal(off.metrics, 'printed-block');
  });

  it('refuses before anything runs: placeholders, shell operators, too many GPUs, no parent, no patch', () => {
    const refuse = (c: ReturnType<typeof commit>, role: 'baseline' | 'human' | 'agent', re: RegExp, opts = {}) =>
      assert.throws(
        () => planRun(c, role, { host, runId: 'r', ...opts }),
        (e: unknown) => e instanceof PlanError && re.test(e.message),
      );
    refuse(commit('python benchmarks/benchmark_latency.py --model MODEL --batch-size BS'), 'human', /placeholder MODEL.*placeholder BS/);
    refuse(commit('python benchmarks/benchmark_serving.py --model x; rm -rf /'), 'human', /shell operator ";"/);
    refuse(
      commit('python benchmarks/benchmark_latency.py --model m --tensor-parallel-size 8'),
      'human',
      /tensor-parallel size 8 needs 8 GPUs; the configured host has 1/,
    );
    refuse(commit('python benchmarks/benchmark_latency.py --model m', null), 'baseline', /parent .* unknown/);
    refuse(commit('python benchmarks/benchmark_latency.py --model m'), 'agent', /no agent patch/);
    refuse(commit(null), 'human', /no perf command/);
    refuse(commit('python moe_mem.py --model m'), 'human', /not a supported vLLM benchmark/);
  });

  it('has the known recipes, proposes them from a cause, and records them in the plan', () => {
    assert.deepEqual(
      RECIPES.map(r => r.id),
      ['aimv2-exist-ok', 'numpy-lt-2', 'fa-utils', 'transformers-4.44.2', 'outlines-0.0.34'],
    );
    assert.deepEqual(
      proposeRecipes('aimv2-registered').map(r => r.id),
      ['aimv2-exist-ok'],
    );
    assert.deepEqual(
      proposeRecipes('pyairports').map(r => r.id),
      ['outlines-0.0.34'],
    );
    for (const r of RECIPES) for (const s of r.steps) assert.ok(Array.isArray(s.argv) && s.argv.length > 0 && s.why.length > 10, r.id);
    assert.throws(() => recipe('nope'), /unknown recipe "nope"; known: aimv2-exist-ok/);
    const p = planRun(commit('python benchmarks/benchmark_latency.py --model m'), 'human', { host, runId: 'r', recipes: ['numpy-lt-2'] });
    assert.deepEqual(
      p.recipes.map(r => r.id),
      ['numpy-lt-2'],
    );
  });

  it('bench-triage plan prints the plan of a real commit and refuses a placeholder command', () => {
    requireCorpus();
    const ok = runCli('plan', '--folder', ISOBENCH, '--commit', 'fe66b347', '--role', 'all', '--json');
    assert.equal(ok.status, 0, ok.stderr);
    const plans = JSON.parse(ok.stdout);
    assert.deepEqual(
      plans.map((p: { role: string }) => p.role),
      ['baseline', 'human', 'agent'],
    );
    assert.match(plans[2].agentPatch, /model_patch\.diff$/);
    const bad = runCli('plan', '--folder', ISOBENCH, '--commit', '526de822', '--role', 'human');
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /refused: placeholder BS/);
  });
});
