#!/usr/bin/env node
// Writes demo/workspace: synthetic results in the real ISO-Bench schemas (S1 Modal 3-way, S2
// Docker flat per role), one commit per failure category plus complete / incomparable / partial
// ones, a dataset JSONL with perf commands and human patches, and agent runs with patches.
// Deterministic: running it twice gives the same files.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
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
    'meta-llama/Llama-3.1-8B-Instruct',
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
const agentRun = (commit, parent, i, empty = false) => {
  const dir = `state/runs/vllm/claude_code/default/2026-01-10_12-00-00/vllm_core-${String(i).padStart(4, '0')}`;
  write(`${dir}/journal.json`, {
    task_id: 'vllm_core',
    commits: { pre: parent, human: commit },
    agent_branch: `agent/vllm_core/${commit.slice(0, 8)}`,
    status: empty ? 'error' : 'success',
  });
  write(
    `${dir}/model_patch.diff`,
    empty
      ? ''
      : `diff --git a/vllm/worker/model_runner.py b/vllm/worker/model_runner.py\n--- a/vllm/worker/model_runner.py\n+++ b/vllm/worker/model_runner.py\n@@ -10,2 +10,2 @@ def prepare(batch):\n-    out = torch.tensor(batch).clone()\n+    out = torch.as_tensor(batch)\n     return out\n`,
  );
};
const HUMAN_PATCH =
  'diff --git a/vllm/worker/model_runner.py b/vllm/worker/model_runner.py\n--- a/vllm/worker/model_runner.py\n+++ b/vllm/worker/model_runner.py\n@@ -10,2 +10,2 @@ def prepare(batch):\n-    out = torch.tensor(batch).clone()\n+    out = torch.tensor(batch)\n     return out\n';

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
  const rawFor = r => (r === role ? raw.replaceAll('PARENT', parent.slice(0, 12)) : RAW_OK);
  for (const r of ['baseline', 'human', 'agent']) {
    const failing = r === role;
    if (!failing && ['baseline', 'human', 'agent'].indexOf(r) > ['baseline', 'human', 'agent'].indexOf(role)) continue; // later roles never ran
    const status = failing ? (id === 'timeout' ? 'timeout' : 'error') : 'success';
    flat(id, r, commit, parent, model, status, failing ? error : null, failing ? {} : OK_SERVING(40 + i, 1000 + 10 * i), rawFor(r));
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
  agentRun(commit, parent, 50);
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
  const { commit, parent } = mk('wheel-missing');
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
write('dataset/vllm_commits.jsonl', dataset.map(r => JSON.stringify(r)).join('\n') + '\n');
write(
  'README.md',
  '# Bench Triage demo workspace\n\nSynthetic results written by `scripts/make-demo.mjs` in the real ISO-Bench schemas: one commit per failure category, plus complete, incomparable and partial commits, a dataset with perf commands and human patches, and agent runs with their patches. Regenerate with `node scripts/make-demo.mjs`.\n',
);
// The fake H100 host: the local Docker engine (DOCKER_HOST) running the fake vLLM image that
// scripts/demo.sh builds when an engine is reachable. gpus 0: no NVIDIA runtime needed.
write('.vscode/settings.json', {
  'benchTriage.hosts': [{ label: 'fake-h100 (local Docker)', docker: '', gpus: 0 }],
  'benchTriage.imageTemplates': { human: 'bench-triage/fake-vllm:test', baseline: 'bench-triage/fake-vllm:test' },
  'benchTriage.serverTimeoutSeconds': 60,
});
console.log(`demo workspace: ${dataset.length} commits in ${path.relative(ROOT, OUT)}`);
