import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { emptyCommit } from '../../src/core/model';
import { commandWorkload, parsePerfCommand, translateCommand, type Translation } from '../../src/core/perfcmd';
import { planRun } from '../../src/core/run/plan';
import { runCli } from './helpers';

const host = { label: 'h100-1', docker: 'unix:///var/run/docker.sock', gpus: 1 };
const ok = (t: Translation | { error: string }): Translation => {
  if ('error' in t) throw new Error(t.error);
  return t;
};

describe('either form on any commit: the old benchmark script and `vllm bench`', () => {
  it('the old script as `vllm bench serve`: the script’s defaults made explicit, the same workload', () => {
    const t = ok(translateCommand('python benchmarks/benchmark_serving.py --model m --num-prompts 200 --best-of 1', 'cli'));
    assert.deepEqual(t.argv, ['vllm', 'bench', 'serve', '--model', 'm', '--num-prompts', '200', '--dataset-name', 'sharegpt', '--temperature', '0']);
    assert.ok(t.notes.some(n => /--dataset-name sharegpt made explicit/.test(n)));
    assert.ok(t.notes.some(n => /--best-of: not a flag of vllm bench, dropped/.test(n)));
    assert.deepEqual(t.differences, [], 'nothing of the workload changed');
  });

  it('`vllm bench serve` as the old script: --input-len is --random-input-len, random and ignore-EOS made explicit', () => {
    const cmd = 'vllm bench serve --model m --input-len 512 --output-len 64 --num-prompts 100 --temperature 0 --num-warmups 5 --label x';
    const t = ok(translateCommand(cmd, 'script'));
    assert.deepEqual(t.argv, [
      'python3',
      'benchmarks/benchmark_serving.py',
      '--model',
      'm',
      '--random-input-len',
      '512',
      '--random-output-len',
      '64',
      '--num-prompts',
      '100',
      '--temperature',
      '0',
      '--dataset-name',
      'random',
      '--ignore-eos',
    ]);
    assert.ok(
      t.notes.some(n => /--num-warmups, --label: not flags of the script, dropped/.test(n)),
      t.notes.join(' | '),
    );
    assert.deepEqual(t.differences, []);
    const a = commandWorkload(cmd)!.values,
      b = commandWorkload(t.command)!.values;
    for (const k of ['dataset', 'input_len', 'output_len', 'num_prompts', 'ignore_eos', 'temperature'] as const) assert.equal(b[k]!.value, a[k]!.value, k);
  });

  it('what the translation cannot carry is said: the CLI ignores EOS on random datasets, the old script did not', () => {
    const t = ok(translateCommand('python benchmarks/benchmark_serving.py --model m --dataset-name random --random-input-len 256', 'cli'));
    assert.ok(t.notes.some(n => /ignores EOS on random datasets/.test(n)));
    assert.deepEqual(t.differences, ['ignore_eos: no (default of benchmark_serving.py) → yes (vllm bench serve with a random dataset)']);
  });

  it('planRun runs the form the commit has and keeps per-request samples: --save-detailed, or the 2024 script’s own', () => {
    const c = {
      ...emptyCommit('a'.repeat(40)),
      parent: 'b'.repeat(40),
      perfCommands: [{ command: 'python benchmarks/benchmark_serving.py --model m --num-prompts 10', source: 't' }],
    };
    const stub = planRun(c, 'human', { host, runId: 'r', forms: { cli: true, script: 'stub' } });
    assert.equal(stub.translation?.to, 'cli');
    assert.match(stub.translation!.why, /stub/);
    assert.deepEqual(stub.benchmark.argv.slice(0, 3), ['vllm', 'bench', 'serve']);
    assert.ok(stub.benchmark.argv.includes('--save-detailed'));
    assert.equal(stub.benchmark.detailed, 'in-argv');
    const old = planRun(c, 'human', { host, runId: 'r', forms: { cli: false, script: 'full', scriptFlags: ['--model', '--num-prompts'] } });
    assert.equal(old.translation, null);
    assert.equal(old.benchmark.detailed, 'always');
    assert.ok(!old.benchmark.argv.includes('--save-detailed'), 'a 2024 script would refuse the flag');
    const unknown = planRun(c, 'human', { host, runId: 'r' });
    assert.equal(unknown.benchmark.detailed, 'check-at-launch');
    assert.equal(
      parsePerfCommand('vllm bench serve --input-len 10 --num-warmups 2 --ready-check-timeout-sec 5 --label l --ramp-up-strategy linear').problems.filter(
        p => p.code === 'unknown-flag',
      ).length,
      0,
    );
  });

  describe('bench-triage plan --checkout on a real git checkout', () => {
    let dir: string;
    let parent: string, child: string;
    const git = (cwd: string, ...args: string[]) =>
      execFileSync('git', ['-C', cwd, ...args], {
        encoding: 'utf8',
        env: { ...process.env, GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z', GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z' },
      }).trim();
    before(() => {
      dir = mkdtempSync(path.join(tmpdir(), 'bt-forms-'));
      const co = path.join(dir, 'vllm');
      mkdirSync(path.join(co, 'benchmarks'), { recursive: true });
      git(co, 'init', '-q');
      git(co, 'config', 'user.email', 't@t');
      git(co, 'config', 'user.name', 't');
      // The parent: a 2024 script (no --save-detailed, no `vllm bench`).
      writeFileSync(
        path.join(co, 'benchmarks/benchmark_serving.py'),
        'parser.add_argument("--model")\nparser.add_argument("--save-result", action="store_true")\n',
      );
      git(co, 'add', '-A');
      git(co, 'commit', '-qm', 'old');
      parent = git(co, 'rev-parse', 'HEAD');
      // The child: the stub of #24411 and the CLI's module.
      writeFileSync(path.join(co, 'benchmarks/benchmark_serving.py'), 'print("""DEPRECATED: This script has been moved to the vLLM CLI.\n""")\nsys.exit(1)\n');
      mkdirSync(path.join(co, 'vllm/benchmarks'), { recursive: true });
      writeFileSync(path.join(co, 'vllm/benchmarks/serve.py'), '# vllm bench serve\n');
      git(co, 'add', '-A');
      git(co, 'commit', '-qm', 'new');
      child = git(co, 'rev-parse', 'HEAD');
      const row = (cmd: string) => JSON.stringify({ commit_hash: child, parent_commit: parent, perf_command: cmd, diff_text: '' });
      mkdirSync(path.join(dir, 'cli'));
      writeFileSync(
        path.join(dir, 'cli/dataset.jsonl'),
        row('vllm bench serve --model facebook/opt-125m --input-len 512 --output-len 64 --num-prompts 100') + '\n',
      );
      mkdirSync(path.join(dir, 'script'));
      writeFileSync(path.join(dir, 'script/dataset.jsonl'), row('python benchmarks/benchmark_serving.py --model facebook/opt-125m --num-prompts 100') + '\n');
    });
    after(() => rmSync(dir, { recursive: true, force: true }));

    it('a `vllm bench serve` command on a parent without the CLI: the old-script argv with its defaults explicit', () => {
      const plan = (role: string) => {
        const r = runCli(
          'plan',
          '--folder',
          path.join(dir, 'cli'),
          '--commit',
          child.slice(0, 8),
          '--role',
          role,
          '--checkout',
          path.join(dir, 'vllm'),
          '--json',
        );
        assert.equal(r.status, 0, r.stderr);
        return JSON.parse(r.stdout)[0];
      };
      const [b, h] = [plan('baseline'), plan('human')];
      assert.equal(b.role, 'baseline');
      assert.equal(b.translation.to, 'script');
      assert.match(b.translation.why, /predates `vllm bench`/);
      assert.deepEqual(b.benchmark.argv.slice(0, 13), [
        'python3',
        '/bench-triage/src/benchmarks/benchmark_serving.py',
        '--model',
        'facebook/opt-125m',
        '--random-input-len',
        '512',
        '--random-output-len',
        '64',
        '--num-prompts',
        '100',
        '--dataset-name',
        'random',
        '--ignore-eos',
      ]);
      assert.equal(b.benchmark.detailed, 'always');
      assert.equal(h.role, 'human');
      assert.equal(h.translation, null);
      assert.ok(h.benchmark.argv.includes('--save-detailed'));
      const text = runCli('plan', '--folder', path.join(dir, 'cli'), '--commit', child.slice(0, 8), '--role', 'baseline', '--checkout', path.join(dir, 'vllm'));
      assert.match(text.stdout, /translated `vllm bench` → the old script: it predates `vllm bench`/);
      assert.match(text.stdout, /· --input-len is the random dataset’s --random-input-len/);
    });

    it('and the other way: an old-script command on a commit whose script is the stub runs `vllm bench serve`', () => {
      const r = runCli(
        'plan',
        '--folder',
        path.join(dir, 'script'),
        '--commit',
        child.slice(0, 8),
        '--role',
        'human',
        '--checkout',
        path.join(dir, 'vllm'),
        '--json',
      );
      assert.equal(r.status, 0, r.stderr);
      const [h] = JSON.parse(r.stdout);
      assert.equal(h.translation.to, 'cli');
      assert.deepEqual(h.benchmark.argv.slice(0, 11), [
        'vllm',
        'bench',
        'serve',
        '--model',
        'facebook/opt-125m',
        '--num-prompts',
        '100',
        '--dataset-name',
        'sharegpt',
        '--temperature',
        '0',
      ]);
      assert.ok(h.benchmark.argv.includes('--save-detailed'));
      const none = runCli('plan', '--folder', path.join(dir, 'script'), '--commit', child.slice(0, 8), '--role', 'human');
      assert.match(none.stderr, /no --checkout/);
    });
  });
});
