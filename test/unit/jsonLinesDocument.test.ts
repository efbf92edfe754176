import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileIndexStore, type StateData } from '../../src/app/indexStore';
import { ReadRefused } from '../../src/platform/boundedRead';
import { joinedLines, jsonLines, readJsonLines } from '../../src/platform/jsonLinesDocument';
import { LazyLineError } from '../../src/platform/lazyLines';

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

  it('reads lazy sections when asked: one line, or all of them in large reads, the same objects; a damaged line names the file and its line', async () => {
    const long = 'é'.repeat(700_000); // 1.4 MB: longer than a read
    const items = [...Array.from({ length: 3000 }, (_, i) => ({ i, pad: 'x'.repeat(i % 900) })), { i: 3000, long }, { i: 3001 }];
    const file = at('lazy.jsonl', encodeJsonLines({ v: 1 }, { eager: ['a', 'b'], lazy: items, after: [1] }));
    const fds = () => fs.readdirSync('/proc/self/fd').length;
    const before = fds();
    const doc = await readJsonLines(file, { ...opts, lazy: { lazy: v => !!v && typeof v === 'object' } });
    assert.ok(doc);
    assert.deepEqual(doc.sections.eager, ['a', 'b']);
    assert.deepEqual(doc.sections.after, [1], 'a section after a lazy one is read at once');
    const lazy = doc.lazy.lazy;
    assert.equal(lazy.length, items.length);
    assert.equal(lazy.parsed, 0, 'nothing of a lazy section is parsed until asked');
    assert.equal(fds(), before + 1, 'its file stays open while lines are left to read');
    const one = lazy.at(3000) as { long: string };
    assert.equal(one.long, long);
    assert.deepEqual(lazy.at(1234), items[1234]);
    assert.equal(lazy.parsed, 2);
    const all = lazy.all();
    assert.deepEqual(all, items);
    assert.equal(all[3000], one, 'a line parsed alone is the same object in all()');
    assert.equal(lazy.parsed, items.length);
    await new Promise(r => setTimeout(r, 20));
    assert.equal(fds(), before, 'its file is closed once every line is parsed');
    // Damaged in place (same file, a byte changed): an error naming the file and the line, never a wrong value.
    const again = await readJsonLines(file, { ...opts, lazy: { lazy: v => !!v && typeof v === 'object' } });
    const text = fs.readFileSync(file);
    const line7 = text.indexOf('{"i":5,'); // the 7th line: header, two eager lines, then items 0..5
    const fd = fs.openSync(file, 'r+');
    fs.writeSync(fd, Buffer.from('['), 0, 1, line7);
    fs.closeSync(fd);
    assert.throws(
      () => again!.lazy.lazy.at(5),
      (e: Error) => e instanceof LazyLineError && e.message.includes(file) && /line 9\b/.test(e.message) && /damaged/.test(e.message),
    );
    assert.deepEqual(again!.lazy.lazy.at(4), items[4], 'the other lines still read');
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
      entries: [
        {
          commit: 'c',
          roles: {
            baseline: { run: null, history: [], attempts: [] },
            human: { run: null, history: [], attempts: [] },
            agent: { run: 0, history: [], attempts: [0] },
          },
        } as never,
      ],
    };
    await store.saveState(state);
    const file = fs.readdirSync(dir).find(f => /^state-[0-9a-f]{16}\.jsonl$/.test(f))!;
    assert.ok(file, fs.readdirSync(dir).join(' '));
    assert.equal(
      fs.readFileSync(path.join(dir, file), 'utf8').split('\n').length,
      1 + 4 + 1,
      'a header and one line per run, classification (its id and its value) and entry',
    );
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
