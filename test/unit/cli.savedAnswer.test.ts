import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { folderListings } from '../../src/platform/folderListings';
import { nodeFileSource } from '../../src/platform/nodeFileSource';
import { pyJson, vllmServeCli } from '../../scripts/field-formats.mjs';
import { runCli } from './helpers';

/** Two commits, three roles each, as `vllm bench serve --save-result` files under `<commit>/<role>/`. */
function resultsFolder(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bt-answer-'));
  for (const [c, commit] of ['1a2b3c4d', '5e6f7a8b'].entries())
    for (const [k, role] of ['baseline', 'human', 'agent/my-agent'].entries()) {
      fs.mkdirSync(path.join(dir, commit, role), { recursive: true });
      fs.writeFileSync(path.join(dir, commit, role, 'result.json'), pyJson(vllmServeCli({ seed: 10 * c + k, speed: 1 + k / 10 })));
    }
  return dir;
}

const inCache = (cache: string, re: RegExp) => fs.readdirSync(cache).filter(f => re.test(f));
const INDEX = /^(?:index|state)-[0-9a-f]{16}\.jsonl$/;

describe('CLI: classify --cache keeps its answer', function () {
  this.timeout(120_000);
  let dir: string, cache: string;
  beforeEach(() => {
    dir = resultsFolder();
    cache = fs.mkdtempSync(path.join(os.tmpdir(), 'bt-answer-cache-'));
  });
  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(cache, { recursive: true, force: true });
  });
  const same = (args: string[]) => {
    const plain = runCli('classify', dir, ...args);
    const cached = runCli('classify', dir, ...args, '--cache', cache);
    assert.equal(plain.status, 0, plain.stderr);
    assert.equal(cached.status, 0, cached.stderr);
    assert.equal(cached.stdout, plain.stdout, `classify ${args.join(' ')} --cache prints what classify ${args.join(' ')} prints`);
    return cached.stdout;
  };

  it('prints the saved answer while neither the question nor the listing changed, without loading the index', () => {
    const first = same(['--json']);
    assert.equal(JSON.parse(first).length, 2);
    assert.equal(inCache(cache, /^answer-[0-9a-f]{16}\.txt$/).length, 1);
    // The index and state gone: an answer recalled needs neither, and so does not write them again.
    for (const f of inCache(cache, INDEX)) fs.rmSync(path.join(cache, f));
    const again = runCli('classify', dir, '--json', '--cache', cache);
    assert.equal(again.status, 0, again.stderr);
    assert.equal(again.stdout, first);
    assert.deepEqual(inCache(cache, INDEX), [], 'nothing was computed');
    // Another question about the same folder (text, another tie band) is answered and kept apart.
    same([]);
    same(['--json', '--tie-band', '5']);
    assert.equal(inCache(cache, /^answer-/).length, 3);
    assert.equal(runCli('classify', dir, '--json', '--cache', cache).stdout, first);
  });

  it('a saved answer is printed as the bytes it was saved as: text in other scripts and emoji included', () => {
    // An agent named outside ASCII: its name is in every line of the answer.
    const agent = 'agénte-代理-🚀';
    for (const commit of ['1a2b3c4d', '5e6f7a8b']) fs.renameSync(path.join(dir, commit, 'agent/my-agent'), path.join(dir, commit, 'agent', agent));
    const bytes = (...args: string[]) => {
      const r = spawnSync(process.execPath, [path.resolve(__dirname, '../../dist/cli.js'), 'classify', dir, ...args], { maxBuffer: 64 << 20 });
      assert.equal(r.status, 0, r.stderr.toString());
      return r.stdout;
    };
    const plain = bytes('--json');
    assert.ok(plain.includes(Buffer.from(JSON.stringify(agent).slice(1, -1))), 'the agent is named as written');
    const saved = bytes('--json', '--cache', cache);
    const recalled = bytes('--json', '--cache', cache);
    assert.equal(inCache(cache, /^answer-/).length, 1);
    assert.ok(saved.equals(plain), 'computed with --cache: the same bytes');
    assert.ok(recalled.equals(plain), 'recalled: the same bytes, ending in one newline');
    assert.equal(recalled[recalled.length - 1], 0x0a);
  });

  it('a cache kept inside the folder is not part of its listing: its answer is printed again', () => {
    const inner = path.join(dir, '.bench-triage', 'cache');
    const plain = runCli('classify', dir, '--json');
    const first = runCli('classify', dir, '--json', '--cache', inner);
    assert.equal(first.stdout, plain.stdout);
    for (const f of inCache(inner, INDEX)) fs.rmSync(path.join(inner, f));
    const again = runCli('classify', dir, '--json', '--cache', inner);
    assert.equal(again.stdout, plain.stdout);
    assert.deepEqual(inCache(inner, INDEX), [], 'the saved answer was printed, nothing computed');
  });

  it('computes again when a file changed, a file was added to a folder, or the rules changed', () => {
    const first = same(['--json']);
    // A changed result (size and mtime differ).
    const agent = path.join(dir, '1a2b3c4d/agent/my-agent/result.json');
    fs.writeFileSync(agent, pyJson(vllmServeCli({ seed: 99, speed: 2 })));
    const changed = same(['--json']);
    assert.notEqual(changed, first);
    // A second attempt beside the first: the folder's listing changed.
    fs.writeFileSync(path.join(dir, '1a2b3c4d/agent/my-agent/result-2.json'), pyJson(vllmServeCli({ seed: 98, speed: 2 })));
    const added = same(['--json']);
    assert.notEqual(added, changed);
    const entry = JSON.parse(added).find((e: { commit: string }) => e.commit.startsWith('1a2b3c4d'));
    assert.equal(entry.roles.agent.attempts, 2, 'the new attempt is seen');
    // Rules from --rules: their content is part of the question.
    const rules = path.join(cache, '..', `${path.basename(cache)}-rules.json`);
    try {
      fs.writeFileSync(
        rules,
        JSON.stringify({ rules: [{ id: 'mine', category: 'gpu-oom', description: 'x', indications: [{ scope: 'any', pattern: 'never in these files' }] }] }),
      );
      const ruled = runCli('classify', dir, '--json', '--rules', rules, '--cache', cache);
      assert.equal(ruled.stderr, '', 'the rules file is good');
      same(['--json', '--rules', rules]);
      fs.writeFileSync(
        rules,
        JSON.stringify({ rules: [{ id: 'mine', category: 'gpu-oom', description: 'x', indications: [{ scope: 'any', pattern: 'also never here' }] }] }),
      );
      same(['--json', '--rules', rules]);
      assert.equal(inCache(cache, /^answer-/).length, 2, 'one answer per question; a new answer replaces the stale one');
    } finally {
      fs.rmSync(rules, { force: true });
    }
  });

  it('a saved answer that is damaged, foreign or half-written is computed again with the same result', () => {
    const first = same(['--json']);
    const [answer] = inCache(cache, /^answer-/);
    const file = path.join(cache, answer);
    const good = fs.readFileSync(file, 'utf8');
    const header = good.slice(0, good.indexOf('\n'));
    for (const bad of [
      '',
      'garbage',
      header, // cut after its first line
      `${header}\nnot json\n[]`,
      `${header}\n[1]\n[]`,
      `${header}\n[]\n[]`, // the first version's form
      `${header.replace('"v":2', '"v":0')}\n[]\n[]`,
      // Written without a flush to disk: cut short by a machine's crash, its length no longer matches.
      good.slice(0, -10),
      `${header}\n{"stderr":[],"bytes":-1}\n[]`,
      `${header.replace(/"listing":"[0-9a-f]+"/, '"listing":"0"')}\n[]\n[]`,
    ]) {
      fs.writeFileSync(file, bad);
      fs.writeFileSync(`${file}.999999999.tmp`, 'half');
      const r = runCli('classify', dir, '--json', '--cache', cache);
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.stdout, first, `answer file ${JSON.stringify(bad.slice(0, 40))}`);
      assert.ok(!fs.existsSync(`${file}.999999999.tmp`), 'a dead process’s temporary is swept');
    }
  });
});

