import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { parsePerfCommand } from '../../src/core/perfcmd';
import { patchProblem } from '../../src/core/patch';
import { addMetrics, emptyMetrics } from '../../src/core/metrics';
import { scan } from '../../src/core/ingest';
import { duplicateKey } from '../../src/core/ingest/json';
import { hostAddressProblem, maskHostPassword } from '../../src/core/run/hosts';
import { planBuild } from '../../src/core/run/buildPlan';
import { parseSelector } from '../../src/core/campaign/plan';
import { memorySource, runCli } from './helpers';

const DEMO = path.resolve(__dirname, '../../demo/workspace');
const SERVE = 'python3 benchmarks/benchmark_serving.py --model facebook/opt-125m --dataset-name random --num-prompts 10';

describe('hardening: silent rewrites in plan are refused or shown (issue 23, item 5)', () => {
  it('positional arguments, bad tensor-parallel sizes: errors naming the word; an environment prefix is kept', () => {
    const pos = parsePerfCommand(`${SERVE} extra`);
    assert.match(pos.problems.find(p => p.code === 'positional')!.message, /"extra" is a positional argument/);
    for (const tp of ['0', '-1', '1.5', '0x10']) {
      const p = parsePerfCommand(`python3 benchmarks/benchmark_throughput.py --model m/x --tensor-parallel-size ${tp}`);
      const f = p.problems.find(x => x.code === 'tensor-parallel');
      assert.ok(f && f.severity === 'error', `tp ${tp}`);
      assert.match(f.message, new RegExp(`"${tp.replace('.', '\\.')}"`));
    }
    assert.equal(parsePerfCommand('python3 benchmarks/benchmark_throughput.py --model m/x -tp 2').tensorParallel, 2);
    const env = parsePerfCommand(`VLLM_USE_V1=1 VLLM_ATTENTION_BACKEND=FLASHINFER ${SERVE}`);
    assert.deepEqual(env.env, [
      { name: 'VLLM_USE_V1', value: '1' },
      { name: 'VLLM_ATTENTION_BACKEND', value: 'FLASHINFER' },
    ]);
    assert.equal(env.problems.filter(p => p.severity === 'error').length, 0);
  });

  it('hosts: bad schemes, empty hosts, ports out of range and passwords are refused; the password is never shown', () => {
    assert.match(hostAddressProblem('ftp://x')!, /unsupported scheme ftp/);
    assert.match(hostAddressProblem('ssh://')!, /names no host|not a valid address/);
    assert.match(hostAddressProblem('tcp://x:99999')!, /port 99999 is out of range/);
    assert.match(hostAddressProblem('swarm+ssh://u:hunter2@h100')!, /password in the address is not used/);
    assert.doesNotMatch(hostAddressProblem('ssh://u:hunter2@h100')!, /hunter2/);
    assert.equal(maskHostPassword('swarm+ssh://u:hunter2@h100:22'), 'swarm+ssh://u:***@h100:22');
    for (const ok of ['unix:///var/run/docker.sock', 'tcp://h:2376', 'ssh://root@h100', 'swarm://m:2377', 'ssh://u@h:2222'])
      assert.equal(hostAddressProblem(ok), null, ok);
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 12 }).filter(s => !/[@/:\s]/.test(s)),
        pass => {
          const p = hostAddressProblem(`ssh://user:${pass}@host`);
          return p !== null && !p.includes(`:${pass}@`);
        },
      ),
    );
  });

  it('the CLI: plan with a password host, a missing, device or escaping --agent-patch, and run --dry-run with --env', () => {
    const pw = runCli('plan', '--folder', DEMO, '--commit', 'f6978a76', '--role', 'human', '--host', 'ssh://me:s3cretpass@h100');
    assert.notEqual(pw.status, 0);
    assert.match(pw.stderr, /password in the address is not used/);
    assert.doesNotMatch(pw.stdout + pw.stderr, /s3cretpass/);
    const dir = mkdtempSync(path.join(tmpdir(), 'bt-patch-'));
    try {
      const outside = path.join(dir, 'outside.diff');
      writeFileSync(outside, '--- a/../../etc/passwd\n+++ b/../../etc/passwd\n@@ -1 +1 @@\n-root\n+toor\n');
      const binary = path.join(dir, 'bin.diff');
      writeFileSync(binary, 'diff --git a/x b/x\nGIT binary patch\nliteral 3\n\0\0\0\n');
      for (const [file, why] of [
        [path.join(dir, 'missing.diff'), /no such file/],
        ['/dev/zero', /the patch is a device, not a regular file/],
        [outside, /touches "\.\.\/\.\.\/etc\/passwd", outside the checkout/],
        [binary, /is binary/],
      ] as const) {
        const r = runCli('plan', '--folder', DEMO, '--commit', 'f6978a76', '--role', 'agent', '--agent-patch', file);
        assert.notEqual(r.status, 0, file);
        assert.match(r.stderr, why, r.stderr);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const dry = runCli('run', '--folder', DEMO, '--commit', 'f6978a76', '--role', 'human', '--dry-run', '--env', 'MY_FLAG=1', '--gpus', '1');
    assert.equal(dry.status, 0, dry.stderr);
    assert.equal(JSON.parse(dry.stdout)[0].env.MY_FLAG, '1', 'the --env entry is in the printed plan');
  });

  it('patches: absolute paths and `..` are outside the checkout; a clean patch is fine', () => {
    assert.match(patchProblem('--- /etc/hosts\n+++ /etc/hosts\n@@ -1 +1 @@\n-a\n+b\n')!, /outside the checkout/);
    assert.match(patchProblem('nothing here\n')!, /no file change/);
    assert.equal(patchProblem('--- a/vllm/x.py\n+++ b/vllm/x.py\n@@ -1 +1 @@\n-a\n+b\n'), null);
  });

  it('--select role=nobody is an error naming the roles', () => {
    assert.throws(() => parseSelector('role=nobody'), /role nobody is not one of baseline, human, agent/);
    assert.equal(parseSelector('role=agent').clauses.length, 1);
  });
});

