// bench/runner worker: runner overhead against a bare `docker run` of the same fake container, and
// log-capture throughput, on a real engine (the suite's own dockerd unless BENCH_TRIAGE_DOCKER_HOST).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, rmSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { scan } from '../src/core/ingest';
import { nodeFileSource } from '../src/platform/nodeFileSource';
import { DockerRuntime } from '../src/runner/dockerRuntime';
import { Runner } from '../src/runner/execute';
import { HostQueue } from '../src/runner/hostQueue';
import { planRun } from '../src/core/run/plan';
import { newRunId } from '../src/runner/runRecord';
import { startEngine } from '../test/support/dockerEngine';
import { makeRunFixture } from '../test/support/runFixture';
import { repoRoot } from '../test/support/repo';

const IMAGE = 'bench-triage/fake-vllm:test';
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const dockerCli = ['/usr/bin/docker', '/usr/local/bin/docker'].find(existsSync)!;

async function main(): Promise<void> {
  const given = process.env.BENCH_TRIAGE_DOCKER_HOST;
  const engine = given ? null : await startEngine();
  try {
    await measure(given ?? engine!.unix);
  } finally {
    await engine?.stop();
  }
}

async function measure(url: string): Promise<void> {
  const env = { ...process.env, DOCKER_HOST: url };
  execFileSync(process.execPath, [path.join(repoRoot(), 'scripts/fake-image.mjs')], { env, stdio: 'ignore' });
  const host = { label: 'bench', docker: url, gpus: 0 };
  const bareMsOf = (args: string[]) => {
    const t0 = performance.now();
    const p = spawnSync(dockerCli, ['run', '--rm', IMAGE, 'python3', '/vllm-workspace/benchmarks/benchmark_latency.py', ...args], { env, encoding: 'utf8' });
    if (p.status !== 0) throw new Error(`docker run failed: ${p.stderr}`);
    return performance.now() - t0;
  };
  /** Median wall time of the same latency benchmark, bare and through the runner. */
  const workload = async (iters: number, n: number) => {
    const args = [
      '--model',
      'facebook/opt-125m',
      '--input-len',
      '32',
      '--output-len',
      '128',
      '--batch-size',
      '8',
      '--num-iters-warmup',
      '2',
      '--num-iters',
      String(iters),
    ];
    const fx = makeRunFixture(`python benchmarks/benchmark_latency.py ${args.join(' ')}`);
    const commit = (await scan(nodeFileSource(fx.folder))).commits.find(c => c.hash === fx.human)!;
    const runOnce = async (extraEnv: Record<string, string> = {}) => {
      const plan = planRun(commit, 'human', { host, runId: newRunId(), templates: { human: IMAGE, baseline: IMAGE } });
      const t0 = performance.now();
      const r = await new Runner(new DockerRuntime(host), new HostQueue(0)).run({
        plan,
        folder: fx.folder,
        checkout: fx.checkout,
        env: extraEnv,
        minFreeBytes: 1,
      });
      if (r.status !== 'succeeded') throw new Error(`bench run ${r.status}: ${r.error}`);
      return { ms: performance.now() - t0, r, folder: fx.folder };
    };
    bareMsOf(args);
    await runOnce(); // warm caches
    const bare: number[] = [],
      runner: number[] = [];
    for (let i = 0; i < n; i++) {
      bare.push(bareMsOf(args));
      runner.push((await runOnce()).ms);
    }
    return { bareMs: median(bare), runnerMs: median(runner), runOnce, cleanup: () => rmSync(path.dirname(fx.folder), { recursive: true, force: true }) };
  };
  const short = await workload(10, 5);
  const long = await workload(Number(process.env.BENCH_ITERS ?? 1500), 3);
  long.cleanup();
  const floodMb = Number(process.env.BENCH_FLOOD_MB ?? 1000);
  const flood = await short.runOnce({ FAKE_VLLM_FAULT: 'flood', FAKE_VLLM_FLOOD_MB: String(floodMb) });
  const bench = flood.r.phases.find(p => p.name === 'benchmark')!;
  const seconds = (Date.parse(bench.endedAt!) - Date.parse(bench.launchedAt!)) / 1000;
  const dir = path.join(flood.folder, flood.r.plan.resultDir, 'logs');
  const bytes = statSync(path.join(dir, 'benchmark.stdout.log')).size + statSync(path.join(dir, 'benchmark.stderr.log')).size;
  short.cleanup();
  process.stdout.write(
    JSON.stringify({
      shortBareMs: short.bareMs,
      shortRunnerMs: short.runnerMs,
      bareMs: long.bareMs,
      runnerMs: long.runnerMs,
      ratio: long.runnerMs / long.bareMs,
      captureMBs: bytes / 1048576 / seconds,
      captureMB: bytes / 1048576,
      captureS: seconds,
    }),
  );
}

main().catch(e => {
  process.stderr.write(String(e?.stack ?? e));
  process.exit(1);
});
