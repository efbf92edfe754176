import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { scan } from '../../src/core/ingest';
import { Classifier, LogClassifier } from '../../src/core/classify';
import { parsePerfCommand } from '../../src/core/perfcmd';
import { applyFilePatch, PatchError, splitPatch } from '../../src/core/patch';
import { analyze } from '../../src/server/documentFindings';
import { ISOBENCH, memorySource, requireCorpus } from './helpers';

/**
 * Property-based fuzzing of every entry point that reads data: generated and mutated real files
 * go into ingest, classify-log, the perf-command parser, the patch parser and the language
 * server's analysis. Properties: no exception escapes; each input stays within a time and memory
 * bound; every bad input becomes a finding that names the file and the field or position.
 * fast-check prints the seed and the shrunk input on failure; FUZZ_SEED and FUZZ_RUNS reproduce
 * or lengthen a run.
 */
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Date.now() % 2 ** 31;
const RUNS = Number(process.env.FUZZ_RUNS ?? 400);
const params = (numRuns = RUNS): fc.Parameters<unknown> => ({ seed: SEED, numRuns, endOnFailure: true });
/** Per input: generous bounds that only a hang or a superlinear blow-up can cross. */
const TIME_BOUND_MS = 3000;
const HEAP_BOUND_MB = 400;

const REAL = [
  'archive/results/2026-01/omniperf_results_3way_claude_code/results/modal/58eee5f2/benchmark_result.json',
  'archive/results/2026-01/omniperf_results_3way_claude_code/results/9badee53_human_result.json',
  'archive/results/2026-01/omniperf_results_3way_claude_code/results/separate_baseline/67da5720_baseline_result.json',
  'archive/results/2026-01/omniperf_results_3way_claude_code/reruns/4_fixable/6ce01f30_result.json',
  'archive/results/2026-01/omniperf_results_3way_claude_code/results/docker/0ec82edd_result.json',
];