describe("hardening: the runner's own environment names are refused wherever a run's environment is given", () => {
  it('in a perf command: an error on the assignment itself; CUDA_VISIBLE_DEVICES and VLLM_* are fine', () => {
    for (const name of ['BENCH_TRIAGE_FILES', 'BENCH_TRIAGE_SLOT', 'NVIDIA_VISIBLE_DEVICES', 'DOCKER_RESOURCE_NVIDIA_GPU']) {
      const cmd = `VLLM_USE_V1=1 ${name}=all ${SERVE}`;
      const f = parsePerfCommand(cmd).problems.filter(p => p.code === 'reserved-env');
      assert.equal(f.length, 1, name);
      assert.equal(f[0].severity, 'error');
      assert.equal(cmd.slice(f[0].start, f[0].end), `${name}=all`, 'the finding covers the assignment');
      assert.match(f[0].message, new RegExp(`^${name} is reserved: `));
    }
    assert.deepEqual(
      // Names differ by case in an environment: nvidia_visible_devices is not the runtime's.
      parsePerfCommand(`CUDA_VISIBLE_DEVICES=0 VLLM_USE_V1=1 nvidia_visible_devices=all ${SERVE}`).problems.filter(p => p.code === 'reserved-env'),
      [],
    );
  });

  it('on the CLI: --env and --secret-env name the variable and why; nothing is planned', () => {
    const env = runCli('run', '--folder', DEMO, '--commit', 'f6978a76', '--role', 'human', '--dry-run', '--env', 'BENCH_TRIAGE_FILES=9', '--gpus', '1');
    assert.equal(env.status, 2, env.stderr);
    assert.match(env.stderr, /--env BENCH_TRIAGE_FILES is reserved: BENCH_TRIAGE_\* variables are the runner's own/);
    assert.equal(env.stdout, '');
    const campaign = runCli('campaign', 'plan', '--folder', DEMO, '--env', 'NVIDIA_VISIBLE_DEVICES=all');
    assert.equal(campaign.status, 2);
    assert.match(campaign.stderr, /--env NVIDIA_VISIBLE_DEVICES is reserved: .*set CUDA_VISIBLE_DEVICES/);
    // The value comes from this process's environment, as a user's shell would give it.
    process.env.BENCH_TRIAGE_SLOT = 'sdeadbeef';
    let secret: ReturnType<typeof runCli>;
    try {
      secret = runCli('run', '--folder', DEMO, '--commit', 'f6978a76', '--role', 'human', '--dry-run', '--secret-env', 'BENCH_TRIAGE_SLOT');
    } finally {
      delete process.env.BENCH_TRIAGE_SLOT;
    }
    assert.notEqual(secret.status, 0);
    assert.match(secret.stderr, /--secret-env BENCH_TRIAGE_SLOT is reserved/);
    assert.doesNotMatch(secret.stdout + secret.stderr, /sdeadbeef/);
  });

  it('in the app: a run environment from any caller is refused for every role before anything runs', async () => {
    const { Runs, PlanRefused } = await import('../../src/app/runs');
    const { nodeFileSource } = await import('../../src/platform/nodeFileSource');
    const commit = (await scan(nodeFileSource(DEMO))).commits.find(c => c.hash.startsWith('f6978a76'))!;
    let started = 0;
    const runs = new Runs(() => {
      started++;
      throw new Error('no runtime may be made');
    });
    const target = { folder: DEMO, commit, roles: ['baseline', 'human'] as Array<'baseline' | 'human'>, agentRun: null };
    const host = { label: 'h', docker: '', gpus: 1 };
    assert.throws(
      () => runs.plan(target, { host, env: { DOCKER_RESOURCE_NVIDIA_GPU: 'GPU-1' }, secretEnv: { BENCH_TRIAGE_X: 'v' } } as never),
      (e: unknown) =>
        e instanceof PlanRefused &&
        e.refusals.length === 2 &&
        e.refusals.every(r => /DOCKER_RESOURCE_NVIDIA_GPU is reserved: the swarm sets it.*; BENCH_TRIAGE_X is reserved/.test(r.message)),
    );
    assert.equal(runs.plan(target, { host, env: { MY_FLAG: '1' } } as never).length, 2, 'a plain name plans');
    assert.equal(started, 0);
  });
});

describe('hardening: secrets in new places (issue 23, item 4)', () => {
  const commit = { hash: 'a'.repeat(40), parent: 'b'.repeat(40), models: [], perfCommands: [] } as never;
  const host = { label: 'h', docker: '', gpus: 0 };
  it('a build arg that is a secret by name or by shape is refused, and its value is not repeated', () => {
    for (const args of [{ HF_TOKEN: 'abc123def456' }, { PIP_INDEX: 'https://x/?token=abcdefghijkl' }, { MY_VAR: 'hf_' + 'a'.repeat(30) }] as Array<
      Record<string, string>
    >) {
      assert.throws(
        () => planBuild(commit, 'human', { host, buildId: 'b1', settings: { args, humanBase: 'vllm/vllm-openai:v0.6.0' } }),
        (e: Error) => /looks like a secret: build args are kept in the image's history/.test(e.message) && !e.message.includes(Object.values(args)[0]),
      );
    }
    assert.equal(
      planBuild(commit, 'human', { host, buildId: 'b1', settings: { args: { MAX_JOBS: '4' }, humanBase: 'vllm/vllm-openai:v0.6.0' } }).args.MAX_JOBS,
      '4',
    );
  });
  it('build --build-arg HF_TOKEN=… on the CLI is refused without printing the value', () => {
    const r = runCli(
      'build',
      '--folder',
      DEMO,
      '--commit',
      'f6978a76',
      '--role',
      'human',
      '--build-arg',
      'HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyz',
      '--human-base',
      'vllm/vllm-openai:v0.6.0',
      '--dry-run',
      '--checkout',
      tmpdir(),
    );
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /HF_TOKEN looks like a secret/);
    assert.doesNotMatch(r.stdout + r.stderr, /abcdefghijklmnopqrstuvwxyz/);
  });
});

