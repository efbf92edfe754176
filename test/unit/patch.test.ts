import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { applyFilePatch, splitPatch } from '../../src/core/patch';
import { ISOBENCH, requireCorpus, walk } from './helpers';

const PATCH = `diff --git a/x.py b/x.py
--- a/x.py
+++ b/x.py
@@ -1,2 +1,2 @@
-a = 1
+a = 2
 b = 3
diff --git a/model_patch.diff b/model_patch.diff
new file mode 100644
--- /dev/null
+++ b/model_patch.diff
@@ -0,0 +1 @@
+diff --git a/x.py b/x.py
`;

describe('patch [ISO-Bench data]', () => {
  it('splits per file and drops the self-referential model_patch.diff hunk', () => {
    const files = splitPatch(PATCH);
    assert.deepEqual(
      files.map(f => f.path),
      ['x.py'],
    );
    const r = applyFilePatch('a = 1\nb = 3\n', files[0]);
    assert.deepEqual(r, { ok: true, text: 'a = 2\nb = 3\n' });
    const bad = applyFilePatch('something else\n', files[0]);
    assert.ok(!bad.ok && /x\.py does not apply to the parent \(1 hunk\)/.test(bad.error));
  });

  it('parses every real agent patch of the corpus', () => {
    requireCorpus();
    const base = 'ISO-Bench/state/runs/vllm/claude_code/default';
    const patches = walk(path.join(ISOBENCH, base)).filter(p => p.endsWith('model_patch.diff'));
    let files = 0;
    for (const p of patches) {
      const text = fs.readFileSync(path.join(ISOBENCH, base, p), 'utf8');
      const parts = splitPatch(text);
      for (const f of parts) assert.ok(f.path && !f.path.endsWith('model_patch.diff'));
      files += parts.length;
    }
    assert.ok(patches.length > 100 && files > 100, `${patches.length} patches, ${files} files`);
  });
});
