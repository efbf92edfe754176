import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { listFolder, readExtract, readExtractNow, scan, siblingsOf, type FileSource } from '../../src/core/ingest';
import { nodeFileSource } from '../../src/platform/nodeFileSource';

/** A node source without its at-once reads: every file through readText, as before. */
const asyncOnly = (src: FileSource): FileSource => ({ ...src, readListedNow: undefined, breather: undefined });

describe('ingest: files read at once (readListedNow) give what readText gives', () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bt-readnow-'));
    const put = (p: string, text: string) => {
      fs.mkdirSync(path.dirname(path.join(dir, p)), { recursive: true });
      fs.writeFileSync(path.join(dir, p), text);
    };
    const serve = { model_id: 'm', num_prompts: 2, completed: 2, duration: 1, request_throughput: 2, output_throughput: 20, mean_ttft_ms: 5, failed: 0 };
    put('1a2b3c4d/baseline/serve.json', JSON.stringify(serve));
    put('1a2b3c4d/human/serve.json', JSON.stringify({ ...serve, duration: 0.5 }));
    put('1a2b3c4d/agent/a1/serve.json', '{"model_id": "m", "completed": 2,'); // truncated
    put('1a2b3c4d/agent/a2/dup.json', '{"model_id": "m", "completed": 2, "duration": 1, "num_prompts": 2, "completed": 3}');
    put('1a2b3c4d/agent/a3/empty.json', '');
    put('1a2b3c4d/agent/a4/big.json', JSON.stringify({ ...serve, pad: 'x'.repeat(2 * 1024 * 1024) })); // above the at-once size
    put('loose/serve.json', JSON.stringify(serve)); // not attributed
    execFileSync('mkfifo', [path.join(dir, '1a2b3c4d/agent/fifo.json')]);
    fs.symlinkSync(path.join(dir, '1a2b3c4d/baseline/serve.json'), path.join(dir, '1a2b3c4d/agent/link.json'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('each file: the same extract, size and mtime at once as through readText; a large file is left to readText', async () => {
    const src = nodeFileSource(dir);
    const listing = await listFolder(src, undefined, undefined, { statOnRead: true });
    const sib = siblingsOf(listing.files);
    let atOnce = 0;
    for (const f of listing.files) {
      if (!/\.json$/.test(f.path)) continue;
      const s = sib.get(f.path.slice(0, f.path.lastIndexOf('/') + 1))!;
      const a = { ...f },
        b = { ...f };
      const now = readExtractNow(src, a, s);
      const later = await readExtract(asyncOnly(src), b, s);
      if (f.path.endsWith('big.json')) {
        assert.equal(now, undefined, 'a file above the at-once size is read asynchronously');
        continue;
      }
      assert.ok(now, f.path);
      atOnce++;
      assert.deepEqual(now, later, f.path);
      assert.deepEqual([a.size, a.mtimeMs], [b.size, b.mtimeMs], `${f.path}: the read gives the listing its size and mtime`);
    }
    assert.equal(atOnce, 6, 'the six small result files (the FIFO and the link are listed as records, never read)');
  });

  it('a scan through the at-once reads equals one through readText (records, runs, refusals)', async () => {
    const fast = await scan(nodeFileSource(dir));
    const slow = await scan(asyncOnly(nodeFileSource(dir)));
    assert.deepEqual(fast, slow);
    const kinds = Object.fromEntries(fast.files.map(f => [f.path, f.kind]));
    assert.equal(kinds['1a2b3c4d/agent/a1/serve.json'], 'corrupt');
    assert.equal(kinds['1a2b3c4d/agent/a2/dup.json'], 'corrupt', 'a key held twice');
    assert.equal(kinds['1a2b3c4d/agent/fifo.json'], 'skipped');
    assert.equal(kinds['1a2b3c4d/agent/link.json'], 'skipped');
    assert.equal(kinds['1a2b3c4d/agent/a4/big.json'], 'run');
    assert.equal(kinds['loose/serve.json'], 'unattributed');
  });

  it('asks the source for a breather before each file, and waits for it when given one', async () => {
    const src = nodeFileSource(dir);
    let asked = 0,
      waited = 0;
    const r = await scan({
      ...src,
      breather: () => (++asked % 2 ? new Promise<void>(res => setImmediate(() => (waited++, res()))) : undefined),
    });
    assert.equal(asked, 7, 'once per result file read');
    assert.equal(waited, 4);
    assert.deepEqual(r, await scan(src));
  });
});
