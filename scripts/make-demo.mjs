#!/usr/bin/env node
// Writes demo/workspace: synthetic results in the real ISO-Bench schemas (S1 Modal 3-way, S2
// Docker flat per role), one commit per failure category plus complete / incomparable / partial
// ones, a dataset JSONL with perf commands and human patches, and agent runs with patches.
// Logs are real length and in the real formats: S2's raw_output is the last 10 000 characters of
// a few hundred lines of server output (as run_3way_benchmarks.py stored it) with the evidence deep
// inside, S1's the first 3 000; some commits also have a rerun by Bench Triage's own runner with
// the complete logs of every phase. Patches touch vllm/logger.py of the fake image, so Rerun on
// H100 of every role applies them. Deterministic: running it twice gives the same files.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { DEMO_CHECKOUT, makeDemoCheckout } from './demo-checkout.mjs';
import { aiperfExport, guidellmReport, pyJson, sglangLine, vllmLatency, vllmServeCli } from './field-formats.mjs';
import path from 'node:path';
import { createHash } from 'node:crypto';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const OUT = process.env.BENCH_TRIAGE_DEMO_OUT ? path.resolve(process.env.BENCH_TRIAGE_DEMO_OUT) : path.join(ROOT, 'demo', 'workspace');
const hash = s => createHash('sha1').update(s).digest('hex');
const write = (rel, data) => {
  const p = path.join(OUT, rel);
  mkdirSync(path.dirname(p), { recursive: true });
  writeFileSync(p, typeof data === 'string' ? data : JSON.stringify(data, null, 1) + '\n');
};

const SERVING = m =>
  `python benchmarks/benchmark_serving.py --model ${m} --dataset-name random --random-input-len 256 --random-output-len 64 --num-prompts 100`;
const LATENCY = m => `python benchmarks/benchmark_latency.py --model ${m} --batch-size 8 --input-len 512 --output-len 128`;
const PULL =
  "Unable to find image 'anonymous/vllm-baseline:baseline-PARENT' locally\nbaseline-PARENT: Pulling from anonymous/vllm-baseline\n3f4ca61aafcd: Pulling fs layer\n";
const OK_SERVING = (ttft, tput) => ({
  ttft_mean_ms: ttft,
  ttft_median_ms: ttft * 0.97,
  ttft_p99_ms: ttft * 1.8,
  tpot_mean_ms: ttft / 4.2,
  itl_mean_ms: ttft / 4.2,
  request_throughput_req_s: tput / 128,
  output_token_throughput_tok_s: tput,
});
const RAW_OK =
  'INFO 01-18 15:16:00 [api_server.py:981] vLLM API server version 0.7.4\nSERVER_READY_AFTER=41s\n============ Serving Benchmark Result ============\nSuccessful requests:                     100\nBENCHMARK_DONE\n';

// The fake image's vllm/logger.py: both patches are made against it, so they apply on a rerun.
const LOGGER = readFileSync(path.join(ROOT, 'test/fake-vllm/rootfs/opt/fakevllm/vllm/logger.py'), 'utf8').split('\n');
const loggerPatch = (lineNo, from, to) => {
  const at = lineNo - 1;
  if (LOGGER[at] !== from) throw new Error(`make-demo: vllm/logger.py line ${lineNo} is not "${from}"`);
  const ctx = LOGGER.slice(at - 2, at);
  const after = LOGGER.slice(at + 1, at + 2);
  return [
    'diff --git a/vllm/logger.py b/vllm/logger.py',
    '--- a/vllm/logger.py',
    '+++ b/vllm/logger.py',
    `@@ -${at - 1},${ctx.length + 1 + after.length} +${at - 1},${ctx.length + 1 + after.length} @@${LOGGER[at - 3] ? ' ' + LOGGER[at - 3] : ''}`,
    ...ctx.map(l => ` ${l}`),
    `-${from}`,
    `+${to}`,
    ...after.map(l => ` ${l}`),
    '',
  ].join('\n');
};
const FLUSH = '    print(f"{level} {stamp} {where}] {msg}", file=stream or sys.stdout, flush=True)';
const STAMP = '    stamp = time.strftime("%m-%d %H:%M:%S")';
const HUMAN_PATCH = loggerPatch(8, FLUSH, FLUSH.replace('flush=True)', 'flush=True)  # human: one flush per line'));
const AGENT_PATCH = loggerPatch(7, STAMP, '    stamp = time.strftime("%m-%d %H:%M:%S", time.localtime())  # agent: explicit clock');

/**
 * The complete commit's agent patch: three hunks with known effects (the fake image's markers, see
 * fakevllm_markers.py), the README's worked example of patch ablation. U1 makes tokens 1.35× as
 * fast, U2 slows them to 0.9×, U3 (the logger) does nothing: leave-one-out shows U1 carries the
 * gain and U2 costs some of it, and minimise finds U1 alone, faster than the whole patch. Made by
 * git itself, as an agent's harness makes it.
 */
