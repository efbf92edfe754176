import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, createReadStream, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import Docker from 'dockerode';
import { DockerRuntime } from '../../src/runner/dockerRuntime';
import { C, helperFile, joinTars, tarOf } from '../../src/runner/containerFiles';
import { LABEL, Runner, type RunEvents } from '../../src/runner/execute';
import { HostQueue } from '../../src/runner/hostQueue';
import {
  ARMED,
  FILES_ENV,
  FILES_SECRET,
  FIRST,
  FREED,
  GIVE_BACK_SIGNAL,
  GO_NOW,
  GO_SIGNAL,
  HELD,
  KEEPER,
  NEXT_SIGNAL,
  READY,
  SLOT_DIR,
  WITHDRAW_SIGNAL,
  WITHDRAWN_EXIT,
} from '../../src/runner/slotScripts';
import type { HostConfig } from '../../src/core/run/hosts';
import { planRun } from '../../src/core/run/plan';
import { newRunId } from '../../src/runner/runRecord';
import { type RunRecord } from '../../src/core/run/records';
import { scan } from '../../src/core/ingest';
import { nodeFileSource } from '../../src/platform/nodeFileSource';
import { buildFakeImage, missingPrerequisites, NETNS, ROOT, startEngine, type Engine } from '../support/dockerEngine';
import { FAKE_VLLM, makeRunFixture, removeRunFixtures, type RunFixture } from '../support/runFixture';

const REPO = path.resolve(__dirname, '../..');
const CLI = path.join(REPO, 'dist/cli.js');
const IMAGE = 'bench-triage/fake-vllm:test';
const IMAGES = ['--image-human', IMAGE, '--image-baseline', IMAGE];

let engine: Engine;
let fx: RunFixture;
const host = (over: Partial<HostConfig> = {}): HostConfig => ({ label: 'test-engine', docker: engine.unix, gpus: 0, ...over });
const cli = (...args: string[]) =>
  spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', maxBuffer: 64 << 20, env: { ...process.env, DOCKER_HOST: '' } });
const runArgs = (folder: string, role: string, ...more: string[]) => [
  'run',
  '--folder',
  folder,
  '--commit',
  fx.human.slice(0, 10),
  '--role',
  role,
  '--gpus',
  '0',
  '--checkout',
  fx.checkout,
  ...IMAGES,
  ...more,
];
/** A slot test's containers and its slot volume, removed whatever the test's outcome. */
async function removeSlotTest(rt: DockerRuntime, docker: Docker, made: string[], volume: string): Promise<void> {
  for (const id of made) await rt.remove(id).catch(() => undefined);
  await docker
    .getVolume(volume)
    .remove()
    .catch(() => undefined);
}
/**
 * A slot run's container on the test engine, as a swarm node would make it (the run's command on
 * the slot's volume), given in one extraction what the swarm runtime puts: the run's files, its
 * first phase, the go (first in line) and the ready marker last; returned once its command is armed.
 */
async function slotContainer(
  docker: Docker,
  rt: DockerRuntime,
  slot: { volume: string; made: string[] },
  name: string,
  first?: string[],
  goNow = false,
): Promise<string> {
  const c = await docker.createContainer({
    Image: IMAGE,
    name: `${slot.volume}-${name}`,
    Env: ['BENCH_TRIAGE_SLOT=s1'],
    Cmd: ['python3', '-c', KEEPER, 'python3', C.helper, 'idle'],
    HostConfig: { Mounts: [{ Type: 'volume', Source: slot.volume, Target: SLOT_DIR }] },
  });
  slot.made.push(c.id);
  await c.start();
  const parts = [{ dir: '/', tar: await tarOf([helperFile()]) }];
  if (first)
    parts.push({
      dir: '/',
      tar: await tarOf([{ name: FIRST, body: JSON.stringify({ argv: first, marker: `${C.logs}/server.launched` }) }], { bare: true }),
    });
  if (goNow) parts.push({ dir: '/', tar: await tarOf([{ name: GO_NOW, body: '' }], { bare: true }) });
  parts.push({ dir: '/', tar: await tarOf([{ name: READY, body: '' }], { bare: true }) });
  await rt.putArchive(c.id, '/', await joinTars(parts));
  for (let i = 0; !(await rt.hasPath(c.id, ARMED)); i++) {
    assert.ok(i < 200, `${name}: armed`);
    await new Promise(r => setTimeout(r, 50));
  }
  return c.id;
}
const sha = (buf: Buffer) => createHash('sha256').update(buf).digest('hex');
const readJson = (f: string) => JSON.parse(readFileSync(f, 'utf8'));

/** Runs one role in-process with the fault(s) asked for; `during` is called when the benchmark phase starts. */
async function runInProcess(opts: {
  role?: 'baseline' | 'human' | 'agent';
  env?: Record<string, string>;
  serverTimeoutS?: number;
  folder?: string;
  recipes?: string[];
  signal?: AbortSignal;
  secrets?: string[];
  secretEnv?: Record<string, string>;
  hostCfg?: HostConfig;
  during?: (r: RunRecord) => void;
  minFreeBytes?: number;
  events?: RunEvents;
  queue?: HostQueue;
}): Promise<RunRecord> {
  const commit = (await scan(nodeFileSource(fx.folder))).commits.find(c => c.hash === fx.human)!;
  const h = opts.hostCfg ?? host();
  const plan = planRun(commit, opts.role ?? 'human', {
    host: h,
    runId: newRunId(),
    recipes: opts.recipes,
    agentPatch: 'x',
    templates: { human: IMAGE, baseline: IMAGE },
    serverTimeoutS: opts.serverTimeoutS ?? 20,
  });
  let fired = false;
  const events: RunEvents = {
    ...opts.events,
    phase: (r, p) => {
      opts.events?.phase?.(r, p);
      if (p.name === 'benchmark' && p.exitCode == null && !fired) {
        fired = true;
        opts.during?.(r);
      }
    },
  };
  const runner = new Runner(new DockerRuntime(h), opts.queue ?? new HostQueue(0), events);
  return runner.run({
    plan,
    folder: opts.folder ?? fx.folder,
    checkout: fx.checkout,
    env: opts.env,
    secrets: opts.secrets,
    secretEnv: opts.secretEnv,
    signal: opts.signal,
    agentPatch: readFileSync(path.join(fx.folder, 'state/runs/vllm/claude_code/default/2026-11-22_10-00-00/vllm_core-0000/model_patch.diff'), 'utf8'),
    minFreeBytes: opts.minFreeBytes,
  });
}

