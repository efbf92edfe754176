import * as assert from 'node:assert/strict';
import { timing } from '../../src/app/runTiming';
import type { LiveRun } from '../../src/app/runs';

// Only the fields timing reads; the rest of a LiveRun is not its business.
const run = (createdAt: string, startedAt: string | null, endedAt: string | null, fromDisk = true) =>
  ({ record: { createdAt, startedAt, endedAt }, endedMs: endedAt ? Date.parse(endedAt) : null, fromDisk }) as unknown as LiveRun;

describe('a run’s time in the Runs view: queued and ran apart (issue 24, item 7)', () => {
  it('a run that waited 10 minutes for the host and ran 65 s says so, not "11m 05s"', () => {
    const t = timing(run('2026-11-24T10:00:00Z', '2026-11-24T10:10:00Z', '2026-11-24T10:11:05Z'));
    assert.equal(t.ran, '1m 05s');
    assert.equal(t.queued, '10m 00s');
    assert.equal(t.text, 'ran 1m 05s · waited 10m 00s');
  });
  it('a run that started at once shows only how long it ran', () => {
    assert.equal(timing(run('2026-11-24T10:00:00Z', '2026-11-24T10:00:00.300Z', '2026-11-24T10:00:42.300Z')).text, 'ran 42s');
  });
  it('a run that never started (refused, cancelled in the queue) says so', () => {
    const t = timing(run('2026-11-24T10:00:00Z', null, '2026-11-24T10:00:00.200Z'));
    assert.equal(t.ran, null);
    assert.equal(t.text, 'did not start');
  });
  it('a live run still queued counts its wait up to now', () => {
    const t = timing(run('2026-11-24T10:00:00Z', null, null, false), Date.parse('2026-11-24T10:00:30Z'));
    assert.equal(t.queued, '30s');
    assert.equal(t.ran, null);
  });
});