function ablationDemoPatch() {
  const dir = mkdtempSync(path.join(tmpdir(), 'bt-demo-patch-'));
  const git = (...args) =>
    execFileSync('git', ['-c', 'core.autocrlf=false', '-c', 'diff.noprefix=false', ...args], {
      cwd: dir,
      encoding: 'utf8',
      env: {
        ...process.env,
        GIT_CONFIG_NOSYSTEM: '1',
        HOME: '/nonexistent',
        GIT_AUTHOR_NAME: 'demo',
        GIT_AUTHOR_EMAIL: 'demo@invalid',
        GIT_COMMITTER_NAME: 'demo',
        GIT_COMMITTER_EMAIL: 'demo@invalid',
      },
    });
  try {
    mkdirSync(path.join(dir, 'vllm'));
    const kernels = readFileSync(path.join(ROOT, 'test/fake-vllm/rootfs/opt/fakevllm/vllm/fake_kernels.py'), 'utf8');
    writeFileSync(path.join(dir, 'vllm/fake_kernels.py'), kernels);
    writeFileSync(path.join(dir, 'vllm/logger.py'), LOGGER.join('\n'));
    git('init', '-q');
    git('add', '-A');
    git('commit', '-qm', 'parent');
    const edit = (text, from, to) => {
      if (!text.includes(from)) throw new Error(`make-demo: vllm/fake_kernels.py has no "${from.trim()}"`);
      return text.replace(from, to);
    };
    let after = edit(kernels, '    # The first kernel.\n', '    # The first kernel: one pass over x (agent).\n    # fake-vllm: speedup=1.35\n');
    after = edit(after, '    # Scores and weights.\n', '    # Scores and weights, recomputed per row (agent).\n    # fake-vllm: speedup=0.9\n');
    writeFileSync(path.join(dir, 'vllm/fake_kernels.py'), after);
    writeFileSync(
      path.join(dir, 'vllm/logger.py'),
      LOGGER.join('\n').replace(STAMP, '    stamp = time.strftime("%m-%d %H:%M:%S", time.localtime())  # agent: explicit clock'),
    );
    return git('diff');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A deterministic vLLM server log of `n` lines in the real format; `evidence` lines go at `at` (0..1), `tail` lines close it. */
function serverLog(model, { n = 400, at = 0.75, evidence = [], tail = [], version = '0.7.4.dev450+g270a5da4', seed = 1 }) {
  let k = seed;
  const rnd = m => {
    k = (k * 1103515245 + 12345) % 2147483648;
    return k % m;
  };
  const t = i => `01-18 15:${String(16 + Math.floor(i / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}`;
  const lines = [
    `INFO ${t(0)} [__init__.py:256] Automatically detected platform cuda.`,
    `INFO ${t(1)} [api_server.py:981] vLLM API server version ${version}`,
    `INFO ${t(1)} [api_server.py:982] args: Namespace(subparser='serve', model_tag='${model}', host=None, port=8000, uvicorn_log_level='info', disable_log_requests=True, max_log_len=None)`,
    `INFO ${t(2)} [config.py:549] This model supports multiple tasks: {'generate', 'embed', 'reward', 'score', 'classify'}. Defaulting to 'generate'.`,
    `INFO ${t(3)} [llm_engine.py:234] Initializing a V0 LLM engine (v${version}) with config: model='${model}', dtype=torch.bfloat16, max_seq_len=8192, tensor_parallel_size=1, enforce_eager=False, seed=0`,
    `INFO ${t(4)} [cuda.py:230] Using Flash Attention backend.`,
    `INFO ${t(5)} [model_runner.py:1110] Starting to load model ${model}...`,
  ];
  for (let s = 1; s <= 4; s++)
    lines.push(`Loading safetensors checkpoint shards: ${String(s * 25).padStart(3)}% Completed | ${s}/4 [00:0${s}<00:0${4 - s},  1.52it/s]`);
  lines.push(
    `INFO ${t(12)} [model_runner.py:1115] Loading model weights took 14.9889 GB`,
    `INFO ${t(14)} [worker.py:267] Memory profiling takes 2.31 seconds`,
    `INFO ${t(14)} [executor_base.py:111] # cuda blocks: 27895, # CPU blocks: 2048`,
    `INFO ${t(15)} [model_runner.py:1434] Capturing cudagraphs for decoding. This may lead to unexpected consequences if the model is not static.`,
  );
  for (let s = 5; s <= 67; s += 6)
    lines.push(
      `Capturing CUDA graph shapes: ${String(Math.round((s / 67) * 100)).padStart(3)}%|${'█'.repeat(Math.round(s / 6.7)).padEnd(10)}| ${s}/67 [00:${String(Math.round(s / 3)).padStart(2, '0')}<00:${String(Math.round((67 - s) / 3)).padStart(2, '0')},  2.84it/s]`,
    );
  lines.push(
    `INFO ${t(40)} [model_runner.py:1562] Graph capturing finished in 24 secs, took 0.53 GiB`,
    `INFO ${t(41)} [api_server.py:1028] Starting vLLM API server on http://0.0.0.0:8000`,
    `INFO ${t(41)} [launcher.py:26] Available routes are:`,
    'INFO:     Started server process [1]',
    'INFO:     Waiting for application startup.',
    'INFO:     Application startup complete.',
    'SERVER_READY_AFTER=41s',
  );
  const body = [];
  for (let i = 0; body.length < n - lines.length - tail.length; i++) {
    if (i % 9 === 8)
      body.push(
        `INFO ${t(42 + i)} [metrics.py:453] Avg prompt throughput: ${(10000 + rnd(3000)).toFixed(1)} tokens/s, Avg generation throughput: ${(1000 + rnd(400)).toFixed(1)} tokens/s, Running: ${1 + rnd(32)} reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: ${(rnd(90) / 10).toFixed(1)}%, CPU KV cache usage: 0.0%.`,
      );
    else body.push(`INFO:     127.0.0.1:${40000 + rnd(20000)} - "POST /v1/completions HTTP/1.1" 200 OK`);
  }
  const cut = Math.floor(body.length * at);
  return [...lines, ...body.slice(0, cut), ...evidence, ...body.slice(cut), ...tail].join('\n') + '\n';
}
/** What run_3way_benchmarks.py kept of a failed run's output: the last 10 000 characters. */
const s2Tail = text => text.slice(-10000);

/** docker run's stderr: the image pull, layer by layer (it ends up after stdout in raw_output). */
function pullLog(image, layers = 22) {
  const out = [`Unable to find image '${image}' locally`, `${image.split(':')[1]}: Pulling from ${image.split(':')[0]}`];
  const ids = Array.from({ length: layers }, (_, i) => hash(`${image}-${i}`).slice(0, 12));
  for (const id of ids) out.push(`${id}: Pulling fs layer`);
  for (const id of ids) out.push(`${id}: Waiting`);
  for (const [i, id] of ids.entries())
    out.push(`${id}: Downloading  ${(12 + i * 7.3).toFixed(1)}MB/${(40 + i * 9.1).toFixed(1)}MB`, `${id}: Verifying Checksum`, `${id}: Download complete`);
  for (const id of ids) out.push(`${id}: Pull complete`);
  out.push(`Digest: sha256:${hash(image)}${hash(image).slice(0, 24)}`, `Status: Downloaded newer image for ${image}`);
  return out.join('\n') + '\n';
}

const SHUTDOWN = [
  'INFO:     Shutting down',
  'INFO:     Waiting for application shutdown.',
  'INFO:     Application shutdown complete.',
  'INFO:     Finished server process [1]',
];
const RESULT_BLOCK = (ttft, tput) => [
  '============ Serving Benchmark Result ============',
  'Successful requests:                     100',
  'Benchmark duration (s):                  12.34',
  `Request throughput (req/s):              ${(tput / 128).toFixed(2)}`,
  `Output token throughput (tok/s):         ${tput.toFixed(2)}`,
  `Mean TTFT (ms):                          ${ttft.toFixed(2)}`,
  `Median TTFT (ms):                        ${(ttft * 0.97).toFixed(2)}`,
  `P99 TTFT (ms):                           ${(ttft * 1.8).toFixed(2)}`,
  `Mean TPOT (ms):                          ${(ttft / 4.2).toFixed(2)}`,
  '==================================================',
  'BENCHMARK_DONE',
];

/**
 * What a role's `docker run` printed, in the real order (server and benchmark stdout, then stderr
 * with the image pull), a few hundred lines long, the signature lines deep inside: the S2 writer
 * kept its last 10 000 characters.
 */
function realRaw(id, model, raw, image) {
  if (!raw || raw.startsWith('Unable to find image')) return raw; // docker run failed before any output, or nothing was kept
  const sig = raw.replace(/\n$/, '').split('\n');
  const marker = sig.at(-1) === 'SERVER_CRASHED' || sig.at(-1) === 'BENCHMARK_DONE' ? [sig.pop()] : [];
  let stdout;
  if (id === 'install-failed' || id === 'build-failed') {
    const pip = [];
    for (let i = 0; i < 120; i++)
      pip.push(
        i % 3 === 2
          ? `Requirement already satisfied: pkg${i}>=1.${i % 7} in /usr/local/lib/python3.10/dist-packages (from vllm==0.7.4) (1.${i % 9}.0)`
          : `Collecting pkg${i}>=1.${i % 7} (from vllm==0.7.4)\n  Downloading pkg${i}-1.${i % 9}.0-py3-none-any.whl.metadata (${1 + (i % 9)}.${i % 10} kB)`,
      );
    stdout =
      [
        'Processing /opt/vllm_baseline',
        '  Installing build dependencies: started',
        "  Installing build dependencies: finished with status 'done'",
        ...pip,
        ...sig,
      ].join('\n') + '\n';
  } else if (id === 'agent-no-metrics') {
    stdout = serverLog(model, { n: 320, seed: id.length, evidence: [], tail: marker });
  } else {
    // Start-up crashes: the server log up to the failure, the traceback, the shutdown.
    const head = serverLog(model, { n: 46, seed: id.length }).replace(/\n$/, '').split('\n').slice(0, 34);
    stdout = [...head, ...sig, ...SHUTDOWN, ...marker].join('\n') + '\n';
  }
  return stdout + pullLog(image);
}
/** An offline latency run's output (benchmark_latency.py prints seconds; S2 kept the last 5 000 characters). */
function latencyRaw(model, avgS, image) {
  const lines = [
    `Namespace(model='${model}', batch_size=8, input_len=512, output_len=128, num_iters_warmup=10, num_iters=30)`,
    `INFO 01-18 15:16:02 [llm_engine.py:234] Initializing a V0 LLM engine with config: model='${model}'`,
  ];
  lines.push('Warming up...');
  for (let i = 1; i <= 30; i++)
    lines.push(
      `Profiling iterations: ${String(Math.round((i / 30) * 100)).padStart(3)}%|${'█'.repeat(Math.round(i / 3)).padEnd(10)}| ${i}/30 [00:${String(i).padStart(2, '0')}<00:${String(30 - i).padStart(2, '0')},  1.22it/s]`,
    );
  lines.push(`Avg latency: ${avgS.toFixed(6)} seconds`);
  for (const q of [10, 25, 50, 75, 90, 99]) lines.push(`${q}% percentile latency: ${(avgS * (0.9 + q / 500)).toFixed(6)} seconds`);
  return (lines.join('\n') + '\n' + pullLog(image, 6)).slice(-5000);
}
/** A successful role's output: the server serving the benchmark, then the result block (S2 kept the last 5 000 characters). */
const okRaw = (model, ttft, tput, image) =>
  (serverLog(model, { n: 260, seed: Math.round(ttft), tail: RESULT_BLOCK(ttft, tput) }) + pullLog(image, 6)).slice(-5000);

// [id, subject, model, failing role, error, raw output (signature), perf command override]
const FAILURES = [
  [
    'image-missing',
    '[Core] Faster block table copy',
    'meta-llama/Meta-Llama-3-8B-Instruct',
    'agent',
    'No metrics in agent output',
    PULL + 'docker: Error response from daemon: manifest for anonymous/vllm-baseline:baseline-PARENT not found: manifest unknown: manifest unknown.\n',
  ],
  [
    'disk-full',
    '[Perf] Reuse sampling tensors',
    'Qwen/Qwen2.5-7B-Instruct',
    'agent',
    'No metrics in agent output',
    PULL + 'docker: failed to register layer: write /usr/lib/x86_64-linux-gnu/libcudnn.so.9: no space left on device.\n',
  ],
  [
    'install-failed',
    '[Build] Switch to setuptools-scm',
    'facebook/opt-125m',
    'baseline',
    'No throughput metrics in output',
    'Traceback (most recent call last):\n  File "/opt/vllm_baseline/vllm/__init__.py", line 3, in <module>\nModuleNotFoundError: No module named \'vllm._C\'\n',
  ],
  [
    'build-failed',
    '[Kernel] New paged attention kernel',
    'facebook/opt-125m',
    'baseline',
    'No latency metrics in output',
    "  Preparing editable metadata (pyproject.toml): finished with status 'error'\nerror: subprocess-exited-with-error\n",
  ],
  [
    'dependency-conflict',
    '[Model] Ovis2 support',
    'AIDC-AI/Ovis2-8B',
    'human',
    'Server crashed during startup',
    "Patched aimv2 registration in /usr/local/lib/python3.10/dist-packages/vllm/transformers_utils/configs/ovis.py\nTraceback (most recent call last):\nValueError: 'aimv2' is already used by a Transformers config, pick another name.\nSERVER_CRASHED\n",
  ],
  [
    'cuda-incompatible',
    '[Kernel] TMA-based MoE',
    'mistralai/Mixtral-8x7B-Instruct-v0.1',
    'agent',
    'Server crashed after applying patch',
    'ImportError: /opt/vllm_baseline/vllm/_C.abi3.so: undefined symbol: cuTensorMapEncodeTiled\nSERVER_CRASHED\n',
  ],
  [
    'model-unsupported',
    '[Perf] Llama 3.1 rotary cache',
    'meta-llama/Llama-3.2-3B-Instruct',
    'human',
    'Server crashed during startup',
    'Fixing rope_scaling compatibility...\n[rank0]: Traceback (most recent call last):\n[rank0]: ValueError: Unknown RoPE scaling type llama3\nSERVER_CRASHED\n',
  ],
  [
    'gpu-oom',
    '[Perf] Larger CUDA graph batch sizes',
    'meta-llama/Meta-Llama-3-8B-Instruct',
    'agent',
    'Server crashed after applying patch',
    'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.10 GiB of which 1.21 GiB is free.\nSERVER_CRASHED\n',
  ],
  [
    'multi-gpu-required',
    '[MoE] Expert-parallel all-to-all',
    'mistralai/Mixtral-8x22B-Instruct-v0.1',
    'baseline',
    'Requires tensor-parallel-size 8 (8 GPUs), only 1 H100 available',
    '',
    SERVING('mistralai/Mixtral-8x22B-Instruct-v0.1') + ' --tensor-parallel-size 8',
  ],
  ['wrong-hardware', '[ROCm][MoE] MI300 tuned configs', 'mistralai/Mixtral-8x7B-Instruct-v0.1', 'baseline', 'Server crashed during startup', ''],
  [
    'server-startup-failed',
    '[Core] Lazy tokenizer init',
    'meta-llama/Meta-Llama-3-8B-Instruct',
    'human',
    'Server crashed during startup',
    'INFO 01-18 15:16:00 [api_server.py:981] vLLM API server version 0.7.4\nSERVER_CRASHED\n',
  ],
  ['timeout', '[Perf] Async output processing', 'Qwen/Qwen2.5-7B-Instruct', 'human', 'Benchmark timed out after 900s', ''],
  ['infra-transient', '[Misc] Faster startup', 'facebook/opt-125m', 'baseline', '[Errno 32] Broken pipe', ''],
  [
    'no-metrics',
    '[Bench] New dataset flags',
    'Qwen/Qwen2.5-7B-Instruct',
    'baseline',
    'No serving metrics in output',
    'usage: benchmark_serving.py [-h]\nbenchmark_serving.py: error: unrecognized arguments: --guided-decoding-backend xgrammar\n',
  ],
  [
    'model-gated',
    '[Model] Gemma 2 sliding window',
    'google/gemma-2-9b-it',
    'human',
    'Server crashed during startup',
    'huggingface_hub.errors.GatedRepoError: 401 Client Error. Cannot access gated repo for url https://huggingface.co/google/gemma-2-9b-it/resolve/main/config.json.\n',
  ],
  [
    'agent-patch-failed',
    '[Core] Scheduler fast path',
    'meta-llama/Meta-Llama-3-8B-Instruct',
    'agent',
    'Server crashed after applying patch',
    'Applying agent patch...\nHunk #2 FAILED at 118.\n1 out of 2 hunks FAILED -- saving rejects to file vllm/core/scheduler.py.rej\nAGENT_PATCH_APPLIED_FALLBACK\nSERVER_CRASHED\n',
  ],
  [
    'agent-broke-server',
    '[Perf] Fused sampler',
    'meta-llama/Meta-Llama-3-8B-Instruct',
    'agent',
    'Server crashed after applying patch',
    'INFO 01-18 15:16:00 [api_server.py:981] vLLM API server version 0.7.4\nSERVER_CRASHED\n',
  ],
  [
    'agent-no-metrics',
    '[Perf] Batch detokenization',
    'Qwen/Qwen2.5-7B-Instruct',
    'agent',
    'No metrics in agent output',
    'INFO 01-18 15:16:00 server ready\nBENCHMARK_DONE\n',
  ],
  // No rule knows this failure: the commit sits in "Unclassified" with its last error lines, and a
  // rule made from one of them (Create Rule from Selection) moves it out.
  [
    'unclassified',
    '[Kernel] Persistent Triton autotune cache',
    'Qwen/Qwen2.5-7B-Instruct',
    'human',
    'Process ended with status 3',
    'INFO 01-18 15:16:00 [api_server.py:981] vLLM API server version 0.7.4\nINFO 01-18 15:16:09 [autotune.py:88] loading the autotune cache from /root/.triton/autotune\nRuntimeError: autotune cache entry 0x3f2a has a stale layout hash; delete /root/.triton/autotune and retry\n',
  ],
];

rmSync(OUT, { recursive: true, force: true });
const dataset = [];
let n = 0;
const flat = (id, role, commit, parent, model, status, error, metrics, raw) =>
  write(`results/${commit.slice(0, 8)}_${role}_result.json`, {
    human_commit: commit.slice(0, 8),
    human_commit_full: commit,
    parent_commit: parent,
    model,
    status,
    error,
    duration_s: 100 + (n++ % 50),
    metrics,
    raw_output: raw,
    timestamp: `2026-01-18 15:${String(10 + (n % 40)).padStart(2, '0')}:00`,
  });
const agentRun = (commit, parent, i, empty = false, patch = AGENT_PATCH) => {
  const dir = `state/runs/vllm/claude_code/default/2026-01-10_12-00-00/vllm_core-${String(i).padStart(4, '0')}`;
  write(`${dir}/journal.json`, {
    task_id: 'vllm_core',
    commits: { pre: parent, human: commit },
    agent_branch: `agent/vllm_core/${commit.slice(0, 8)}`,
    status: empty ? 'error' : 'success',
  });
  write(`${dir}/model_patch.diff`, empty ? '' : patch);
};

FAILURES.forEach(([id, subject, model, role, error, raw, cmd], i) => {
  const commit = hash(`demo-${id}`),
    parent = hash(`demo-parent-${id}`);
  const command = cmd ?? (id === 'no-metrics' || i % 3 ? SERVING(model) : LATENCY(model));
  dataset.push({
    commit_hash: commit,
    commit_subject: subject,
    pr_url: `https://github.com/vllm-project/vllm/pull/${9000 + i}`,
    perf_command: command,
    models: [model],
    parent_commit: parent,
    diff_text: HUMAN_PATCH,
  });
  const image = r => (r === 'human' ? `anonymous/vllm-bench:${commit}` : `anonymous/vllm-baseline:baseline-${parent.slice(0, 12)}`);
  const isLatency = command.includes('benchmark_latency');
  const rawFor = r =>
    r === role
      ? s2Tail(realRaw(id, model, raw.replaceAll('PARENT', parent.slice(0, 12)), image(r)))
      : isLatency
        ? latencyRaw(model, (800 + 10 * i) / 1000, image(r))
        : okRaw(model, 40 + i, 1000 + 10 * i, image(r));
  for (const r of ['baseline', 'human', 'agent']) {
    const failing = r === role;
    if (!failing && ['baseline', 'human', 'agent'].indexOf(r) > ['baseline', 'human', 'agent'].indexOf(role)) continue; // later roles never ran
    const status = failing ? (id === 'timeout' ? 'timeout' : 'error') : 'success';
    const ok = isLatency ? { latency_avg_ms: 800 + 10 * i } : OK_SERVING(40 + i, 1000 + 10 * i);
    flat(id, r, commit, parent, model, status, failing ? error : null, failing ? {} : ok, rawFor(r));
  }
  agentRun(commit, parent, i);
});

// Outcomes decided by data, not by a failure: complete, incomparable, partial, version bug (S1), no perf command, bad perf command, agent without a patch.
const s1 = (name, status, error, instance, result) =>
  write(`results/modal/${name}/benchmark_result.json`, { instance, result: { status, error, duration_s: 2762.1, ...result } });
const mk = name => ({ commit: hash(`demo-${name}`), parent: hash(`demo-parent-${name}`) });
{
  const { commit, parent } = mk('complete');
  const m = 'meta-llama/Meta-Llama-3-8B-Instruct';
  dataset.push({
    commit_hash: commit,
    commit_subject: '[Core] Speed up decode by removing a copy',
    perf_command: SERVING(m),
    models: [m],
    parent_commit: parent,
    diff_text: HUMAN_PATCH,
  });
  s1(
    commit.slice(0, 8),
    'success',
    null,
    { commit_hash: commit, commit_subject: '[Core] Speed up decode by removing a copy', perf_command: SERVING(m) },
    {
      commit: commit.slice(0, 8),
      full_commit: commit,
      parent_commit: parent,
      model: m,
      gpu_config: 'H100:1',
      perf_command: SERVING(m),
      has_agent_patch: true,
      baseline_metrics: { ttft_mean: 41.2, tpot_mean: 9.81, itl_mean: 9.8 },
      human_metrics: { ttft_mean: 38.0, tpot_mean: 9.12, itl_mean: 9.1 },
      agent_metrics: { ttft_mean: 38.4, tpot_mean: 9.2, itl_mean: 9.19 },
      baseline_raw: RAW_OK,
      human_raw: RAW_OK,
      agent_raw: RAW_OK,
    },
  );
  agentRun(commit, parent, 50, false, ablationDemoPatch());
}
{
  const { commit, parent } = mk('incomparable');
  const m = 'meta-llama/Llama-3.1-8B-Instruct';
  dataset.push({
    commit_hash: commit,
    commit_subject: '[Perf] Cheaper logits processors',
    perf_command: SERVING(m),
    models: [m],
    parent_commit: parent,
    diff_text: HUMAN_PATCH,
  });
  // The agent's run used another model than the others (as the Docker pipeline's overrides did).
  for (const r of ['baseline', 'human', 'agent'])
    flat('incomparable', r, commit, parent, r === 'agent' ? 'Qwen/Qwen2.5-7B-Instruct' : m, 'success', null, OK_SERVING(r === 'agent' ? 36 : 40, 1200), RAW_OK);
  agentRun(commit, parent, 51);
}
{
  const { commit, parent } = mk('partial');
  dataset.push({
    commit_hash: commit,
    commit_subject: '[Misc] Tokenizer cache',
    perf_command: LATENCY('facebook/opt-125m'),
    models: ['facebook/opt-125m'],
    parent_commit: parent,
    diff_text: HUMAN_PATCH,
  });
  write(`results/docker/${commit.slice(0, 8)}_result.json`, {
    commit_hash: commit,
    status: 'success',
    benchmark_type: 'throughput',
    model: 'facebook/opt-125m',
    throughput_tok_s: 6368.6,
    fix_applied: 'numpy<2 downgrade',
    timestamp: '2026-01-06 04:14:33',
  });
}
{
  const { commit, parent } = mk('version-bug');
  dataset.push({
    commit_hash: commit,
    commit_subject: '[V1][Minor] Cache np arange',
    perf_command: SERVING('facebook/opt-125m'),
    models: ['facebook/opt-125m'],
    parent_commit: parent,
    diff_text: HUMAN_PATCH,
  });
  s1(
    commit.slice(0, 8),
    'version_bug',
    'vLLM 0.6.4.post2.dev375+gd263bd9d has known port binding bug (issue #8791) - serving benchmarks not supported',
    { commit_hash: commit, commit_subject: '[V1][Minor] Cache np arange', perf_command: SERVING('facebook/opt-125m') },
    {
      commit: commit.slice(0, 8),
      full_commit: commit,
      parent_commit: parent,
      model: 'facebook/opt-125m',
      gpu_config: 'H100:1',
      baseline_metrics: {},
      human_metrics: {},
      agent_metrics: null,
      baseline_version: '0.6.4.post2.dev375+gd263bd9d',
    },
  );
}
{
  // A real commit of the demo checkout (scripts/demo-checkout.mjs): Build Image on H100 builds its parent.
  const made = mkdtempSync(path.join(tmpdir(), 'bt-demo-checkout-'));
  const { commit, parent } = makeDemoCheckout(made);
  rmSync(made, { recursive: true, force: true });
  dataset.push({
    commit_hash: commit,
    commit_subject: '[Core] Optimize block_manager',
    perf_command: LATENCY('facebook/opt-125m'),
    models: ['facebook/opt-125m'],
    parent_commit: parent,
    diff_text: HUMAN_PATCH,
  });
  s1(
    commit.slice(0, 8),
    'error',
    `Baseline install failed: No wheel available and no ancestor wheel found for ${parent.slice(0, 12)}`,
    { commit_hash: commit, commit_subject: '[Core] Optimize block_manager', perf_command: LATENCY('facebook/opt-125m') },
    {
      commit: commit.slice(0, 8),
      full_commit: commit,
      parent_commit: parent,
      model: 'facebook/opt-125m',
      gpu_config: 'H100:1',
      baseline_metrics: {},
      human_metrics: {},
      agent_metrics: null,
    },
  );
}
{
  const { commit, parent } = mk('no-perf-command');
  dataset.push({
    commit_hash: commit,
    commit_subject: '[CI/Build] Make pre-commit faster',
    perf_command: null,
    models: ['N/A'],
    parent_commit: parent,
    diff_text: HUMAN_PATCH,
  });
  s1(
    commit.slice(0, 8),
    'no_perf_command',
    null,
    { commit_hash: commit, commit_subject: '[CI/Build] Make pre-commit faster', perf_command: null },
    {
      commit_hash: commit,
      benchmark_type: 'unknown',
      baseline_metrics: null,
      patched_metrics: null,
      improvement: null,
      error_message: 'No perf_command in dataset',
      perf_command: null,
    },
  );
}
{
  const { commit, parent } = mk('bad-perf-command');
  const cmd = 'python benchmarks/benchmark_latency.py --batch-size BS --input-len INPUT_LEN --output-len OUTPUT_LEN --model MODEL';
  dataset.push({
    commit_hash: commit,
    commit_subject: '[Kernel][Triton] Use block pointers',
    perf_command: cmd,
    models: ['N/A'],
    parent_commit: parent,
    diff_text: HUMAN_PATCH,
  });
  flat('bad-perf-command', 'baseline', commit, parent, null, 'error', 'No latency metrics in output', {}, '');
}
{
  const { commit, parent } = mk('agent-no-patch');
  const m = 'meta-llama/Meta-Llama-3-8B-Instruct';
  dataset.push({
    commit_hash: commit,
    commit_subject: '[Perf] Fewer host syncs',
    perf_command: SERVING(m),
    models: [m],
    parent_commit: parent,
    diff_text: HUMAN_PATCH,
  });
  for (const r of ['baseline', 'human']) flat('agent-no-patch', r, commit, parent, m, 'success', null, OK_SERVING(40, 1100), RAW_OK);
  flat('agent-no-patch', 'agent', commit, parent, m, 'error', 'Agent patch not found: model_patch.diff is empty', {}, '');
  agentRun(commit, parent, 52, true);
}

// Reruns by Bench Triage's own runner (run.json, result.json, the complete log of every phase): the
// Runs view lists them after a reload, and their logs are whole, the evidence deep inside.
function ownRun(c, role, { model, runId, status, error, metrics, serverLog: server, benchmarkLog = '', patchLog = null, started }) {
  const dir = `.bench-triage/runs/${c.commit.slice(0, 8)}/${role}/${runId}`;
  const phases = [
    ...(patchLog !== null
      ? [{ name: 'patch', argv: ['python3', '/bench-triage/bt_helper.py', 'apply-patch', '/bench-triage/agent.patch'], log: patchLog }]
      : []),
    { name: 'server', argv: ['python3', '-m', 'vllm.entrypoints.openai.api_server', '--model', model, '--port', '8000'], log: server },
    ...(benchmarkLog ? [{ name: 'benchmark', argv: ['python3', 'benchmark_serving.py', '--model', model, '--port', '8000'], log: benchmarkLog }] : []),
  ];
  const at = s => new Date(Date.parse(started) + s * 1000).toISOString();
  const image = role === 'human' ? `anonymous/vllm-bench:${c.commit}` : `anonymous/vllm-baseline:baseline-${c.parent.slice(0, 12)}`;
  const record = {
    schema: 'bench-triage.run-record/v1',
    runId,
    commit: c.commit,
    role,
    host: { label: 'h100-a (recorded)', docker: 'ssh://bench@h100-a', gpus: 1 },
    image,
    plan: {
      commit: c.commit,
      parent: c.parent,
      role,
      host: { label: 'h100-a (recorded)', docker: 'ssh://bench@h100-a', gpus: 1 },
      image,
      agentPatch: null,
      env: {},
      recipes: [],
      server: { argv: phases.find(p => p.name === 'server').argv, port: 8000, readiness: { url: 'http://127.0.0.1:8000/health', timeoutS: 600 } },
      benchmark: { script: 'benchmarks/benchmark_serving.py', scriptSource: 'the image', argv: ['python3', 'benchmark_serving.py', '--model', model] },
      tensorParallel: 1,
      metrics: 'printed-block',
      resultDir: dir,
    },
    recipes: [],
    status,
    error,
    exitCode: status === 'succeeded' ? 0 : 1,
    containerId: null,
    gpuIds: ['0'],
    createdAt: started,
    startedAt: at(5),
    endedAt: at(400),
    durationS: 395,
    phases: phases.map((p, i) => ({
      name: p.name,
      argv: p.argv,
      cwd: '/',
      launchedAt: at(10 + i * 60),
      endedAt: at(60 + i * 60),
      exitCode: i === phases.length - 1 && status !== 'succeeded' ? 1 : 0,
      stdout: `logs/${p.name}.stdout.log`,
      stderr: `logs/${p.name}.stderr.log`,
    })),
    readinessS: null,
    benchmarkScripts: 'the image (no vLLM checkout configured)',
    metrics,
    metricsSource: Object.keys(metrics).length ? 'printed-block' : null,
    envNames: [],
    secretNames: [],
    runnerLog: 'logs/runner.log',
    owner: 'recorded:0',
  };
  write(`${dir}/run.json`, record);
  write(`${dir}/result.json`, {
    schema: 'bench-triage.run/v1',
    commit: c.commit,
    role,
    status,
    error,
    metrics,
    agent: role === 'agent' ? 'claude_code' : null,
    model,
    command: `python benchmarks/benchmark_serving.py --model ${model} --dataset-name random --random-input-len 256 --random-output-len 64 --num-prompts 100`,
    image,
    fixes: [],
    startedAt: at(5),
    durationS: 395,
    host: 'h100-a (recorded)',
    runId,
    exitCode: record.exitCode,
    logs: ['logs/runner.log', ...record.phases.flatMap(p => [p.stdout, p.stderr])],
  });
  for (const p of phases) {
    write(`${dir}/logs/${p.name}.stdout.log`, p.log);
    write(`${dir}/logs/${p.name}.stderr.log`, '');
  }
  write(
    `${dir}/logs/runner.log`,
    [
      `${at(0)} queued on h100-a (recorded) (ssh://bench@h100-a) (0 ahead)`,
      `${at(1)} Docker 27.5.1 on h100-a: 52 CPUs, runtimes nvidia, runc`,
      `${at(5)} container started from ${image} on GPUs 0`,
      `${at(400)} ${status}${error ? `: ${error}` : ''}`,
    ].join('\n') + '\n',
  );
}
{
  const c = mk('gpu-oom');
  const m = 'meta-llama/Meta-Llama-3-8B-Instruct';
  const oom = [
    '[rank0]: Traceback (most recent call last):',
    '[rank0]:   File "/usr/local/lib/python3.10/dist-packages/vllm/worker/worker.py", line 230, in determine_num_available_blocks',
    '[rank0]:     self.model_runner.profile_run()',
    '[rank0]:   File "/usr/local/lib/python3.10/dist-packages/vllm/worker/model_runner.py", line 1331, in profile_run',
    '[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.10 GiB of which 1.21 GiB is free. Including non-PyTorch memory, this process has 77.88 GiB memory in use.',
  ];
  ownRun(c, 'agent', {
    model: m,
    runId: '20261120-101500-a1b2',
    status: 'failed',
    error: 'the server exited before it was ready (exit 1)',
    metrics: {},
    started: '2026-11-20T10:15:00Z',
    patchLog:
      'Applying agent patch in /usr/local/lib/python3.10/dist-packages (installed package: the files live under vllm/); 1 file(s): vllm/logger.py\nChecking patch vllm/logger.py...\nApplied patch vllm/logger.py cleanly.\nAGENT_PATCH_APPLIED\n',
    serverLog: serverLog(m, { n: 640, at: 0.82, seed: 7, evidence: oom, tail: SHUTDOWN }),
  });
}
{
  const c = mk('dependency-conflict');
  const m = 'AIDC-AI/Ovis2-8B';
  const clash = [
    'Patched aimv2 registration in /usr/local/lib/python3.10/dist-packages/vllm/transformers_utils/configs/ovis.py',
    'Traceback (most recent call last):',
    '  File "/usr/local/lib/python3.10/dist-packages/vllm/transformers_utils/configs/ovis.py", line 13, in <module>',
    '    AutoConfig.register("aimv2", AIMv2Config)',
    "ValueError: 'aimv2' is already used by a Transformers config, pick another name.",
  ];
  ownRun(c, 'human', {
    model: m,
    runId: '20261120-094000-c3d4',
    status: 'failed',
    error: 'the server exited before it was ready (exit 1)',
    metrics: {},
    started: '2026-11-20T09:40:00Z',
    serverLog: serverLog(m, { n: 420, at: 0.7, seed: 11, evidence: clash, tail: SHUTDOWN }),
  });
}
// A second campaign, as a team with its own results would have it: files written by the field's
// tools (vllm bench serve, SGLang, GuideLLM, AIPerf, vllm bench latency) in their real formats,
// attributed by their paths (<commit>/<role>[/<agent>]/) or by a bench-triage.csv manifest. One
// file is left unattributed to show the fix.
{
  const OWN = 'own-campaign';
  // Objects are written as vLLM and GuideLLM write them: Python's json.dump with its defaults, no newline after.
  const own = (rel, data) => write(`${OWN}/${rel}`, typeof data === 'string' ? data : pyJson(data));
  const roles = [
    ['baseline', 1.1, ''],
    ['human', 1.0, ''],
    ['agent', 0.82, '/my-agent'],
  ];
  // Five `vllm bench serve` attempts a role (repeats): the agent's patch is faster. Each records its
  // machine with `--metadata gpu=…`; one baseline attempt ran on another kind of H100, which the
  // comparison notes (pooled attempts with different labels).
  for (const [role, speed, agent] of roles)
    for (let k = 1; k <= 5; k++)
      own(
        `c0ffee01/${role}${agent}/openai-infqps-opt-125m-2026011${k}-0930${k}0.json`,
        vllmServeCli({
          seed: 100 + k * 7 + speed * 10,
          speed,
          numPrompts: 200,
          date: `2026011${k}-0930${k}0`,
          metadata: { gpu: role === 'baseline' && k === 4 ? 'H100-PCIe-80GB' : 'H100-SXM5-80GB' },
        }),
      );
  // One `--save-detailed` run a role, attributed by the manifest (with the perf commands they ran).
  const CMD = 'vllm bench serve --model facebook/opt-125m --dataset-name random --input-len 256 --output-len 64 --num-prompts 150';
  for (const [role, speed] of roles)
    own(`detailed/${role}.json`, vllmServeCli({ seed: 7 + speed * 10, speed, numPrompts: 150, detailed: true, inputLen: 256, outputLen: 64 }));
  // `--append-result`: three attempts a role in one file each; the human's second attempt lost requests.
  for (const [role, speed] of roles)
    own(
      `appended/${role}.json`,
      [1, 2, 3]
        .map(k =>
          pyJson(
            vllmServeCli({ seed: 300 + k + speed * 10, speed, numPrompts: 100, failed: role === 'human' && k === 2 ? 7 : 0, error: 'Internal Server Error' }),
          ),
        )
        .join('\n'),
    );
  own(
    'bench-triage.csv',
    [
      'path,commit,role,agent,command',
      ...roles.map(([role, , agent]) => `detailed/${role}.json,c0ffee02,${role},${agent.slice(1)},${CMD}`),
      ...roles.map(([role, , agent]) => `appended/${role}.json,c0ffee03,${role},${agent.slice(1)},`),
    ].join('\n') + '\n',
  );
  // SGLang's bench_serving JSONL (Infinity for the rate), two attempts a role.
  for (const [role, speed, agent] of roles)
    own(
      `c0ffee04/${role}${agent}/sglang_1124_200_1024_128.jsonl`,
      [1, 2].map(k => pyJson(sglangLine({ seed: 40 + k + speed * 10, speed, numPrompts: 200, backend: 'vllm' }))).join('\n') + '\n',
    );
  // GuideLLM sweeps (one run per rate) and AIPerf profiles.
  for (const [role, speed, agent] of roles) own(`c0ffee05/${role}${agent}/benchmarks.json`, guidellmReport({ seed: 50 + speed * 10, rates: [2, 4, 8], speed }));
  for (const [role, speed, agent] of roles) {
    const a = aiperfExport({ seed: role.length * 3, concurrency: 8, requestCount: 64, speed });
    own(
      `c0ffee06/${role}${agent}/artifacts/facebook_opt-125m-openai-completions-concurrency8/profile_export_aiperf.json`,
      JSON.stringify(a.json, null, 2) + '\n',
    );
    own(`c0ffee06/${role}${agent}/artifacts/facebook_opt-125m-openai-completions-concurrency8/profile_export.jsonl`, a.jsonl + '\n');
  }
  // vllm bench latency: two rounds a role.
  for (const [role, speed, agent] of roles)
    for (let k = 1; k <= 2; k++)
      own(`c0ffee07/${role}${agent}/latency-${k}.json`, JSON.stringify(vllmLatency({ seed: 70 + k + speed * 10, base: 1.2 * speed }), null, 4) + '\n');
  // A human run whose benchmark lost requests: a finding, not a measurement (unless allowed).
  for (const [role, speed, agent] of roles)
    own(
      `c0ffee08/${role}${agent}/openai-infqps-opt-125m-20260118-110000.json`,
      vllmServeCli({
        seed: 80 + speed * 10,
        speed,
        numPrompts: 200,
        failed: role === 'human' ? 12 : 0,
        detailed: role === 'human',
        error: 'Internal Server Error: the engine is overloaded',
        date: '20260118-110000',
      }),
    );
  // The team's list of the commits it measured: their subjects and repository (so each is shown with its title, under its project).
  own(
    'commits.jsonl',
    [
      ['c0ffee01', 'Five vllm bench serve attempts a role (one baseline attempt on another H100)'],
      ['c0ffee02', 'One --save-detailed run a role (per-request samples)'],
      ['c0ffee03', 'Appended results (--append-result), one attempt lost requests'],
      ['c0ffee04', "SGLang's bench_serving against the vLLM server"],
      ['c0ffee05', 'A GuideLLM sweep (one run per rate)'],
      ['c0ffee06', 'AIPerf profiles with per-request exports'],
      ['c0ffee07', 'vllm bench latency, two rounds a role'],
      ['c0ffee08', 'The human run lost 12 of 200 requests'],
    ]
      .map(([c, subject]) => JSON.stringify({ repo: 'vllm-project/vllm', commit_hash: c, commit_subject: subject, perf_command: null }))
      .join('\n') + '\n',
  );
  own('unsorted/openai-infqps-opt-125m-20260120-101500.json', vllmServeCli({ seed: 99, date: '20260120-101500' }));
  own(
    'README.md',
    '# Your own campaign\n\nResult files as the field’s tools write them — `vllm bench serve --save-result` (with `--save-detailed` and `--append-result`), SGLang’s `bench_serving` JSONL, GuideLLM’s `benchmarks.json`, AIPerf’s `profile_export_aiperf.json`, `vllm bench latency --output-json` — none of which names a commit or a role. Bench Triage attributes each by its path (`<commit>/<role>[/<agent>]/…`) or by the rows of `bench-triage.csv` (`path,commit,role,agent`, and optionally the `command` it ran). `unsorted/` holds a file neither says: it is listed as not attributed, with the two ways to fix it.\n',
  );
}
write('dataset/vllm_commits.jsonl', dataset.map(r => JSON.stringify({ repo: 'vllm-project/vllm', ...r })).join('\n') + '\n');
write(
  'README.md',
  '# Bench Triage demo workspace\n\nSynthetic results written by `scripts/make-demo.mjs` in the real ISO-Bench schemas: one commit per failure category, plus complete, incomparable and partial commits, a dataset with perf commands and human patches, and agent runs with their patches. Regenerate with `node scripts/make-demo.mjs`.\n',
);
// The fake H100 host: the local Docker engine (DOCKER_HOST) running the fake vLLM image that
// scripts/demo.sh builds when an engine is reachable. gpus 0: no NVIDIA runtime needed.
// Baseline images are named per parent: scripts/demo-images.mjs tags the fake image for every
// parent but the "No vLLM wheel" one, which Build Image on H100 builds from the demo checkout.
write('.vscode/settings.json', {
  'benchTriage.hosts': [{ label: 'fake-h100 (local Docker)', docker: '', gpus: 0 }],
  'benchTriage.imageTemplates': { human: 'bench-triage/fake-vllm:test', baseline: 'bench-triage/fake-vllm:baseline-{parent12}' },
  'benchTriage.vllmCheckout': `\${workspaceFolder}/${DEMO_CHECKOUT}`,
  'benchTriage.serverTimeoutSeconds': 60,
  // 20 ms a token: the fake's time goes to tokens, so a patch's speed-up shows in the throughput (patch ablation's example).
  'benchTriage.runEnv': ['FAKE_VLLM_DECODE_MS=20'],
});
console.log(`demo workspace: ${dataset.length} commits in ${path.relative(ROOT, OUT)}`);