/** A CLI run of the human role killed (SIGKILL) `afterMs` into its benchmark phase: its container runs on, no runner attached. */
async function killedMidBenchmark(afterMs: number): Promise<void> {
  const child = spawn(process.execPath, [CLI, ...runArgs(fx.folder, 'human', '--host', engine.unix, '--env', 'FAKE_VLLM_BENCH_SECONDS=8')], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', d => {
    err += d;
  });
  await waitUntil(() => /phase benchmark:/.test(err), 60_000);
  if (afterMs) await new Promise(res => setTimeout(res, afterMs));
  child.kill('SIGKILL');
  await new Promise(res => child.once('exit', res));
}

/** Every file a run stores: its logs, run.json and result.json. */
const storedFiles = (dir: string) => [
  ...readdirSync(path.join(dir, 'logs')).map(f => path.join(dir, 'logs', f)),
  path.join(dir, 'run.json'),
  path.join(dir, 'result.json'),
];
const logOf = (r: RunRecord, folder: string, phase: string, stream: 'stdout' | 'stderr') =>
  readFileSync(path.join(folder, r.plan.resultDir, 'logs', `${phase}.${stream}.log`));
const labelled = async () =>
  await new Docker({ socketPath: engine.unix.slice(7) }).listContainers({ all: true, filters: JSON.stringify({ label: [LABEL.runId] }) });