describe('hardening: values that vanish become findings (issue 23, item 6)', () => {
  it('unreadable metric values are each a finding naming the field; no value is silently dropped', () => {
    const m = addMetrics(emptyMetrics(), {
      request_throughput: Number('1e309'), // what JSON.parse gives for 1e309
      output_throughput: '1,100',
      total_token_throughput: '1100 tok/s',
      mean_ttft_ms: 'NaN',
      median_ttft_ms: true,
      p99_ttft_ms: [2000],
      mean_tpot_ms: 1e-320,
    });
    assert.deepEqual(m.metrics, {});
    const fields = m.problems.map(p => p.field).sort();
    assert.deepEqual(fields, [
      'mean_tpot_ms',
      'mean_ttft_ms',
      'median_ttft_ms',
      'output_throughput',
      'p99_ttft_ms',
      'request_throughput',
      'total_token_throughput',
    ]);
    assert.match(m.problems.find(p => p.field === 'mean_tpot_ms')!.message, /denormal/);
  });

  it('a zero throughput is a finding, not a value to divide by', () => {
    const m = addMetrics(emptyMetrics(), { request_throughput: 0, mean_ttft_ms: 12 });
    assert.deepEqual(Object.keys(m.metrics).length, 1, 'only the latency is kept');
    assert.match(m.problems[0].message, /nothing was measured/);
  });

  it('metric values of any JSON type (fuzzed): a number in the table, or a finding; never both, never neither', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.double(), fc.string(), fc.boolean(), fc.constant(null), fc.array(fc.integer(), { maxLength: 2 }), fc.dictionary(fc.string(), fc.integer())),
        v => {
          const m = addMetrics(emptyMetrics(), { mean_ttft_ms: v });
          const kept = Object.keys(m.metrics).length > 0;
          const said = m.problems.some(p => p.field === 'mean_ttft_ms');
          if (v === null) return !kept && !said;
          if (kept) for (const x of Object.values(m.metrics)) assert.ok(Number.isFinite(x) && x >= 0);
          return kept !== said || (kept && typeof v === 'string');
        },
      ),
      { numRuns: 500 },
    );
  });

  it('a duration of 1e300 s is a finding on its run and never reaches a GPU-hours estimate', async () => {
    const r = await scan(
      memorySource({
        'a/result.json': JSON.stringify({
          schema: 'bench-triage.run/v1',
          commit: 'ab'.repeat(20),
          role: 'human',
          status: 'success',
          error: null,
          metrics: { request_throughput: 5 },
          command: SERVE,
          durationS: 1e300,
        }),
      }),
    );
    assert.equal(r.runs[0].durationS, null);
    assert.ok(r.runs[0].problems.some(p => p.field === 'durationS' && /not a run's duration/.test(p.message)));
  });
});

