import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCli as run } from './helpers';
import { CATEGORIES, Classifier, draftRule, literalOf, parseLabel, RuleSchema } from '../../src/core/classify';

const ROOT = path.resolve(__dirname, '../..');
const CORPUS = path.join(ROOT, 'test/fixtures/failure-logs');

interface JsonSummary {
  logs: number;
  correct: number;
  categories: Array<{ category: string; logs: number; precision: number | null; recall: number | null }>;
  misses: Array<{ file: string; expected: string; got: string }>;
  neverFired: string[];
  belowMinRecall: string[];
}

function classifyLog(...args: string[]) {
  const p = run('classify-log', '--json', ...args);
  assert.equal(p.status, 0, p.stderr);
  return JSON.parse(p.stdout) as Array<{
    category: string | null;
    cause: string | null;
    strength: string | null;
    rule: string | null;
    evidence: { line: number; text: string } | null;
    findings: Array<{ category: string; rule: string | null; strength: string }>;
    candidates: Array<{ line: number; text: string }>;
  }>;
}

function tmpLog(lines: string[]): { file: string; done: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bt-rules-'));
  const file = path.join(dir, 'server.log');
  fs.writeFileSync(file, lines.join('\n') + '\n');
  return { file, done: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

describe('failure rules on a corpus of real-world signatures (issue 14)', function () {
  this.timeout(120000);

  it('the corpus files are exactly what its specs write (scripts/failure-corpus)', () => {
    const p = spawnSync(process.execPath, [path.join(ROOT, 'scripts/failure-corpus/write.mjs'), '--check'], { encoding: 'utf8' });
    assert.equal(p.status, 0, p.stderr + p.stdout);
  });

  it('every category of the taxonomy has at least 5 distinct signatures, each file labelled with its source', () => {
    const bySig = new Map<string, Set<string>>();
    for (const cat of fs.readdirSync(CORPUS)) {
      for (const f of fs.readdirSync(path.join(CORPUS, cat))) {
        const text = fs.readFileSync(path.join(CORPUS, cat, f), 'utf8');
        const label = parseLabel(text);
        assert.equal(label.expected, cat, `${cat}/${f} is labelled with its folder's category`);
        assert.deepEqual(label.problems, [], `${cat}/${f}`);
        const sig = /^# signature: (.+)$/m.exec(text)?.[1];
        assert.ok(sig && /^# source: .+$/m.test(text), `${cat}/${f} names its signature and source`);
        if (!bySig.has(cat)) bySig.set(cat, new Set());
        bySig.get(cat)!.add(sig);
      }
    }
    for (const c of CATEGORIES) {
      if (c.id === 'unclassified') continue;
      assert.ok((bySig.get(c.id)?.size ?? 0) >= 5, `${c.id}: ${bySig.get(c.id)?.size ?? 0} signatures`);
    }
  });

  it('`rules test` reaches recall ≥ 0.8 in every category and prints per-category figures, misses and silent rules', () => {
    const p = run('rules', 'test', CORPUS, '--json', '--min-recall', '0.8');
    assert.equal(p.status, 0, p.stderr);
    const s = JSON.parse(p.stdout) as JsonSummary;
    assert.ok(s.logs >= 5 * (CATEGORIES.length - 1), `${s.logs} logs`);
    assert.deepEqual(s.belowMinRecall, []);
    for (const c of s.categories.filter(x => x.logs > 0)) assert.ok((c.recall ?? 0) >= 0.8, `${c.category} recall ${c.recall}`);
    // The text form: the table, the misses section and the rules that never fired.
    const t = run('rules', 'test', CORPUS);
    assert.equal(t.status, 0, t.stderr);
    assert.match(t.stdout, /^category\s+logs\s+precision\s+recall$/m);
    assert.match(t.stdout, /^gpu-oom\s+\d+\s+[\d.]+\s+[\d.]+$/m);
    assert.match(t.stdout, /^(misses: none|misses \(\d+\):)$/m);
    assert.match(t.stdout, /rules that never fired \(\d+\): .*generic\.exit/);
  });

  it('`rules test` names misses with their candidate lines, reads a TSV, and fails under --min-recall', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bt-rulestest-'));
    try {
      fs.writeFileSync(path.join(dir, 'a.log'), 'INFO start\nRuntimeError: frobnicator jammed at stage 3\n');
      fs.writeFileSync(path.join(dir, 'b.log'), 'INFO start\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n');
      fs.writeFileSync(path.join(dir, 'c.log'), '# expected: no-such-category\nINFO start\n');
      fs.writeFileSync(path.join(dir, 'expected.tsv'), '# file\tcategory\na.log\tgpu-oom\nb.log\tgpu-oom\n');
      const p = run('rules', 'test', dir, '--min-recall', '0.8');
      assert.equal(p.status, 1, 'gpu-oom recall is 0.5');
      assert.match(p.stdout, /a\.log: expected gpu-oom, got unclassified/);
      assert.match(p.stdout, /line 2: RuntimeError: frobnicator jammed at stage 3/);
      assert.match(p.stderr, /c\.log: expected category "no-such-category" is not in the taxonomy/);
      assert.match(p.stderr, /recall below 0\.8 for: gpu-oom/);
      const bad = run('rules', 'test', dir, '--tsv', path.join(dir, 'missing.tsv'));
      assert.notEqual(bad.status, 0);
      assert.match(bad.stderr, /--tsv .*missing\.tsv cannot be read/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('classify-log names the issue’s kinds of failure with their evidence lines', () => {
    const want: Array<[string, string, RegExp]> = [
      ['cuda-incompatible/vllm-c-undefined-symbol.log', 'cuda-incompatible', /_C\.abi3\.so: undefined symbol/],
      ['cuda-incompatible/flash-attn-symbol.log', 'cuda-incompatible', /vllm_flash_attn\/_vllm_fa2_C\.abi3\.so: undefined symbol/],
      ['cuda-incompatible/libcudart-missing.log', 'cuda-incompatible', /libcudart\.so\.12: cannot open shared object file/],
      ['dependency-conflict/pyairports-pip.log', 'dependency-conflict', /pyairports/],
      ['dependency-conflict/build-regex-from-schema.log', 'dependency-conflict', /build_regex_from_schema/],
      ['server-startup-failed/cuda-graph-capture-hang.log', 'server-startup-failed', /Capturing CUDA graph shapes/],
      ['timeout/readiness-attempts.log', 'timeout', /did not become ready after 120 attempts/],
      ['server-startup-failed/engine-core-child-cause.log', 'server-startup-failed', /\(EngineCore_0 pid=3112\) ValueError: Sampler warm-up/],
      ['gpu-oom/torch-oom-v1.log', 'gpu-oom', /CUDA out of memory/],
      ['server-startup-failed/nccl-unhandled-cuda.log', 'server-startup-failed', /NCCL error: unhandled cuda error/],
      ['no-metrics/all-requests-failed.log', 'no-metrics', /Successful requests:\s+0/],
      ['no-metrics/context-length-400.log', 'no-metrics', /maximum context length|Initial test run failed/],
      ['no-metrics/unrecognized-arguments.log', 'no-metrics', /unrecognized arguments/],
      ['infra-transient/port-in-use-new-vllm.log', 'infra-transient', /Address already in use/],
    ];
    const got = classifyLog(...want.map(([f]) => path.join(CORPUS, f)));
    want.forEach(([f, category, evidence], i) => {
      assert.equal(got[i].category, category, f);
      assert.match(got[i].evidence?.text ?? '', evidence, f);
      // A child's own exception (no rule knows it) is the generic cause; everything else has a signature.
      assert.equal(got[i].strength, f.includes('child-cause') ? 'generic' : 'signature', `${f}: how it was reached`);
    });
    // The evidence line is the file's own line (the label header counts).
    const child = got[7];
    const lines = fs.readFileSync(path.join(CORPUS, want[7][0]), 'utf8').split('\n');
    assert.equal(lines[child.evidence!.line - 1], child.evidence!.text);
  });

  it('the earliest error line of the failing child process is the cause, not the parent’s summary', () => {
    const { file, done } = tmpLog([
      'INFO 11-02 14:03:14 [api_server.py:1395] vLLM API server version 0.10.0',
      '(EngineCore_0 pid=77) ERROR 11-02 14:04:31 [core.py:586] EngineCore failed to start.',
      '(EngineCore_0 pid=77) Traceback (most recent call last):',
      '(EngineCore_0 pid=77)   File "/x/vllm/v1/engine/core.py", line 1, in run_engine_core',
      '(EngineCore_0 pid=77) KeyError: frobnicated weights missing',
      'RuntimeError: Engine core initialization failed. See root cause above.',
    ]);
    try {
      const [r] = classifyLog(file);
      assert.equal(r.category, 'server-startup-failed');
      assert.equal(r.strength, 'generic');
      assert.equal(r.evidence?.line, 5);
      assert.match(r.evidence!.text, /KeyError: frobnicated/);
    } finally {
      done();
    }
  });

  it('two signatures of different categories are both findings; the earliest error-form line is primary', () => {
    const { file, done } = tmpLog([
      '(VllmWorkerProcess pid=9) ERROR 10-14 01:39:49 multiproc_worker_utils.py:226] RuntimeError: NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details)',
      'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB',
    ]);
    try {
      const [r] = classifyLog(file);
      assert.equal(r.category, 'server-startup-failed');
      assert.deepEqual(
        r.findings.map(f => f.category),
        ['server-startup-failed', 'gpu-oom'],
      );
      assert.ok(r.findings.every(f => f.strength === 'signature'));
    } finally {
      done();
    }
  });

  it('the same port error is #8791 on vLLM 0.6.x and a busy port on a later vLLM', () => {
    const log = (v: string) => [`INFO 10-14 01:38:02 api_server.py:528] vLLM API server version ${v}`, 'OSError: [Errno 98] Address already in use'];
    for (const [v, cat] of [
      ['0.6.3.post1', 'version-bug'],
      ['0.6.5', 'version-bug'],
      ['0.6.6', 'infra-transient'],
      ['0.8.5', 'infra-transient'],
    ]) {
      const { file, done } = tmpLog(log(v));
      try {
        const [r] = classifyLog(file);
        assert.equal(r.category, cat, v);
        if (cat === 'version-bug')
          assert.ok(
            r.findings.some(f => f.category === 'infra-transient'),
            'the busy port stays a finding',
          );
      } finally {
        done();
      }
    }
  });

  it('an unclassified log keeps its last error lines (at most 5, oldest first) and says so', () => {
    const lines = ['INFO start'];
    for (let i = 1; i <= 8; i++) lines.push(`RuntimeError: frobnicator stage ${i} jammed`, 'INFO retrying');
    const { file, done } = tmpLog(lines);
    try {
      const [r] = classifyLog(file);
      assert.equal(r.category, 'unclassified');
      assert.deepEqual(
        r.candidates.map(c => c.text),
        [4, 5, 6, 7, 8].map(i => `RuntimeError: frobnicator stage ${i} jammed`),
      );
      assert.equal(r.evidence?.text, 'RuntimeError: frobnicator stage 8 jammed');
      const text = run('classify-log', file);
      assert.match(text.stdout, /last error lines \(select one in the editor and run "Create Rule from Selection"\)/);
    } finally {
      done();
    }
  });

  it('an in-memory classification offers the same candidates as the streaming one', () => {
    const text = ['INFO a', 'ValueError: first odd thing', 'INFO b', 'ValueError: second odd thing'].join('\n');
    const c = new Classifier().classify({
      role: null,
      status: 'failed',
      texts: [{ source: { file: 'x.log', field: null }, text, scope: 'output' }],
      context: '',
    });
    assert.equal(c.category, 'unclassified');
    assert.deepEqual(
      c.candidates?.map(e => [e.line, e.text]),
      [
        [2, 'ValueError: first odd thing'],
        [4, 'ValueError: second odd thing'],
      ],
    );
    // A text that opens with empty lines (a leading newline once looped forever).
    const lead = new Classifier().classify({
      role: null,
      status: 'failed',
      texts: [{ source: { file: 'y.log', field: null }, text: '\n\nnothing to see', scope: 'output' }],
      context: '',
    });
    assert.deepEqual(lead.candidates, []);
  });
});

describe('a rule drafted from a selected log line (Create Rule from Selection)', () => {
  it('keeps the line’s own words as an escaped literal, without process prefixes, levels, timestamps and source locations', () => {
    const d = draftRule(
      '(EngineCore_0 pid=3112) ERROR 11-02 14:04:31 [core.py:586] RuntimeError: cache (v2) is stale [x]*\nsecond line',
      'infra-transient',
      'any',
      ['user.infra-transient.1'],
    );
    assert.equal(d.id, 'user.infra-transient.2');
    assert.equal(d.category, 'infra-transient');
    assert.equal(d.indications[0].pattern, '(RuntimeError: cache \\(v2\\) is stale \\[x\\]\\*)');
    assert.equal(d.indications[0].scope, 'any');
    assert.match(d.description, /\{1\}/);
    assert.equal(literalOf('[rank1]: torch.distributed.DistBackendError: boom'), 'torch.distributed.DistBackendError: boom');
    assert.equal(literalOf('ERROR 10-14 01:39:49 multiproc_worker_utils.py:226] KeyError: x'), 'KeyError: x');
    assert.equal(literalOf('[2025-05-02 09:11:40 TP0] Scheduler hit an exception'), 'Scheduler hit an exception');
    assert.throws(() => draftRule('   \n  ', 'gpu-oom', 'any', []), /no text/);
  });

  it('a drafted rule is a valid user rule that classifies the line it came from', () => {
    const line = 'RuntimeError: autotune cache entry 0x3f2a has a stale layout hash';
    const d = draftRule(line, 'infra-transient', 'any', []);
    const rule = RuleSchema.parse(d);
    const c = new Classifier({ userRules: [rule] }).classify({
      role: 'human',
      status: 'failed',
      texts: [{ source: { file: 'r.json', field: 'raw_output' }, text: `INFO start\n${line}\n`, scope: 'output' }],
      context: '',
    });
    assert.equal(c.category, 'infra-transient');
    assert.equal(c.rule, d.id);
    assert.equal(c.evidence?.line, 2);
  });
});
