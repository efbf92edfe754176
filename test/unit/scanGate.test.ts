import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gatedSource } from '../../src/extension/scanGate';
import { memorySource } from './helpers';

// The e2e's hold on a scan: the listing waits while the gate file exists, a cancel ends the wait,
// and without the setting the source is the same object.
describe('scan gate (the e2e hold for Cancel Scan)', () => {
  const files = { 'a/result.json': '{}' };
  const listAll = async (src: ReturnType<typeof memorySource>, signal?: AbortSignal) => {
    const out: string[] = [];
    for await (const f of src.list(signal)) out.push(f.path);
    return out;
  };

  it('unset: the source as it was', () => {
    const src = memorySource(files);
    assert.equal(gatedSource(src, undefined), src);
  });

  it('holds the listing while the gate exists, lists once it goes, and a cancel ends the wait', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'bt-gate-'));
    try {
      const gate = path.join(dir, 'gate');
      writeFileSync(gate, '');
      const gated = gatedSource(memorySource(files), gate);
      let listed: string[] | null = null;
      const p = listAll(gated).then(x => (listed = x));
      await new Promise(r => setTimeout(r, 200));
      assert.equal(listed, null, 'held while the gate exists');
      rmSync(gate);
      assert.deepEqual(await p, ['a/result.json']);
      writeFileSync(gate, '');
      const ctl = new AbortController();
      const held = listAll(gated, ctl.signal);
      ctl.abort(new Error('scan cancelled'));
      await assert.rejects(held, /scan cancelled/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
