import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileIndexStore, type StateData } from '../../src/app/indexStore';
import { ReadRefused } from '../../src/platform/boundedRead';
import { joinedLines, jsonLines, readJsonLines } from '../../src/platform/jsonLinesDocument';

const encodeJsonLines = (head: Record<string, unknown>, sections: Record<string, readonly unknown[]>) => joinedLines(jsonLines(head, sections));

describe('platform/jsonLinesDocument: large arrays one item per line', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bt-jsonl-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
  const at = (name: string, text: string | Buffer) => {
    const p = path.join(dir, name);
    fs.writeFileSync(p, text);
    return p;
  };
  const opts = { maxBytes: 64 << 20, what: 'the test document' };

  it('reads back what it wrote: head, sections in order, empty sections, non-ASCII, and a line longer than its read buffer', async () => {
    const long = 'x'.repeat(3 * 1024 * 1024 + 17);
    const text = encodeJsonLines(
      { version: 2, folder: '/ä/b', nested: { n: 1 } },
      { first: [{ a: 1 }, 'two', [3], null], empty: [], last: [{ long }, { µ: 'ß\n' }] },
    );
    const doc = await readJsonLines(at('d.jsonl', text), opts);
    assert.ok(doc);
    assert.deepEqual(doc.head, { version: 2, folder: '/ä/b', nested: { n: 1 } });
    assert.deepEqual(doc.sections.first, [{ a: 1 }, 'two', [3], null]);
    assert.deepEqual(doc.sections.empty, []);
    assert.equal((doc.sections.last[0] as { long: string }).long.length, long.length);
    assert.deepEqual(doc.sections.last[1], { µ: 'ß\n' });
  });

  it('is null for what it did not write whole: no header, a cut line, a line missing or extra, a line not JSON', async () => {
    const good = encodeJsonLines({ v: 1 }, { items: [1, 2, 3] });
    const cases: Array<[string, string]> = [
      ['a whole JSON document', JSON.stringify({ v: 1, items: [1, 2, 3] })],
      ['a header without $sections', '{"v":1}\n1\n'],
      ['a header with a negative count', '{"$sections":[["items",-1]]}\n'],
      ['a cut line', good.slice(0, -2)],
      ['a line missing', good.split('\n').slice(0, 3).join('\n') + '\n'],
      ['a line extra', good + '4\n'],
      ['a line not JSON', good.replace('\n2\n', '\n{2\n')],
      ['empty', ''],
    ];
    for (const [what, text] of cases) assert.equal(await readJsonLines(at('bad.jsonl', text), opts), null, what);
  });

  it('refuses a link, a FIFO and a file over the cap, naming the file', async () => {
    const real = at('real.jsonl', encodeJsonLines({}, { a: [1] }));
    fs.symlinkSync(real, path.join(dir, 'link.jsonl'));
    await assert.rejects(readJsonLines(path.join(dir, 'link.jsonl'), opts), (e: Error) => e instanceof ReadRefused && /symbolic link/.test(e.message));
    execFileSync('mkfifo', [path.join(dir, 'fifo.jsonl')]);
    await assert.rejects(readJsonLines(path.join(dir, 'fifo.jsonl'), opts), (e: Error) => e instanceof ReadRefused && /FIFO/.test(e.message));
    await assert.rejects(
      readJsonLines(real, { ...opts, maxBytes: 4 }),
      (e: Error) => e instanceof ReadRefused && e.message.includes(real) && /cap/.test(e.message),
    );
  });

  it('the workspace state round-trips through the store in this form, and an earlier whole-document file is removed', async () => {
    const store = fileIndexStore(dir, '/folder');
    const state: StateData = {
      version: 1,
      build: 'b',
      folder: '/folder',
      settingsKey: 's',
      result: { commits: [], runs: [{ id: 'a.json#agent' } as never], files: [], agentRuns: [], unlinkedAgentRuns: [], conflicts: [] },
      classifications: [['a.json#agent', { category: 'gpu-oom' } as never]],
      entries: [{ commit: 'c', roles: { baseline: { run: null, history: [], attempts: [] } } } as never],
    };
    await store.saveState(state);
    const file = fs.readdirSync(dir).find(f => /^state-[0-9a-f]{16}\.jsonl$/.test(f))!;
    assert.ok(file, fs.readdirSync(dir).join(' '));
    assert.equal(fs.readFileSync(path.join(dir, file), 'utf8').split('\n').length, 1 + 3 + 1, 'a header and one line per run, classification and entry');
    assert.deepEqual(await store.loadState(), state);
    // Written through the 1 MB buffer: lines across its boundaries, and a line larger than it (non-ASCII, 3 bytes a character).
    const big: StateData = {
      ...state,
      result: {
        ...state.result,
        runs: [
          ...Array.from({ length: 3000 }, (_, i) => ({ id: `r${i}.json#agent`, note: 'é'.repeat(i % 700) }) as never),
          { id: 'big.json#agent', log: '€'.repeat(600_000) } as never,
        ],
      },
    };
    await store.saveState(big);
    assert.deepEqual(await store.loadState(), big);
    await store.saveState(state);
    // An earlier build's whole-document file beside it goes at the next save.
    fs.writeFileSync(path.join(dir, file.slice(0, -1)), JSON.stringify(state));
    await store.saveState(state);
    assert.ok(!fs.existsSync(path.join(dir, file.slice(0, -1))));
  });
});
