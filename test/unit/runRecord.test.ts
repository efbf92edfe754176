import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { settledRecord } from '../../src/runner/runRecord';

describe('a run killed between result.json and run.json', () => {
  it('is settled from its result.json (never run again), and says so in its runner log', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bt-settle-'));
    try {
      mkdirSync(path.join(dir, 'logs'));
      writeFileSync(path.join(dir, 'logs/runner.log'), '');
      writeFileSync(
        path.join(dir, 'run.json'),
        JSON.stringify({ status: 'running', error: null, durationS: null, exitCode: null, endedAt: null, runnerLog: 'logs/runner.log' }),
      );
      assert.equal((await settledRecord(dir))!.status, 'running', 'no result.json: still running');
      writeFileSync(
        path.join(dir, 'result.json'),
        JSON.stringify({ schema: 'bench-triage.run/v1', status: 'succeeded', error: null, durationS: 3.5, exitCode: 0 }),
      );
      const r = (await settledRecord(dir))!;
      assert.equal(r.status, 'succeeded');
      assert.equal(r.durationS, 3.5);
      assert.equal(JSON.parse(readFileSync(path.join(dir, 'run.json'), 'utf8')).status, 'succeeded', 'run.json brought in line');
      assert.match(readFileSync(path.join(dir, 'logs/runner.log'), 'utf8'), /record settled from result\.json: succeeded/);
      writeFileSync(path.join(dir, 'run.json'), '{');
      assert.equal(await settledRecord(dir), null);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