describe('hardening: smaller silent cases (issue 23, item 9)', () => {
  const result = (extra: Record<string, unknown>) =>
    JSON.stringify({
      schema: 'bench-triage.run/v1',
      commit: 'ab'.repeat(20),
      role: 'human',
      status: 'failed',
      error: 'boom',
      metrics: {},
      command: SERVE,
      ...extra,
    });

  it('a result holding a key twice is not used, and the key is named', async () => {
    const text = result({}).replace('"status":"failed"', '"status":"failed","status":"success"');
    const r = await scan(memorySource({ 'a/result.json': text }));
    assert.equal(r.runs.length, 0);
    const f = r.files.find(x => x.path === 'a/result.json')!;
    assert.equal(f.kind, 'corrupt');
    assert.match((f as { error: string }).error, /duplicate key "status"/);
  });

  it('a key held twice is found however the text is spaced, and colons in strings never hide one (property)', () => {
    // Keys from a small alphabet so that duplicates are common; values strings that hold colons and quotes.
    const key = fc.constantFrom('a', 'b', 'url', 'a:b', 'x"y');
    const val = fc.oneof(fc.integer(), fc.constantFrom('http://h:8000', 'a :b', '":', 'plain'));
    const space = fc.constantFrom('', ' ', '\n  ', '\t');
    fc.assert(
      fc.property(fc.array(fc.tuple(key, val, space, space), { maxLength: 6 }), fc.boolean(), (entries, nest) => {
        const body = entries.map(([k, v, s1, s2]) => `${JSON.stringify(k)}${s1}:${s2}${JSON.stringify(v)}`).join(',');
        const text = nest ? `{"outer": {${body}}, "list": [{${body}}]}` : `{${body}}`;
        const expected = new Set(entries.map(e => e[0])).size !== entries.length;
        const found = duplicateKey(text, JSON.parse(text));
        assert.equal(!!found, expected, text);
        if (found) assert.ok(entries.some(e => e[0] === found.key));
      }),
      { numRuns: 2000 },
    );
  });

  it('a commit prefix two dataset commits share is attributed to neither, with a reason on the run', async () => {
    const a = '1a2b3c4d' + '0'.repeat(32),
      b = '1a2b3c4d' + 'f'.repeat(32);
    const r = await scan(
      memorySource({
        'dataset.jsonl':
          [a, b].map(h => JSON.stringify({ commit_hash: h, parent_commit: 'c'.repeat(40), perf_command: SERVE, models: ['facebook/opt-125m'] })).join('\n') +
          '\n',
        'x/result.json': result({ commit: '1a2b3c4d' }),
      }),
    );
    const run = r.runs.find(x => x.provenance.file === 'x/result.json')!;
    assert.equal(run.commit, '1a2b3c4d');
    assert.ok(
      run.problems.some(p => /matches two commits \(1a2b3c4d0000, 1a2b3c4dffff\)/.test(p.message)),
      JSON.stringify(run.problems),
    );
  });

  it('a linked folder that leads outside is recorded as not read (never passed over)', async () => {
    const { nodeFileSource } = await import('../../src/platform/nodeFileSource');
    const { mkdirSync, symlinkSync } = await import('node:fs');
    const root = mkdtempSync(path.join(tmpdir(), 'bt-linkdir-'));
    try {
      mkdirSync(path.join(root, 'ws'));
      mkdirSync(path.join(root, 'elsewhere'));
      writeFileSync(path.join(root, 'elsewhere', 'result.json'), result({}));
      symlinkSync(path.join(root, 'elsewhere'), path.join(root, 'ws', 'results'));
      const r = await scan(nodeFileSource(path.join(root, 'ws')));
      const skipped = r.files.find(f => f.path === 'results')!;
      assert.equal(skipped?.kind, 'skipped');
      assert.match((skipped as { reason: string }).reason, /outside the folder: not read/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('the new perf-command checks on real commands [ISO-Bench data]', () => {
  it('no perf command of the ISO-Bench dataset has a positional argument, a bad tensor-parallel size or a reserved environment name (no false alarm)', async () => {
    const { ISOBENCH, requireCorpus } = await import('./helpers');
    const { readFileSync } = await import('node:fs');
    requireCorpus();
    const rows = readFileSync(path.join(ISOBENCH, 'hf_cache/alpha-vllm-99-commits/combined_vllm_pr_dataset.filled.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map(l => JSON.parse(l) as { perf_command?: string | null });
    const cmds = rows.map(r => r.perf_command).filter((c): c is string => !!c);
    assert.ok(cmds.length > 50);
    const bad = cmds.flatMap(c =>
      parsePerfCommand(c)
        .problems.filter(p => p.code === 'positional' || p.code === 'reserved-env' || (p.code === 'tensor-parallel' && /whole number/.test(p.message)))
        .map(p => p.message),
    );
    // The one real case: a usage text's `[--flag]` pasted as is (argparse would refuse it; the plan used to drop it unsaid).
    assert.deepEqual(bad, [
      '"[--use-v2-block-manager]" is the usage text\'s way of writing an optional flag, not an argument: write --use-v2-block-manager or leave it out',
    ]);
  });
});
