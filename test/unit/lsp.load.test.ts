import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import type { Diagnostic } from 'vscode-languageserver-protocol';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { readSettings } from '../../src/server/server';
import { LineDocument } from '../../src/server/lineDocument';
import { StdioServer } from '../support/lspClient';
import { ISOBENCH, requireCorpus } from './helpers';

const DATASET = path.join(ISOBENCH, 'hf_cache/alpha-vllm-99-commits/combined_vllm_pr_dataset.filled.jsonl');
const placeholderRows = (n: number) =>
  Array.from({ length: n }, (_, i) =>
    JSON.stringify({
      commit_hash: (0x1000000 + i).toString(16),
      models: ['facebook/opt-125m'],
      perf_command: `python benchmarks/benchmark_serving.py --model MODEL --num-prompts ${i + 1}`,
    }),
  ).join('\n') + '\n';

type Action = { title: string; diagnostics?: Diagnostic[] };

describe('the server’s line-kept document (issue 23, item 3)', () => {
  // Texts and edits built from the characters that make lines hard: \r, \n, \r\n, and plain text.
  const piece = fc.array(fc.constantFrom('a', 'bc', ' ', '\n', '\r', '\r\n', '{"x": 1}', 'é'), { maxLength: 8 }).map(xs => xs.join(''));
  const pos = fc.record({ line: fc.integer({ min: -1, max: 8 }), character: fc.integer({ min: -1, max: 12 }) });
  const edit = fc.oneof(
    { weight: 9, arbitrary: fc.record({ range: fc.record({ start: pos, end: pos }), text: piece }) },
    { weight: 1, arbitrary: fc.record({ text: piece }) },
  );

  it('gives the stock document’s text, offsets and positions after any burst of edits (fuzzed)', () => {
    fc.assert(
      fc.property(piece, fc.array(edit, { maxLength: 30 }), (text, edits) => {
        const ours = new LineDocument('u', 'jsonl', 1, text);
        let stock = TextDocument.create('u', 'jsonl', 1, text);
        edits.forEach((raw, i) => {
          // Editors send positions inside the document (the stock document miscounts lines for others).
          const inside = (p: { line: number; character: number }) => {
            const line = Math.min(Math.max(p.line, 0), stock.lineCount - 1);
            const len = stock.getText({ start: { line, character: 0 }, end: { line: line + 1, character: 0 } }).replace(/\r?\n$|\r$/, '').length;
            return { line, character: Math.min(Math.max(p.character, 0), len) };
          };
          const e = 'range' in raw ? { range: { start: inside(raw.range.start), end: inside(raw.range.end) }, text: raw.text } : raw;
          stock = TextDocument.update(stock, [e], i + 2);
          ours.update([e], i + 2);
          assert.equal(ours.getText(), stock.getText(), `after edit ${i}: ${JSON.stringify(e)}`);
          assert.equal(ours.lineCount, stock.lineCount);
        });
        const t = stock.getText();
        for (let o = -1; o <= t.length + 1; o++) assert.deepEqual(ours.positionAt(o), stock.positionAt(o), `positionAt(${o}) of ${JSON.stringify(t)}`);
        for (let l = -1; l <= stock.lineCount; l++)
          for (let c = -1; c <= 12; c++)
            assert.equal(ours.offsetAt({ line: l, character: c }), stock.offsetAt({ line: l, character: c }), `offsetAt(${l}:${c}) of ${JSON.stringify(t)}`);
      }),
      { numRuns: 400 },
    );
  });
});

