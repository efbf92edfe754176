// Measurements for bench/badInput, each in a fresh process (so peak RSS is the entry point's own):
//   fuzz <entry> <n> <seed>     worst time per input and peak RSS over a fixed fuzz corpus
//                                (entry: ingest | classify-log | perfcmd | patch | lsp)
//   log <file>                  classify one plain log, streaming → {ms, maxRssMB, category, line}
//   write <file> <MB> one|multi write an 800 MB-class log: one line, or lines of 200 bytes, error at the end
//   write-traceback <file> line|nested|frames   a 100 MB one-line traceback, 100 000 chained exceptions, 1e6 frames
//   lsp-md <bytes> <edits>      the language server on a Markdown note of about <bytes>: ms per edit → diagnostics
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { scan } from '../src/core/ingest';
import { Classifier, LogClassifier } from '../src/core/classify';
import { parsePerfCommand } from '../src/core/perfcmd';
import { applyFilePatch, splitPatch } from '../src/core/patch';
import { analyze } from '../src/server/documentFindings';
import { classifyLogFile } from '../src/cli/classifyCommands';
import { memorySource } from '../test/unit/helpers';
import { guidellmReport, pyJson, sglangLine, vllmServeCli } from '../scripts/field-formats.mjs';
import { StdioServer } from '../test/support/lspClient';
import { TextDocument } from 'vscode-languageserver-textdocument';

const ISOBENCH = path.resolve(__dirname, '../../shared/isobench');
const REAL = 'archive/results/2026-01/omniperf_results_3way_claude_code/results/modal/58eee5f2/benchmark_result.json';

/** The fuzz corpus of each entry point: fast-check samples with fixed seeds (one at a time, so the corpus itself does not fill the memory measured). */
function* corpus(entry: string, n: number, seed: number): Iterable<unknown> {
  const real = readFileSync(path.join(ISOBENCH, REAL), 'utf8');
  const arb: fc.Arbitrary<unknown> = {
    ingest: fc.oneof(
      fc.nat({ max: real.length }).map(k => real.slice(0, k)),
      fc.tuple(fc.nat({ max: real.length }), fc.string({ maxLength: 50 })).map(([k, s]) => real.slice(0, k) + s + real.slice(k)),
      fc.integer({ min: 100, max: 50_000 }).map(d => '['.repeat(d) + ']'.repeat(d)),
      fc.jsonValue({ maxDepth: 8 }).map(v => JSON.stringify(v)),
      fc.constant(real.replace(/: (\d)/g, ': NaN, "x": $1')),
    ),
    'classify-log': fc.oneof(
      fc.uint8Array({ maxLength: 1 << 20 }),
      fc.tuple(fc.integer({ min: 1, max: 1_000_000 }), fc.constantFrom('x', 'Error ', 'CUDA out of memory ', '\r', 'é')).map(([k, s]) => s.repeat(k)),
    ),
    // The field's formats, mangled: truncated, a value replaced by any JSON, a line appended.
    'ingest-field': fc.oneof(
      ...[
        pyJson(vllmServeCli({ detailed: true, numPrompts: 30 })),
        pyJson(sglangLine({ details: true, numPrompts: 30 })),
        pyJson(guidellmReport({ requests: 8 })),
      ].flatMap(text => [
        fc.nat({ max: text.length }).map(k => text.slice(0, k)),
        fc.tuple(fc.nat({ max: text.length }), fc.jsonValue({ maxDepth: 4 })).map(([k, v]) => {
          const at = text.indexOf(':', k);
          return at < 0 ? text : `${text.slice(0, at + 1)}${JSON.stringify(v)},"_x":${text.slice(at + 1)}`;
        }),
        fc.string({ maxLength: 200 }).map(tail => `${text}\n${tail}`),
      ]),
    ),
    perfcmd: fc.oneof(
      fc.string({ maxLength: 2000 }),
      fc.integer({ min: 1, max: 20_000 }).map(k => `python benchmarks/benchmark_serving.py --model MODEL ${'--x BS '.repeat(k)}`),
    ),
    patch: fc
      .tuple(fc.oneof(fc.nat(), fc.constant(99_999_999_999)), fc.nat({ max: 5000 }), fc.array(fc.constantFrom('-a', '+b', ' c'), { maxLength: 5000 }))
      .map(([s, l, body]) => `--- a/x.py\n+++ b/x.py\n@@ -${s},${l} +1,${l} @@\n${body.join('\n')}\n`),
    lsp: fc.oneof(
      fc.string({ maxLength: 100_000 }),
      fc.integer({ min: 1, max: 50_000 }).map(k => 'run python benchmarks/benchmark_latency.py --model m | '.repeat(k)),
    ),
  }[entry] as fc.Arbitrary<unknown>;
  if (!arb) throw new Error(`unknown entry ${entry}`);
  for (let i = 0; i < n; i++) yield fc.sample(arb, { seed: seed + i, numRuns: 1 })[0];
}

