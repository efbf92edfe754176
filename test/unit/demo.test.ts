import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { promises as fsp, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { scan } from '../../src/core/ingest';
import { CATEGORIES, classifyRuns } from '../../src/core/classify';
import { triage } from '../../src/core/compare';
import { nodeFileSource } from '../../src/platform/nodeFileSource';
import { walk } from './helpers';

const ROOT = path.resolve(__dirname, '../..');
const DEMO = path.join(ROOT, 'demo/workspace');

describe('demo workspace', function () {
  this.timeout(60000);
  it('represents every failure category, and complete, incomparable and partial commits', async () => {
    const r = await scan(nodeFileSource(DEMO));
    assert.deepEqual(
      r.files.filter(f => f.kind === 'corrupt' || f.kind === 'unknown'),
      [],
    );
    const c = await classifyRuns(r, p => fsp.readFile(path.join(DEMO, p), 'utf8'));
    const outcomes = new Set(triage(r.runs, c).map(e => e.outcome));
    // Unclassified too: the demo shows what to do when no rule explains a failure.
    const expected = [...CATEGORIES.map(x => x.id), 'complete', 'incomparable', 'partial'];
    assert.deepEqual(
      expected.filter(o => !outcomes.has(o)),
      [],
      'categories missing from the demo',
    );
    assert.ok(r.agentRuns.length >= 20);
  });

  it('is exactly what scripts/make-demo.mjs writes', () => {
    const out = mkdtempSync(path.join(os.tmpdir(), 'bt-demo-'));
    try {
      execFileSync(process.execPath, [path.join(ROOT, 'scripts/make-demo.mjs')], { env: { ...process.env, BENCH_TRIAGE_DEMO_OUT: out }, stdio: 'ignore' });
      const files = walk(out).sort();
      // What the demo command adds beside the written files (its vLLM checkout, a session's own runs) is not the generator's.
      const ignored = (f: string) => f.startsWith('.vllm-checkout/') || (f.startsWith('.bench-triage/') && !f.startsWith('.bench-triage/runs/'));
      assert.deepEqual(
        files,
        walk(DEMO)
          .filter(f => !ignored(f))
          .sort(),
      );
      for (const f of files) assert.equal(readFileSync(path.join(out, f), 'utf8'), readFileSync(path.join(DEMO, f), 'utf8'), f);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