/** A mutation of a real document: cut, flipped, spliced, NaN-ed, stringified numbers, deep nesting. */
function mutate(text: string): fc.Arbitrary<string> {
  return fc.oneof(
    fc.nat({ max: text.length }).map(n => text.slice(0, n)),
    fc.tuple(fc.nat({ max: text.length - 1 }), fc.integer({ min: 0, max: 255 })).map(([i, b]) => text.slice(0, i) + String.fromCharCode(b) + text.slice(i + 1)),
    fc.tuple(fc.nat({ max: text.length }), fc.string({ maxLength: 40 })).map(([i, s]) => text.slice(0, i) + s + text.slice(i)),
    fc
      .constantFrom('NaN', 'Infinity', '-Infinity', '"12.5"', '-5', '1e308', '"NaN"', 'null', '[]', '{}')
      .map(v => text.replace(/(:\s*)-?\d+(\.\d+)?/g, (m, p: string) => (Math.random() < 0.3 ? p + v : m))),
    fc.integer({ min: 100, max: 20000 }).map(d => '['.repeat(d) + ']'.repeat(d)),
    fc.constant('\ufeff' + text),
    fc.constant(text.replace(/"raw_output": "/, '"raw_output": "' + 'x'.repeat(200_000))),
  );
}

function bounded<T>(what: string, f: () => T): T {
  const heap0 = process.memoryUsage().heapUsed;
  const t0 = Date.now();
  const r = f();
  const ms = Date.now() - t0,
    mb = (process.memoryUsage().heapUsed - heap0) / 1048576;
  assert.ok(ms < TIME_BOUND_MS, `${what}: ${ms} ms`);
  assert.ok(mb < HEAP_BOUND_MB, `${what}: +${mb.toFixed(0)} MB heap`);
  return r;
}

describe(`fuzz (fast-check, seed ${SEED}, ${RUNS} runs per property; FUZZ_SEED=${SEED} reproduces) [ISO-Bench data]`, function () {
  this.timeout(120_000);
  let real: Array<{ name: string; text: string }>;
  before(() => {
    requireCorpus();
    real = REAL.map(p => ({ name: path.basename(p).replace('benchmark_result', 'abcd1234_human_result'), text: readFileSync(path.join(ISOBENCH, p), 'utf8') }));
  });

  it('ingest: mutated real result files never throw; each bad one is a record naming the file and the place', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: REAL.length - 1 }).chain(i => fc.tuple(fc.constant(i), mutate(real[i].text))),
        async ([i, text]) => {
          const name = `results/${i}/${real[i].name}`;
          const t0 = Date.now();
          const r = await scan(memorySource({ [name]: text }));
          assert.ok(Date.now() - t0 < TIME_BOUND_MS, `${Date.now() - t0} ms`);
          assert.equal(r.files.length, 1);
          const f = r.files[0];
          assert.equal(f.path, name);
          if (f.kind === 'corrupt')
            assert.ok(f.error === 'empty file' || (f.line !== null && f.column !== null && /line \d+ column \d+/.test(f.error)), f.error);
          if (f.kind === 'unknown') assert.ok(f.reason.length > 10 && /field|schema|keys|not an object|top-level|commit/.test(f.reason), f.reason);
          for (const run of r.runs) for (const p of run.problems) assert.ok(p.field && p.message, JSON.stringify(p));
        },
      ),
      params(),
    );
  });

  it('ingest: arbitrary JSON values never throw', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.jsonValue({ maxDepth: 6 }),
        fc.constantFrom('x_human_result.json', 'results/docker/a_result.json', 'd.jsonl', '.bench-triage/runs/a/b/c/result.json'),
        async (v, name) => {
          const r = await scan(memorySource({ [name]: JSON.stringify(v) }));
          assert.ok(r.files.length <= 1);
        },
      ),
      params(),
    );
  });

  it('classify-log: random and mutated logs never throw, stay bounded, and evidence points at a real line @slow', () => {
    const base =
      'INFO 11-22 10:00:00 server.py:1] starting\nTraceback (most recent call last):\n  File "x.py", line 1\nRuntimeError: CUDA error: an illegal memory access was encountered\n';
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 20000 }),
          fc.string({ maxLength: 5000 }).map(s => new TextEncoder().encode(base + s)),
          fc
            .tuple(fc.integer({ min: 1, max: 300_000 }), fc.constantFrom('x', 'Error ', '\r', '\u0000', 'é', 'CUDA out of memory '))
            .map(([n, s]) => new TextEncoder().encode(s.repeat(n))),
        ),
        bytes => {
          const lines = bytes.filter(b => b === 10).length + 1;
          const v = bounded('classify-log', () => {
            const lc = new LogClassifier(new Classifier(), 'fuzz.log');
            lc.pushBytes(bytes);
            return lc.result();
          });
          const ev = v.classification?.evidence;
          if (ev) {
            assert.equal(ev.file, 'fuzz.log');
            assert.ok(ev.line >= 1 && ev.line <= lines, `line ${ev.line} of ${lines}`);
          }
        },
      ),
      params(),
    );
  });

  it('perf-command parser: any string parses without throwing; problems stay inside the command; line breaks are refused', () => {
    const cmd = fc.oneof(
      fc.string({ maxLength: 400 }),
      fc.stringMatching(/^python3? benchmarks\/benchmark_(serving|latency|throughput)\.py( --[a-z-]{1,20}( [A-Za-z0-9_./"'$;|&<>`\n-]{0,20})?){0,12}$/),
    );
    fc.assert(
      fc.property(cmd, c => {
        const p = bounded('parsePerfCommand', () => parsePerfCommand(c, { hostGpus: 1 }));
        for (const x of p.problems) assert.ok(x.start >= 0 && x.end <= c.length && x.start <= x.end && x.message.length > 0, JSON.stringify(x));
        if (/[\r\n]/.test(c))
          assert.ok(
            p.problems.some(x => x.code === 'syntax' && x.severity === 'error'),
            c,
          );
      }),
      params(),
    );
  });

  it('patch parser: malformed and hostile patches give a PatchError or a per-hunk error, never another exception', () => {
    const header = fc.tuple(fc.oneof(fc.nat(), fc.constant(99_999_999_999), fc.constant(2 ** 53)), fc.nat({ max: 50 }), fc.nat(), fc.nat({ max: 50 }));
    const patch = fc
      .tuple(
        header,
        fc.array(fc.oneof(fc.constant('-a'), fc.constant('+b'), fc.constant(' c'), fc.constant('\\ No newline at end of file'), fc.string({ maxLength: 10 })), {
          maxLength: 20,
        }),
      )
      .map(
        ([[os, ol, ns, nl], body]) =>
          `diff --git a/vllm/x.py b/vllm/x.py\n--- a/vllm/x.py\n+++ b/vllm/x.py\n@@ -${os},${ol} +${ns},${nl} @@\n${body.join('\n')}\n`,
      );
    fc.assert(
      fc.property(fc.oneof(patch, fc.string({ maxLength: 300 })), text => {
        bounded('patch', () => {
          let files;
          try {
            files = splitPatch(text);
          } catch (e) {
            assert.ok(e instanceof PatchError, String(e));
            assert.match(e.message, /unified diff|limit/);
            return;
          }
          for (const f of files) {
            const r = applyFilePatch('c\na\nc\n', f);
            if (!r.ok) assert.match(r.error, new RegExp(f.path.replace(/[.]/g, '\\.')));
          }
        });
      }),
      params(),
    );
  });

  it('language server: any document kind with generated content is analysed without an internal error, findings inside the document', () => {
    const doc = fc.oneof(
      fc.string({ maxLength: 3000 }),
      fc.jsonValue({ maxDepth: 4 }).map(v => JSON.stringify(v)),
      fc
        .array(
          fc.record({
            commit_hash: fc.stringMatching(/^[0-9a-f]{40}$/),
            perf_command: fc.option(fc.string({ maxLength: 200 })),
            models: fc.array(fc.string({ maxLength: 20 }), { maxLength: 3 }),
          }),
          { maxLength: 20 },
        )
        .map(rows => rows.map(r => JSON.stringify(r)).join('\n')),
      fc
        .array(
          fc.constantFrom('python benchmarks/benchmark_serving.py --model M ', '`', '|', '\n', 'vllm bench serve --model x --dtype half ', 'x'.repeat(500)),
          { maxLength: 200 },
        )
        .map(p => p.join('')),
    );
    fc.assert(
      fc.property(
        doc,
        fc.constantFrom('file:///w/d.jsonl', 'file:///w/r.json', 'file:///w/n.md', 'file:///w/.bench-triage/rules.json', 'file:///w/x_human_result.json'),
        (text, uri) => {
          const a = bounded('analyze', () => analyze(uri, text, { hostGpus: 1, pathExists: () => false }));
          assert.ok(!a.findings.some(f => f.code === 'internal'), a.findings.find(f => f.code === 'internal')?.message);
          for (const f of a.findings) assert.ok(f.start >= 0 && f.end <= text.length + 1 && f.message, JSON.stringify(f));
        },
      ),
      params(),
    );
  });
});
