import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { splitPatch } from '../../src/core/patch';
import { splitUnits } from '../../src/core/ablate/units';
import { planAblation } from '../../src/core/ablate/designs';
import { ablationMarkdown } from '../../src/core/ablate/report';
import { ablationData } from '../../src/core/ablate/viewModel';
import { ablationResults, createAblationCampaign, readAblationRecord, unitHunk, variantPatchOf } from '../../src/app/ablationCampaign';
import { CampaignQueue } from '../../src/app/campaigns';
import type { CommitAblation } from '../../src/app/ablation';

const PATCH = ['--- a/k.py', '+++ b/k.py', '@@ -1,3 +1,4 @@', ' a', '+b', ' c', ' d', '@@ -20,3 +21,3 @@', ' t', '-u', '+U', ' v', ''].join('\n');

function ablation(): CommitAblation {
  const files = splitPatch(PATCH);
  const units = splitUnits(files, 'hunks');
  return {
    commit: 'c'.repeat(40),
    agent: 'claude_code',
    patch: 'agent',
    source: 'state/x/model_patch.diff',
    mode: 'hunks',
    benchmarkMode: 'serving',
    units,
    merges: [],
    checked: 'unchecked',
    uncheckedWhy: 'no checkout',
    plan: planAblation(units, { design: 'leave-one-out', repeats: 2, estimateS: 60, gpus: 1 }),
    files,
  };
}

