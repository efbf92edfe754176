import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { applyFilePatch, splitPatch, type FilePatch } from '../../src/core/patch';
import { hunkLines, mergeDependent, partsOf, splitUnits, subsetPatch, unitMode, type HunkRef } from '../../src/core/ablate/units';
import { planAblations } from '../../src/app/ablation';
import { emptyCommit } from '../../src/core/model';

const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-C', cwd, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** A real repository: a parent commit of two files, and a change of four hunks in one, one in the other, and a new file. */
function repo(): { dir: string; patch: string; after: Record<string, string> } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bt-ablate-'));
  git(dir, 'init', '-q');
  git(dir, 'config', 'user.email', 't@example.com');
  git(dir, 'config', 'user.name', 't');
  const lines = Array.from({ length: 80 }, (_, i) => `line ${i + 1}`);
  fs.writeFileSync(path.join(dir, 'a.py'), lines.join('\n') + '\n');
  fs.writeFileSync(path.join(dir, 'b.py'), 'x = 1\ny = 2\nz = 3\n');
  git(dir, 'add', '.');
  git(dir, 'commit', '-qm', 'parent');
  const changed = [...lines];
  changed.splice(70, 1, 'line 71 changed'); // hunk 4
  changed.splice(50, 0, 'added at 51', 'and 52'); // hunk 3 (insertion: later hunks move)
  changed.splice(30, 2); // hunk 2 (deletion)
  changed.splice(5, 1, 'line 6 changed', 'line 6b'); // hunk 1
  fs.writeFileSync(path.join(dir, 'a.py'), changed.join('\n') + '\n');
  fs.writeFileSync(path.join(dir, 'b.py'), 'x = 1\ny = 20\nz = 3\n');
  fs.writeFileSync(path.join(dir, 'c.py'), 'new = True\n');
  git(dir, 'add', '.');
  const patch = git(dir, 'diff', '--cached');
  const after = Object.fromEntries(['a.py', 'b.py', 'c.py'].map(f => [f, fs.readFileSync(path.join(dir, f), 'utf8')]));
  git(dir, 'reset', '-q', '--hard');
  git(dir, 'clean', '-qfd');
  return { dir, patch, after };
}

/** Every subset of `n` items, as bit masks. */
const subsets = (n: number) => Array.from({ length: 2 ** n }, (_, m) => m);

