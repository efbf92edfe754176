import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { BUILTIN_RULES, Classifier, LiteralScanner, builtinRule, catastrophicReason, parseRulesFile, type ClassifyInput } from '../../src/core/classify';
import { RuleSchema } from '../../src/core/classify/ruleSchema';
import { requiredLiterals } from '../../src/core/classify/literals';

const input = (output: string, error = '', role: ClassifyInput['role'] = 'agent', context = ''): ClassifyInput => ({
  role,
  status: 'failed',
  context,
  texts: [
    ...(output ? [{ source: { file: 'r.json', field: 'raw_output' }, text: output, scope: 'output' as const }] : []),
    ...(error ? [{ source: { file: 'r.json', field: 'error' }, text: error, scope: 'error' as const }] : []),
  ],
});

describe('classify: engine', () => {
  const cl = new Classifier();

  it('resolves the generic S2 errors to their root causes, with the line as evidence', () => {
    const cases: Array<[string, string, string, string | null, number]> = [
      [
        'Applying agent patch...\nAGENT_PATCH_APPLIED\nTraceback (most recent call last):\n  File "/opt/vllm_baseline/vllm/transformers_utils/config.py", line 9, in <module>\nModuleNotFoundError: No module named \'transformers.utils\'\nSERVER_CRASHED',
        'Server crashed after applying patch',
        'dependency-conflict',
        'transformers-utils',
        5,
      ],
      [
        'ImportError: /opt/vllm_baseline/vllm/_C.abi3.so: undefined symbol: cuTensorMapEncodeTiled\nSERVER_CRASHED',
        'Server crashed after applying patch',
        'cuda-incompatible',
        'cuTensorMapEncodeTiled',
        1,
      ],
      [
        'Fixing rope_scaling compatibility...\nValueError: Unknown RoPE scaling type llama3\n',
        'Server crashed after applying patch',
        'model-unsupported',
        'rope-scaling',
        2,
      ],
      [
        "Unable to find image 'anonymous/vllm-baseline:baseline-abc' locally\ndocker: Error response from daemon: manifest for anonymous/vllm-baseline:baseline-0123456789ab not found: manifest unknown: manifest unknown.\n",
        'No metrics in agent output',
        'image-missing',
        null,
        2,
      ],
      [
        'abc123def456: Extracting  1.2GB/1.2GB\ndocker: failed to register layer: write /usr/lib/x.so: no space left on device.\n',
        'No metrics in agent output',
        'disk-full',
        null,
        2,
      ],
    ];
    for (const [out, err, cat, cause, line] of cases) {
      const c = cl.classify(input(out, err));
      assert.equal(c.category, cat, `${err} / ${out.slice(0, 40)}`);
      assert.equal(c.cause, cause);
      assert.equal(c.strength, 'signature');
      assert.equal(c.evidence!.line, line);
      assert.equal(c.evidence!.field, 'raw_output');
      assert.ok(out.split('\n')[line - 1].includes(c.evidence!.text));
    }
  });

  it('falls back to the generic error string, role-aware', () => {
    assert.equal(cl.classify(input('INFO all good so far', 'Server crashed after applying patch')).category, 'agent-broke-server');
    assert.equal(cl.classify(input('', 'No metrics in agent output')).category, 'agent-no-metrics');
    assert.equal(cl.classify(input('', 'Server crashed during startup', 'human')).category, 'server-startup-failed');
    const g = cl.classify(input('', 'Server crashed after applying patch', 'human'));
    assert.notEqual(g.category, 'agent-broke-server', 'agent rules do not apply to other roles');
  });

  it('prefers the earliest error-form line, and ignores echoes, warnings, pull chatter and progress bars', () => {
    const out = [
      'Installing pyairports...', // echo
      'WARNING 01-02 15:28:33 [_custom_ops.py:21] Failed to import from vllm._C with ModuleNotFoundError("No module named \'vllm._C\'")', // warning level
      'a1b2c3d4e5f6: Downloading  no space left on device 10MB/1GB', // pull chatter
      "ValueError: 'aimv2' is already used by a Transformers config, pick another name.",
      'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB',
    ].join('\n');
    const c = cl.classify(input(out, 'Server crashed after applying patch'));
    assert.equal(c.category, 'dependency-conflict');
    assert.equal(c.cause, 'aimv2-registered');
    assert.equal(c.evidence!.line, 4);
  });

  it('a non-error-form signature counts only when no error-form one exists', () => {
    const out = 'WARNING 01-02 15:28:33 Failed to import from vllm._C with ModuleNotFoundError("No module named \'vllm._C\'")\nINFO loading\n';
    assert.equal(cl.classify(input(out, 'Baseline test failed to produce JSON output', 'baseline')).category, 'no-metrics');
    const out2 = out + 'RuntimeError: CUDA error: no kernel image is available for execution on the device\n';
    assert.equal(cl.classify(input(out2, '', 'baseline')).category, 'cuda-incompatible');
  });

  it('uses the context (command, model, subject) when the logs say nothing specific', () => {
    const ctx =
      'command: python benchmarks/benchmark_serving.py --model deepseek-ai/DeepSeek-V3 --dtype float16\nmodel: deepseek-ai/DeepSeek-V3\nsubject: [Attention] MLA';
    const c = cl.classify({ ...input('', 'Baseline server failed to start', 'baseline'), context: ctx });
    assert.equal(c.category, 'multi-gpu-required');
    assert.equal(c.strength, 'context');
    const ph = cl.classify({
      ...input('', 'Baseline server failed to start', 'baseline'),
      context: 'command: python benchmarks/benchmark_latency.py --batch-size BS --model MODEL\nmodel: \nsubject: x',
    });
    assert.equal(ph.category, 'bad-perf-command');
    // A signature in the log still wins over the context.
    const sig = cl.classify({ ...input('torch.OutOfMemoryError: CUDA out of memory.', 'Baseline server failed to start', 'baseline'), context: ctx });
    assert.equal(sig.category, 'gpu-oom');
  });

  it('says unclassified with the last error line when nothing matches', () => {
    const c = cl.classify(input("starting\nKeyError: 'frobnicate'\ndone", 'weird failure 42', 'baseline'));
    assert.equal(c.category, 'unclassified');
    assert.equal(c.evidence?.text, "KeyError: 'frobnicate'");
    const t = cl.classify({ ...input('', '', 'baseline'), status: 'timeout' });
    assert.equal(t.category, 'timeout');
  });

  it('every built-in rule is valid as the schema reads it, and read without the schema the same (a new window builds it without zod)', () => {
    for (const s of BUILTIN_RULES) {
      const parsed = RuleSchema.safeParse(s);
      assert.ok(parsed.success, `${s.id}: ${parsed.success ? '' : parsed.error.message}`);
      assert.deepEqual(builtinRule(s), parsed.data, s.id);
    }
  });

  it('every built-in rule compiles and has a required literal of at least 5 characters', () => {
    for (const r of BUILTIN_RULES)
      for (const i of r.indications) {
        if (i.scope === 'context') continue;
        const lits = requiredLiterals(i.pattern);
        assert.ok(lits && Math.min(...lits.map(l => l.length)) >= 5, `${r.id}: ${i.pattern} → ${JSON.stringify(lits)}`);
      }
  });

  it('required literals go on through small classes and choices of literals, and every match holds one of them', () => {
    assert.deepEqual(requiredLiterals('(HTTP/1\\.[01]" (?:400|404) )')?.sort(), ['HTTP/1.0" 400 ', 'HTTP/1.0" 404 ', 'HTTP/1.1" 400 ', 'HTTP/1.1" 404 ']);
    assert.deepEqual(requiredLiterals('(?:foo|bar)baz'), ['foobaz', 'barbaz']);
    assert.deepEqual(requiredLiterals('ab[^01]cd'), ['ab'], 'a negated class is no choice');
    assert.deepEqual(requiredLiterals('x(?:yy|zz)?w'), ['x'], 'an optional choice ends the run');
    assert.deepEqual(requiredLiterals('[01]{2}xyz'), ['xyz']);
    // Necessary on every built-in pattern: each line a pattern matches holds one of its literals.
    const lines = [
      'GET /v1/models HTTP/1.1" 404 Not Found',
      'POST /v1/completions HTTP/1.0" 422 Unprocessable',
      'HTTP/1.1" 200 OK',
      'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB',
    ];
    for (const r of BUILTIN_RULES)
      for (const i of r.indications) {
        if (i.scope === 'context' || i.multiline) continue;
        const lits = requiredLiterals(i.pattern)!.map(l => l.toLowerCase());
        const re = new RegExp(i.pattern, (i.flags ?? '').replace('g', ''));
        for (const line of lines)
          if (re.test(line))
            assert.ok(
              lits.some(l => line.toLowerCase().includes(l)),
              `${r.id}: ${line}`,
            );
      }
  });

  it('a long line is read in four parts, yet a literal anywhere in it — across a cut, at either end — is found once', () => {
    const lits = ['cuda out of memory', 'error:', 'aimv2'];
    const sc = new LiteralScanner([lits]);
    const size = 1 << 20;
    // The cuts fall at the quarters of a span: each literal is put before, across and after each of them.
    const spots = [0, 1, size / 4 - 20, size / 4 - 5, size / 4, size / 2 - 9, size / 2 + 3, (3 * size) / 4 - 1, size - 20];
    for (const at of spots)
      for (const [k, lit] of lits.entries()) {
        const line = Buffer.alloc(size, 'x');
        line.write(lit, Math.min(at, size - lit.length));
        const text = Buffer.concat([Buffer.from('before\n'), line, Buffer.from('\nafter error: too\n')]);
        const got: Array<{ line: number; ids: number[]; len: number }> = [];
        const n = sc.scanBytes(text, 0, text.length, 1, (s, e, l, _m, ids) => got.push({ line: l, ids: [...ids].sort(), len: e - s }));
        assert.equal(n, 3);
        assert.deepEqual(
          got,
          [
            { line: 2, ids: [k], len: size },
            { line: 3, ids: [1], len: 'after error: too'.length },
          ],
          `${lit} at ${at}`,
        );
      }
  });

  it('the literal scanner finds exactly the lines a naive search finds', () => {
    const lits = ['CUDA out of memory', 'manifest unknown', 'No Module Named', 'error:', 'aimv2'];
    const sc = new LiteralScanner([lits]);
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    const words = [
      'INFO',
      'cuda',
      'out',
      'of',
      'memory',
      'CUDA out of memory',
      'manifest',
      'unknown',
      'manifest unknown',
      'no module named',
      'error',
      'error:',
      'aimv',
      'aimv2',
      'x',
      '█',
      '\n',
    ];
    const text = Array.from({ length: 20000 }, () => words[Math.floor(rnd() * words.length)]).join(' ');
    const naive: number[] = [];
    text.split('\n').forEach((l, i) => {
      if (lits.some(x => l.toLowerCase().includes(x.toLowerCase()))) naive.push(i + 1);
    });
    const got: number[] = [];
    const lines = sc.scanString(text, 1, (_t, line) => got.push(line));
    assert.deepEqual(got, naive);
    assert.equal(lines, text.split('\n').length - 1);
    const bytes: number[] = [];
    sc.scanBytes(Buffer.from(text), 0, Buffer.byteLength(text), 1, (_s, _e, line) => bytes.push(line));
    assert.deepEqual(bytes, naive);
  });

  it('the scanner reports each hit line once, in order, with its bounds and every literal on it — small pieces, the two- and four-walk large ones alike', () => {
    const lits = ['cuda out of memory', 'error:', 'aimv2', 'out', 'of'];
    const sc = new LiteralScanner([lits.slice(0, 3), lits.slice(3)]);
    let seed = 11;
    const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    const words = ['INFO', 'cuda', 'out', 'of', 'memory', 'CUDA out of memory', 'error:', 'aimv2', 'x', '█', '\n', '\n'];
    // 60 000 and 150 000 words are four-walk pieces; sparse newlines leave fewer parts than four.
    for (const [n, nlRate] of [
      [50, 2],
      [4000, 2],
      [15000, 2],
      [60000, 2],
      [150000, 2],
      [150000, 0.0002],
      [150000, 0],
    ] as const) {
      const pick = () => (rnd() < nlRate / words.length ? '\n' : words[Math.floor(rnd() * (words.length - 2))]);
      // Some texts end without a newline, some with a hit on their last line.
      const text = Array.from({ length: n }, pick).join(' ') + (n % 3 ? '' : ' error:');
      const buf = Buffer.from(text);
      const want = text.split('\n').flatMap((l, i) => {
        const low = l.toLowerCase();
        const ids = lits.map((x, id) => (low.includes(x) ? id : -1)).filter(id => id >= 0);
        return ids.length ? [{ line: i + 1, text: l, ids }] : [];
      });
      const got: Array<{ line: number; text: string; ids: number[] }> = [];
      const newlines = sc.scanBytes(buf, 0, buf.length, 1, (s, e, line, mask, ids) => {
        got.push({ line, text: buf.subarray(s, e).toString('utf8'), ids: [...new Set(ids)].sort((a, b) => a - b) });
        assert.equal(mask, (ids.some(id => id < 3) ? 1 : 0) | (ids.some(id => id >= 3) ? 2 : 0));
      });
      assert.deepEqual(got, want, `${buf.length} bytes`);
      assert.equal(newlines, text.split('\n').length - 1);
    }
  });
});