describe('runner on a real Docker engine with the fake vLLM image', function () {
  this.timeout(180_000);

  before(async function () {
    const missing = missingPrerequisites();
    if (missing.length) {
      if (process.env.CI === 'true') throw new Error(`Docker suite prerequisites missing: ${missing.join('; ')}`);
      console.warn(`skipping the Docker suite: ${missing.join('; ')}`);
      this.skip();
    }
    engine = await startEngine();
    // Leftovers of an earlier suite that was killed half-way (the engine's data root is reused).
    const docker = new Docker({ socketPath: engine.unix.slice(7) });
    for (const c of await labelled()) await docker.getContainer(c.Id).remove({ force: true });
    buildFakeImage(engine.unix);
    fx = makeRunFixture();
  });

  after(async function () {
    removeRunFixtures();
    if (!engine) return;
    const left = await labelled();
    await engine.stop();
    assert.deepEqual(
      left.map(c => c.Names),
      [],
      'containers labelled bench-triage.run-id left behind',
    );
  });

  it('run --role all produces three results with complete logs; scan lists them with provenance', function () {
    const r = cli(...runArgs(fx.folder, 'all', '--host', engine.unix));
    assert.equal(r.status, 0, r.stderr);
    const results = r.stdout.trim().split('\n');
    assert.equal(results.length, 3);
    for (const f of results) {
      const res = readJson(f);
      assert.equal(res.schema, 'bench-triage.run/v1');
      assert.equal(res.status, 'succeeded', `${res.role}: ${res.error}`);
      assert.ok(res.metrics.request_throughput_req_s > 0 && res.metrics.ttft_mean_ms > 0, JSON.stringify(res.metrics));
      const dir = path.dirname(f);
      assert.match(readFileSync(path.join(dir, 'logs/benchmark.stdout.log'), 'utf8'), /=+ Serving Benchmark Result =+\nSuccessful requests: +20/);
      assert.match(readFileSync(path.join(dir, 'logs/server.stdout.log'), 'utf8'), /vLLM API server version/);
      assert.match(readFileSync(path.join(dir, 'logs/server.stderr.log'), 'utf8'), /Uvicorn running on/);
      const rec = readJson(path.join(dir, 'run.json'));
      assert.match(rec.benchmarkScripts, new RegExp(`git archive ${res.role === 'human' ? fx.human : fx.parent} benchmarks`));
      if (res.role === 'agent') assert.match(readFileSync(path.join(dir, 'logs/patch.stdout.log'), 'utf8'), /AGENT_PATCH_APPLIED/);
    }
    const s = cli('scan', fx.folder, '--runs');
    assert.equal(s.status, 0, s.stderr);
    for (const role of ['baseline', 'human', 'agent'])
      assert.match(
        s.stdout,
        new RegExp(
          `run +${fx.human.slice(0, 12)} ${role} +success +BT1/bench-triage \\.bench-triage/runs/${fx.human.slice(0, 8)}/${role}/.*result\\.json \\(image ${IMAGE.replace(/[/.]/g, '\\$&')}`,
        ),
      );
    assert.match(s.stdout, /0 unknown/);
  });

  it('runs through tcp:// with TLS client certificates; a wrong CA and a refused port give one-line errors naming the host', function () {
    const tls = ['--tls-ca', engine.certs.ca, '--tls-cert', engine.certs.cert, '--tls-key', engine.certs.key];
    const ok = cli(...runArgs(fx.folder, 'human', '--host', engine.tcp, ...tls));
    assert.equal(ok.status, 0, ok.stderr);
    assert.equal(readJson(ok.stdout.trim()).status, 'succeeded');
    const wrong = cli(
      ...runArgs(
        fx.folder,
        'human',
        '--host',
        engine.tcp,
        '--label',
        'h100-tls',
        '--tls-ca',
        engine.certs.wrongCa,
        '--tls-cert',
        engine.certs.cert,
        '--tls-key',
        engine.certs.key,
      ),
    );
    assert.equal(wrong.status, 1);
    const wrongErr = readJson(wrong.stdout.trim()).error as string;
    assert.match(wrongErr, new RegExp(`^h100-tls \\(${engine.tcp}\\): TLS handshake failed .*check the CA`));
    assert.ok(!wrongErr.includes('\n'));
    const refused = cli(...runArgs(fx.folder, 'human', '--host', 'tcp://127.0.0.1:9', '--label', 'h100-down'));
    assert.match(readJson(refused.stdout.trim()).error, /^h100-down \(tcp:\/\/127\.0\.0\.1:9\): connection refused/);
  });

  it('runs through ssh:// to an sshd on loopback; a rejected key and an unknown host key give clear errors', function () {
    const ok = cli(...runArgs(fx.folder, 'human', '--host', engine.ssh.url, '--ssh-key', engine.ssh.key, '--known-hosts', engine.ssh.knownHosts));
    assert.equal(ok.status, 0, ok.stderr);
    assert.equal(readJson(ok.stdout.trim()).status, 'succeeded');
    const bad = cli(
      ...runArgs(fx.folder, 'human', '--host', engine.ssh.url, '--label', 'h100-ssh', '--ssh-key', engine.ssh.wrongKey, '--known-hosts', engine.ssh.knownHosts),
    );
    assert.match(readJson(bad.stdout.trim()).error, new RegExp(`^h100-ssh \\(${engine.ssh.url}\\): SSH authentication failed`));
    const unknown = cli(
      ...runArgs(fx.folder, 'human', '--host', engine.ssh.url, '--label', 'h100-ssh', '--ssh-key', engine.ssh.key, '--known-hosts', '/dev/null'),
    );
    assert.match(readJson(unknown.stdout.trim()).error, /^h100-ssh \(ssh:.*\): 127\.0\.0\.1 is not in \/dev\/null/);
  });

  it('refuses before anything runs: TP 8 on one GPU, GPUs without an NVIDIA runtime, placeholders, shell operators', function () {
    const before = readdirSync(fx.folder).length;
    const tp = makeRunFixture('python benchmarks/benchmark_latency.py --model facebook/opt-125m --tensor-parallel-size 8');
    const r1 = spawnSync(
      process.execPath,
      [CLI, 'run', '--folder', tp.folder, '--commit', tp.human, '--role', 'human', '--gpus', '1', '--host', engine.unix, ...IMAGES],
      { encoding: 'utf8' },
    );
    assert.equal(r1.status, 1);
    assert.match(r1.stderr, /human: refused: .*tensor-parallel size 8 needs 8 GPUs; the configured host has 1/);
    assert.ok(!existsSync(path.join(tp.folder, '.bench-triage')));
    const r2 = cli(...runArgs(fx.folder, 'human', '--host', engine.unix, '--gpus', '1', '--label', 'no-nvidia'));
    const res2 = readJson(r2.stdout.trim());
    assert.equal(res2.status, 'refused');
    assert.match(res2.error, /no-nvidia \(unix:.*\) has no NVIDIA container runtime/);
    assert.equal(readJson(path.join(path.dirname(r2.stdout.trim()), 'run.json')).containerId, null, 'no container was created');
    for (const [cmd, re] of [
      ['python benchmarks/benchmark_latency.py --model MODEL --batch-size BS', /placeholder MODEL/],
      ['python benchmarks/benchmark_serving.py --model x; rm -rf /', /shell operator ";"/],
    ] as const) {
      const f = makeRunFixture(cmd);
      const r = spawnSync(
        process.execPath,
        [CLI, 'run', '--folder', f.folder, '--commit', f.human, '--role', 'all', '--gpus', '0', '--host', engine.unix, ...IMAGES],
        { encoding: 'utf8' },
      );
      assert.equal(r.status, 1);
      assert.match(r.stderr, re);
      assert.ok(!existsSync(path.join(f.folder, '.bench-triage')), 'nothing ran');
    }
    assert.equal(readdirSync(fx.folder).length, before);
  });

  it('aimv2: the real traceback without the recipe, success with it, and the recipe recorded', async function () {
    const bad = await runInProcess({ env: { FAKE_VLLM_FAULT: 'aimv2' } });
    assert.equal(bad.status, 'failed');
    assert.match(logOf(bad, fx.folder, 'server', 'stderr').toString(), /ValueError: 'aimv2' is already used by a Transformers config, pick another name\./);
    const cls = cli('classify-log', path.join(fx.folder, bad.plan.resultDir, 'logs/server.stderr.log'), '--json');
    assert.match(cls.stdout, /aimv2/);
    const good = await runInProcess({ env: { FAKE_VLLM_FAULT: 'aimv2' }, recipes: ['aimv2-exist-ok'] });
    assert.equal(good.status, 'succeeded', good.error ?? '');
    assert.deepEqual(readJson(path.join(fx.folder, good.plan.resultDir, 'run.json')).recipes, ['aimv2-exist-ok']);
    assert.deepEqual(readJson(path.join(fx.folder, good.plan.resultDir, 'result.json')).fixes, ['aimv2-exist-ok']);
    assert.match(logOf(good, fx.folder, 'setup-aimv2-exist-ok', 'stdout').toString(), /patched .*ovis\.py/);
  });

  it('the fake image fails like real runs: CUDA OOM, server never ready, crash mid-benchmark, port bug — each classified', async function () {
    const cases: Array<[string, RegExp, string, RegExp, string | null]> = [
      ['oom', /the vLLM server exited with code 1 before it was ready/, 'server.stderr.log', /torch\.OutOfMemoryError: CUDA out of memory/, 'gpu-oom'],
      ['never-ready', /SERVER_TIMEOUT: the vLLM server was not ready within 8 s/, 'server.stdout.log', /Capturing the model for CUDA graphs/, null],
      ['crash-mid', /the benchmark exited with code 1/, 'server.stderr.log', /CUDA error: an illegal memory access was encountered/, 'cuda-incompatible'],
      [
        'port-bug',
        /the vLLM server exited with code 1 before it was ready/,
        'server.stderr.log',
        /OSError: \[Errno 98\] error while attempting to bind on address/,
        'version-bug',
      ],
    ];
    for (const [fault, err, log, text, category] of cases) {
      const r = await runInProcess({ env: { FAKE_VLLM_FAULT: fault, FAKE_VLLM_CRASH_AFTER: '5' }, serverTimeoutS: 8 });
      assert.equal(r.status, 'failed', fault);
      assert.match(r.error!, err, fault);
      const file = path.join(fx.folder, r.plan.resultDir, 'logs', log);
      assert.match(readFileSync(file, 'utf8'), text, fault);
      if (category === 'version-bug') {
        // The bind error alone is a busy port; with the version the server printed on stdout (a
        // `2>&1` capture holds both) it is #8791 of vLLM 0.6.x.
        assert.equal(JSON.parse(cli('classify-log', file, '--json').stdout)[0].category, 'infra-transient', fault);
        const both = path.join(fx.folder, r.plan.resultDir, 'logs', 'server.both.log');
        writeFileSync(both, readFileSync(path.join(fx.folder, r.plan.resultDir, 'logs', 'server.stdout.log'), 'utf8') + readFileSync(file, 'utf8'));
        assert.equal(JSON.parse(cli('classify-log', both, '--json').stdout)[0].category, category, fault);
      } else if (category) assert.equal(JSON.parse(cli('classify-log', file, '--json').stdout)[0].category, category, fault);
    }
  });

  it('an agent patch that does not apply ends as agent-patch-failed with the rejected hunk in its log', function () {
    const r = cli(
      'run',
      '--folder',
      fx.badPatchFolder,
      '--commit',
      fx.human,
      '--role',
      'agent',
      '--gpus',
      '0',
      '--host',
      engine.unix,
      '--checkout',
      fx.checkout,
      ...IMAGES,
    );
    assert.equal(r.status, 1);
    const res = readJson(r.stdout.trim());
    assert.equal(res.status, 'agent-patch-failed');
    const log = readFileSync(path.join(path.dirname(r.stdout.trim()), 'logs/patch.stderr.log'), 'utf8');
    assert.match(log, /error: patch failed: vllm\/logger\.py:\d+/);
    assert.match(log, /while searching for:[\s\S]*clock\.strftime/);
    assert.ok(!existsSync(path.join(path.dirname(r.stdout.trim()), 'logs/benchmark.stdout.log')), 'nothing ran after the failed patch');
  });

  it('an agent patch that also touches csrc/ on an installed-package image ends agent-patch-failed, naming the file', function () {
    const folder = path.join(path.dirname(fx.folder), 'results-csrc-patch');
    cpSync(fx.folder, folder, { recursive: true, filter: src => !src.includes('.bench-triage') });
    const item = path.join(folder, 'state/runs/vllm/claude_code/default/2026-11-22_10-00-00/vllm_core-0000/model_patch.diff');
    const kernel = [
      'diff --git a/csrc/layernorm_kernels.cu b/csrc/layernorm_kernels.cu',
      'new file mode 100644',
      '--- /dev/null',
      '+++ b/csrc/layernorm_kernels.cu',
      '@@ -0,0 +1,2 @@',
      '+// agent: fused kernel',
      '+__global__ void fused() {}',
      '',
    ].join('\n');
    writeFileSync(item, readFileSync(item, 'utf8') + kernel);
    const r = cli(
      'run',
      '--folder',
      folder,
      '--commit',
      fx.human,
      '--role',
      'agent',
      '--gpus',
      '0',
      '--host',
      engine.unix,
      '--checkout',
      fx.checkout,
      ...IMAGES,
    );
    assert.equal(r.status, 1, r.stderr);
    const res = readJson(r.stdout.trim());
    assert.equal(res.status, 'agent-patch-failed');
    assert.match(res.error, /csrc\/layernorm_kernels\.cu cannot be applied to an installed vLLM \(compiled kernels: the change needs a rebuild/);
    assert.ok(!existsSync(path.join(path.dirname(r.stdout.trim()), 'logs/benchmark.stdout.log')), 'nothing was measured');
    // The vllm/ part alone was not applied either: the package in the image is as it was.
    assert.doesNotMatch(readFileSync(path.join(path.dirname(r.stdout.trim()), 'logs/patch.stdout.log'), 'utf8'), /AGENT_PATCH_APPLIED/);
    const e = JSON.parse(cli('classify', folder, '--json').stdout).find((x: { commit: string }) => x.commit === fx.human);
    assert.equal(e.roles.agent.category, 'agent-patch-failed');
  });

  it('every serving run keeps per-request samples (the runner adds --save-detailed where the script takes it), and a single attempt per role gets a per-request verdict', function () {
    // The perf command does not ask for them: the plan adds --save-detailed (scripts from the checkout),
    // the runner checks the image's script at launch (no checkout).
    const detailed = makeRunFixture(
      'python benchmarks/benchmark_serving.py --model facebook/opt-125m --dataset-name random --random-input-len 32 --random-output-len 16 --num-prompts 30',
    );
    const r = cli(
      'run',
      '--folder',
      detailed.folder,
      '--commit',
      detailed.human.slice(0, 10),
      '--role',
      'all',
      '--gpus',
      '0',
      '--host',
      engine.unix,
      '--checkout',
      detailed.checkout,
      ...IMAGES,
    );
    assert.equal(r.status, 0, r.stderr);
    for (const f of r.stdout.trim().split('\n')) {
      const res = readJson(f);
      assert.equal(res.samples.ttft_mean_ms.length, 30, `${res.role}: ${JSON.stringify(Object.keys(res.samples ?? {}))}`);
      assert.equal(res.samples.tpot_mean_ms.length, 30);
    }
    const fromImage = cli(
      'run',
      '--folder',
      detailed.badPatchFolder,
      '--commit',
      detailed.human.slice(0, 10),
      '--role',
      'human',
      '--gpus',
      '0',
      '--host',
      engine.unix,
      ...IMAGES,
    );
    assert.equal(fromImage.status, 0, fromImage.stderr);
    const res = readJson(fromImage.stdout.trim());
    assert.equal(res.samples.ttft_mean_ms.length, 30, 'the image’s script takes --save-detailed: asked at launch');
    assert.match(
      readFileSync(path.join(path.dirname(fromImage.stdout.trim()), 'logs/runner.log'), 'utf8'),
      /benchmark_serving\.py takes --save-detailed: added/,
    );
    const e = JSON.parse(cli('classify', detailed.folder, '--json').stdout).find((x: { commit: string }) => x.commit === detailed.human);
    const ttft = e.comparison.metrics.find((m: { key: string }) => m.key === 'ttft_mean_ms');
    assert.equal(ttft.basis, 'per-request');
    assert.equal(ttft.ci.length, 2);
    assert.ok(ttft.p >= 0 && ttft.p <= 1);
  });

  it('a server that floods its logs and dies before it is ready: the run ends once the last bytes are on disk, the traceback that says why included', async function () {
    this.timeout(300_000);
    const mb = 400;
    const r = await runInProcess({ env: { FAKE_VLLM_FAULT: 'server-flood,oom', FAKE_VLLM_FLOOD_MB: String(mb) }, serverTimeoutS: 120 });
    assert.equal(r.status, 'failed');
    assert.match(r.error!, /the vLLM server exited with code 1 before it was ready/);
    const expected = spawnSync('/usr/bin/python3', [path.join(FAKE_VLLM, 'rootfs/opt/fakevllm/fakevllm_flood.py'), String(mb)], { maxBuffer: 1 << 30 });
    const err = path.join(fx.folder, r.plan.resultDir, 'logs', 'server.stderr.log');
    // The flood's half on stderr, then the exception: the log's end is the traceback's last line.
    assert.ok(statSync(err).size > expected.stderr.length, `${statSync(err).size} ≤ ${expected.stderr.length}`);
    const fh = await fsp.open(err, 'r');
    try {
      const tail = Buffer.alloc(4096);
      const { bytesRead } = await fh.read(tail, 0, 4096, statSync(err).size - 4096);
      assert.match(tail.subarray(0, bytesRead).toString('latin1').trimEnd().split('\n').at(-1) ?? '', /^torch\.OutOfMemoryError: CUDA out of memory/);
    } finally {
      await fh.close();
    }
    assert.equal(statSync(path.join(fx.folder, r.plan.resultDir, 'logs', 'server.stdout.log')).size >= expected.stdout.length, true);
  });

  it('500 MB of output (non-UTF-8, 1 MB lines) is on disk byte-identical, stdout and stderr separated', async function () {
    this.timeout(600_000);
    const mb = 500;
    const r = await runInProcess({ env: { FAKE_VLLM_FAULT: 'flood', FAKE_VLLM_FLOOD_MB: String(mb) } });
    assert.equal(r.status, 'succeeded', r.error ?? '');
    // The same generator run here gives the expected streams.
    const expected = spawnSync('/usr/bin/python3', [path.join(FAKE_VLLM, 'rootfs/opt/fakevllm/fakevllm_flood.py'), String(mb)], { maxBuffer: 1 << 30 });
    for (const [stream, want] of [
      ['stdout', expected.stdout],
      ['stderr', expected.stderr],
    ] as const) {
      const file = path.join(fx.folder, r.plan.resultDir, 'logs', `benchmark.${stream}.log`);
      assert.ok(statSync(file).size >= want.length, `${stream}: ${statSync(file).size} < ${want.length}`);
      const got = await prefixHash(file, want.length);
      assert.equal(got, sha(want), `${stream} differs from what the container wrote`);
    }
    assert.equal(expected.stdout.length + expected.stderr.length >= mb * 1024 * 1024, true);
  });

  it('container killed mid-benchmark → failed, exit code recorded, partial logs kept', async function () {
    const docker = new Docker({ socketPath: engine.unix.slice(7) });
    const r = await runInProcess({
      env: { FAKE_VLLM_BENCH_SECONDS: '30' },
      during: rec => {
        setTimeout(() => void docker.getContainer(rec.containerId!).kill(), 2500);
      },
    });
    assert.equal(r.status, 'failed');
    assert.equal(r.exitCode, 137);
    assert.match(r.error!, /stopped \(exit code 137, killed\) during benchmark; partial logs kept/);
    assert.match(logOf(r, fx.folder, 'benchmark', 'stdout').toString(), /Starting initial single prompt test run/);
    assert.match(logOf(r, fx.folder, 'server', 'stdout').toString(), /vLLM API server version/);
  });

  it('cancel → container gone within 10 s, state cancelled, logs kept', async function () {
    const ctl = new AbortController();
    let cancelledAt = 0;
    let id = '';
    const r = await runInProcess({
      env: { FAKE_VLLM_BENCH_SECONDS: '60' },
      signal: ctl.signal,
      during: rec => {
        id = rec.containerId!;
        setTimeout(() => {
          cancelledAt = Date.now();
          ctl.abort();
        }, 2000);
      },
    });
    const gone = await new DockerRuntime(host()).inspect(id);
    assert.equal(gone, null);
    assert.ok(Date.now() - cancelledAt < 10_000, `took ${Date.now() - cancelledAt} ms`);
    assert.equal(r.status, 'cancelled');
    assert.ok(logOf(r, fx.folder, 'benchmark', 'stdout').length > 0);
  });

  it('a second runner re-attaches to a run in flight and completes it, without losing or repeating output', async function () {
    await killedMidBenchmark(2000);
    const r = cli('resume', '--folder', fx.folder, '--host', engine.unix, '--gpus', '0');
    assert.equal(r.status, 0, r.stderr);
    const result = r.stdout.trim();
    assert.equal(readJson(result).status, 'succeeded');
    const out = readFileSync(path.join(path.dirname(result), 'logs/benchmark.stdout.log'), 'utf8');
    assert.equal(out.match(/Starting initial single prompt test run/g)?.length, 1);
    assert.equal(out.match(/Serving Benchmark Result/g)?.length, 1);
    assert.match(readFileSync(path.join(path.dirname(result), 'logs/runner.log'), 'utf8'), /re-attached by a new runner/);
  });

  it('two re-attach passes of one process at once (a window’s own and a Resume Campaign’s): one drives the run, the other leaves it', async function () {
    await killedMidBenchmark(0);
    const pass = () => new Runner(new DockerRuntime(host()), new HostQueue(0), {}).resume(fx.folder);
    const [a, b] = await Promise.all([pass(), pass()]);
    assert.equal(a.length + b.length, 1, 'one pass completed the run, the other passed it over');
    const rec = [...a, ...b][0]!;
    assert.equal(rec.status, 'succeeded', rec.error ?? '');
    const dir = path.resolve(fx.folder, rec.plan.resultDir);
    const runner = readFileSync(path.join(dir, 'logs/runner.log'), 'utf8');
    assert.equal(runner.match(/re-attached by a new runner/g)?.length, 1, runner);
    const out = readFileSync(path.join(dir, 'logs/benchmark.stdout.log'), 'utf8');
    assert.equal(out.match(/Serving Benchmark Result/g)?.length, 1);
  });

  it("the helper launches a phase once per container: a second launch (a runner re-attaching) and a launch the container claimed (a cluster slot's first phase) run nothing more", async function () {
    const rt = new DockerRuntime(host());
    const id = await rt.create({ image: IMAGE, name: `bt-once-${Date.now()}`, labels: {}, env: {}, cmd: ['sleep', '300'], gpuIds: [] });
    try {
      await rt.start(id);
      await rt.putArchive(id, '/', await tarOf([helperFile()]));
      const sh = async (...argv: string[]) => {
        const out = await rt.exec(id, argv);
        assert.equal(out.exitCode, 0, out.stderr.toString());
        return out.stdout.toString();
      };
      const launch = (how: string, phase: string) => sh('python3', C.helper, how, phase, '/', '--', 'sh', '-c', `echo ran >> /tmp/${phase}`);
      await launch('launch', 'one');
      await launch('launch', 'one');
      assert.equal(await sh('cat', '/tmp/one'), 'ran\n', 'launched twice, ran once');
      // Claimed by the container (its marker made before it launched): the runner's own launch does nothing.
      await sh('sh', '-c', `mkdir -p ${C.logs} && : > ${C.logs}/two.launched`);
      await launch('launch', 'two');
      assert.equal(await sh('sh', '-c', 'cat /tmp/two 2>/dev/null || echo none'), 'none\n');
      await launch('launch-claimed', 'two');
      await launch('launch', 'two');
      assert.equal(await sh('cat', '/tmp/two'), 'ran\n');
      assert.equal(await sh('cat', `${C.logs}/two.exit`), '0');
    } finally {
      await rt.remove(id);
    }
  });

  it("a swarm slot's run whose files come as the swarm's secrets, on the real engine: its command unpacks the pieces, joined, before anything (bytes, a 0400 secret, the go) and takes the GPUs with nothing put in; a corrupt piece ends it with a message naming the secrets", async function () {
    const docker = new Docker({ socketPath: engine.unix.slice(7) });
    const volume = `bt-slot-files-${Date.now()}`;
    const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'bench-triage-test-secrets-'));
    const made: string[] = [];
    const rt = new DockerRuntime(host());
    // What the swarm would mount: each piece a read-only file at /run/secrets/FILES_SECRET.i.
    const container = async (name: string, pieces: Buffer[]) => {
      const mounts = pieces.map((b, i) => {
        const f = path.join(dir, `${name}.${i}`);
        writeFileSync(f, b);
        return { Type: 'bind' as const, Source: f, Target: `/run/secrets/${FILES_SECRET}.${i}`, ReadOnly: true };
      });
      const c = await docker.createContainer({
        Image: IMAGE,
        name: `${volume}-${name}`,
        Env: ['BENCH_TRIAGE_SLOT=s1', `${FILES_ENV}=${pieces.length}`],
        Cmd: ['python3', '-c', KEEPER, 'python3', C.helper, 'idle'],
        HostConfig: { Mounts: [{ Type: 'volume', Source: volume, Target: SLOT_DIR }, ...mounts] },
      });
      made.push(c.id);
      await c.start();
      return c;
    };
    try {
      const token = Buffer.from([0, 1, 2, 0xff, 0xfe, 10, 13, 0x80]);
      const tar = await joinTars([
        { dir: '/', tar: await tarOf([helperFile(), { name: 'bench-triage/secrets/hf_token', body: token, mode: 0o400 }]) },
        { dir: '/', tar: await tarOf([{ name: GO_NOW, body: '' }], { bare: true }) },
        { dir: '/', tar: await tarOf([{ name: READY, body: '' }], { bare: true }) },
      ]);
      const gz = gzipSync(tar);
      const half = Math.ceil(gz.length / 2);
      const ok = await container('ok', [gz.subarray(0, half), gz.subarray(half)]);
      for (let i = 0; !(await rt.hasPath(ok.id, HELD)); i++) {
        assert.ok(i < 200, `the run took its GPUs: ${(await ok.logs({ stdout: true, stderr: true })).toString()}`);
        await new Promise(r => setTimeout(r, 50));
      }
      const got = await rt.exec(ok.id, [
        'python3',
        '-c',
        'import os,sys;p="/bench-triage/secrets/hf_token";sys.stdout.buffer.write(open(p,"rb").read());print(oct(os.stat(p).st_mode&0o777))',
      ]);
      assert.deepEqual(got.stdout.subarray(0, token.length), token, "the secret's bytes");
      assert.equal(got.stdout.subarray(token.length).toString().trim(), '0o400');
      assert.equal((await rt.exec(ok.id, ['test', '-f', C.helper])).exitCode, 0, 'the helper unpacked');
      const bad = await container('bad', [Buffer.concat([gz.subarray(0, half), Buffer.from('not the rest')])]);
      const end = (await bad.wait()) as { StatusCode: number };
      assert.equal(end.StatusCode, 1);
      assert.match((await bad.logs({ stdout: true, stderr: true })).toString(), /bench-triage: cannot unpack the run's files from the swarm's secrets: /);
      assert.equal(await rt.hasPath(bad.id, READY), false, 'nothing said ready');
      // What the runtime says of a run whose command ended before it was ready.
      assert.match(await rt.lastOutput(bad.id), /^bench-triage: cannot unpack the run's files from the swarm's secrets: .+$/);
    } finally {
      await removeSlotTest(rt, docker, made, volume);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a swarm slot's hand-over, on the real engine: the next run waits on the lock and takes the GPUs the moment no process of the run before is left; after a death with no hand-over it waits for the go; one first in line (the go put with its files) goes with no signal, the lock still ruling", async function () {
    const docker = new Docker({ socketPath: engine.unix.slice(7) });
    const volume = `bt-slot-test-${Date.now()}`;
    const made: string[] = [];
    const rt = new DockerRuntime(host());
    const container = (name: string, first?: string[], goNow = false) => slotContainer(docker, rt, { volume, made }, name, first, goNow);
    const held = (id: string) => rt.hasPath(id, HELD);
    const cat = async (id: string, file: string) => (await rt.exec(id, ['cat', file])).stdout.toString();
    const waitFor = async (what: string, ok: () => Promise<boolean>) => {
      for (let i = 0; !(await ok()); i++) {
        assert.ok(i < 300, what);
        await new Promise(r => setTimeout(r, 20));
      }
    };
    const processes = async (id: string) => ((await docker.getContainer(id).top()) as { Processes?: string[][] }).Processes ?? [];
    try {
      // A: a server whose process tree holds "the GPUs" (a child that ignores SIGTERM too).
      const a = await container('a', ['python3', C.helper, 'launch-claimed', 'server', '/', '--', 'sh', '-c', "trap '' TERM; sleep 300 & sleep 300"]);
      await rt.signal(a, GO_SIGNAL);
      await waitFor('a holds the GPUs', () => held(a));
      await waitFor("a's server and its child run", async () => (await processes(a)).length >= 4);
      // B, told it is next, waits on the lock: no go, and nothing held while A's processes live.
      const b = await container('b');
      await rt.signal(b, NEXT_SIGNAL);
      await new Promise(r => setTimeout(r, 700));
      assert.equal(await held(b), false, 'b took the GPUs while a held them');
      await rt.signal(a, GIVE_BACK_SIGNAL);
      await waitFor('b holds the GPUs after the hand-over, without a go', () => held(b));
      const freedA = Number(await cat(a, FREED));
      const heldB = Number(await cat(b, HELD));
      assert.ok(freedA > 0 && heldB >= freedA, `b took them (${heldB}) after a gave them back (${freedA})`);
      assert.ok(heldB - freedA < 0.5, `b took them ${((heldB - freedA) * 1000).toFixed(0)} ms after: the lock's wake, no round trip`);
      const left = await processes(a);
      assert.equal(left.length, 1, `only a's first process is left: ${JSON.stringify(left)}`);
      assert.match(left[0]!.join(' '), /bt_helper\.py idle|idle/);
      assert.equal((await docker.getContainer(a).inspect()).State.Running, true, 'a is still there: its removal is off the hand-over');
      // C next after B; B dies abruptly (killed: its first process goes before the others, no token):
      // C gets the lock but waits for the go.
      const c = await container('c');
      await rt.signal(c, NEXT_SIGNAL);
      await new Promise(r => setTimeout(r, 300));
      await docker.getContainer(b).kill();
      await new Promise(r => setTimeout(r, 700));
      assert.equal(await held(c), false, 'c took the GPUs after a death with no hand-over, before the go');
      // D, first in line as its files went in (the go put beside them): no signal at all, but the lock still rules.
      const d = await container('d', undefined, true);
      await new Promise(r => setTimeout(r, 500));
      assert.equal(await held(d), false, 'd took the GPUs while c held the lock');
      await rt.signal(c, GO_SIGNAL);
      await waitFor('c holds the GPUs after the go', () => held(c));
      await docker.getContainer(c).kill();
      await waitFor('d holds the GPUs once c is gone, with no signal sent to it', () => held(d));
    } finally {
      await removeSlotTest(rt, docker, made, volume);
    }
  });

  it("a swarm slot's run asked to withdraw (moved to a slot that freed first), on the real engine: waiting for its go or on the lock it ends at once with its own code, nothing launched and the lock let go; holding the lock before its go it withdraws too; holding the GPUs it ignores the ask and its phase runs on", async function () {
    const docker = new Docker({ socketPath: engine.unix.slice(7) });
    const volume = `bt-slot-withdraw-${Date.now()}`;
    const made: string[] = [];
    const rt = new DockerRuntime(host());
    const container = (name: string, first?: string[]) => slotContainer(docker, rt, { volume, made }, name, first);
    const ended = async (id: string) => {
      const end = (await Promise.race([
        docker.getContainer(id).wait(),
        new Promise(r => setTimeout(() => r({ StatusCode: 'still running after 5 s' }), 5000)),
      ])) as { StatusCode: number | string };
      return end.StatusCode;
    };
    try {
      // A holds the GPUs and runs its first phase (a long sleep).
      const a = await container('a', ['sleep', '300']);
      await rt.signal(a, GO_SIGNAL);
      for (let i = 0; !(await rt.hasPath(a, HELD)); i++) {
        assert.ok(i < 200, 'a holds the GPUs');
        await new Promise(r => setTimeout(r, 50));
      }
      // B waits for its go (never told anything); C, told it is next, waits on the lock A holds.
      const b = await container('b', ['sh', '-c', 'echo launched > /tmp/b']);
      const c = await container('c', ['sh', '-c', 'echo launched > /tmp/c']);
      await rt.signal(c, NEXT_SIGNAL);
      await new Promise(r => setTimeout(r, 300));
      await rt.signal(b, WITHDRAW_SIGNAL);
      await rt.signal(c, WITHDRAW_SIGNAL);
      assert.equal(await ended(b), WITHDRAWN_EXIT, 'b, waiting for its go, withdrew');
      assert.equal(await ended(c), WITHDRAWN_EXIT, 'c, waiting on the lock, withdrew');
      for (const [name, id] of [
        ['b', b],
        ['c', c],
      ] as const) {
        const info = await docker.getContainer(id).inspect();
        assert.equal(info.State.ExitCode, WITHDRAWN_EXIT, name);
        // Nothing of the run launched: no marker of its first phase, no GPUs said held.
        assert.equal(await rt.hasPath(id, `${C.logs}/server.launched`), false, `${name}: its first phase was not claimed`);
        assert.equal(await rt.hasPath(id, `/tmp/${name}`), false, `${name}: its first phase did not run`);
        assert.equal(await rt.hasPath(id, HELD), false, `${name}: never said it held the GPUs`);
      }
      // A, holding the GPUs (its command is the helper by then), ignores the ask: still running, its phase still there.
      await rt.signal(a, WITHDRAW_SIGNAL);
      await new Promise(r => setTimeout(r, 500));
      const infoA = await docker.getContainer(a).inspect();
      assert.equal(infoA.State.Running, true, 'a goes on');
      const procs = (((await docker.getContainer(a).top()) as { Processes?: string[][] }).Processes ?? []).map(p => p.join(' '));
      assert.ok(
        procs.some(p => /sleep 300/.test(p)),
        `a's first phase runs on: ${procs.join(' | ')}`,
      );
      // E, told it is next, gets the lock as A dies with no hand-over and waits for its go holding
      // it: not committed yet, it still withdraws, and lets go of the lock as it ends.
      const e = await container('e', ['sh', '-c', 'echo launched > /tmp/e']);
      await rt.signal(e, NEXT_SIGNAL);
      await new Promise(r => setTimeout(r, 300));
      await docker.getContainer(a).kill();
      await new Promise(r => setTimeout(r, 700));
      assert.equal(await rt.hasPath(e, HELD), false, 'e waits for its go');
      await rt.signal(e, WITHDRAW_SIGNAL);
      assert.equal(await ended(e), WITHDRAWN_EXIT, 'e, holding the lock before its go, withdrew');
      assert.equal(await rt.hasPath(e, '/tmp/e'), false, 'e launched nothing');
      // The lock is free: D, given the go, takes it.
      const d = await container('d');
      await rt.signal(d, GO_SIGNAL);
      for (let i = 0; !(await rt.hasPath(d, HELD)); i++) {
        assert.ok(i < 200, 'd holds the GPUs: the withdrawn runs left the lock free');
        await new Promise(r => setTimeout(r, 50));
      }
    } finally {
      await removeSlotTest(rt, docker, made, volume);
    }
  });

  it("a swarm node's watch of task containers opened with a start time replays a container made before it opened (a run pinned while its node's stream opened), and one without does not", async function () {
    this.timeout(60_000);
    const d = new Docker({ socketPath: engine.unix.slice(7) });
    const service = `svc${Date.now()}`;
    const c = await d.createContainer({ Image: IMAGE, Cmd: ['true'], Labels: { [LABEL.runId]: 'watch-test', 'com.docker.swarm.service.id': service } });
    const seen = (sinceMs?: number) => {
      const got: Array<[string, string, string]> = [];
      const stop = new DockerRuntime(host()).watchTaskContainers(LABEL.runId, (svc, id, action) => got.push([svc, id, action]), ['create'], sinceMs);
      return { got, stop };
    };
    const replayed = seen(Date.now() - 60_000);
    const live = seen();
    try {
      for (let i = 0; i < 100 && !replayed.got.length; i++) await new Promise(r => setTimeout(r, 50));
      assert.deepEqual(replayed.got, [[service, c.id, 'create']]);
      // The same engine, the stream open by now (the replayed one answered): nothing for the one without a start time.
      await new Promise(r => setTimeout(r, 500));
      assert.deepEqual(live.got, []);
    } finally {
      replayed.stop();
      live.stop();
      await c.remove({ force: true });
    }
  });

  it('runs per host ≤ its capacity: the second run waits in the queue', async function () {
    const queue = new HostQueue(0, 1);
    const starts: Record<string, number> = {};
    const ends: Record<string, number> = {};
    const events: RunEvents = {
      state: rec => {
        if (rec.status === 'preflight') starts[rec.runId] = Date.now();
        if (rec.endedAt) ends[rec.runId] = Date.now();
      },
    };
    const [a, b] = await Promise.all([runInProcess({ queue, events }), runInProcess({ queue, events })]);
    assert.equal(a.status, 'succeeded');
    assert.equal(b.status, 'succeeded');
    assert.ok(starts[b.runId] >= ends[a.runId] - 50 || starts[a.runId] >= ends[b.runId] - 50, 'the two runs overlapped');
  });

  it("a secret reaches the run's processes but not docker inspect, its name is in run.json, its value masked in every stored byte", async function () {
    const token = 'hf_TestTokenThatMustNotLeak123';
    let inspected = '';
    const docker = new Docker({ socketPath: engine.unix.slice(7) });
    const r = await runInProcess({
      env: { FAKE_VLLM_FAULT: 'leak-token' },
      secretEnv: { HF_TOKEN: token },
      during: rec => {
        void docker
          .getContainer(rec.containerId!)
          .inspect()
          .then(i => {
            inspected = JSON.stringify(i);
          });
      },
    });
    assert.equal(r.status, 'succeeded', r.error ?? '');
    assert.ok(inspected.length > 100, 'the container was inspected');
    assert.ok(!inspected.includes(token), 'docker inspect shows the token');
    assert.deepEqual(r.secretNames, ['HF_TOKEN']);
    const dir = path.join(fx.folder, r.plan.resultDir);
    for (const f of storedFiles(dir)) assert.ok(!readFileSync(f, 'utf8').includes(token), `${f} contains the token`);
    // The processes did get it: what they printed is there, masked at the token's length.
    assert.match(logOf(r, fx.folder, 'server', 'stdout').toString(), /with token \*{30}/);
  });

  it('after a crash, resume masks the secret too (values from the container when not given again)', async function () {
    const token = 'hf_ResumeTokenMustNotLeak4567';
    const child = spawn(
      process.execPath,
      [
        CLI,
        ...runArgs(
          fx.folder,
          'human',
          '--host',
          engine.unix,
          '--env',
          'FAKE_VLLM_BENCH_SECONDS=8',
          '--env',
          'FAKE_VLLM_FAULT=leak-token',
          '--secret-env',
          'HF_TOKEN',
        ),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, DOCKER_HOST: '', HF_TOKEN: token } },
    );
    let err = '';
    child.stderr.on('data', d => {
      err += d;
    });
    await waitUntil(() => /phase benchmark:/.test(err), 60_000);
    await new Promise(res => setTimeout(res, 2000));
    child.kill('SIGKILL');
    await new Promise(res => child.once('exit', res));
    const r = cli('resume', '--folder', fx.folder, '--host', engine.unix, '--gpus', '0');
    assert.equal(r.status, 0, r.stderr);
    const dir = path.dirname(r.stdout.trim());
    const bench = readFileSync(path.join(dir, 'logs/benchmark.stdout.log'), 'utf8');
    assert.match(bench, /uploading results with token \*{29}/, 'the line printed after the re-attach is there, masked');
    for (const f of storedFiles(dir)) assert.ok(!readFileSync(f, 'utf8').includes(token), `${f} contains the token`);
    assert.deepEqual(readJson(path.join(dir, 'run.json')).secretNames, ['HF_TOKEN']);
  });

  it('when the engine refuses to start the container, its own reason ends the run (not "exit code 128")', async function () {
    // The test engine's own bridge, in its own namespace, goes away: the engine can no longer attach containers.
    spawnSync('ip', ['netns', 'exec', NETNS, 'ip', 'link', 'del', 'docker0']);
    try {
      const r = await runInProcess({});
      assert.equal(r.status, 'failed');
      assert.match(r.error!, /could not start the container: .*(bridge|endpoint|docker0)/i);
      assert.doesNotMatch(r.error!, /exit code 128/);
    } finally {
      await engine.restart(); // recreates its bridge
    }
    assert.equal((await runInProcess({})).status, 'succeeded');
  });

  it('log directory full → clear error, earlier results untouched', async function () {
    const mnt = path.join('/tmp', `bt-full-${process.pid}`);
    mkdirSync(mnt, { recursive: true });
    assert.equal(spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=6m', 'tmpfs', mnt]).status, 0, 'mount tmpfs');
    try {
      const first = await runInProcess({ folder: mnt, minFreeBytes: 1 << 20 });
      assert.equal(first.status, 'succeeded', first.error ?? '');
      const earlier = readFileSync(path.join(mnt, first.plan.resultDir, 'result.json'));
      const r = await runInProcess({ folder: mnt, minFreeBytes: 1 << 20, env: { FAKE_VLLM_FAULT: 'flood', FAKE_VLLM_FLOOD_MB: '40' } });
      assert.equal(r.status, 'failed');
      assert.match(r.error!, /the log directory \/tmp\/bt-full-.* is full \(ENOSPC\)/);
      assert.deepEqual(readFileSync(path.join(mnt, first.plan.resultDir, 'result.json')), earlier);
    } finally {
      spawnSync('umount', ['-l', mnt]);
      rmSync(mnt, { recursive: true, force: true });
    }
  });

  it('dockerd restarted mid-run → interrupted, logs kept, no crash', async function () {
    const r = await runInProcess({
      env: { FAKE_VLLM_BENCH_SECONDS: '60' },
      during: () => {
        setTimeout(() => void engine.restart(), 2000);
      },
    });
    assert.equal(r.status, 'interrupted', `${r.status}: ${r.error}`);
    assert.match(r.error!, /lost the Docker daemon/);
    assert.ok(logOf(r, fx.folder, 'benchmark', 'stdout').length > 0);
    assert.ok(existsSync(path.join(fx.folder, r.plan.resultDir, 'result.json')));
  });

  it("a containerd its dockerd asks for a stack dump (as it does before restarting one that stopped answering) writes it in the engine's folder, not the machine's /tmp", async function () {
    const dockerd = Number(readFileSync(path.join(ROOT, 'docker.pid'), 'utf8'));
    const containerd = childrenOf(dockerd).find(p => p.comm === 'containerd');
    assert.ok(containerd, `no containerd under the suite's dockerd (pid ${dockerd})`);
    const name = `containerd.${containerd.pid}.stacks.log`;
    process.kill(containerd.pid, 'SIGUSR1');
    const ours = path.join(ROOT, 'tmp', name);
    const machines = path.join('/tmp', name);
    // containerd makes the file, then writes the dump: wait for its content.
    const dumped = (f: string) => existsSync(f) && /goroutine/.test(readFileSync(f, 'utf8'));
    await waitUntil(() => dumped(ours) || existsSync(machines), 20_000);
    if (existsSync(machines)) {
      rmSync(machines); // the check fails, and leaves nothing behind either
      assert.fail(`the dump was written to ${machines}`);
    }
    // The engine still answers: a dump is not a restart.
    await new Docker({ socketPath: engine.unix.slice(7) }).ping();
  });
});

/** A process's children, from /proc (pid and command name). */
function childrenOf(ppid: number): Array<{ pid: number; comm: string }> {
  const out: Array<{ pid: number; comm: string }> = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so split at the last ')'.
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      if (Number(stat.slice(close + 2).split(' ')[1]) === ppid) out.push({ pid: Number(d), comm: stat.slice(stat.indexOf('(') + 1, close) });
    } catch {
      /* gone meanwhile */
    }
  }
  return out;
}

async function waitUntil(cond: () => boolean, ms: number): Promise<void> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > ms) throw new Error('timed out waiting');
    await new Promise(r => setTimeout(r, 100));
  }
}

function prefixHash(file: string, bytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const h = createHash('sha256');
    createReadStream(file, { start: 0, end: bytes - 1 })
      .on('data', d => h.update(d))
      .on('end', () => resolve(h.digest('hex')))
      .on('error', reject);
  });
}
