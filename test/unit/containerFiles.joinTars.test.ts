import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { extract } from 'tar-stream';
import { joinTars, tarOf } from '../../src/runner/containerFiles';

interface Seen {
  name: string;
  type: string;
  mode: number;
  body: Buffer;
  linkname: string | null;
}

function entries(tar: Buffer): Promise<Seen[]> {
  return new Promise((resolve, reject) => {
    const out: Seen[] = [];
    const x = extract();
    x.on('entry', (h, body, next) => {
      const parts: Buffer[] = [];
      body.on('data', (b: unknown) => parts.push(b as Buffer));
      body.on('end', () => {
        out.push({ name: h.name, type: h.type ?? 'file', mode: (h.mode ?? 0) & 0o7777, body: Buffer.concat(parts), linkname: h.linkname ?? null });
        next();
      });
    });
    x.on('finish', () => resolve(out));
    x.on('error', reject);
    x.end(tar);
  });
}

describe('joinTars: the archives of a swarm run put in one extraction', () => {
  let dir = '';
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'bt-jointars-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps every entry of a real git archive under its directory: long names, a symlink, binary bytes, modes; parts in order', async () => {
    const repo = path.join(dir, 'repo');
    const deep = path.join(repo, 'benchmarks', 'a'.repeat(60), 'b'.repeat(60));
    mkdirSync(deep, { recursive: true });
    const binary = Buffer.from([0, 255, 254, 10, 13, 0x80, 0xc3]);
    writeFileSync(path.join(deep, 'long_name_past_the_ustar_limit.py'), binary);
    writeFileSync(path.join(repo, 'benchmarks', 'run.sh'), '#!/bin/sh\necho hi\n', { mode: 0o755 });
    symlinkSync('run.sh', path.join(repo, 'benchmarks', 'alias.sh'));
    const git = (...a: string[]) => execFileSync('git', ['-C', repo, '-c', 'user.name=t', '-c', 'user.email=t@t', ...a]);
    git('init', '-q');
    git('add', '.');
    git('commit', '-qm', 'x');
    const scripts = git('archive', '--format=tar', 'HEAD', 'benchmarks');
    const files = await tarOf([{ name: '/bench-triage/secrets/HF_TOKEN', body: 's3cret', mode: 0o400 }]);
    const marker = await tarOf([{ name: '/.bench-triage-ready', body: '' }], { bare: true });

    const joined = await joinTars([
      { dir: '/', tar: files },
      { dir: '/bench-triage/src/', tar: scripts },
      { dir: '/', tar: marker },
    ]);
    const got = await entries(joined);
    const byName = new Map(got.map(e => [e.name, e]));

    // Every entry of each part, in order, the marker last.
    const want = [...(await entries(files)).map(e => e.name), ...(await entries(scripts)).map(e => `bench-triage/src/${e.name}`), '.bench-triage-ready'];
    assert.deepEqual(
      got.map(e => e.name),
      want,
    );
    const long = byName.get(`bench-triage/src/benchmarks/${'a'.repeat(60)}/${'b'.repeat(60)}/long_name_past_the_ustar_limit.py`);
    assert.ok(long, 'the long name survives');
    assert.deepEqual(long.body, binary);
    // Modes as the source had them (git archive's executable bit under its umask).
    const source = new Map((await entries(scripts)).map(e => [e.name, e.mode]));
    assert.equal(byName.get('bench-triage/src/benchmarks/run.sh')?.mode, source.get('benchmarks/run.sh'));
    assert.ok((source.get('benchmarks/run.sh') ?? 0) & 0o100, 'the script is executable');
    assert.equal(byName.get('bench-triage/secrets/HF_TOKEN')?.mode, 0o400);
    assert.equal(byName.get('bench-triage/secrets/HF_TOKEN')?.body.toString(), 's3cret');
    // A symlink's target is relative to the link: left as it was.
    assert.equal(byName.get('bench-triage/src/benchmarks/alias.sh')?.type, 'symlink');
    assert.equal(byName.get('bench-triage/src/benchmarks/alias.sh')?.linkname, 'run.sh');

    // GNU tar reads it the same, extracting to the same bytes.
    const out = path.join(dir, 'out');
    mkdirSync(out);
    execFileSync('tar', ['-x', '-C', out], { input: joined });
    const roundTrip = execFileSync('cat', [path.join(out, long.name)]);
    assert.deepEqual(roundTrip, binary);
  });

  it('puts a hard link under the directory of its part too', async () => {
    const { pack } = await import('tar-stream');
    const p = pack();
    const chunks: Buffer[] = [];
    p.on('data', (b: unknown) => chunks.push(b as Buffer));
    const ended = new Promise<void>(r => p.on('end', () => r()));
    p.entry({ name: 'x/a.txt' }, 'A');
    p.entry({ name: 'x/b.txt', type: 'link', linkname: 'x/a.txt' });
    p.finalize();
    await ended;
    const got = await entries(await joinTars([{ dir: '/opt/d', tar: Buffer.concat(chunks) }]));
    assert.deepEqual(
      got.map(e => [e.name, e.type, e.linkname]),
      [
        ['opt/d/x/a.txt', 'file', null],
        ['opt/d/x/b.txt', 'link', 'opt/d/x/a.txt'],
      ],
    );
  });

  it('a part that is not a tar is an error, not a silent half', async () => {
    await assert.rejects(joinTars([{ dir: '/', tar: Buffer.from('not a tar at all, just some text that is long enough'.repeat(20)) }]));
  });
});
