import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pyJson, vllmServeCli } from '../../scripts/field-formats.mjs';
import { Workspace } from '../../src/app/workspace';
import { pooledLabelCautions } from '../../src/core/compare';
import type { Run } from '../../src/core/model';
import { comparisonData } from '../../src/core/report/viewModels';
import { buildReport, renderMarkdown } from '../../src/core/report';
import { nodeFileSource } from '../../src/platform/nodeFileSource';

const settings = () => ({ tieBand: 2, rules: [], primaryMetric: {} });
const withLabels = (labels?: Record<string, string>) => ({ labels }) as unknown as Run;
const none = { attempts: [] as Run[] };

describe('attempts pooled with different labels (vLLM --metadata, SGLang --tag …) are noted', function () {
  this.timeout(60_000);
  let dir: string;
  before(() => (dir = mkdtempSync(path.join(tmpdir(), 'bt-labels-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('a role whose repeats carry different --metadata gets a note on the entry, the tooltip data and the comparison view; equal labels and run numbers none', async () => {
    // `vllm bench serve --append-result --metadata tp=…`: three attempts a role in one file each.
    const write = (commit: string, role: string, metas: Array<Record<string, unknown>>) => {
      const p = path.join(dir, commit, role, 'results.json');
      mkdirSync(path.dirname(p), { recursive: true });
      writeFileSync(p, metas.map((m, i) => pyJson(vllmServeCli({ seed: i + 1 + role.length, numPrompts: 100, metadata: m }))).join('\n') + '\n');
    };
    const mixed = 'a1b2c3d4e5';
    write(mixed, 'baseline', [{ tp: '2' }, { tp: '2' }, { tp: '2' }]);
    write(mixed, 'human', [{ tp: '2' }, { tp: '2' }, { tp: '2' }]);
    write(mixed, 'agent/my-agent', [{ tp: '2' }, { tp: '4' }, { tp: '2', tier: 'gold|<b>' }]);
    const same = 'f0e1d2c3b4';
    write(same, 'baseline', [{ tp: '2' }, { tp: '2' }]);
    write(same, 'human', [
      { tp: '2', run_number: 0 },
      { tp: '2', run_number: 1 },
    ]);
    write(same, 'agent/my-agent', [{ tp: '2' }, { tp: '2' }]);
    const w = new Workspace(dir, nodeFileSource(dir), settings);
    await w.load();
    const byCommit = new Map(w.entries.map(e => [e.commit, e]));
    const m = byCommit.get(mixed)!;
    assert.equal(m.roles.agent.attempts.length, 3, 'the three agent attempts are pooled (same workload)');
    assert.deepEqual(m.comparability.notes, [
      "agent's 3 pooled attempts carry different labels: tier = (none) (2), gold|<b> (1); tp = 2 (2), 4 (1) (are they repeats of one configuration?)",
    ]);
    assert.equal(m.comparison?.basis, 'repeats', 'a note, not a reason: the verdict still stands on the repeats');
    const view = comparisonData(m, 2);
    assert.deepEqual(view.comparability.notes, m.comparability.notes);
    // The shared report lists it under the 3-way table, escaped for Markdown (a label is the file's text).
    const md = renderMarkdown(buildReport(w.entries, dir, { tieBand: 2 }));
    const rows = md.split('\n').filter(l => l.startsWith('| a1b2c3d4 |') && l.includes('pooled attempts'));
    assert.equal(rows.length, 1, md);
    assert.ok(rows[0].includes('tier = \\(none\\) \\(2\\), gold\\|&lt;b&gt; \\(1\\)'), rows[0]);
    assert.ok(!md.includes('| f0e1d2c3 | my-agent | '), 'no note row for the commit without one');
    const s = byCommit.get(same)!;
    assert.equal(s.roles.human.attempts.length, 2);
    assert.equal(s.comparability.notes, undefined, JSON.stringify(s.comparability));
  });

  it('names missing labels, cuts long values and many keys, and skips single attempts', () => {
    const long = 'x'.repeat(100);
    const notes = pooledLabelCautions({
      baseline: { attempts: [withLabels({ a: '1' })] },
      human: {
        attempts: [
          withLabels({ a: '1', b: long, c: '1', d: '1' }),
          withLabels({ a: '2', b: 'short', c: '2', d: '2' }),
          withLabels(undefined),
          withLabels({ a: '3' }),
          withLabels({ a: '4' }),
          withLabels({ a: '5' }),
        ],
      },
      agent: none,
    });
    assert.equal(notes.length, 1);
    assert.match(
      notes[0],
      /^human's 6 pooled attempts carry different labels: a = 1 \(1\), 2 \(1\), \(none\) \(1\), 3 \(1\), and 2 more; b = x{39}… \(1\), short \(1\), \(none\) \(4\); c = /,
    );
    assert.match(notes[0], /; and 1 more \(are they repeats/);
    assert.deepEqual(pooledLabelCautions({ baseline: none, human: { attempts: [withLabels({ a: '1' }), withLabels({ a: '1' })] }, agent: none }), []);
  });
});
