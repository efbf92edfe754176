import * as assert from 'node:assert/strict';
import { promises as fs, readFileSync, readdirSync, mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { writeJsonAtomic } from '../../src/runner/atomicJson';

describe('runner: atomic JSON', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'bt-atomic-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes and replaces a file, leaving no temporary behind', async () => {
    const f = path.join(dir, 'runs', 'a', 'run.json');
    await writeJsonAtomic(f, { status: 'running' });
    await writeJsonAtomic(f, { status: 'success' });
    assert.deepEqual(JSON.parse(readFileSync(f, 'utf8')), { status: 'success' });
    assert.deepEqual(readdirSync(path.dirname(f)), ['run.json']);
  });

  it('a crash between writing and renaming leaves the previous file intact', async () => {
    const f = path.join(dir, 'result.json');
    await writeJsonAtomic(f, { metrics: { ttft_mean_ms: 41.2 } });
    const crashing = {
      ...fs,
      rename: async () => {
        throw Object.assign(new Error('EIO: i/o error (simulated crash)'), { code: 'EIO' });
      },
    };
    await assert.rejects(writeJsonAtomic(f, { metrics: {} }, crashing), /could not replace .*result\.json: EIO/);
    assert.deepEqual(JSON.parse(readFileSync(f, 'utf8')), { metrics: { ttft_mean_ms: 41.2 } });
    assert.deepEqual(readdirSync(dir), ['result.json']);
  });

  it('a process killed between writing and renaming leaves the previous file intact', async () => {
    const f = path.join(dir, 'result.json');
    await writeJsonAtomic(f, { metrics: { ttft_mean_ms: 41.2 } });
    const r = spawnSync(process.execPath, [path.join(__dirname, 'atomicCrash.worker.js'), f]);
    assert.equal(r.signal, 'SIGKILL');
    assert.deepEqual(JSON.parse(readFileSync(f, 'utf8')), { metrics: { ttft_mean_ms: 41.2 } });
    // Only a stray temporary is left beside it.
    assert.ok(readdirSync(dir).some(n => n.endsWith('.tmp')));
  });
});
