import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { ISOBENCH, requireCorpus, runCli as run } from './helpers';

describe('CLI: bench-triage scan [ISO-Bench data]', function () {
  this.timeout(60000);
  before(requireCorpus);

  it('prints the documented JSON and exits 0 on the real corpus', () => {
    const p = run('scan', ISOBENCH, '--json', '--runs');
    assert.equal(p.status, 0, p.stderr);
    const s = JSON.parse(p.stdout);
    for (const k of ['commits', 'runs', 'runsByRole', 'runsBySchema', 'files', 'agentRuns']) assert.ok(k in s, k);
    for (const k of ['parsed', 'nonRun', 'corrupt', 'unknown']) assert.ok(k in s.files, k);
    assert.ok(s.runs > 500 && s.commits > 90);
    assert.ok(
      s.files.corrupt.some((c: { path: string; error: string }) => c.path.endsWith('docker/bfdb1ba5_result.json') && /line \d+ column \d+/.test(c.error)),
    );
    assert.equal(s.runList.length, s.runs);
    const r = s.runList[0];
    for (const k of ['commit', 'role', 'source', 'agent', 'status', 'originalStatus', 'metrics', 'file', 'schema']) assert.ok(k in r, k);
    assert.ok(!path.isAbsolute(r.file));
  });

  it('prints a readable summary without --json', () => {
    const p = run('scan', ISOBENCH);
    assert.equal(p.status, 0, p.stderr);
    assert.match(p.stdout, /\d+ commits with runs, \d+ runs \(baseline \d+, human \d+, agent \d+\)/);
    assert.match(p.stdout, /corrupt {2}archive\/.*bfdb1ba5_result\.json: .*line 1 column/);
  });

  it('fails clearly on a missing folder or a bad option', () => {
    const missing = run('scan', '/nonexistent/results');
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /\/nonexistent\/results is not a folder/);
    const bad = run('scan', ISOBENCH, '--jsno');
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /unknown option --jsno/);
    // A campaign takes the runs' plain environment as run does, each pair checked.
    const env = run('campaign', 'plan', '--folder', '/nonexistent', '--env', 'NOVALUE');
    assert.equal(env.status, 2);
    assert.match(env.stderr, /--env needs NAME=VALUE \(got NOVALUE\)/);
  });
});