async function runOne(entry: string, input: unknown): Promise<void> {
  if (entry === 'ingest') await scan(memorySource({ 'r/abcd1234_human_result.json': input as string }));
  else if (entry === 'ingest-field') await scan(memorySource({ 'abcd1234/human/r.json': input as string, 'abcd1234/agent/a/r.jsonl': input as string }));
  else if (entry === 'classify-log') {
    const lc = new LogClassifier(new Classifier(), 'f.log');
    lc.pushBytes(typeof input === 'string' ? new TextEncoder().encode(input) : (input as Uint8Array));
    lc.result();
  } else if (entry === 'perfcmd') parsePerfCommand(input as string, { hostGpus: 1 });
  else if (entry === 'patch') {
    try {
      for (const f of splitPatch(input as string)) applyFilePatch('a\nc\n', f);
    } catch {
      /* a PatchError is a finding */
    }
  } else if (entry === 'lsp') for (const uri of ['file:///w/n.md', 'file:///w/d.jsonl', 'file:///w/r.json']) analyze(uri, input as string);
}

async function main(): Promise<void> {
  const [mode, a, b, c] = process.argv.slice(2);
  if (mode === 'fuzz') {
    let worst = 0,
      n = 0;
    for (const x of corpus(a, Number(b), Number(c))) {
      n++;
      const t0 = process.hrtime.bigint();
      await runOne(a, x);
      worst = Math.max(worst, Number(process.hrtime.bigint() - t0) / 1e6);
    }
    process.stdout.write(JSON.stringify({ entry: a, n, worstMs: worst, maxRssMB: process.resourceUsage().maxRSS / 1024 }) + '\n');
  } else if (mode === 'field-big') {
    // One standalone file of a kind: a million per-request values, or a 100 MB line (JSON lines, under a raised limit).
    const doc = vllmServeCli({ numPrompts: 10 }) as Record<string, unknown>;
    const text =
      a === 'samples'
        ? JSON.stringify({
            ...doc,
            latencies: Array.from({ length: 1_000_000 }, (_, i) => 0.5 + (i % 97) / 1000),
            ttfts: Array.from({ length: 1_000_000 }, () => 0.05),
            output_lens: Array.from({ length: 1_000_000 }, () => 8),
          })
        : `${JSON.stringify(doc)}\n${JSON.stringify({ ...doc, label: 'x'.repeat(100 * 1024 * 1024) })}\n`;
    const t0 = process.hrtime.bigint();
    const r = await scan(memorySource({ [`abcd1234/human/${a === 'samples' ? 'r.json' : 'r.jsonl'}`]: text }), { maxFileBytes: 512 * 1024 * 1024 });
    process.stdout.write(
      JSON.stringify({
        kind: a,
        mb: text.length / 1048576,
        ms: Number(process.hrtime.bigint() - t0) / 1e6,
        maxRssMB: process.resourceUsage().maxRSS / 1024,
        runs: r.runs.length,
        finding: r.runs[0]?.problems.find(p => /per-request|not read/.test(p.message))?.message ?? null,
      }) + '\n',
    );
  } else if (mode === 'log') {
    const t0 = process.hrtime.bigint();
    const r = await classifyLogFile(a);
    process.stdout.write(
      JSON.stringify({
        ms: Number(process.hrtime.bigint() - t0) / 1e6,
        maxRssMB: process.resourceUsage().maxRSS / 1024,
        category: r.category,
        line: r.evidence?.line ?? null,
      }) + '\n',
    );
  } else if (mode === 'write') {
    const total = Number(b) * 1024 * 1024;
    const fd = openSync(a, 'w');
    const unit =
      c === 'one'
        ? Buffer.alloc(1 << 20, 'x')
        : Buffer.from(
            'INFO 11-22 10:00:00 engine.py:267] Avg prompt throughput: 0.0 tokens/s, Running: 1 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: 0.1%, CPU KV cache usage: 0.0%.    \n'
              .repeat(5243)
              .slice(0, 1 << 20),
          );
    for (let w = 0; w < total; w += unit.length) writeSync(fd, unit);
    writeSync(fd, `${c === 'one' ? ' ' : ''}torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n`);
    closeSync(fd);
    process.stdout.write(JSON.stringify({ ok: true }) + '\n');
  } else if (mode === 'write-traceback') {
    // Hostile tracebacks for the structure stage: a 100 MB single line of frames, 100 000 chained
    // exceptions, one traceback of 1e6 frames. Each ends with the failure the classifier must find.
    const fd = openSync(a, 'w');
    const frame =
      '  File "/usr/local/lib/python3.10/site-packages/vllm/model_executor/layers/linear.py", line 123, in forward\n    return self.quant_method.apply(self, x)\n';
    const put = (text: string, times: number) => {
      const block = Buffer.from(text.repeat(Math.max(1, Math.floor((1 << 20) / text.length))));
      const per = Math.max(1, Math.floor((1 << 20) / text.length));
      for (let n = 0; n < times; n += per) writeSync(fd, n + per <= times ? block : Buffer.from(text.repeat(times - n)));
    };
    if (b === 'line') {
      writeSync(fd, 'Traceback (most recent call last): ');
      put(frame.replace(/\n/g, ' '), Math.ceil((100 << 20) / frame.length));
      writeSync(fd, " KeyError: 'x'\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n");
    } else if (b === 'nested') {
      put(
        `Traceback (most recent call last):\n${frame}ValueError: step failed\n\nDuring handling of the above exception, another exception occurred:\n\n`,
        100_000,
      );
      writeSync(fd, `Traceback (most recent call last):\n${frame}ImportError: cannot import name 'LogitsWarper' from 'transformers' (unknown location)\n`);
    } else {
      writeSync(fd, 'Traceback (most recent call last):\n');
      put(frame, 1_000_000);
      writeSync(fd, "ModuleNotFoundError: No module named 'pyairports'\n");
    }
    closeSync(fd);
    process.stdout.write(JSON.stringify({ ok: true }) + '\n');
  } else if (mode === 'lsp-md') {
    // A realistic note: prose, tables and code spans with perf commands, about `a` bytes.
    const para = 'We reran the serving benchmark after the fix; the numbers below are medians of three runs. ';
    const row = (i: number) =>
      `| ${i.toString(16).padStart(8, '0')} | \`python benchmarks/benchmark_serving.py --model meta-llama/Llama-3.1-8B-Instruct --num-prompts ${100 + i} --request-rate inf\` | 12.3 ms | win |\n`;
    let note = '# Rerun notes\n\n';
    for (let i = 0; note.length < Number(a); i++) note += (i % 5 === 0 ? para.repeat(8) + '\n\n' : '') + row(i);
    const s = new StdioServer(path.resolve(__dirname, '../dist/server.js'));
    await s.init(null);
    const uri = pathToFileURL('/tmp/bt-note.md').toString();
    await s.open(uri, note, 'markdown', 1);
    const doc = TextDocument.create(uri, 'markdown', 1, note);
    const times: number[] = [];
    for (let v = 2; v < 2 + Number(b); v++) {
      const at = doc.positionAt(Math.floor(note.length / 2) + v);
      const next = s.diagnostics(uri, v);
      const t0 = process.hrtime.bigint();
      await s.conn.sendNotification('textDocument/didChange', {
        textDocument: { uri, version: v },
        contentChanges: [{ range: { start: at, end: at }, text: 'x' }],
      });
      await next;
      times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    await s.stop();
    const sorted = [...times].sort((x, y) => x - y);
    process.stdout.write(
      JSON.stringify({ bytes: note.length, medianMs: sorted[Math.floor(sorted.length / 2)], worstMs: sorted.at(-1), debounceMs: 50 }) + '\n',
    );
  } else throw new Error(`unknown mode ${mode}`);
}
main().then(
  () => process.exit(0),
  e => {
    process.stderr.write(String(e?.stack ?? e) + '\n');
    process.exit(1);
  },
);
