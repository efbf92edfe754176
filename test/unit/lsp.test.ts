import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { Diagnostic } from 'vscode-languageserver-protocol';
import { ISOBENCH, requireCorpus } from './helpers';
import { StdioServer } from '../support/lspClient';

const DATASET = path.join(ISOBENCH, 'hf_cache/alpha-vllm-99-commits/combined_vllm_pr_dataset.filled.jsonl');
const REPORT = path.join(ISOBENCH, 'archive/results/2026-01/omniperf_results_3way_claude_code/reruns/4_fixable/RERUN_REPORT.md');
const uriOf = (p: string) => pathToFileURL(p).toString();

/** Independent count: upper-case words standing as flag values. */
function independentCounts(text: string) {
  let withPlaceholders = 0,
    placeholders = 0,
    without = 0;
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const r = JSON.parse(line);
    if (typeof r.perf_command !== 'string' || !r.perf_command) {
      without++;
      continue;
    }
    const n = (r.perf_command.match(/--[\w-]+[ =]([A-Z][A-Z0-9_]+)(?=\s|$)/g) ?? []).length;
    if (n) {
      withPlaceholders++;
      placeholders += n;
    }
  }
  return { withPlaceholders, placeholders, without };
}

describe('language server over --stdio [ISO-Bench data]', function () {
  this.timeout(120000);
  let s: StdioServer;
  let text: string;
  let opened: Awaited<ReturnType<StdioServer['open']>>;
  before(async () => {
    requireCorpus();
    text = fs.readFileSync(DATASET, 'utf8');
    s = new StdioServer();
    await s.init(uriOf(ISOBENCH));
    // Opened here, not in the first test: each test may run alone (`npm run test:unit -- <words>`).
    opened = await s.open(uriOf(DATASET), text, 'jsonl');
  });
  after(() => s.stop());

  it('puts a placeholder diagnostic on every placeholder of the real dataset, at its range, and an information on every record without a perf command', async () => {
    const p = opened;
    const doc = TextDocument.create(uriOf(DATASET), 'jsonl', 1, text);
    const ph = p.diagnostics.filter(d => d.code === 'placeholder');
    const info = p.diagnostics.filter(d => d.code === 'no-perf-command');
    const expected = independentCounts(text);
    assert.ok(expected.placeholders > 0 && expected.without > 0);
    assert.equal(ph.length, expected.placeholders);
    assert.equal(new Set(ph.map(d => d.range.start.line)).size, expected.withPlaceholders);
    assert.equal(info.length, expected.without);
    for (const d of info) assert.equal(d.severity, 3);
    for (const d of ph) {
      const covered = doc.getText(d.range);
      assert.match(covered, /^[A-Z][A-Z0-9_]+$/, `range covers the placeholder, got ${JSON.stringify(covered)}`);
      assert.ok(String(d.message).includes(covered));
    }
  });

  it('answers hover and completion inside a perf command in JSONL and in a Markdown report', async () => {
    const doc = TextDocument.create(uriOf(DATASET), 'jsonl', 1, text);
    const at = text.indexOf('--num-prompts');
    const h = (await s.conn.sendRequest('textDocument/hover', { textDocument: { uri: doc.uri }, position: doc.positionAt(at + 3) })) as {
      contents: { value: string };
    } | null;
    assert.match(h!.contents.value, /\*\*--num-prompts\*\*.*Number of prompts/s);
    const modelAt = text.indexOf('--model ', text.lastIndexOf('"perf_command"', at)) + '--model '.length;
    const hm = (await s.conn.sendRequest('textDocument/hover', { textDocument: { uri: doc.uri }, position: doc.positionAt(modelAt + 2) })) as {
      contents: { value: string };
    } | null;
    assert.match(hm!.contents.value, /H100/);
    const c = (await s.conn.sendRequest('textDocument/completion', { textDocument: { uri: doc.uri }, position: doc.positionAt(at + 2) })) as Array<{
      label: string;
    }>;
    assert.ok(c.some(x => x.label === '--num-prompts') && c.some(x => x.label === '--request-rate'), c.map(x => x.label).join(' '));
    // After --model: models seen in the workspace (result files and mappings, not only this file).
    const cm = (await s.conn.sendRequest('textDocument/completion', { textDocument: { uri: doc.uri }, position: doc.positionAt(modelAt) })) as Array<{
      label: string;
    }>;
    assert.ok(
      cm.some(x => x.label === 'facebook/opt-125m'),
      'a model named only in result files is offered',
    );

    const md = fs.readFileSync(REPORT, 'utf8');
    const mdDoc = TextDocument.create(uriOf(REPORT), 'markdown', 1, md);
    await s.open(mdDoc.uri, md, 'markdown');
    const flag = md.indexOf('--batch-size');
    const h2 = (await s.conn.sendRequest('textDocument/hover', { textDocument: { uri: mdDoc.uri }, position: mdDoc.positionAt(flag + 4) })) as {
      contents: { value: string };
    } | null;
    assert.match(h2!.contents.value, /\*\*--batch-size\*\*.*Batch size/s);
    const c2 = (await s.conn.sendRequest('textDocument/completion', { textDocument: { uri: mdDoc.uri }, position: mdDoc.positionAt(flag + 1) })) as Array<{
      label: string;
    }>;
    assert.ok(
      c2.some(x => x.label === '--num-iters'),
      c2.map(x => x.label).join(' '),
    );
  });

  it('syncs edits incrementally and offers a quick fix that leaves valid JSONL', async () => {
    const uri = uriOf(DATASET);
    const doc = TextDocument.create(uri, 'jsonl', 1, text);
    const before = s.published.get(uri)!.diagnostics.filter(d => d.code === 'placeholder');
    const target = before[0];
    const actions = (await s.conn.sendRequest('textDocument/codeAction', {
      textDocument: { uri },
      range: target.range,
      context: { diagnostics: [target] },
    })) as Array<{ title: string; edit: { changes: Record<string, Array<{ range: Diagnostic['range']; newText: string }>> } }>;
    assert.ok(actions.length > 0, 'a quick fix is offered');
    const change = actions[0].edit.changes[uri][0];
    const fixed = TextDocument.applyEdits(doc, [change]);
    for (const line of fixed.split('\n')) if (line.trim()) JSON.parse(line);
    // Send only the edited range (incremental sync) and get new diagnostics for version 2.
    const next = s.diagnostics(uri, 2);
    await s.conn.sendNotification('textDocument/didChange', {
      textDocument: { uri, version: 2 },
      contentChanges: [{ range: change.range, text: change.newText }],
    });
    const after = (await next).diagnostics.filter(d => d.code === 'placeholder');
    assert.equal(after.length, before.length - 1);
  });

  it('checks result files and the rules file', async () => {
    const bad = await s.open(
      'file:///ws/results/docker/bfdb1ba5_result.json',
      fs.readFileSync(path.join(ISOBENCH, 'archive/results/2026-01/omniperf_results_3way_claude_code/results/docker/bfdb1ba5_result.json'), 'utf8'),
    );
    assert.ok(bad.diagnostics.some((d: Diagnostic) => d.code === 'invalid-json' && d.range.start.line === 0 && d.range.start.character === 163));
    const trunc = await s.open(
      'file:///ws/results/modal/98f47f2a/benchmark_result.json',
      fs.readFileSync(path.join(ISOBENCH, 'archive/results/2026-01/omniperf_results_3way_claude_code/results/modal/98f47f2a/benchmark_result.json'), 'utf8'),
    );
    assert.ok(
      trunc.diagnostics.some(d => d.code === 'truncated-output' && /head 3,000/.test(String(d.message))),
      trunc.diagnostics.map(d => String(d.message)).join('\n'),
    );
    const vb = await s.open(
      'file:///ws/results/modal/25ebed2f/benchmark_result.json',
      fs.readFileSync(path.join(ISOBENCH, 'archive/results/2026-01/omniperf_results_3way_claude_code/results/modal/25ebed2f/benchmark_result.json'), 'utf8'),
    );
    assert.ok(
      vb.diagnostics.some(d => d.code === 'version-bug'),
      vb.diagnostics.map(d => String(d.message)).join('\n'),
    );
    const unk = await s.open('file:///ws/results/x_result.json', '{"experiment": 1}');
    assert.ok(unk.diagnostics.some(d => d.code === 'unknown-schema'));
    const rules = await s.open(
      'file:///ws/.bench-triage/rules.json',
      JSON.stringify(
        {
          rules: [
            { id: 'r1', category: 'gpu-oom', description: 'x', indications: [{ scope: 'any', pattern: '(a+)+$' }] },
            { id: 'r2', category: 'gpu-oom', description: 'x', indications: [{ scope: 'any', pattern: '(' }] },
          ],
        },
        null,
        2,
      ),
    );
    assert.ok(rules.diagnostics.some(d => d.severity === 2 && /catastrophically/.test(String(d.message))));
    assert.ok(rules.diagnostics.some(d => d.severity === 1 && /rule r2: pattern does not compile/.test(String(d.message))));
  });

  it('survives binary content and a 50 MB line', async () => {
    const binary = Buffer.from(Array.from({ length: 65536 }, (_, i) => (i * 131 + 7) % 256)).toString('latin1');
    await s.open('file:///ws/bin.jsonl', binary, 'jsonl');
    await s.open('file:///ws/bin_result.json', binary);
    const huge = JSON.stringify({
      commit_hash: 'a'.repeat(40),
      perf_command: 'python benchmarks/benchmark_serving.py --model MODEL',
      diff_text: 'x'.repeat(50 * 1024 * 1024),
    });
    const d = await s.open('file:///ws/huge.jsonl', huge + '\n', 'jsonl');
    assert.ok(d.diagnostics.length >= 1);
    await s.open('file:///ws/huge.md', 'x'.repeat(50 * 1024 * 1024), 'markdown');
    const h = await s.conn.sendRequest('textDocument/hover', { textDocument: { uri: uriOf(DATASET) }, position: { line: 0, character: 0 } });
    void h;
    assert.equal(s.exited, null, 'the server is still running');
  });

  it('knows the `vllm bench` CLI’s flags and defaults beside the old script’s: no false "not a flag", the right default on hover', async () => {
    const cli =
      'vllm bench serve --model facebook/opt-125m --input-len 512 --output-len 64 --num-warmups 5 --ready-check-timeout-sec 600 --label run1 --ramp-up-strategy linear --ramp-up-start-rps 1 --ramp-up-end-rps 10 --percentile-metrics ttft,tpot,e2el --metric-percentiles 99,99.9 --save-detailed';
    const old = 'python benchmarks/benchmark_serving.py --model facebook/opt-125m --dataset-name random --num-prompts 10';
    const text =
      [cli, old, 'python -m sglang.bench_serving --backend sglang --num-prompts 100 --random-range-ratio 0.5']
        .map(c => JSON.stringify({ commit_hash: 'a'.repeat(40), perf_command: c }))
        .join('\n') + '\n';
    const uri = 'file:///w/own_dataset.jsonl';
    const p = await s.open(uri, text, 'jsonl');
    const unknown = p.diagnostics.filter(d => d.code === 'unknown-flag' || d.code === 'server-flag');
    assert.deepEqual(
      unknown.map(d => d.message),
      [],
    );
    const doc = TextDocument.create(uri, 'jsonl', 1, text);
    const hoverAt = async (needle: string, from = 0) => {
      const at = text.indexOf(needle, from);
      const h = (await s.conn.sendRequest('textDocument/hover', { textDocument: { uri }, position: doc.positionAt(at + 3) })) as {
        contents: { value: string };
      } | null;
      return h!.contents.value;
    };
    assert.match(await hoverAt('--input-len'), /random dataset’s --random-input-len/);
    const line2 = text.indexOf('\n') + 1;
    assert.match(await hoverAt('--dataset-name', line2), /Default: `sharegpt`/, 'the old script’s default');
    const cliText = JSON.stringify({ commit_hash: 'a'.repeat(40), perf_command: 'vllm bench serve --model m --dataset-name random' }) + '\n';
    const uri2 = 'file:///w/own_dataset2.jsonl';
    await s.open(uri2, cliText, 'jsonl');
    const doc2 = TextDocument.create(uri2, 'jsonl', 1, cliText);
    const h2 = (await s.conn.sendRequest('textDocument/hover', {
      textDocument: { uri: uri2 },
      position: doc2.positionAt(cliText.indexOf('--dataset-name') + 3),
    })) as {
      contents: { value: string };
    } | null;
    assert.match(h2!.contents.value, /Default: `random`/, 'the CLI’s default');
  });
});
