import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { settledRecord } from '../../src/runner/recordRead';

/** run.json as the runner leaves it mid-run. */
function runningRecord(): Record<string, unknown> {
  return {
    schema: 'bench-triage.run-record/v1',
    runId: '20260101-000000-ab12',
    commit: 'aaaa1111',
    role: 'human',
    host: { label: 'h', docker: '', gpus: 1 },
    image: 'img',
    plan: { resultDir: '.bench-triage/runs/aaaa1111/human/20260101-000000-ab12' },
    recipes: [],
    status: 'running',
    error: null,
    exitCode: null,
    containerId: 'c1',
    gpuIds: ['0'],
    createdAt: '2026-01-01T00:00:00Z',
    startedAt: '2026-01-01T00:00:01Z',
    endedAt: null,
    durationS: null,
    phases: [],
    readinessS: null,
    benchmarkScripts: null,
    metrics: {},
    metricsSource: null,
    envNames: [],
    secretNames: [],
    runnerLog: 'logs/runner.log',
    owner: 'h:1',
  };
}

describe('a run killed between result.json and run.json', () => {
  it('is settled from its result.json (never run again), and says so in its runner log', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bt-settle-'));
    try {
      mkdirSync(path.join(dir, 'logs'));
      writeFileSync(path.join(dir, 'logs/runner.log'), '');
      writeFileSync(path.join(dir, 'run.json'), JSON.stringify(runningRecord()));
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