describe('classify: user rules', () => {
  it('validates the rules file, naming the rule and the field', () => {
    const { rules, problems } = parseRulesFile(
      JSON.stringify({
        rules: [
          { id: 'ok-rule', category: 'gpu-oom', description: 'x', indications: [{ scope: 'output', pattern: 'HBM exhausted' }] },
          { id: 'bad-scope', category: 'gpu-oom', description: 'x', indications: [{ scope: 'everywhere', pattern: 'x' }] },
          { id: 'bad-regex', category: 'gpu-oom', description: 'x', indications: [{ scope: 'any', pattern: '(unclosed' }] },
          { id: 'lookaround', category: 'gpu-oom', description: 'x', indications: [{ scope: 'any', pattern: 'a(?=b)' }] },
          { id: 'catastrophic', category: 'mine', description: 'x', indications: [{ scope: 'any', pattern: '(a+)+$' }] },
          { category: 'gpu-oom', description: 'x', indications: [] },
        ],
      }),
    );
    assert.deepEqual(
      rules.map(r => r.id),
      ['ok-rule', 'catastrophic'],
    );
    const by = (id: string | null) => problems.filter(p => p.ruleId === id);
    assert.match(by('bad-scope')[0].field, /^rules\.1\.indications\.0\.scope$/);
    assert.match(by('bad-regex')[0].message, /does not compile/);
    assert.equal(by('bad-regex')[0].field, 'rules.2.indications.0.pattern');
    assert.match(by('lookaround')[0].message, /does not compile/);
    assert.ok(by('catastrophic').some(p => p.severity === 'warning' && /catastrophically/.test(p.message)));
    assert.ok(by('catastrophic').some(p => p.severity === 'warning' && p.field === 'rules.4.category'));
    assert.ok(problems.some(p => p.index === 5 && p.field === 'rules.5.id'));
    assert.ok(problems.some(p => p.index === 5 && p.field === 'rules.5.indications'));
    assert.equal(parseRulesFile('{"rules": [').problems[0].field, '');
    assert.match(parseRulesFile('{"rules": [').problems[0].message, /invalid JSON.*line 1/);
  });

  it('detects patterns that backtrack catastrophically', () => {
    for (const p of ['(a+)+$', '(a|aa)*b', '(.*)*x', '(\\w+\\s?)+$']) assert.ok(catastrophicReason(p), p);
    for (const p of ['a+b+', '(abc)+', 'No module named (\\S+)', '(?:x|y)z']) assert.equal(catastrophicReason(p), null, p);
  });

  it('a user rule wins over built-ins on the same line and uses its own category', () => {
    const { rules } = parseRulesFile(
      JSON.stringify({
        rules: [{ id: 'hbm', category: 'gpu-oom', cause: 'hbm', description: 'HBM: {1}', indications: [{ scope: 'any', pattern: 'HBM (\\w+)' }] }],
      }),
    );
    const cl = new Classifier({ userRules: rules });
    const c = cl.classify(input('RuntimeError: HBM exhausted while CUDA out of memory', ''));
    assert.equal(c.rule, 'hbm');
    assert.equal(c.description, 'HBM: exhausted');
  });

  it('a catastrophic user regex against a 10 MB line finishes within its budget and is reported', function () {
    this.timeout(60000);
    const file = JSON.stringify({
      rules: [
        {
          id: 'evil',
          category: 'gpu-oom',
          description: 'x',
          indications: [
            { scope: 'any', pattern: '(a+)+$' },
            { scope: 'any', pattern: '(x|xx)*y' },
          ],
        },
      ],
    });
    const { rules, problems } = parseRulesFile(file);
    assert.ok(
      problems.some(p => p.ruleId === 'evil' && p.field === 'rules.0.indications.0.pattern' && /catastrophically/.test(p.message)),
      'reported',
    );
    assert.ok(
      problems.some(p => p.ruleId === 'evil' && p.field === 'rules.0.indications.1.pattern' && /catastrophically/.test(p.message)),
      'reported',
    );
    const text = 'a'.repeat(10 * 1024 * 1024) + '!\n' + 'x\n'.repeat(1000) + 'torch.OutOfMemoryError: CUDA out of memory';
    // RE2 runs it in linear time: within the default budget, nothing had to be stopped.
    const cl = new Classifier({ userRules: rules });
    const c = cl.classify(input(text, ''));
    assert.equal(c.category, 'gpu-oom', 'built-in rules still classify');
    assert.deepEqual(cl.budgetReports, []);
    // And a budget that runs out stops the user rules for that input and says so.
    const tight = new Classifier({ userRules: rules, userRuleBudgetMs: 0 });
    assert.equal(tight.classify(input(text, '')).category, 'gpu-oom');
    assert.ok(
      tight.budgetReports.some(b => b.rule === 'evil' && b.file === 'r.json'),
      JSON.stringify(tight.budgetReports),
    );
  });
});

describe('classify: a 1 GB log, streaming', function () {
  this.timeout(300000);
  it('is classified with peak RSS under 300 MB and the evidence at the right line @slow', () => {
    const worker = path.join(__dirname, 'support', 'classifyLog.worker.js');
    const p = spawnSync(process.execPath, [worker, String(1024 * 1024 * 1024)], { encoding: 'utf8' });
    assert.equal(p.status, 0, p.stderr);
    const r = JSON.parse(p.stdout);
    assert.equal(r.result.category, 'gpu-oom');
    assert.equal(r.result.evidence.line, r.tailLine + 2);
    assert.ok(r.maxRssMB < 300, `peak RSS ${r.maxRssMB} MB`);
    assert.ok(r.bytes >= 1024 * 1024 * 1024);
  });
});
