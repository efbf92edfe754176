// bench/build worker: image-build log capture on a real engine (the suite's own dockerd unless
// BENCH_TRIAGE_DOCKER_HOST): a build whose step prints ~64 MB, through the Builder (decode,
// build.log, record) against the docker CLI's classic builder on the same context; the decoder
// alone against writing the same bytes; time from the engine's first chunk to the first byte in
// build.log, and on to a reader polling it as the editor's live document does.
import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, createWriteStream, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Builds } from '../src/app/builds';
import { emptyCommit } from '../src/core/model';
import { BuildStreamDecoder, messageText } from '../src/runner/buildStream';
import { startEngine } from '../test/support/dockerEngine';
import { repoRoot } from '../test/support/repo';

const IMAGE = 'bench-triage/fake-vllm:test';
const dockerCli = ['/usr/bin/docker', '/usr/local/bin/docker'].find(existsSync)!;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@b' },
  }).trim();

/** The decoder and log writer alone, against writing the decoded bytes straight to a file. */
async function decodeBench(): Promise<{ mb: number; mbps: number; refMbps: number }> {
  const line = `${'x'.repeat(180)} nvcc -O3 -gencode arch=compute_90,code=sm_90\n`;
  const msg = Buffer.from(JSON.stringify({ stream: line }) + '\r\n');
  const n = Math.floor((256 * 1048576) / msg.length);
  const raw = Buffer.concat(Array.from({ length: 4096 }, () => msg));
  const dir = mkdtempSync(path.join(tmpdir(), 'bt-bench-build-'));
  const chunks = Math.ceil(n / 4096);
  const viaDecoder = async () => {
    const out = createWriteStream(path.join(dir, 'build.log'));
    const d = new BuildStreamDecoder(m => out.write(messageText(m)));
    const t0 = performance.now();
    for (let i = 0; i < chunks; i++) for (let o = 0; o < raw.length; o += 65536) d.push(raw.subarray(o, o + 65536));
    d.end();
    await new Promise<void>(r => out.end(() => r()));
    return performance.now() - t0;
  };
  const text = Buffer.from(line.repeat(4096));
  const direct = async () => {
    const out = createWriteStream(path.join(dir, 'ref.log'));
    const t0 = performance.now();
    for (let i = 0; i < chunks; i++) out.write(text);
    await new Promise<void>(r => out.end(() => r()));
    return performance.now() - t0;
  };
  const a = median([await viaDecoder(), await viaDecoder(), await viaDecoder()]);
  const b = median([await direct(), await direct(), await direct()]);
  const mb = (chunks * text.length) / 1048576;
  rmSync(dir, { recursive: true, force: true });
  return { mb, mbps: mb / (a / 1000), refMbps: mb / (b / 1000) };
}

async function main(): Promise<void> {
  const given = process.env.BENCH_TRIAGE_DOCKER_HOST;
  const engine = given ? null : await startEngine();
  try {
    const decode = await decodeBench();
    const url = given ?? engine!.unix;
    execFileSync(process.execPath, [path.join(repoRoot(), 'scripts/fake-image.mjs')], { env: { ...process.env, DOCKER_HOST: url }, stdio: 'ignore' });
    const real = await realBuild(url);
    process.stdout.write(JSON.stringify({ decode, ...real }));
  } finally {
    await engine?.stop();
  }
}

/** A build whose one step prints `mb` MB: through Builds, and through `docker build` (classic builder), same context, no cache. */
async function realBuild(url: string) {
  const root = mkdtempSync(path.join(tmpdir(), 'bt-bench-build-'));
  const src = path.join(root, 'src');
  mkdirSync(src);
  writeFileSync(path.join(src, 'flood.py'), 'import sys\nline = ("y" * 200 + "\\n") * 1000\nfor _ in range(320):\n    sys.stdout.write(line)\n');
  git(src, 'init', '-q');
  git(src, 'add', '-A');
  git(src, 'commit', '-qm', 'flood');
  const parent = git(src, 'rev-parse', 'HEAD');
  const dockerfile = ['ARG BASE_IMAGE', 'FROM ${BASE_IMAGE}', 'ARG VLLM_COMMIT', 'COPY . /src', 'RUN python3 /src/flood.py'];
  const commit = { ...emptyCommit('c'.repeat(40)), parent };
  const host = { label: 'bench', docker: url, gpus: 0 };
  const viaBuilds: number[] = [];
  const ttfbDisk: number[] = [];
  let mb = 0;
  for (let i = 0; i < 3; i++) {
    const builds = new Builds();
    let first = 0;
    let dir = '';
    builds.onEvent(b => (dir = b.dir));
    // A reader of build.log as the live document reads it (stat + read when the size changed), at the editor's 500 ms poll and at 20 ms.
    let seenDisk = 0;
    const probe = setInterval(() => {
      if (first && !seenDisk && dir && existsSync(path.join(dir, 'build.log')) && statSync(path.join(dir, 'build.log')).size > 0) seenDisk = performance.now();
    }, 2);
    const t0 = performance.now();
    const r = await builds.start(
      { folder: root, commit, role: 'baseline' },
      { host, checkout: src, rebuild: true, settings: { dockerfile, templates: { human: IMAGE, baseline: `bench-triage/bench-build:${i}` } } },
      undefined,
      () => (first ||= performance.now()),
    );
    viaBuilds.push(performance.now() - t0);
    clearInterval(probe);
    if (r.status !== 'succeeded') throw new Error(`bench build: ${r.status} ${r.error}`);
    ttfbDisk.push(seenDisk - first);
    mb = r.logBytes / 1048576;
  }
  // The same context through the docker CLI's classic builder, output to a file.
  const ctx = path.join(root, 'ctx');
  mkdirSync(ctx);
  execFileSync('sh', ['-c', `git -C "${src}" archive --format=tar HEAD | tar -x -C "${ctx}"`]);
  writeFileSync(path.join(ctx, 'Dockerfile'), dockerfile.join('\n') + '\n');
  const viaCli: number[] = [];
  for (let i = 0; i < 3; i++) {
    const out = openSync(path.join(root, `cli-${i}.log`), 'w');
    const t0 = performance.now();
    const p = spawnSync(dockerCli, ['build', '--no-cache', '--build-arg', `BASE_IMAGE=${IMAGE}`, '-t', `bench-triage/bench-cli:${i}`, ctx], {
      env: { ...process.env, DOCKER_HOST: url, DOCKER_BUILDKIT: '0' },
      stdio: ['ignore', out, 'pipe'],
    });
    viaCli.push(performance.now() - t0);
    closeSync(out);
    if (p.status !== 0) throw new Error(`docker build: ${p.stderr}`);
  }
  const cliMb = statSync(path.join(root, 'cli-0.log')).size / 1048576;
  void readFileSync;
  rmSync(root, { recursive: true, force: true });
  const b = median(viaBuilds);
  const c = median(viaCli);
  return {
    mb,
    cliMb,
    buildsMs: b,
    cliMs: c,
    ratio: b / c,
    mbps: mb / (b / 1000),
    ttfbDiskMs: median(ttfbDisk),
  };
}

main().catch(e => {
  process.stderr.write(String(e?.stack ?? e));
  process.exit(1);
});
