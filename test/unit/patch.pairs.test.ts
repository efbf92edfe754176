import * as assert from 'node:assert/strict';
import { createTwoFilesPatch } from 'diff';
import { pairFilePatches, splitPatch } from '../../src/core/patch';

// Patches written by the diff library from file contents, so the test does not share the code's idea of a patch.
const patchOf = (files: Record<string, [string, string]>) =>
  Object.entries(files)
    .map(([p, [before, after]]) => createTwoFilesPatch(before ? `a/${p}` : '/dev/null', `b/${p}`, before, after))
    .join('');

describe('agent vs human patches file by file, without the parent (issue 24, item 4)', () => {
  const human = patchOf({
    'vllm/b.py': ['x = 1\ny = 2\n', 'x = 1\ny = 3\n'],
    'vllm/a.py': ['def f():\n    return 1\n', 'def f():\n    return 2\n'],
  });
  const agent = patchOf({
    'vllm/c.py': ['', 'import os\n'],
    'vllm/b.py': ['x = 1\ny = 2\n', 'x = 10\ny = 2\n'],
    'model_patch.diff': ['', 'diff --git …\n'],
  });

  it('pairs the files both touch, then lists each patch’s own files apart, in path order; the agent’s own model_patch.diff is not a file of the change', () => {
    const r = pairFilePatches(splitPatch(human), splitPatch(agent));
    assert.deepEqual(
      r.both.map(p => p.path),
      ['vllm/b.py'],
    );
    assert.deepEqual(
      r.humanOnly.map(p => p.path),
      ['vllm/a.py'],
    );
    assert.deepEqual(
      r.agentOnly.map(p => p.path),
      ['vllm/c.py'],
    );
    assert.equal(r.humanOnly[0].agent, null);
    assert.equal(r.agentOnly[0].human, null);
  });

  it('each side holds that file’s hunks as written: what one changed and the other did not is a line apart', () => {
    const [b] = pairFilePatches(splitPatch(human), splitPatch(agent)).both;
    assert.match(b.human!, /^vllm\/b\.py\n@@ -1,2 \+1,2 @@\n/);
    assert.ok(b.human!.includes('-y = 2\n+y = 3\n'), b.human!);
    assert.ok(b.agent!.includes('-x = 1\n+x = 10\n'), b.agent!);
    assert.ok(!b.human!.includes('x = 10') && !b.agent!.includes('y = 3'));
    const [c] = pairFilePatches(splitPatch(human), splitPatch(agent)).agentOnly;
    assert.match(c.agent!, /^vllm\/c\.py \(new file\)\n/);
  });

  it('every file of either patch appears exactly once, whatever the order the patches list them in', () => {
    const h = splitPatch(human),
      a = splitPatch(agent);
    const r = pairFilePatches([...h].reverse(), [...a].reverse());
    const seen = [...r.both, ...r.humanOnly, ...r.agentOnly].map(p => p.path).sort();
    assert.deepEqual(seen, [...new Set([...h, ...a].map(f => f.path))].sort());
  });
});
