import * as assert from 'node:assert/strict';
import { modelSize, parsePerfCommand, toOfflineCommand, tokenize, versionAtLeast } from '../../src/core/perfcmd';

const codes = (cmd: string, opts = {}) =>
  parsePerfCommand(cmd, opts)
    .problems.map(p => p.code)
    .sort();

describe('perfcmd', () => {
  it('splits into argv with offsets and reports shell operators instead of running them', () => {
    const t = tokenize(`python benchmarks/benchmark_serving.py --model "a b" --x='c'`);
    assert.deepEqual(
      t.tokens.map(x => x.text),
      ['python', 'benchmarks/benchmark_serving.py', '--model', 'a b', '--x=c'],
    );
    assert.equal(t.tokens[3].start, 47);
    const bad = parsePerfCommand('python benchmarks/benchmark_serving.py --model x; rm -rf /');
    assert.ok(bad.problems.some(p => p.code === 'shell-operator' && p.severity === 'error'));
    for (const cmd of ['a && b', 'a | b', 'a > f', 'a $(b)', 'a `b`']) assert.ok(tokenize(cmd).operators.length > 0, cmd);
  });

  it('finds placeholders at their offsets and a missing --model', () => {
    const cmd = 'python benchmarks/benchmark_latency.py --batch-size BS --input-len INPUT_LEN --model MODEL';
    const p = parsePerfCommand(cmd);
    const ph = p.problems.filter(x => x.code === 'placeholder');
    assert.deepEqual(
      ph.map(x => cmd.slice(x.start, x.end)),
      ['BS', 'INPUT_LEN', 'MODEL'],
    );
    assert.deepEqual(codes('python benchmarks/benchmark_latency.py --batch-size 8'), ['no-model']);
  });

  it('knows which flags each script takes; engine flags on a serving client are errors', () => {
    assert.deepEqual(codes('python benchmarks/benchmark_serving.py --model m --dtype float16'), ['server-flag']);
    assert.deepEqual(codes('python benchmarks/benchmark_latency.py --model m --dtype float16 --num-iters 5'), []);
    assert.deepEqual(codes('vllm bench serve --model m --bogus 1'), ['unknown-flag']);
    assert.deepEqual(codes('python benchmarks/benchmark_latency.py --model m --batch_size 4'), [], 'underscored spellings are normalised');
  });

  it('checks GPUs, model size, blocked models and the #8791 version bug', () => {
    assert.deepEqual(codes('python benchmarks/benchmark_latency.py --model m --tensor-parallel-size 8', { hostGpus: 1 }), ['tensor-parallel']);
    assert.deepEqual(codes('python benchmarks/benchmark_latency.py --model m -tp 8', { hostGpus: 8 }), []);
    assert.deepEqual(codes('python benchmarks/benchmark_serving.py --model deepseek-ai/DeepSeek-V3', { blockedModels: ['deepseek-v3'] }), [
      'blocked-model',
      'model-too-large',
    ]);
    assert.deepEqual(codes('python benchmarks/benchmark_serving.py --model m', { vllmVersion: '0.6.4.post2.dev375+gd263bd9d' }), ['version-bug']);
    assert.deepEqual(codes('python benchmarks/benchmark_serving.py --model m', { vllmVersion: '0.7.4' }), []);
    // 140 GB of bf16 weights leave no room for a KV cache on 2 × 80 GB: the estimate says 4.
    assert.equal(modelSize('meta-llama/Meta-Llama-3-70B-Instruct')!.h100s, 4);
    assert.equal(modelSize('meta-llama/Llama-3.1-8B-Instruct')!.h100s, 1);
    assert.ok(modelSize('deepseek-ai/DeepSeek-V3')!.h100s >= 8);
  });

  it('notes version-dependent flags only when the version is known', () => {
    const cmd = 'python3 benchmarks/benchmark_prefix_caching.py --model m --use-v2-block-manager';
    assert.deepEqual(codes(cmd), []);
    assert.deepEqual(codes(cmd, { vllmVersion: '0.5.5' }), []);
    assert.deepEqual(codes(cmd, { vllmVersion: '0.6.4.post1' }), ['flag-version']);
    assert.equal(versionAtLeast('0.10.1', '0.6.4'), true);
    assert.equal(versionAtLeast('0.6.3.post1', '0.6.4'), false);
  });

  it('rewrites a serving command to the closest offline benchmark', () => {
    const off = toOfflineCommand(
      'python benchmarks/benchmark_serving.py --model m --random-input-len 256 --random-output-len 64 --num-prompts 100 --dataset-name random',
    );
    assert.equal(off, 'python benchmarks/benchmark_throughput.py --model m --input-len 256 --output-len 64 --num-prompts 100');
    assert.deepEqual(codes(off!), []);
  });
});
