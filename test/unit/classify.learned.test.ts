import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { builtinModel, Classifier, NaiveBayes, parseLabels, tokensOf, withLabel, type Label } from '../../src/core/classify';
import { runCli as run } from './helpers';

const MODEL = 'src/core/classify/learned/model.generated.json';

/** A failed agent run (ISO-Bench's `_agent_result.json`) whose output is `output`. */
function agentResult(dir: string, commit: string, output: string): void {
  fs.writeFileSync(
    path.join(dir, `${commit}_agent_result.json`),
    JSON.stringify({
      human_commit: commit,
      human_commit_full: commit.padEnd(40, '0'),
      parent_commit: null,
      model: 'm',
      status: 'error',
      error: null,
      duration_s: 1,
      metrics: {},
      raw_output: output,
      timestamp: null,
    }),
  );
}

describe('classify: the learned fallback and labels (issue 22)', function () {
  this.timeout(120000);

  it('naive Bayes: predicts from token sets, round-trips through JSON, `with` leaves the original alone', () => {
    const m = new NaiveBayes();
    m.add({ category: 'gpu-oom', tokens: ['cuda', 'out', 'memory', 'allocate'] });
    m.add({ category: 'gpu-oom', tokens: ['memory', 'kv', 'cache', 'blocks'] });
    m.add({ category: 'disk-full', tokens: ['no', 'space', 'left', 'device'] });
    const g = m.predict(['memory', 'allocate', 'unknown-word'])!;
    assert.equal(g.category, 'gpu-oom');
    assert.ok(g.p > 0.5 && g.p < 1, String(g.p));
    assert.equal(g.known, 2);
    assert.equal(m.predict(['nothing', 'known']), null);
    const copy = NaiveBayes.fromJSON(JSON.parse(JSON.stringify(m.toJSON())));
    assert.deepEqual(copy.predict(['space', 'device']), m.predict(['space', 'device']));
    const more = m.with([{ category: 'disk-full', tokens: ['memory', 'allocate'] }]);
    assert.equal(m.examples, 3);
    assert.equal(more.examples, 4);
    assert.ok(more.predict(['memory', 'allocate'])!.p < g.p);
  });

  it('tokens: prefixes, numbers, addresses and hashes go; dotted names are split too; a set, sorted', () => {
    const t = tokensOf([
      '(EngineCore_0 pid=12) ERROR 03-12 10:11:12 [core.py:387] torch.OutOfMemoryError: Tried to allocate 2.00 GiB at 0x7f00ab12 (deadbeefcafe0123)',
    ]);
    assert.ok(t.includes('torch.outofmemoryerror') && t.includes('outofmemoryerror') && t.includes('allocate'), t.join(' '));
    assert.ok(!t.some(x => /pid|^12$|0x7f|deadbeef|^2\.00$|enginecore/.test(x)), t.join(' '));
    assert.deepEqual(t, [...t].sort());
  });

  it('the built-in model is the one `rules train` gives on the labelled corpus (trained at build time)', () => {
    const p = run('rules', 'train', 'test/fixtures/failure-logs');
    assert.equal(p.status, 0, p.stderr);
    assert.deepEqual(JSON.parse(p.stdout), JSON.parse(fs.readFileSync(MODEL, 'utf8')));
    assert.ok(builtinModel().examples >= 100);
  });

  it('answers only where rules and structure have nothing; below the threshold it says what the run is most like', () => {
    const cl = new Classifier();
    const input = (text: string) => ({
      role: 'baseline' as const,
      status: 'failed' as const,
      texts: [{ source: { file: 'a.log', field: null }, text, scope: 'output' as const }],
      context: '',
    });
    const sig = cl.classify(input('torch.OutOfMemoryError: CUDA out of memory.'));
    assert.equal(sig.strength, 'signature');
    assert.equal(sig.learned, undefined, 'not asked when a signature answered');
    const u = cl.classify(input('ERROR frobnication of the quux stalled: zorblax mismatch'));
    assert.ok(u.learned, 'asked');
    if (u.category === 'unclassified')
      assert.match(u.description, u.learned.guess ? /^Unclassified — most like “.+” \(p = 0\.\d\d\); last error line/ : /No rule matched/);
    else assert.equal(u.strength, 'learned');
    // A model that knows these words answers, with its confidence.
    const odd = { category: 'disk-full', tokens: ['frobnication', 'quux', 'stalled', 'zorblax', 'mismatch'] };
    const m = new NaiveBayes().with([odd, odd, odd, { category: 'gpu-oom', tokens: ['memory', 'cuda'] }]);
    const l = new Classifier({ learned: m }).classify(input('ERROR frobnication of the quux stalled: zorblax mismatch'));
    assert.equal(l.category, 'disk-full');
    assert.equal(l.strength, 'learned');
    assert.match(l.description, /^Most like “Disk full” \(p = (?:0\.9\d|1\.00), learned from 4 labelled logs\)/);
  });

  it('a label (bench-triage label) overrides its run, survives on disk, and changes the learned answer for a similar log', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bt-labels-'));
    try {
      const odd = (n: number) => `starting\nERROR frobnication of the quux stalled at stage ${n}: zorblax phase mismatch in flux capacitor\n`;
      agentResult(dir, 'aaaa1111', odd(1));
      agentResult(dir, 'bbbb2222', odd(2));
      agentResult(dir, 'cccc3333', 'starting\nERROR the widget gizmo refused to spin: sprocket misaligned\n');
      const before = JSON.parse(run('classify', dir, '--json').stdout);
      const cat = (es: Array<{ commit: string; roles: { agent: { category: string; strength: string } } }>, c: string) =>
        es.find(e => e.commit.startsWith(c))!.roles.agent;
      for (const c of ['aaaa1111', 'bbbb2222', 'cccc3333']) assert.equal(cat(before, c).category, 'unclassified', c);
      const l = run('label', dir, '--commit', 'aaaa1111', '--role', 'agent', '--category', 'gpu-oom', '--note', 'HBM fault on this host');
      assert.equal(l.status, 0, l.stderr);
      assert.match(l.stdout, /aaaa1111 agent: GPU out of memory \(was Unclassified\), on \d+ evidence lines? → .*labels\.json/);
      const onDisk = parseLabels(fs.readFileSync(path.join(dir, '.bench-triage', 'labels.json'), 'utf8'));
      assert.deepEqual(onDisk.problems, []);
      assert.equal(onDisk.labels[0].category, 'gpu-oom');
      assert.match(onDisk.labels[0].lines.map(x => x.text).join('\n'), /zorblax/);
      const after = JSON.parse(run('classify', dir, '--json').stdout);
      assert.deepEqual(cat(after, 'aaaa1111'), { ...cat(after, 'aaaa1111'), category: 'gpu-oom', strength: 'label' });
      assert.equal(cat(after, 'bbbb2222').category, 'gpu-oom', 'the similar log');
      assert.equal(cat(after, 'bbbb2222').strength, 'learned');
      assert.equal(cat(after, 'cccc3333').category, 'unclassified', 'an unlike log stays unclassified');
      const list = run('label', dir, '--list');
      assert.match(list.stdout, /aaaa1111 agent: gpu-oom \(was unclassified\)/);
      // The label is a case of rules test on that folder.
      const rt = JSON.parse(run('rules', 'test', dir, '--json').stdout);
      assert.ok(rt.logs >= 1 && rt.stages.some((s: { stage: string; answered: number }) => s.stage !== 'none' && s.answered >= 1), JSON.stringify(rt.stages));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('bad labels: each problem names its field; the good labels load; a bad category and a bad role are refused by the CLI', () => {
    const good: Label = {
      run: 'a.json#agent',
      commit: 'aaaa1111',
      agent: null,
      role: 'agent',
      category: 'gpu-oom',
      was: null,
      lines: [],
      at: '2026-11-24T00:00:00Z',
    };
    const text = JSON.stringify({ schema: 'bench-triage.labels/v1', labels: [good, { ...good, role: 'chef' }, { ...good, category: 'cosmic-rays' }, 7] });
    const r = parseLabels(text);
    assert.equal(r.labels.length, 1);
    assert.deepEqual(
      r.problems.map(p => p.field),
      ['labels.1.role', 'labels.2.category', 'labels.3'],
    );
    assert.match(parseLabels('{"schema": "x", "labels": []}').problems[0].field, /schema/);
    assert.match(parseLabels('{oops').problems[0].message, /invalid JSON/);
    assert.match(parseLabels('x'.repeat(9 * 1024 * 1024)).problems[0].message, /larger than 8 MB/);
    // Secrets in copied lines are masked in every stored byte.
    const stored = withLabel([], {
      ...good,
      lines: [{ file: 'a.log', line: 3, text: 'GET https://huggingface.co/x?token=hf_abcdefghijklmnopqrstuvwxyz012345 401' }],
    });
    assert.ok(!/hf_abcdefghijklmnop/.test(stored), stored);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bt-labels-bad-'));
    try {
      agentResult(dir, 'aaaa1111', 'ERROR zorblax\n');
      assert.match(
        run('label', dir, '--commit', 'aaaa1111', '--role', 'agent', '--category', 'cosmic-rays').stderr,
        /--category "cosmic-rays" is not a category/,
      );
      assert.match(run('label', dir, '--commit', 'aaaa1111', '--role', 'chef', '--category', 'gpu-oom').stderr, /--role must be one of baseline, human, agent/);
      assert.match(run('label', dir, '--commit', 'ffff0000', '--role', 'agent', '--category', 'gpu-oom').stderr, /no commit ffff0000/);
      fs.mkdirSync(path.join(dir, '.bench-triage'));
      fs.writeFileSync(path.join(dir, '.bench-triage', 'labels.json'), text);
      const c = run('classify', dir, '--json');
      assert.equal(c.status, 0);
      assert.match(c.stderr, /labels\.json: labels\.1\.role: /);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
