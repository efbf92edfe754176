// bench/lsp measurement: the language server over stdio on the 4 MB real dataset.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { StdioServer } from '../test/support/lspClient';

/** Peak RSS of a process (VmHWM), in MB. */
const peakMB = (pid: number) => Number(/VmHWM:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

/**
 * `burst`: 2 000 one-character edits sent back to back to the dataset, then the time from the
 * last edit to the diagnostics of the last version. `codeaction`: a code action over a whole
 * JSONL of 20 000 placeholder rows (every diagnostic in its context): its time and the server's
 * peak memory.
 */
async function load(mode: string, file: string): Promise<void> {
  const s = new StdioServer(path.resolve(__dirname, '../dist/server.js'), process.env.BENCH_LSP_NODE_ARGS?.split(' ').filter(Boolean) ?? []);
  await s.init(null);
  if (mode === 'burst') {
    const text = fs.readFileSync(file, 'utf8');
    const uri = pathToFileURL(file).toString() + '?burst';
    await s.open(uri, text, 'jsonl', 1);
    const doc = TextDocument.create(uri, 'jsonl', 1, text);
    const at = doc.positionAt(text.indexOf('--num-prompts'));
    const done = s.diagnostics(uri, 2001);
    for (let v = 2; v <= 2001; v++)
      void s.conn.sendNotification('textDocument/didChange', {
        textDocument: { uri, version: v },
        contentChanges: [{ range: { start: at, end: at }, text: 'x' }],
      });
    const t0 = process.hrtime.bigint();
    await done;
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    const mb = peakMB(s.proc.pid!);
    await s.stop();
    process.stdout.write(JSON.stringify({ bytes: Buffer.byteLength(text), edits: 2000, afterLastMs: ms, peakMB: mb }) + '\n');
    return;
  }
  const rows = Number(file) || 20_000;
  const text =
    Array.from({ length: rows }, (_, i) =>
      JSON.stringify({
        commit_hash: (0x1000000 + i).toString(16),
        models: ['facebook/opt-125m'],
        perf_command: `python benchmarks/benchmark_serving.py --model MODEL --num-prompts ${i + 1}`,
      }),
    ).join('\n') + '\n';
  const uri = 'file:///bench/placeholders.jsonl';
  const pub = await s.open(uri, text, 'jsonl', 1);
  const t0 = process.hrtime.bigint();
  const actions = (await s.conn.sendRequest('textDocument/codeAction', {
    textDocument: { uri },
    range: { start: { line: 0, character: 0 }, end: { line: rows, character: 0 } },
    context: { diagnostics: pub.diagnostics },
  })) as unknown[];
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const mb = peakMB(s.proc.pid!);
  await s.stop();
  process.stdout.write(JSON.stringify({ rows, actions: actions.length, ms, peakMB: mb }) + '\n');
}

(async () => {
  const file = process.argv[2];
  if (process.argv[4] === 'burst' || process.argv[4] === 'codeaction') return load(process.argv[4], file);
  const repeat = Number(process.argv[3] ?? 5);
  const text = fs.readFileSync(file, 'utf8');
  const s = new StdioServer(path.resolve(__dirname, '../dist/server.js'));
  await s.init(null);
  const open: number[] = [],
    edit: number[] = [];
  for (let i = 0; i < repeat; i++) {
    const uri = pathToFileURL(file).toString() + `?run=${i}`;
    let t0 = process.hrtime.bigint();
    const first = await s.open(uri, text, 'jsonl', 1);
    open.push(Number(process.hrtime.bigint() - t0) / 1e6);
    // One keystroke in the middle of the file, sent as an incremental change.
    const doc = TextDocument.create(uri, 'jsonl', 1, text);
    const at = doc.positionAt(text.indexOf('--num-prompts') + 2);
    const next = s.diagnostics(uri, 2);
    t0 = process.hrtime.bigint();
    await s.conn.sendNotification('textDocument/didChange', {
      textDocument: { uri, version: 2 },
      contentChanges: [{ range: { start: at, end: at }, text: 'x' }],
    });
    await next;
    edit.push(Number(process.hrtime.bigint() - t0) / 1e6);
    await s.conn.sendNotification('textDocument/didClose', { textDocument: { uri } });
    void first;
  }
  await s.stop();
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  process.stdout.write(JSON.stringify({ bytes: Buffer.byteLength(text), openMs: med(open), editMs: med(edit), debounceMs: 50 }) + '\n');
})().catch(e => {
  process.stderr.write(String(e?.stack ?? e));
  process.exit(1);
});
