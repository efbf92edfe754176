import * as assert from 'node:assert/strict';
import { spawnSync, execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, symlinkSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseJson, scan } from '../../src/core/ingest';
import { parsePerfCommand } from '../../src/core/perfcmd';
import { applyFilePatch, splitPatch } from '../../src/core/patch';
import { Classifier, LogClassifier } from '../../src/core/classify';
import { hover } from '../../src/server/features';
import { analyze } from '../../src/server/documentFindings';
import { lineChunks } from '../../src/platform/lineChunks';
import { memorySource, runCli } from './helpers';
import { StdioServer } from '../support/lspClient';

const tmp = (name: string) => mkdtempSync(path.join(tmpdir(), `bt-${name}-`));
const result = (logs: string[]) =>
  JSON.stringify({
    schema: 'bench-triage.run/v1',
    commit: 'ab'.repeat(20),
    role: 'agent',
    status: 'failed',
    error: 'Server crashed after applying patch',
    metrics: {},
    agent: 'a',
    model: 'm',
    command: 'python3 benchmarks/benchmark_serving.py --model m',
    image: 'i',
    fixes: [],
    startedAt: '2026-11-23T00:00:00Z',
    durationS: 1,
    logs,
  });

describe('hardening: files named by data', function () {
  this.timeout(120_000);
  let dir: string, outside: string;
  before(() => {
    const root = tmp('named');
    dir = path.join(root, 'results');
    outside = path.join(root, 'outside.txt');
    writeFileSync(outside, 'SECRET-OUTSIDE-LINE: RuntimeError: CUDA out of memory\n');
    const run = path.join(dir, '.bench-triage/runs/abababab/agent/r1');
    mkdirSync(run, { recursive: true });
    execFileSync('mkfifo', [path.join(run, 'fifo.log')]);
    symlinkSync('/dev/zero', path.join(run, 'zero.log'));
    // A 300 MB sparse log whose decisive line is at its very end.
    const big = openSync(path.join(run, 'big.log'), 'w');
    writeSync(big, 'INFO starting\n', 0);
    writeSync(big, 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n', 300 * 1024 * 1024);
    closeSync(big);
    writeFileSync(path.join(run, 'result.json'), result(['../../../../../outside.txt', 'fifo.log', 'zero.log', 'big.log', '/etc/passwd']));
  });
  after(() => rmSync(path.dirname(dir), { recursive: true, force: true }));

  it('classify and report finish (no FIFO hang, no /dev/zero read), never quote a file outside the folder, and say what was not read', () => {
    const c = spawnSync(process.execPath, [path.resolve(__dirname, '../../dist/cli.js'), 'classify', dir, '--json'], {
      encoding: 'utf8',
      timeout: 60_000,
      maxBuffer: 64 << 20,
    });
    assert.equal(c.signal, null, 'classify hung');
    assert.equal(c.status, 0, c.stderr);
    const [e] = JSON.parse(c.stdout);
    const agent = e.roles.agent;
    assert.ok(
      agent.problems.some((p: { field: string; message: string }) => p.field === 'logs.0' && /not a path inside the run's folder: not read/.test(p.message)),
      JSON.stringify(agent.problems),
    );
    assert.ok(
      agent.problems.some((p: { field: string }) => p.field === 'logs.4'),
      'an absolute path is refused',
    );
    const notes: string[] = agent.notes;
    assert.ok(
      notes.some(n => /fifo\.log is not a regular file \(a FIFO\)/.test(n)),
      notes.join(' | '),
    );
    assert.ok(
      notes.some(n => /zero\.log resolves to \/dev\/zero, outside the scanned folder/.test(n)),
      notes.join(' | '),
    );
    assert.ok(
      notes.some(n => /big\.log is 300 MiB: only its first and last 32 MiB were classified/.test(n)),
      notes.join(' | '),
    );
    assert.equal(agent.category, 'gpu-oom', 'the decisive line at the end of the big log is found');
    assert.match(agent.evidence.file, /big\.log$/);
    const r = spawnSync(process.execPath, [path.resolve(__dirname, '../../dist/cli.js'), 'report', dir], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 0, r.stderr);
    assert.ok(!r.stdout.includes('SECRET-OUTSIDE'), 'the report quotes a file outside the folder');
  });

  it('symbolic links among result files are recorded, not silently skipped nor read twice', async () => {
    const root = tmp('links');
    try {
      const f = path.join(root, 'results');
      mkdirSync(f);
      const body = readFileSync(
        path.join(__dirname, '../../test/fixtures/workspace-small/omniperf_results_3way_claude_code/results/5e6f7a8b_human_result.json'),
        'utf8',
      );
      writeFileSync(path.join(f, '5e6f7a8b_human_result.json'), body);
      writeFileSync(path.join(root, 'elsewhere.json'), body);
      symlinkSync('5e6f7a8b_human_result.json', path.join(f, 'alias_human_result.json'));
      symlinkSync('../elsewhere.json', path.join(f, 'away_human_result.json'));
      execFileSync('mkfifo', [path.join(f, 'pipe_human_result.json')]);
      const s = JSON.parse(runCli('scan', f, '--json').stdout);
      const skipped = Object.fromEntries(s.files.skipped.map((x: { path: string; reason: string }) => [x.path, x.reason]));
      assert.match(skipped['alias_human_result.json'], /symbolic link to 5e6f7a8b_human_result\.json, inside the folder: read there, not twice/);
      assert.match(skipped['away_human_result.json'], /outside the folder: not read/);
      assert.match(skipped['pipe_human_result.json'], /not a regular file/);
      assert.equal(s.runs, 1);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('hardening: silently wrong results become correct or visible', () => {
  it('NaN and Infinity outside strings become null with a note; inside strings they stay', () => {
    const p = parseJson('{"error": "loss went NaN, then: NaN", "x": NaN, "y": [1, -Infinity], "z": "Infinity"}');
    assert.ok(p.ok);
    if (!p.ok) return;
    const v = p.value as Record<string, unknown>;
    assert.equal(v.error, 'loss went NaN, then: NaN');
    assert.equal(v.z, 'Infinity');
    assert.equal(v.x, null);
    assert.deepEqual(v.y, [1, null]);
    assert.equal(p.notes!.length, 2);
    assert.match(p.notes![0], /NaN at line 1 column \d+ is not JSON; read as null/);
  });

  it('a UTF-8 byte-order mark does not make a file corrupt', () => {
    const p = parseJson('\ufeff{"a": 1}');
    assert.ok(p.ok);
  });

  it('numbers written as strings are read (and said so); a negative latency is refused, never a win', async () => {
    const file = (role: string, metrics: object) =>
      JSON.stringify({
        human_commit: 'c0ffee12',
        human_commit_full: 'c0ffee12'.padEnd(40, '7'),
        parent_commit: 'b'.repeat(40),
        model: 'm',
        status: 'success',
        error: null,
        duration_s: 1,
        metrics,
        raw_output: '',
        timestamp: null,
      });
    const r = await scan(
      memorySource({
        'r/c0ffee12_baseline_result.json': file('baseline', { latency_avg_ms: 100 }),
        'r/c0ffee12_human_result.json': file('human', { latency_avg_ms: '90.5' }),
        'r/c0ffee12_agent_result.json': file('agent', { latency_avg_ms: -5 }),
      }),
    );
    const human = r.runs.find(x => x.role === 'human')!,
      agent = r.runs.find(x => x.role === 'agent')!;
    assert.equal(human.metrics.latency_avg_ms, 90.5);
    assert.ok(human.problems.some(p => p.field === 'metrics.latency_avg_ms' && /written as a string/.test(p.message)));
    assert.equal(agent.metrics.latency_avg_ms, undefined);
    assert.ok(agent.problems.some(p => p.field === 'metrics.latency_avg_ms' && /negative value -5/.test(p.message)));
    assert.equal(agent.status, 'failed', 'no metric left: not a success');
  });

  it('a line break inside a perf command is refused, not cut', () => {
    for (const cmd of [
      'python benchmarks/benchmark_serving.py --model m\n--num-prompts 10',
      'python benchmarks/benchmark_serving.py --model m\r--num-prompts 10',
    ]) {
      const p = parsePerfCommand(cmd);
      const e = p.problems.find(x => x.code === 'syntax');
      assert.ok(e && e.severity === 'error' && /line break at offset 48/.test(e.message), JSON.stringify(p.problems));
    }
  });
});

describe('hardening: bounded time on hostile input', function () {
  this.timeout(120_000);

  it('a hunk header claiming line 99999999999 is an error naming the hunk, at once', () => {
    const patch = 'diff --git a/vllm/x.py b/vllm/x.py\n--- a/vllm/x.py\n+++ b/vllm/x.py\n@@ -99999999999,1 +99999999999,1 @@\n-a\n+b\n';
    const [fp] = splitPatch(patch);
    const r = applyFilePatch('a\nb\nc\n', fp);
    assert.equal(r.ok, false);
    assert.match(r.ok ? '' : r.error, /hunk 1 of vllm\/x\.py \(@@ -99999999999,1 .*\) starts past the end of the parent's file \(4 lines\)/);
  });

  it('a one-line log longer than a chunk is read in bounded pieces, and its error is still found', async () => {
    const dir = tmp('oneline');
    try {
      const file = path.join(dir, 'one.log');
      const fd = openSync(file, 'w');
      const block = Buffer.alloc(1 << 20, 'x');
      for (let i = 0; i < 40; i++) writeSync(fd, block);
      writeSync(fd, ' RuntimeError: CUDA error: an illegal memory access was encountered');
      for (let i = 0; i < 4; i++) writeSync(fd, block);
      closeSync(fd);
      let biggest = 0,
        total = 0;
      const lc = new LogClassifier(new Classifier(), 'one.log');
      for await (const c of lineChunks(file, 4 << 20)) {
        biggest = Math.max(biggest, c.length);
        total += c.length;
        lc.pushBytes(c);
      }
      assert.equal(total, 44 * (1 << 20) + 67);
      assert.ok(biggest <= 8 << 20, `a piece of ${biggest} bytes`);
      const v = lc.result();
      assert.equal(v.classification?.category, 'cuda-incompatible');
      assert.equal(v.classification?.evidence?.line, 1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a user rule's time budget holds during a match on a huge line", () => {
    const c = new Classifier({
      userRuleBudgetMs: 200,
      userRules: [
        // No literal to anchor on: RE2 walks the whole line (about 3 s for 30 MB in one go).
        { id: 'slow', category: 'gpu-oom', description: 'x', strength: 'signature', indications: [{ scope: 'any', pattern: '(?:a|b)+[^ab]' }] },
      ],
    });
    const line = 'ab'.repeat(15 << 20);
    const t0 = Date.now();
    c.classify({ role: null, status: 'failed', texts: [{ source: { file: 'huge.log', field: null }, text: line, scope: 'output' }], context: '' });
    const ms = Date.now() - t0;
    assert.equal(c.budgetReports.length, 1);
    assert.ok(c.budgetReports[0].elapsedMs < 1000 && ms < 3000, `budget 200 ms, stopped after ${c.budgetReports[0].elapsedMs} ms (${ms} ms in all)`);
  });

  it('the Markdown analysis of a 0.8 MB note with many commands is linear (bounded look-back)', () => {
    const line = 'see python benchmarks/benchmark_latency.py --model m --batch-size 8 and ';
    const note = line.repeat(Math.ceil(800_000 / line.length));
    const t0 = Date.now();
    const a = analyze('file:///x/notes.md', note);
    assert.ok(a.sites.length > 5000);
    assert.ok(Date.now() - t0 < 8000, `${Date.now() - t0} ms (22 s before the fix)`);
  });

  it('a 5 MB line yields a capped set of diagnostics, sent once per version', async () => {
    const s = new StdioServer();
    try {
      await s.init(null);
      const cmd = `python benchmarks/benchmark_serving.py --model MODEL ${Array.from({ length: 60_000 }, (_, i) => `--x${i} BS`).join(' ')}`;
      const row = JSON.stringify({ commit_hash: 'a'.repeat(40), perf_command: cmd + ' '.repeat(Math.max(0, 5_000_000 - cmd.length)) });
      const uri = pathToFileURL('/tmp/bt-huge-line.jsonl').toString();
      const d = await s.open(uri, row + '\n', 'jsonl');
      const again = await Promise.race([s.diagnostics(uri, 1).then(() => true), new Promise<boolean>(r => setTimeout(() => r(false), 1500))]);
      assert.ok(d.diagnostics.length <= 301, `${d.diagnostics.length} diagnostics`);
      assert.ok(JSON.stringify(d).length < 1_000_000, `${JSON.stringify(d).length} bytes of diagnostics`);
      assert.equal(d.diagnostics.at(-1)!.code, 'more-findings');
      assert.equal(again, false, 'diagnostics for one version are published once');
    } finally {
      await s.stop();
    }
  });
});

describe('hardening: injection in outputs', () => {
  it('hovers escape model names for Markdown', () => {
    const text = JSON.stringify({ perf_command: 'python benchmarks/benchmark_serving.py --model [x](javascript:alert(1))<img/src=x>' });
    const a = analyze('file:///x/data.json', `[${text}]`);
    const at = `[${text}]`.indexOf('javascript');
    const h = hover(a, `[${text}]`, at)!;
    assert.ok(h, 'a hover');
    assert.ok(!h.includes('<img'), h);
    assert.ok(!/(^|[^\\])\[x\]\(/.test(h), h);
  });

  it('ANSI escapes from a log never reach the terminal', () => {
    const dir = tmp('ansi');
    try {
      const f = path.join(dir, 'server.log');
      writeFileSync(f, 'INFO ok\n\x1b[2J\x1b[31mtorch.OutOfMemoryError: CUDA out of memory\x1b[0m\x07\n');
      const r = runCli('classify-log', f);
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stdout, /gpu-oom/);
      assert.ok(!/[\x1b\x07]/.test(r.stdout), JSON.stringify(r.stdout));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