describe('language server under load (issue 23, item 3) [ISO-Bench data]', function () {
  this.timeout(120_000);
  let s: StdioServer;
  before(async () => {
    s = new StdioServer();
    await s.init(null);
  });
  after(() => s.stop());

  it('a code action over 2 000 placeholder rows answers in bounded time, each action with its own diagnostic only', async () => {
    const uri = 'file:///tmp/bt-placeholders.jsonl';
    const pub = await s.open(uri, placeholderRows(2000), 'jsonl', 1);
    const ph = pub.diagnostics.filter(d => d.code === 'placeholder');
    assert.ok(ph.length >= 250, `${ph.length} placeholder diagnostics published (capped)`);
    const t0 = Date.now();
    const all = (await s.conn.sendRequest('textDocument/codeAction', {
      textDocument: { uri },
      range: { start: { line: 0, character: 0 }, end: { line: 2000, character: 0 } },
      context: { diagnostics: pub.diagnostics },
    })) as Action[];
    const ms = Date.now() - t0;
    assert.ok(all.length > 0 && all.length <= 200, `${all.length} actions (capped at 200)`);
    for (const a of all) assert.ok((a.diagnostics?.length ?? 0) <= 1, `${a.title}: ${a.diagnostics?.length} diagnostics`);
    assert.ok(ms < 20_000, `${ms} ms`);
    // Only the requested range: a one-line range gets that line's fixes.
    const one = (await s.conn.sendRequest('textDocument/codeAction', {
      textDocument: { uri },
      range: ph[7].range,
      context: { diagnostics: [ph[7]] },
    })) as Action[];
    assert.ok(one.length >= 1);
    assert.ok(one.every(a => a.diagnostics?.length === 1 && a.diagnostics[0].range.start.line === ph[7].range.start.line));
  });

  it('code-action ranges anywhere in the document (fuzzed) never fail and stay inside the range', async () => {
    const uri = 'file:///tmp/bt-placeholders-fuzz.jsonl';
    const pub = await s.open(uri, placeholderRows(300), 'jsonl', 1);
    await fc.assert(
      fc.asyncProperty(fc.nat(320), fc.nat(320), fc.nat(200), async (a, b, ch) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        const res = (await s.conn.sendRequest('textDocument/codeAction', {
          textDocument: { uri },
          range: { start: { line: lo, character: ch }, end: { line: hi, character: ch } },
          context: { diagnostics: pub.diagnostics.filter(d => d.range.start.line >= lo && d.range.start.line <= hi) },
        })) as Action[];
        assert.ok(Array.isArray(res));
        for (const x of res) for (const d of x.diagnostics ?? []) assert.ok(d.range.start.line >= lo && d.range.start.line <= hi);
      }),
      { numRuns: 40 },
    );
  });

  it('a burst of 2 000 one-character edits to the 4 MB dataset ends in diagnostics of the last version', async () => {
    requireCorpus();
    const text = fs.readFileSync(DATASET, 'utf8');
    const uri = pathToFileURL(DATASET).toString() + '?burst';
    await s.open(uri, text, 'jsonl', 1);
    const at = text.indexOf('--num-prompts');
    const line = text.slice(0, at).split('\n').length - 1;
    const ch = at - (text.lastIndexOf('\n', at) + 1);
    const last = s.diagnostics(uri, 2001);
    for (let v = 2; v <= 2001; v++)
      void s.conn.sendNotification('textDocument/didChange', {
        textDocument: { uri, version: v },
        contentChanges: [{ range: { start: { line, character: ch }, end: { line, character: ch } }, text: 'x' }],
      });
    // A hover in the middle of the burst answers (from the latest text).
    const hover = s.conn.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line, character: ch + 2 } });
    const t0 = Date.now();
    const d = await Promise.race([last, new Promise<null>(r => setTimeout(() => r(null), 30_000))]);
    assert.ok(d, `diagnostics of version 2001 within 30 s (waited ${Date.now() - t0} ms)`);
    await Promise.race([hover, new Promise((_, j) => setTimeout(() => j(new Error('hover timed out')), 10_000))]);
    await s.conn.sendNotification('textDocument/didClose', { textDocument: { uri } });
  });

  it('a byte-order mark before the first row is accepted as the CLI accepts it', async () => {
    const uri = 'file:///tmp/bt-bom.jsonl';
    const pub = await s.open(uri, '\uFEFF' + placeholderRows(2), 'jsonl', 1);
    assert.deepEqual(
      pub.diagnostics.filter(d => d.code === 'invalid-json'),
      [],
    );
    assert.equal(pub.diagnostics.filter(d => d.code === 'placeholder').length, 2, 'both rows are checked, the first included');
  });

  it('settings of the wrong type are a configuration error naming the setting; the default applies', () => {
    const r = readSettings({ hostGpus: 'abc', blockedModels: 'llama' });
    assert.equal(r.settings.hostGpus, 1);
    assert.ok(r.settings.blockedModels.length > 0);
    assert.match(r.problems.join('\n'), /benchTriage\.hostGpus: "abc" is not a whole number/);
    assert.match(r.problems.join('\n'), /benchTriage\.blockedModels: "llama" is not a list of model names/);
    assert.deepEqual(readSettings({ hostGpus: 4, blockedModels: ['x'] }), { settings: { hostGpus: 4, blockedModels: ['x'] }, problems: [] });
    // The first host's GPUs, as Explain and Rerun take the default host (issue 24, item 7); hostGpus only without hosts.
    assert.equal(readSettings({ hostGpus: 4, hosts: [{ label: 'fake', gpus: 0 }, { gpus: 8 }] }).settings.hostGpus, 0);
    assert.equal(readSettings({ hostGpus: 4, hosts: [{ label: 'no gpus field' }] }).settings.hostGpus, 1);
    assert.equal(readSettings({ hostGpus: 4, hosts: [] }).settings.hostGpus, 4);
  });
});
