import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import Docker from 'dockerode';
import { buildFakeImage, missingPrerequisites, startEngine, type Engine } from '../support/dockerEngine';
import { FAKE_VLLM, git, makeRunFixture, removeRunFixtures, type RunFixture } from '../support/runFixture';

const REPO = path.resolve(__dirname, '../..');
const CLI = path.join(REPO, 'dist/cli.js');
const IMAGE = 'bench-triage/fake-vllm:test';
const cli = (...args: string[]) =>
  spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', maxBuffer: 64 << 20, env: { ...process.env, DOCKER_HOST: '' } });

/**
 * The agent's patch of the fake image's vllm/fake_kernels.py, four hunks each with a known effect
 * (fakevllm_markers): U1 makes tokens 1.6× as fast and provides `fast_path`; U2 changes nothing;
 * U3 slows tokens to 0.75×; U4 makes them 1.3× as fast but needs `fast_path` (without U1 the
 * server fails to import).
 */
function fourHunkPatch(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'bt-ablate-patch-'));
  try {
    mkdirSync(path.join(dir, 'vllm'));
    const file = path.join(dir, 'vllm/fake_kernels.py');
    const before = readFileSync(path.join(FAKE_VLLM, 'rootfs/opt/fakevllm/vllm/fake_kernels.py'), 'utf8');
    writeFileSync(file, before);
    git(dir, 'init', '-q');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'parent');
    const after = before
      .replace('    # The first kernel.\n', '    # The first kernel.\n    # fake-vllm: speedup=1.6\n    # fake-vllm: provides=fast_path\n')
      .replace('    # Positions.\n', '    # Positions (unchanged maths).\n')
      .replace('    # Scores and weights.\n', '    # Scores and weights.\n    # fake-vllm: speedup=0.75\n')
      .replace('    # Text.\n', '    # Text.\n    # fake-vllm: needs=fast_path\n    # fake-vllm: speedup=1.3\n');
    writeFileSync(file, after);
    return git(dir, 'diff') + '\n';
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('patch ablation on a real Docker engine with the fake vLLM image', function () {
  this.timeout(900_000);
  let engine: Engine;
  let fx: RunFixture;

  before(async function () {
    const missing = missingPrerequisites();
    if (missing.length) {
      if (process.env.CI === 'true') throw new Error(`Docker suite prerequisites missing: ${missing.join('; ')}`);
      this.skip();
    }
    engine = await startEngine();
    buildFakeImage(engine.unix);
    fx = makeRunFixture();
    const item = path.join(fx.folder, 'state/runs/vllm/claude_code/default/2026-11-22_10-00-00/vllm_core-0000');
    writeFileSync(path.join(item, 'model_patch.diff'), fourHunkPatch());
  });

  after(async function () {
    removeRunFixtures();
    if (!engine) return;
    const docker = new Docker({ socketPath: engine.unix.slice(7) });
    const left = await docker.listContainers({ all: true, filters: JSON.stringify({ label: ['bench-triage.run-id'] }) });
    await engine.stop();
    assert.deepEqual(
      left.map(c => c.Names),
      [],
      'containers left behind',
    );
  });

  /** `ablate start` of the fixture's commit on the test engine, 4 repeats, tokens slow enough (40 ms) that the hunks' speed-ups dominate. */
  const ablateStart = (design: string, parallel: number) =>
    cli(
      ...['ablate', 'start', '--folder', fx.folder, '--commit', fx.human.slice(0, 10), '--design', design, '--repeats', '4'],
      ...['--host', engine.unix, '--gpus', '0', '--max-parallel', String(parallel), '--image-human', IMAGE, '--image-baseline', IMAGE],
      ...['--env', 'FAKE_VLLM_TOKEN_MS=40', '--server-timeout', '60'],
    );

  it('a leave-one-out campaign on a 4-hunk patch: each unit measured against the full patch, the hunk that needs another named, the runs recorded with their units', async function () {
    const plan = cli('ablate', 'plan', '--folder', fx.folder, '--commit', fx.human.slice(0, 10), '--repeats', '4', '--gpus', '0', '--json');
    assert.equal(plan.status, 0, plan.stderr);
    const p = JSON.parse(plan.stdout).plans[0];
    assert.deepEqual(
      p.units.map((u: { id: string }) => u.id),
      ['U1', 'U2', 'U3', 'U4'],
    );
    assert.equal(p.plan.runs.length, 6 * 4);
    // One run at a time: two at once on two cores slow each other unevenly (a run beside one that
    // broke at start-up has the machine to itself), a bias the no-effect unit would show.
    const start = ablateStart('leave-one-out', 1);
    const id = start.stdout.trim();
    assert.match(id, /^ablate-[0-9a-f]{8}-/, start.stderr);
    // U1 removed breaks every run of that variant: the campaign ends with failures (exit 1), all else succeeded.
    assert.equal(start.status, 1, start.stderr);
    const camp = path.join(fx.folder, '.bench-triage/campaigns', id);
    const items = JSON.parse(readFileSync(path.join(camp, 'campaign.json'), 'utf8')).items as Array<{
      n: number;
      variant: { id: string; units: string[]; patch: string | null };
    }>;
    const states = new Map(
      readdirSync(path.join(camp, 'runs')).map(f => [Number(f.replace('.json', '')), JSON.parse(readFileSync(path.join(camp, 'runs', f), 'utf8'))]),
    );
    for (const i of items) {
      const s = states.get(i.n)!;
      assert.equal(s.state, i.variant.id === 'without-U1' ? 'failed' : 'succeeded', `${i.n} ${i.variant.id}: ${s.error}`);
      // Each run applied its variant's own patch (the plan in run.json names that file).
      const run = JSON.parse(readFileSync(path.join(fx.folder, s.resultDir, 'run.json'), 'utf8'));
      assert.equal(run.plan.agentPatch ? path.basename(run.plan.agentPatch) : null, i.variant.patch ? `${i.variant.id}.diff` : null);
    }
    const report = cli('ablate', 'report', '--folder', fx.folder, '--json');
    assert.equal(report.status, 0, report.stderr);
    const r = JSON.parse(report.stdout);
    const a = r.attribution;
    // The serving headline: output tokens/s.
    assert.equal(a.metric, 'output_throughput_tok_s');
    // The full patch: 1.6 × 0.75 × 1.3 = 1.56× as fast per token; the requests' fixed costs dilute it.
    assert.equal(a.full.verdict, 'win', JSON.stringify(a.full));
    assert.ok(a.full.change > 25 && a.full.change < 60, JSON.stringify(a.full));
    const by = Object.fromEntries(a.units.map((u: { unit: string }) => [u.unit, u]));
    const pc = (e: { change: number; verdict: string } | null) => (e ? `${e.change.toFixed(1)} % ${e.verdict}` : 'broken');
    console.log(`      full ${pc(a.full)}; removal U1 ${pc(by.U1.removal)}, U2 ${pc(by.U2.removal)}, U3 ${pc(by.U3.removal)}, U4 ${pc(by.U4.removal)}`);
    // Removing U3 (0.75×) helps, removing U4 (1.3×) hurts; U2 changes nothing measurable.
    assert.equal(by.U3.removal.verdict, 'win', JSON.stringify(by.U3.removal));
    assert.ok(by.U3.removal.ci[0] > 10, JSON.stringify(by.U3.removal));
    assert.equal(by.U4.removal.verdict, 'loss', JSON.stringify(by.U4.removal));
    assert.ok(by.U4.removal.ci[1] < -8, JSON.stringify(by.U4.removal));
    assert.ok(!['win', 'loss'].includes(by.U2.removal.verdict), JSON.stringify(by.U2.removal));
    assert.ok(Math.abs(by.U2.removal.change) < 8, JSON.stringify(by.U2.removal));
    assert.equal(by.U1.removal, null);
    assert.ok(
      a.findings.some((f: string) => /^U4 needs U1: without U1 the run breaks \(ImportError: cannot import name 'fast_path'/.test(f)),
      a.findings.join('\n'),
    );
    const md = cli('ablate', 'report', '--folder', fx.folder);
    assert.match(md.stdout, /\| U3 \| \+1 −0 \| — \| \+\d+\.\d % \[\+\d+\.\d %, \+\d+\.\d %\] win \|/);
  });
  it('the minimise design finds the smallest subset that keeps the full patch’s speed-up (U1 alone) through the same queue, and writes its patch', async function () {
    const start = ablateStart('minimise', 2);
    assert.equal(start.status, 0, start.stderr);
    const id = start.stdout.trim();
    assert.match(
      start.stderr,
      /minimise: the smallest subset that keeps the full patch's effect is U1 of 4 units, after (\d+) subsets measured; its patch: (\S+)/,
    );
    const tests = Number(/after (\d+) subsets/.exec(start.stderr)![1]);
    const camp = path.join(fx.folder, '.bench-triage/campaigns', id);
    const m = JSON.parse(readFileSync(path.join(camp, 'minimise.json'), 'utf8'));
    assert.deepEqual(m.subset, ['U1']);
    assert.equal(m.exhausted, false);
    // Every subset measured went through the queue: its runs are campaign items of its own variant.
    const items = JSON.parse(readFileSync(path.join(camp, 'campaign.json'), 'utf8')).items as Array<{ variant: { id: string } }>;
    assert.equal(items.length, 2 * 4 + tests * 4, 'the baseline and the full patch, then each subset, four times');
    // Fewer runs than leave-one-out's 24 here; the patch is U1's hunk alone.
    console.log(`      runs: minimise ${items.length}, leave-one-out 24`);
    const minimal = readFileSync(path.join(fx.folder, m.patch), 'utf8');
    assert.match(minimal, /\+ {4}# fake-vllm: speedup=1\.6/);
    assert.doesNotMatch(minimal, /speedup=0\.75|needs=fast_path|unchanged maths/);
  });
});
