import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { Classifier, MAX_PATTERN_CHARS, MAX_RULES, catastrophicReason, parseRulesFile, type Rule } from '../../src/core/classify';
import { expandedSize } from '../../src/core/classify/matcher';
import { aggregate, type CommitTriage } from '../../src/core/compare';
import { summarize } from '../../src/core/ingest';
import { ISOBENCH, requireCorpus } from './helpers';

const CLI = path.resolve(__dirname, '../../dist/cli.js');
/** The CLI with a time bound: a hang is a failure here, never a stuck suite. */
const cli = (...args: string[]) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 20_000, maxBuffer: 64 * 1024 * 1024 });

const rule = (id: string, pattern: string, category = 'gpu-oom', flags?: string): Rule =>
  parseRulesFile(JSON.stringify({ rules: [{ id, category, description: id, indications: [{ scope: 'any', pattern, ...(flags ? { flags } : {}) }] }] }))
    .rules[0];

describe('hardening: user rules (issue 23, item 2) [ISO-Bench data]', function () {
  this.timeout(120_000);

  it('bounds: count, pattern length and expanded size are refused with their numbers; a built-in id is refused', () => {
    const many = {
      rules: Array.from({ length: MAX_RULES + 1 }, (_, i) => ({
        id: `r${i}`,
        category: 'gpu-oom',
        description: 'd',
        indications: [{ scope: 'any', pattern: `x${i}` }],
      })),
    };
    const p1 = parseRulesFile(JSON.stringify(many));
    assert.equal(p1.rules.length, 0);
    assert.match(p1.problems[0].message, new RegExp(`${MAX_RULES + 1} rules; at most ${MAX_RULES}`));
    const long = parseRulesFile(
      JSON.stringify({ rules: [{ id: 'big', category: 'gpu-oom', description: 'd', indications: [{ scope: 'any', pattern: 'a'.repeat(5 * 1024 * 1024) }] }] }),
    );
    assert.equal(long.rules.length, 0);
    assert.match(long.problems[0].message, new RegExp(`pattern is 5242880 characters; at most ${MAX_PATTERN_CHARS}`));
    assert.equal(long.problems[0].field, 'rules.0.indications.0.pattern');
    const blow = parseRulesFile(
      JSON.stringify({ rules: [{ id: 'blow', category: 'gpu-oom', description: 'd', indications: [{ scope: 'any', pattern: '((a{1000}){1000}){10}' }] }] }),
    );
    assert.equal(blow.rules.length, 0);
    assert.match(blow.problems[0].message, /expands to about 1\.0e\+7 instructions/);
    const builtin = parseRulesFile(
      JSON.stringify({ rules: [{ id: 'agent.no-patch', category: 'gpu-oom', description: 'd', indications: [{ scope: 'any', pattern: 'x' }] }] }),
    );
    assert.match(builtin.problems.map(p => p.message).join('\n'), /agent\.no-patch is a built-in rule's id/);
    assert.ok(catastrophicReason('(.*a){20}'), '(.*a){20} is flagged');
    assert.equal(catastrophicReason('(ab){20}'), null);
    assert.ok(expandedSize('abc') < 10);
  });

  it('the literal prefilter never changes an answer: rules with and without literals, case, alternation (fuzzed) @slow', () => {
    const words = ['CUDA out of memory', 'NCCL error', 'Connection refused', 'ModuleNotFoundError', 'Killed', 'exit code 137'];
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...words, 'INFO ok', 'step 3 done', 'cuda OUT of Memory', 'nccl Error'), { minLength: 1, maxLength: 12 }),
        fc.array(
          fc.tuple(fc.constantFrom('CUDA out', 'NCCL (error|warn)', '[Kk]illed', '\\d+ done', 'exit code \\d+', 'refused$', 'Module\\w+Error'), fc.boolean()),
          { minLength: 1, maxLength: 5 },
        ),
        (lines, pats) => {
          const rules = pats.map(([p, i], k) => rule(`u${k}`, p, `cat-${k}`, i ? 'i' : undefined));
          const text = lines.join('\n');
          const withLits = new Classifier({ userRules: rules, learned: null });
          // The same rules with one rule that has no literal at all: every rule then runs on every line.
          const everyLine = new Classifier({ userRules: [...rules, rule('zz-any', '^\\s*$', 'other')], learned: null });
          const input = {
            role: 'agent' as const,
            status: 'failed' as const,
            texts: [{ source: { file: 'f', field: null }, text, scope: 'output' as const }],
            context: '',
          };
          const a = withLits.classify(input);
          const b = everyLine.classify(input);
          if (a.rule?.startsWith('u') || b.rule?.startsWith('u')) assert.equal(a.rule, b.rule, text);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('10 000 user rules load and classify the corpus (their literals prefilter the lines)', () => {
    requireCorpus();
    const dir = mkdtempSync(path.join(tmpdir(), 'bt-manyrules-'));
    try {
      const rules = Array.from({ length: 10_000 }, (_, i) => ({
        id: `team.r${i}`,
        category: 'gpu-oom',
        description: 'd',
        indications: [{ scope: 'any', pattern: `never-seen-token-${i}\\b` }],
      }));
      writeFileSync(path.join(dir, 'rules.json'), JSON.stringify({ rules }));
      const r = cli('classify', ISOBENCH, '--rules', path.join(dir, 'rules.json'), '--json');
      assert.equal(r.status, 0, r.stderr.slice(0, 2000));
      assert.ok(JSON.parse(r.stdout).length > 50);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('/dev/zero and a FIFO as rules.json, --rules, --dockerfile, --tsv and classify-log are refused at once, naming the file', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bt-devzero-'));
    try {
      mkdirSync(path.join(dir, '.bench-triage'));
      symlinkSync('/dev/zero', path.join(dir, '.bench-triage', 'rules.json'));
      execFileSync('mkfifo', [path.join(dir, 'fifo')]);
      const c = cli('classify', dir, '--json');
      assert.notEqual(c.status, 0);
      assert.match(c.stderr, /rules\.json: the rules file is a symbolic link: not followed/);
      for (const f of ['/dev/zero', path.join(dir, 'fifo')]) {
        const r = cli('classify', dir, '--rules', f, '--json');
        assert.match(r.stderr, /the rules file is a (device|FIFO), not a regular file: not read/, r.stderr);
        const b = cli('build', '--folder', dir, '--commit', 'abc', '--role', 'human', '--dockerfile', f, '--dry-run');
        assert.match(b.stderr, /--dockerfile .*the Dockerfile is a (device|FIFO)/, b.stderr);
        const t = cli('rules', 'test', dir, '--tsv', f);
        assert.match(t.stderr, /the TSV is a (device|FIFO)/, t.stderr);
        const l = cli('classify-log', f);
        assert.match(l.stderr, /is a (device|FIFO), not a regular file: not read/, l.stderr);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('classify-log reads a UTF-16 log as such (it says so) and finds its error', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bt-utf16-'));
    try {
      const text = 'INFO starting\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n';
      writeFileSync(path.join(dir, 'le.log'), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]));
      const r = cli('classify-log', path.join(dir, 'le.log'), '--json');
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stderr, /le\.log: a UTF-16 \(le\) log, read as such/);
      assert.equal(JSON.parse(r.stdout)[0].category, 'gpu-oom');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rules test says what it skipped: links, unknown TSV categories, missing files; a BOM does not hide "# expected:"', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bt-rulestest-'));
    try {
      writeFileSync(path.join(dir, 'a.log'), '\uFEFF# expected: gpu-oom\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n');
      symlinkSync(path.join(dir, 'a.log'), path.join(dir, 'b.log'));
      writeFileSync(path.join(dir, 'expected.tsv'), 'missing.log\tno-such-category\n');
      const r = cli('rules', 'test', dir, '--json');
      assert.match(r.stderr, /b\.log: a symbolic link; skipped/);
      assert.match(r.stderr, /expected\.tsv:1: category "no-such-category" is not a built-in category/);
      assert.match(r.stderr, /expected\.tsv:1: missing\.log does not exist/);
      const out = JSON.parse(r.stdout);
      assert.equal(out.logs, 1, 'the BOM-led file is a case');
      assert.equal(out.correct, 1, 'and its expected category was read');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('hardening: object keys from data (issue 23, item 7)', () => {
  const entry = (commit: string, outcome: string, agent: string) =>
    ({
      commit,
      agent,
      project: 'vllm',
      outcome,
      verdict: 'win',
      pair: { ok: true },
      comparison: null,
      blockingRole: null,
      roles: {},
    }) as unknown as CommitTriage;

  it('categories, agents and outcomes named constructor, toString or __proto__ are counted like any other', () => {
    const a = aggregate([entry('a1', 'constructor', 'toString'), entry('a2', '__proto__', 'toString'), entry('a3', 'constructor', '__proto__')]);
    assert.equal(a.byOutcome.constructor, 2);
    assert.equal(a.byOutcome['__proto__'], 1);
    assert.equal(Object.keys(a.byOutcome).length, 2);
    assert.equal(a.byAgent['toString'].win, 2);
    assert.equal(a.byAgent['__proto__'].win, 1);
    assert.equal(JSON.stringify(a.byOutcome), '{"constructor":2,"__proto__":1}');
  });

  it('the scan summary counts a schema or status named __proto__', () => {
    const run = (status: string) => ({ role: 'agent', commit: 'a'.repeat(8), status, problems: [], provenance: { schema: '__proto__', file: 'f' } });
    const s = summarize({ runs: [run('constructor'), run('__proto__')], files: [], agentRuns: [], unlinkedAgentRuns: 0, conflicts: [] } as never);
    assert.equal(JSON.stringify(s.runsByStatus), '{"constructor":1,"__proto__":1}');
    assert.equal(JSON.stringify(s.runsBySchema), '{"__proto__":2}');
  });
});