describe('patch ablation: units and subsets', () => {
  let r: ReturnType<typeof repo>;
  let files: FilePatch[];
  before(() => {
    r = repo();
    files = splitPatch(r.patch);
  });
  after(() => fs.rmSync(r.dir, { recursive: true, force: true }));

  it('cuts by hunk up to 12 hunks and by file above; a new file is one unit either way', () => {
    assert.deepEqual(
      files.map(f => [f.path, f.patch.hunks.length]),
      [
        ['a.py', 4],
        ['b.py', 1],
        ['c.py', 1],
      ],
    );
    assert.equal(unitMode(files), 'hunks');
    assert.equal(unitMode(files, 'files'), 'files');
    const hunks = splitUnits(files, 'hunks');
    assert.deepEqual(
      hunks.map(u => u.id),
      ['U1', 'U2', 'U3', 'U4', 'U5', 'U6'],
    );
    assert.match(hunks[0].label, /^a\.py @@ -3,7 \+3,8 @@ \(hunk 1 of 4\)$/);
    assert.deepEqual(
      hunks.map(u => [u.added, u.removed]),
      [
        [2, 1],
        [0, 2],
        [2, 0],
        [1, 1],
        [1, 1],
        [1, 0],
      ],
    );
    assert.deepEqual(
      splitUnits(files, 'files').map(u => [u.label, u.parts.length]),
      [
        ['a.py', 4],
        ['b.py', 1],
        ['c.py', 1],
      ],
    );
    // 13 hunks: by file.
    const many = Array.from({ length: 13 }, (_, i) => `@@ -${i * 10 + 1},1 +${i * 10 + 1},1 @@\n-o${i}\n+n${i}`).join('\n');
    assert.equal(unitMode(splitPatch(`--- a/m.py\n+++ b/m.py\n${many}\n`)), 'files');
  });

  it('every subset of the units applies on the real parent with git apply, and gives the parent plus exactly those hunks', () => {
    const units = splitUnits(files, 'hunks');
    const parent = Object.fromEntries(['a.py', 'b.py'].map(f => [f, fs.readFileSync(path.join(r.dir, f), 'utf8')]));
    for (const mask of subsets(units.length)) {
      const ids = units.filter((_, i) => mask & (1 << i)).map(u => u.id);
      const text = subsetPatch(files, partsOf(units, ids));
      if (!ids.length) {
        assert.equal(text, '');
        continue;
      }
      const file = path.join(r.dir, '..', `${path.basename(r.dir)}.diff`);
      fs.writeFileSync(file, text);
      try {
        git(r.dir, 'apply', '--check', file);
        git(r.dir, 'apply', file);
        // The same hunks applied one file at a time by the diff library: what git made.
        for (const f of files) {
          const kept = partsOf(units, ids).filter(p => files[p.file] === f);
          const now = fs.existsSync(path.join(r.dir, f.path)) ? fs.readFileSync(path.join(r.dir, f.path), 'utf8') : null;
          if (!kept.length) {
            assert.equal(now, parent[f.path] ?? null, `${f.path} untouched by ${ids.join(',')}`);
            continue;
          }
          const want = applyFilePatch(parent[f.path] ?? '', { ...f, patch: { ...f.patch, hunks: kept.map(p => f.patch.hunks[p.hunk]) } });
          assert.ok(want.ok);
          assert.equal(now, want.text, `${f.path} after ${ids.join(',')}`);
        }
        if (ids.length === units.length) for (const [f, t] of Object.entries(r.after)) assert.equal(fs.readFileSync(path.join(r.dir, f), 'utf8'), t);
      } finally {
        git(r.dir, 'reset', '-q', '--hard');
        git(r.dir, 'clean', '-qfd');
        fs.rmSync(file, { force: true });
      }
    }
  });

  it('a hunk written against another hunk’s result is merged with it, and the merge says why', () => {
    // Hunk 2's context holds the line hunk 1 adds: alone on the parent it cannot apply.
    const base = Array.from({ length: 30 }, (_, i) => `l${i + 1}`).join('\n') + '\n';
    const text = [
      '--- a/d.py',
      '+++ b/d.py',
      '@@ -1,4 +1,5 @@',
      ' l1',
      ' l2',
      '+inserted',
      ' l3',
      ' l4',
      '@@ -20,4 +21,4 @@',
      ' l20',
      ' l21',
      '-l22',
      '+l22 changed',
      ' l23',
      '@@ -2,3 +2,3 @@',
      ' l2',
      '-inserted',
      '+inserted twice',
      ' l3',
      '',
    ].join('\n');
    const f = splitPatch(text);
    const units = splitUnits(f, 'hunks');
    assert.equal(units.length, 3);
    const alone = (parts: HunkRef[]) => {
      // The hunks in patch order on the parent, as git applies them: each on the text so far.
      let t = base;
      for (const p of parts) {
        const one = applyFilePatch(t, { ...f[p.file], patch: { ...f[p.file].patch, hunks: [f[p.file].patch.hunks[p.hunk]] } });
        if (!one.ok) return one.error;
        t = one.text;
      }
      return null;
    };
    const m = mergeDependent(units, alone);
    assert.deepEqual(
      m.units.map(u => u.id),
      ['U1', 'U2'],
    );
    assert.deepEqual(m.units[0].parts, [
      { file: 0, hunk: 0 },
      { file: 0, hunk: 2 },
    ]);
    assert.deepEqual(
      m.merges.map(x => [x.into, x.from]),
      [['U1', ['U3']]],
    );
    assert.match(m.merges[0].why, /^U3 alone: .*does not apply/);
    assert.deepEqual(m.unappliable, []);
    // A hunk that applies with nothing is kept apart and named.
    const never = mergeDependent(units, parts => (parts.some(p => p.hunk === 1) ? 'hunk 2 never applies' : null));
    assert.deepEqual(never.unappliable, [{ unit: 'U2', why: 'hunk 2 never applies' }]);
  });
  it('with a checkout, each unit is checked on the real parent: a dependent hunk is merged, the human patch is git’s, a patch that does not apply is refused naming its hunk', async () => {
    const parent = git(r.dir, 'rev-parse', 'HEAD').trim();
    fs.writeFileSync(path.join(r.dir, 'b.py'), 'x = 1\ny = 2000\nz = 3\n');
    git(r.dir, 'commit', '-qam', 'the human change');
    const child = git(r.dir, 'rev-parse', 'HEAD').trim();
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'bt-ablate-folder-'));
    try {
      // The agent's patch: git's four hunks of a.py, then a hunk written against the first one's result.
      const agent = r.patch;
      const dependent = ['--- a/a.py', '+++ b/a.py', '@@ -6,2 +6,2 @@', '-line 6 changed', '+line 6 changed again', ' line 6b', ''].join('\n');
      fs.writeFileSync(path.join(folder, 'agent.diff'), agent + dependent);
      fs.writeFileSync(path.join(folder, 'broken.diff'), ['--- a/b.py', '+++ b/b.py', '@@ -1,2 +1,2 @@', ' x = 1', '-y = 3', '+y = 4', ''].join('\n'));
      const commit = {
        ...emptyCommit(child),
        parent,
        perfCommands: [{ command: 'python benchmarks/benchmark_latency.py --model facebook/opt-125m', source: 'd.jsonl' }],
      };
      const base = {
        folder,
        commits: [commit],
        entries: [],
        design: 'leave-one-out' as const,
        repeats: 2,
        host: { label: 'H100', docker: 'unix:///var/run/docker.sock', gpus: 1 },
        checkout: r.dir,
      };
      const agentRun = (file: string) => [{ commit: child, agent: 'claude_code', patch: { path: file, bytes: 1, empty: false } }];
      const a = await planAblations({ ...base, agentRuns: agentRun('agent.diff'), patch: 'agent' });
      assert.deepEqual(a.refusals, []);
      const p = a.plans[0];
      assert.equal(p.checked, 'parent');
      assert.deepEqual(
        p.merges.map(m => [m.into, m.from]),
        [['U1', ['U7']]],
        JSON.stringify(p.merges),
      );
      assert.equal(p.units.length, 6);
      assert.equal(p.plan.runs.length, (6 + 2) * 2);
      const h = await planAblations({ ...base, agentRuns: [], patch: 'human' });
      assert.equal(h.plans[0].source, `${r.dir} (git diff)`);
      assert.deepEqual(
        h.plans[0].units.map(u => u.label),
        ['b.py'],
      );
      const b = await planAblations({ ...base, agentRuns: agentRun('broken.diff'), patch: 'agent' });
      assert.equal(b.plans.length, 0);
      assert.match(b.refusals[0].reason, /does not apply to the parent .*U1: .*b\.py/);
      const none = await planAblations({ ...base, checkout: null, agentRuns: agentRun('broken.diff'), patch: 'agent' });
      assert.equal(none.plans[0].uncheckedWhy, 'no checkout');
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });
  it('finds the line of each hunk as splitPatch numbers them, passing over the model_patch.diff section', () => {
    const text =
      r.patch +
      ['diff --git a/model_patch.diff b/model_patch.diff', 'new file mode 100644', '--- /dev/null', '+++ b/model_patch.diff', '@@ -0,0 +1 @@', '+x', ''].join(
        '\n',
      );
    const at = hunkLines(text);
    const lines = text.split('\n');
    assert.deepEqual(
      at.map(h => [h.file, h.hunk]),
      files.flatMap((f, file) => f.patch.hunks.map((_, hunk) => [file, hunk])),
    );
    for (const h of at) {
      const want = files[h.file].patch.hunks[h.hunk];
      // The header, then that hunk's own lines.
      assert.ok(lines[h.line].startsWith('@@ -'), lines[h.line]);
      assert.deepEqual(lines.slice(h.line + 1, h.line + 1 + want.lines.length), want.lines);
    }
  });
});