describe('folder listings kept between walks', () => {
  let dir: string, file: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bt-listings-'));
    file = path.join(dir, '..', `${path.basename(dir)}-listings.json`);
    fs.mkdirSync(path.join(dir, 'a/b'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'a/result.json'), '{}');
    fs.writeFileSync(path.join(dir, 'a/b/notes.bin'), 'x');
  });
  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(file, { force: true });
  });
  const write = async (f: string, t: string) => fs.writeFileSync(f, t);
  // Ten seconds on: every folder here counts as settled (none changed within the last two).
  const later = () => Date.now() + 10_000;
  const listed = async (now: () => number = later) => {
    const listings = await folderListings(file, dir, write, now);
    const out: string[] = [];
    for await (const f of nodeFileSource(dir, { listings }).list()) out.push(f.path);
    await listings.save();
    return out.sort();
  };

  it('an unchanged folder is not read again; a changed one is', async () => {
    assert.deepEqual(await listed(), ['a/b/notes.bin', 'a/result.json']);
    const kept = JSON.parse(fs.readFileSync(file, 'utf8'));
    assert.deepEqual(kept.d.filter((_: unknown, i: number) => i % 3 === 0).sort(), ['', 'a', 'a/b']);
    // A name planted in the kept listing of a/b, under its true stamp: the walk takes the kept
    // listing (so the name appears) instead of reading the folder.
    const at = kept.d.indexOf('a/b');
    kept.d[at + 2] += '/fplanted.bin';
    fs.writeFileSync(file, JSON.stringify(kept));
    assert.deepEqual(await listed(), ['a/b/notes.bin', 'a/b/planted.bin', 'a/result.json']);
    // A file added to a/b moves its stamp: the folder is read, the planted name is gone.
    fs.writeFileSync(path.join(dir, 'a/b/new.json'), '{}');
    assert.deepEqual(await listed(), ['a/b/new.json', 'a/b/notes.bin', 'a/result.json']);
    // A folder removed drops out of the kept listings.
    fs.rmSync(path.join(dir, 'a/b'), { recursive: true });
    assert.deepEqual(await listed(), ['a/result.json']);
    const after = JSON.parse(fs.readFileSync(file, 'utf8'));
    assert.deepEqual(after.d.filter((_: unknown, i: number) => i % 3 === 0).sort(), ['', 'a']);
  });

  it('a folder changed within the last two seconds is not kept (its next change may not move its stamp)', async () => {
    assert.deepEqual(await listed(Date.now), ['a/b/notes.bin', 'a/result.json']);
    assert.deepEqual(JSON.parse(fs.readFileSync(file, 'utf8')).d, []);
  });

  it('kept listings that are damaged or of another folder are not used', async () => {
    for (const bad of [
      'garbage',
      '[]',
      JSON.stringify({ v: 1, root: '/elsewhere', d: ['a/b', 'x', 'fplanted.bin'] }),
      JSON.stringify({ v: 2, root: dir, d: [] }),
      JSON.stringify({ v: 1, root: dir, d: ['a/b', 7, 'fplanted.bin'] }),
      JSON.stringify({ v: 1, root: dir, d: ['a/b'] }),
    ]) {
      fs.writeFileSync(file, bad);
      assert.deepEqual(await listed(), ['a/b/notes.bin', 'a/result.json'], bad);
    }
    // A kept listing under the right stamp whose entries are not ours: read again.
    await listed();
    const kept = JSON.parse(fs.readFileSync(file, 'utf8'));
    kept.d[kept.d.indexOf('a/b') + 2] = 'zbad';
    fs.writeFileSync(file, JSON.stringify(kept));
    assert.deepEqual(await listed(), ['a/b/notes.bin', 'a/result.json']);
  });
});