describe('patch ablation as a campaign: its records', () => {
  let folder: string;
  beforeEach(() => {
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'bt-ablate-camp-'));
  });
  afterEach(() => fs.rmSync(folder, { recursive: true, force: true }));

  it('writes each variant’s patch and the ablation record, and queues the baseline as the baseline role and every variant as the agent with its own patch', async () => {
    const q = await createAblationCampaign(folder, ablation(), ablation().files, { hosts: ['h'], id: 'ablate-test' });
    assert.deepEqual(
      q.record.items.map(i => [i.n, i.role, i.variant?.id, i.repeat]),
      [
        [1, 'baseline', 'baseline', 1],
        [2, 'agent', 'full', 1],
        [3, 'agent', 'without-U1', 1],
        [4, 'agent', 'without-U2', 1],
        [5, 'baseline', 'baseline', 2],
        [6, 'agent', 'full', 2],
        [7, 'agent', 'without-U1', 2],
        [8, 'agent', 'without-U2', 2],
      ],
    );
    const without1 = q.record.items[2];
    const file = await variantPatchOf(folder, without1);
    assert.equal(file, path.join(fs.realpathSync(folder), '.bench-triage/campaigns/ablate-test/variants/without-U1.diff'));
    const text = fs.readFileSync(file!, 'utf8');
    // Only U2's hunk, its new-side start moved back by the line U1 would have added.
    assert.match(text, /@@ -20,3 \+20,3 @@/);
    assert.doesNotMatch(text, /\+b/);
    assert.equal(await variantPatchOf(folder, q.record.items[0]), null);
    const rec = await readAblationRecord(q.dir);
    assert.deepEqual(
      rec.units.map(u => u.id),
      ['U1', 'U2'],
    );
    // The queue reads its record back: the variants pass its schema.
    const again = await CampaignQueue.load(folder, 'ablate-test');
    assert.equal(again.record.items[2].variant?.patch, '.bench-triage/campaigns/ablate-test/variants/without-U1.diff');
  });

  it('a campaign record whose variant names a patch outside .bench-triage/ is refused naming the field; a link out is refused when the run starts', async () => {
    const q = await createAblationCampaign(folder, ablation(), ablation().files, { hosts: ['h'], id: 'ablate-test' });
    const file = path.join(q.dir, 'campaign.json');
    const good = fs.readFileSync(file, 'utf8');
    for (const bad of ['../../../etc/passwd.diff', '/etc/passwd.diff', 'state/x/model_patch.diff', '.bench-triage/campaigns/ablate-test/variants/x.sh']) {
      const rec = JSON.parse(good);
      rec.items[2].variant.patch = bad;
      fs.writeFileSync(file, JSON.stringify(rec));
      await assert.rejects(CampaignQueue.load(folder, 'ablate-test'), /items\.2\.variant\.patch/, bad);
    }
    fs.writeFileSync(file, good);
    const outside = path.join(os.tmpdir(), `bt-outside-${process.pid}.diff`);
    fs.writeFileSync(outside, PATCH);
    try {
      const link = path.join(q.dir, 'variants', 'without-U1.diff');
      fs.rmSync(link);
      fs.symlinkSync(outside, link);
      await assert.rejects(variantPatchOf(folder, q.record.items[2]), /leads outside/);
      fs.rmSync(link);
      await assert.rejects(variantPatchOf(folder, q.record.items[2]), /its patch .* is missing/);
    } finally {
      fs.rmSync(outside, { force: true });
    }
  });

  it('the Markdown report escapes what the data says and says what is still running', () => {
    const a = ablation();
    a.units[0].label = 'x.py | <script>alert(1)</script> **bold**';
    const md = ablationMarkdown({
      ...a,
      design: 'leave-one-out',
      results: new Map([['baseline', { values: [1], broken: [] }]]),
      pending: 3,
      attribution: {
        metric: 'request_throughput',
        direction: 'higher',
        full: { change: 12.345, ci: [10, 14], p: 0.01, basis: 'repeats', verdict: 'win', n: [4, 4] },
        units: [{ unit: 'U1', label: a.units[0].label, alone: null, removal: { change: -9, ci: null, p: null, basis: 'single', verdict: 'loss', n: [1, 1] } }],
        findings: ['U2 needs U1: `x` | y'],
      },
      why: null,
    });
    assert.match(md, /3 runs still queued or running/);
    assert.match(md, /The full patch against the parent: \+12\.3 % \[\+10\.0 %, \+14\.0 %\] win\./);
    assert.match(md, /\| U1 \| \+1 −0 \| — \| -9\.0 % loss\? \|/);
    assert.doesNotMatch(md, /<script>|\| <script|\*\*bold\*\*/);
    assert.match(md, /x\.py \\\| /);
  });

  it('a unit’s hunk is found in the agent’s own patch file, else in the campaign’s full patch; a source outside the folder is not opened', async () => {
    const a = ablation();
    // The agent's file has a model_patch.diff section first, as ISO-Bench's do: lines move, hunks do not.
    const own = ['--- /dev/null', '+++ b/model_patch.diff', '@@ -0,0 +1 @@', '+x', PATCH].join('\n');
    fs.mkdirSync(path.join(folder, 'state/x'), { recursive: true });
    fs.writeFileSync(path.join(folder, 'state/x/model_patch.diff'), own);
    const q = await createAblationCampaign(folder, a, a.files, { hosts: ['h'], id: 'ablate-test' });
    const lines = own.split('\n');
    const u2 = await unitHunk(folder, 'ablate-test', 'U2');
    assert.equal(u2?.file, path.join(fs.realpathSync(folder), 'state/x/model_patch.diff'));
    assert.equal(lines[u2!.line], '@@ -20,3 +21,3 @@');
    assert.deepEqual(lines.slice(u2!.line + 1, u2!.end + 1), [' t', '-u', '+U', ' v']);
    assert.equal(await unitHunk(folder, 'ablate-test', 'U9'), null);
    // The record's source rewritten to leave the folder: the full patch the campaign wrote is shown instead.
    const rec = JSON.parse(fs.readFileSync(path.join(q.dir, 'ablation.json'), 'utf8'));
    for (const source of ['../../etc/passwd', '/etc/passwd']) {
      fs.writeFileSync(path.join(q.dir, 'ablation.json'), JSON.stringify({ ...rec, source }));
      const at = await unitHunk(folder, 'ablate-test', 'U2');
      assert.equal(at?.file, path.join(q.dir, 'variants', 'full.diff'));
      const full = fs.readFileSync(at!.file, 'utf8').split('\n');
      assert.match(full[at!.line], /^@@ -20,3 \+2\d,3 @@/);
      assert.equal(full[at!.line + 2], '-u');
    }
  });

  it('the minimal subset is read back with its effects, shown in the report and the view data; a damaged minimise record names its field', async () => {
    const a = ablation();
    const q = await createAblationCampaign(folder, a, a.files, { hosts: ['h'], id: 'ablate-test' });
    fs.writeFileSync(path.join(q.dir, 'minimise.json'), JSON.stringify({ subset: ['U1'], exhausted: false, tests: [{}, {}, {}] }));
    const r = await ablationResults(folder, 'ablate-test');
    assert.deepEqual(r.minimal && { units: r.minimal.units, patch: r.minimal.patch, tests: r.minimal.tests }, {
      units: ['U1'],
      patch: '.bench-triage/campaigns/ablate-test/minimal.diff',
      tests: 3,
    });
    const input = { ...r.record, results: r.results, pending: r.pending, attribution: r.attribution, why: r.why, minimal: r.minimal };
    // Rendered, the parentheses are plain text (escaped in the Markdown source).
    assert.ok(ablationMarkdown(input).includes("## Minimal subset\n\nU1 of 2 units keeps the full patch's effect \\(3 subsets measured\\)"));
    const d = ablationData('ablate-test', input);
    assert.deepEqual(
      d.files.map(f => [f.path, f.units.map(u => [u.id, u.inMinimal])]),
      [
        [
          'k.py',
          [
            ['U1', true],
            ['U2', false],
          ],
        ],
      ],
    );
    assert.equal(d.minimal?.whole, false);
    assert.equal(d.pending, 8);
    // Every run refused before it started (a setting): the view says so, not "nothing in common yet".
    for (const i of q.record.items)
      fs.writeFileSync(
        path.join(q.dir, 'runs', `${i.n}.json`),
        JSON.stringify({
          schema: 'bench-triage.campaign-run/v1',
          n: i.n,
          state: 'failed',
          runId: null,
          resultDir: null,
          host: 'h',
          runStatus: null,
          error: 'settings: benchTriage.runEnv[0]: HF_TOKEN looks like a secret',
          startedAt: null,
          endedAt: '2026-11-25T10:00:00.000Z',
        }),
      );
    const refused = await ablationResults(folder, 'ablate-test');
    assert.equal(refused.pending, 0);
    assert.match(
      refused.why ?? '',
      /^none of its runs measured anything: 8 broke, the first with "settings: benchTriage\.runEnv\[0\]: HF_TOKEN looks like a secret"$/,
    );
    fs.writeFileSync(path.join(q.dir, 'minimise.json'), JSON.stringify({ subset: 'U1', exhausted: false, tests: [] }));
    await assert.rejects(ablationResults(folder, 'ablate-test'), /minimise\.json: field subset: /);
  });
});
