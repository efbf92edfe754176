import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { scan } from '../../src/core/ingest';
import { ISOBENCH, memorySource, requireCorpus } from './helpers';

const REAL = {
  s2: 'archive/results/2026-01/omniperf_results_3way_claude_code/results/22dd9c27_baseline_result.json',
  s1: 'archive/results/2026-01/omniperf_results_3way_claude_code/results/modal/fe66b347/benchmark_result.json',
  s4: 'archive/results/2026-01/omniperf_results_3way_claude_code/results/docker/0ec82edd_result.json',
};

describe('ingest: bad input never throws [ISO-Bench data]', function () {
  this.timeout(120000);
  let real: Record<keyof typeof REAL, string>;
  before(() => {
    requireCorpus();
    real = Object.fromEntries(Object.entries(REAL).map(([k, p]) => [k, fs.readFileSync(path.join(ISOBENCH, p), 'utf8')])) as typeof real;
  });

  async function recordFor(name: string, text: string, opts = {}) {
    const r = await scan(memorySource({ [name]: text }), opts);
    assert.equal(r.files.length, 1);
    return { file: r.files[0], runs: r.runs };
  }

  it('truncated real files are corrupt, with a position', async () => {
    for (const [k, text] of Object.entries(real)) {
      const { file, runs } = await recordFor(`x/abcd1234_baseline_result.json`, text.slice(0, Math.floor(text.length / 2)));
      assert.equal(file.kind, 'corrupt', k);
      assert.ok(file.kind === 'corrupt' && file.line! >= 1 && /end of input|invalid string/.test(file.error), JSON.stringify(file));
      assert.equal(runs.length, 0);
    }
  });

  it('binary content is corrupt', async () => {
    const bytes = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 256));
    const { file } = await recordFor('results/docker/deadbeef_result.json', bytes.toString('utf8'));
    assert.equal(file.kind, 'corrupt');
  });

  it('a 100 MB string makes the file unknown with a reason, not a crash', async () => {
    const v = JSON.parse(real.s2);
    v.raw_output = 'x'.repeat(100 * 1024 * 1024);
    const { file } = await recordFor('r/22dd9c27_baseline_result.json', JSON.stringify(v));
    assert.equal(file.kind, 'unknown');
    assert.match((file as { reason: string }).reason, /MiB, above the 64 MiB limit/);
  });

  it('a 100 MB string below a raised limit is parsed, the text left in the file', async () => {
    const v = JSON.parse(real.s2);
    v.raw_output = 'y'.repeat(100 * 1024 * 1024);
    const { file, runs } = await recordFor('r/22dd9c27_baseline_result.json', JSON.stringify(v), { maxFileBytes: 512 * 1024 * 1024 });
    assert.equal(file.kind, 'run');
    assert.equal(runs[0].logs[0].length, 100 * 1024 * 1024);
  });

  it('deeply nested variants are unknown or corrupt', async () => {
    const depth = 200000;
    const nestedArray = '['.repeat(depth) + ']'.repeat(depth);
    assert.equal((await recordFor('a/deep_result.json', nestedArray)).file.kind, 'unknown');
    assert.equal((await recordFor('a/deep2_result.json', '['.repeat(depth))).file.kind, 'corrupt');
    const v = JSON.parse(real.s2);
    const withDeepMetrics = JSON.stringify(v).replace('"metrics":{', `"metrics":${'['.repeat(5000)}${']'.repeat(5000)},"x":{`);
    const { file } = await recordFor('r/22dd9c27_baseline_result.json', withDeepMetrics);
    assert.equal(file.kind, 'unknown');
    assert.match((file as { reason: string }).reason, /S2.*`metrics`/);
  });

  it('wrong-typed fields are unknown, naming the schema and field', async () => {
    const cases: Array<[string, string, (v: any) => void, RegExp]> = [
      [
        'r/22dd9c27_baseline_result.json',
        real.s2,
        v => {
          v.status = 404;
        },
        /S2.*`status`/,
      ],
      [
        'r/22dd9c27_baseline_result.json',
        real.s2,
        v => {
          v.metrics = 'fast';
        },
        /S2.*`metrics`/,
      ],
      [
        'm/fe66b347/benchmark_result.json',
        real.s1,
        v => {
          v.result.human_metrics = [1, 2];
        },
        /S1.*`result\.human_metrics`/,
      ],
      [
        'm/fe66b347/benchmark_result.json',
        real.s1,
        v => {
          v.instance = { commit_hash: 7 };
        },
        /S1.*`instance\.commit_hash`/,
      ],
      [
        'd/0ec82edd_result.json',
        real.s4,
        v => {
          v.fix_applied = { a: 1 };
        },
        /S4.*`fix_applied`/,
      ],
    ];
    for (const [name, text, mutate, re] of cases) {
      const v = JSON.parse(text);
      mutate(v);
      const { file } = await recordFor(name, JSON.stringify(v));
      assert.equal(file.kind, 'unknown', name);
      assert.match((file as { reason: string }).reason, re);
    }
  });

  it('a record that names no commit is unknown, not a run with an empty id', async () => {
    const v = JSON.parse(real.s2);
    v.human_commit = 'not-a-hash';
    v.human_commit_full = null;
    const { file, runs } = await recordFor('r/22dd9c27_baseline_result.json', JSON.stringify(v));
    assert.equal(file.kind, 'unknown');
    assert.match((file as { reason: string }).reason, /names no commit id/);
    assert.equal(runs.length, 0);
  });

  it('an unreadable file becomes a record with the read error', async () => {
    const r = await scan({
      async *list() {
        yield { path: 'a/x_result.json', size: 10 };
        yield { path: 'a/y_baseline_result.json', size: real.s2.length };
      },
      readText: async p => {
        if (p === 'a/x_result.json') throw new Error('EACCES: permission denied');
        return real.s2;
      },
    });
    assert.deepEqual(
      r.files.map(f => `${f.path}:${f.kind}`),
      ['a/x_result.json:unknown', 'a/y_baseline_result.json:run'],
    );
    assert.match((r.files[0] as { reason: string }).reason, /EACCES/);
  });
});
