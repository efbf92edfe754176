import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ISOBENCH, requireCorpus, runCli as run } from './helpers';
import { FAILURE_TAIL, RESULT_TAIL } from '../support/synthLog';

describe('CLI: classify, classify-log, report [ISO-Bench data]', function () {
  this.timeout(120000);
  before(requireCorpus);

  it('classify --json gives one entry per (commit, agent) in the documented shape', () => {
    const p = run('classify', ISOBENCH, '--json');
    assert.equal(p.status, 0, p.stderr);
    const list = JSON.parse(p.stdout);
    assert.ok(list.length > 90);
    const keys = new Set(list.map((e: { commit: string; agent: string | null }) => `${e.commit}|${e.agent}`));
    assert.equal(keys.size, list.length, 'one entry per (commit, agent)');
    for (const e of list) {
      for (const k of ['commit', 'agent', 'outcome', 'roles', 'verdict', 'comparability']) assert.ok(k in e, k);
      assert.ok(['win', 'tie', 'loss', 'agent-failed', 'n/a'].includes(e.verdict));
      assert.equal(typeof e.comparability.ok, 'boolean');
      for (const [role, v] of Object.entries<Record<string, unknown>>(e.roles)) {
        assert.ok(['baseline', 'human', 'agent'].includes(role));
        for (const k of ['status', 'category', 'cause', 'fixability', 'evidence', 'rule']) assert.ok(k in v, `${role}.${k}`);
        if (v.status !== 'success') assert.ok(v.category, `${e.commit} ${role} has a category`);
      }
    }
    const cats = new Set(list.flatMap((e: { roles: Record<string, { category: string | null }> }) => Object.values(e.roles).map(r => r.category)));
    for (const c of ['wheel-missing', 'dependency-conflict', 'image-missing', 'version-bug']) assert.ok(cats.has(c), c);
  });

  it('classify-log classifies plain logs: a failure with evidence, a success with its metrics', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bt-logs-'));
    try {
      const bad = path.join(dir, 'server.log'),
        good = path.join(dir, 'bench.log');
      fs.writeFileSync(bad, ['INFO start', 'Patched aimv2 registration in /x/ovis.py', ...FAILURE_TAIL].join('\n'));
      fs.writeFileSync(good, ['INFO start', 'WARNING deprecated flag', ...RESULT_TAIL].join('\n'));
      const p = run('classify-log', bad, good, '--json');
      assert.equal(p.status, 0, p.stderr);
      const [b, g] = JSON.parse(p.stdout);
      assert.equal(b.file, bad);
      assert.equal(b.category, 'gpu-oom');
      assert.equal(b.evidence.line, 5);
      assert.match(b.evidence.text, /CUDA out of memory/);
      assert.equal(g.category, null);
      assert.equal(g.metrics.ttft_mean_ms, 41.2);
      assert.equal(g.metrics.request_throughput_req_s, 8.1);
      const missing = run('classify-log', path.join(dir, 'nope.log'));
      assert.equal(missing.status, 1);
      assert.match(missing.stderr, /nope\.log does not exist/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('report writes Markdown and JSON', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bt-rep-'));
    try {
      const md = run('report', ISOBENCH, '--format', 'md', '--out', path.join(dir, 'r.md'));
      assert.equal(md.status, 0, md.stderr);
      assert.match(fs.readFileSync(path.join(dir, 'r.md'), 'utf8'), /^# Triage report/);
      const js = run('report', ISOBENCH, '--format', 'json', '--tie-band', '5');
      assert.equal(js.status, 0, js.stderr);
      const rep = JSON.parse(js.stdout);
      assert.equal(rep.tieBand, 5);
      const vllm = rep.projects.find((p: { project: string }) => p.project === 'vllm');
      assert.ok(vllm.summary.length > 5 && vllm.failures.length > 20);
      assert.equal(run('report', ISOBENCH, '--format', 'pdf').status, 2);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('uses .bench-triage/rules.json and names the rule and field of a bad one', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bt-rules-'));
    try {
      fs.mkdirSync(path.join(dir, '.bench-triage'));
      fs.writeFileSync(
        path.join(dir, '.bench-triage', 'rules.json'),
        JSON.stringify({
          rules: [
            { id: 'my-oom', category: 'gpu-oom', cause: 'hbm', description: 'HBM: {1}', indications: [{ scope: 'any', pattern: 'HBM (exhausted)' }] },
            { id: 'broken', category: 'gpu-oom', description: 'x', indications: [{ scope: 'any', pattern: '(' }] },
          ],
        }),
      );
      fs.writeFileSync(
        path.join(dir, 'abcdef12_agent_result.json'),
        JSON.stringify({
          human_commit: 'abcdef12',
          human_commit_full: 'abcdef12'.padEnd(40, '0'),
          parent_commit: null,
          model: 'm',
          status: 'error',
          error: 'Server crashed after applying patch',
          duration_s: 1,
          metrics: {},
          raw_output: 'RuntimeError: HBM exhausted\n',
          timestamp: null,
        }),
      );
      const p = run('classify', dir, '--json');
      assert.equal(p.status, 0, p.stderr);
      assert.match(p.stderr, /rules\.json: error: rule broken \(rules\.1\.indications\.0\.pattern\): pattern does not compile/);
      const [e] = JSON.parse(p.stdout);
      assert.equal(e.roles.agent.rule, 'my-oom');
      assert.equal(e.roles.agent.cause, 'hbm');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
