import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pyJson, vllmServeCli } from '../../scripts/field-formats.mjs';
import { Workspace } from '../../src/app/workspace';
import { triage, triageYielding } from '../../src/core/compare';
import { classifyRuns } from '../../src/core/classify';
import type { ReadOptions } from '../../src/core/ingest/source';
import { nodeFileSource } from '../../src/platform/nodeFileSource';
import { entryJson } from '../../src/cli/analyzeFolder';

const settings = () => ({ tieBand: 2, rules: [], primaryMetric: {} });
const shape = (w: Workspace) => JSON.parse(JSON.stringify(w.entries.map(entryJson)));
const turn = () => new Promise<void>(r => setImmediate(r));

/**
 * A folder of `vllm bench serve --save-detailed` results, three roles a commit: every commit's
 * verdict is a per-request bootstrap, the slow part of a large folder's triage.
 */
function detailedFolder(dir: string, commits: number, first = 0): void {
  const roles = ['baseline', 'human', 'agent/my-agent'];
  for (let c = first; c < first + commits; c++)
    for (const [k, role] of roles.entries()) {
      const p = path.join(dir, (0x20000000 + c).toString(16), role, 'result.json');
      mkdirSync(path.dirname(p), { recursive: true });
      writeFileSync(p, pyJson(vllmServeCli({ seed: c * 3 + k + 1, numPrompts: 60, detailed: true })));
    }
}

describe('triage gives the thread back between commits (a large folder triages for seconds)', function () {
  this.timeout(120_000);
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'bt-triage-yields-'));
    detailedFolder(dir, 40);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('gives the entries triage gives, pausing after each commit it is asked to, with progress in commits', async () => {
    const w = new Workspace(dir, nodeFileSource(dir), settings);
    await w.load();
    const runs = w.result.runs;
    const cls = w.classifications;
    assert.equal(w.entries.length, 40);
    assert.ok(
      w.entries.every(e => e.comparison?.metrics.some(m => m.basis === 'per-request')),
      'every commit is compared on its per-request samples (the fixture is what the test says it is)',
    );
    const opts = { tieBand: 2, commits: new Map(w.result.commits.map(c => [c.hash, c])), conflicts: w.result.conflicts };
    const expected = triage(runs, cls, opts);
    const seen: Array<[number, number]> = [];
    let pauses = 0,
      turns = 0;
    // Counts turns of the event loop while the triage runs: none if it never lets go.
    let counting = true;
    const tick = () => {
      turns++;
      if (counting) setImmediate(tick);
    };
    setImmediate(tick);
    const got = await triageYielding(
      runs,
      cls,
      opts,
      () => (pauses++, turn()),
      undefined,
      (d, t) => seen.push([d, t]),
    );
    counting = false;
    assert.deepEqual(JSON.parse(JSON.stringify(got)), JSON.parse(JSON.stringify(expected)));
    assert.equal(pauses, 40, 'a pause offered after every commit');
    assert.ok(turns >= 39, `the event loop turned ${turns} times during the triage`);
    assert.deepEqual(
      seen,
      Array.from({ length: 40 }, (_, i) => [i + 1, 40]),
    );
    // A pause that does not ask (the slice is not over) costs no turn and no progress call.
    const quiet: unknown[] = [];
    const again = await triageYielding(
      runs,
      cls,
      opts,
      () => undefined,
      undefined,
      (...a) => quiet.push(a),
    );
    assert.equal(quiet.length, 0);
    assert.deepEqual(JSON.parse(JSON.stringify(again)), JSON.parse(JSON.stringify(expected)));
  });

  it('classifying runs offers a pause between result files (with texts known, as in a cold load, nothing else lets go), and classifies the same', async () => {
    const w = new Workspace(dir, nodeFileSource(dir), settings);
    await w.load();
    const src = nodeFileSource(dir);
    const read = (p: string, o?: ReadOptions) => src.readText(p, o);
    // Texts known, as a cold load's extracts hold them (these files carry no log text): no read to wait on.
    const texts = () => ({});
    const plain = await classifyRuns(w.result, read, undefined, undefined, undefined, texts);
    let pauses = 0;
    const paused = await classifyRuns(w.result, read, undefined, undefined, undefined, texts, () => (pauses++, turn()));
    assert.equal(pauses, 40, 'one pause a result file with runs to classify (the agent runs here)');
    assert.deepEqual(JSON.parse(JSON.stringify([...paused])), JSON.parse(JSON.stringify([...plain])));
  });

  it('stops at the next pause once cancelled, with the signal’s reason', async () => {
    const w = new Workspace(dir, nodeFileSource(dir), settings);
    await w.load();
    const ac = new AbortController();
    let pauses = 0;
    const why = new Error('cancelled by the test');
    await assert.rejects(
      triageYielding(
        w.result.runs,
        w.classifications,
        { tieBand: 2 },
        () => {
          if (++pauses === 3) ac.abort(why);
          return turn();
        },
        ac.signal,
      ),
      e => e === why,
    );
    assert.equal(pauses, 3, 'no commit is triaged after the cancel is heard');
  });

  it('a load cancelled while it compares leaves the workspace as it was, and says how far it got', async () => {
    const w = new Workspace(dir, nodeFileSource(dir), settings);
    await w.load();
    const before = shape(w);
    const entries = w.entries;
    const result = w.result;
    // A commit more: the cancelled load must not show it, half-done or otherwise.
    detailedFolder(path.join(dir, 'more'), 1, 1000);
    try {
      const ac = new AbortController();
      const progress: Array<{ phase: string; done: number; total: number }> = [];
      await assert.rejects(
        w.load({
          signal: ac.signal,
          onProgress: p => {
            progress.push(p);
            if (p.phase === 'triage') ac.abort(new Error('stop'));
          },
        }),
        /stop/,
      );
      const compared = progress.filter(p => p.phase === 'triage');
      assert.equal(compared.length, 1, 'it stopped at the first pause after the cancel');
      assert.equal(compared[0].total, 41);
      assert.ok(compared[0].done >= 1 && compared[0].done < 41, JSON.stringify(compared[0]));
      assert.equal(w.entries, entries, 'the entries are the ones shown before');
      assert.equal(w.result, result);
      assert.deepEqual(shape(w), before);
      // Not cancelled: the new commit is there.
      await w.load();
      assert.equal(w.entries.length, 41);
    } finally {
      rmSync(path.join(dir, 'more'), { recursive: true, force: true });
    }
  });
});
