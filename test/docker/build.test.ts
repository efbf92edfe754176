import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import Docker from 'dockerode';
import { Builds } from '../../src/app/builds';
import type { BuildRecord } from '../../src/core/run/records';
import type { CampaignItem } from '../../src/core/campaign/plan';
import type { HostConfig } from '../../src/core/run/hosts';
import { scan } from '../../src/core/ingest';
import { nodeFileSource } from '../../src/platform/nodeFileSource';
import { buildFakeImage, missingPrerequisites, startEngine, type Engine } from '../support/dockerEngine';
import { fakeSetupPy, git, makeRunFixture, removeRunFixtures, runRoleArgs, type RunFixture } from '../support/runFixture';

const REPO = path.resolve(__dirname, '../..');
const CLI = path.join(REPO, 'dist/cli.js');
const IMAGE = 'bench-triage/fake-vllm:test';
const BASELINE = 'bench-triage/fake-baseline:baseline-{parent12}';
const templates = { human: IMAGE, baseline: BASELINE };

let engine: Engine;
let docker: Docker;
let fx: RunFixture;
const host = (): HostConfig => ({ label: 'test-engine', docker: engine.unix, gpus: 0 });
const cli = (...args: string[]) =>
  spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', maxBuffer: 64 << 20, env: { ...process.env, DOCKER_HOST: '' } });
/** The text of the engine's raw response, decoded here independently: every message's stream, status and error text, in order. */
function decodeRaw(raw: Buffer): string {
  let out = '';
  for (const line of raw.toString('utf8').split('\n')) {
    if (!line.trim()) continue;
    const m = JSON.parse(line);
    if (typeof m.stream === 'string') out += m.stream;
    else if (typeof m.error === 'string') out += m.error.endsWith('\n') ? m.error : `${m.error}\n`;
    else if (typeof m.status === 'string' && !(m.progressDetail?.total || m.progressDetail?.current)) out += `${m.id ? `${m.id}: ` : ''}${m.status}\n`;
  }
  return out;
}

/** A child commit of the fixture's parent whose setup.py does `setup`, and a results folder whose commit has it as parent. */
function brokenParent(name: string, setup: string): { folder: string; commit: string; parent: string } {
  git(fx.checkout, 'checkout', '-q', '-B', name, fx.parent);
  writeFileSync(path.join(fx.checkout, 'setup.py'), setup);
  git(fx.checkout, 'commit', '-qam', `${name} parent`);
  const parent = git(fx.checkout, 'rev-parse', 'HEAD');
  writeFileSync(path.join(fx.checkout, 'README'), name);
  git(fx.checkout, 'add', 'README');
  git(fx.checkout, 'commit', '-qm', `[Perf] ${name}`);
  const commit = git(fx.checkout, 'rev-parse', 'HEAD');
  git(fx.checkout, 'checkout', '-q', '-');
  const folder = path.join(path.dirname(fx.folder), name);
  mkdirSync(folder, { recursive: true });
  writeFileSync(
    path.join(folder, 'dataset.jsonl'),
    JSON.stringify({
      commit_hash: commit,
      parent_commit: parent,
      perf_command: 'python benchmarks/benchmark_serving.py --model facebook/opt-125m --num-prompts 20',
      models: ['facebook/opt-125m'],
    }) + '\n',
  );
  return { folder, commit, parent };
}

async function target(folder: string, commit: string, role: 'baseline' | 'human' = 'baseline') {
  const c = (await scan(nodeFileSource(folder))).commits.find(x => x.hash === commit)!;
  return { folder, commit: c, role } as const;
}

const allContainers = async () => (await docker.listContainers({ all: true })).map(c => c.Id);
const shortIds = async () => new Set((await docker.listImages({ all: true })).map(i => i.Id.replace(/^sha256:/, '').slice(0, 12)));

describe('image builds on a real Docker engine (issue 16)', function () {
  this.timeout(240_000);

  before(async function () {
    const missing = missingPrerequisites();
    if (missing.length) {
      if (process.env.CI === 'true') throw new Error(`Docker suite prerequisites missing: ${missing.join('; ')}`);
      this.skip();
    }
    engine = await startEngine();
    docker = new Docker({ socketPath: engine.unix.slice(7) });
    buildFakeImage(engine.unix);
    fx = makeRunFixture();
  });

  after(async function () {
    removeRunFixtures();
    if (engine) await engine.stop();
  });

  it('builds the parent commit from the checkout: the log is the engine stream byte for byte, the image is tagged per template, a Rerun uses it', async function () {
    const containersBefore = await allContainers();
    const raw: Buffer[] = [];
    const states: string[] = [];
    const builds = new Builds();
    builds.onEvent(b => states.push(`${b.record.status}${b.record.step ? ` ${b.record.step.n}/${b.record.step.total}` : ''}`));
    const r = await builds.start(await target(fx.folder, fx.human), { host: host(), checkout: fx.checkout, settings: { templates } }, undefined, b =>
      raw.push(b),
    );
    assert.equal(r.status, 'succeeded', r.error ?? '');
    const tag = `bench-triage/fake-baseline:baseline-${fx.parent.slice(0, 12)}`;
    assert.equal(r.tag, tag);
    const dir = path.join(fx.folder, '.bench-triage/builds', fx.human.slice(0, 12), r.buildId);
    // The stored log is exactly the engine's stream.
    const log = readFileSync(path.join(dir, 'build.log'));
    assert.ok(raw.length > 0);
    assert.ok(log.equals(Buffer.from(decodeRaw(Buffer.concat(raw)), 'utf8')), 'build.log differs from the engine stream');
    const text = log.toString('utf8');
    assert.match(text, /^Step 1\/\d+ : ARG BASE_IMAGE$/m);
    assert.match(text, /Setting up cuda-toolkit-12-4/, 'the default template installs the CUDA toolkit');
    assert.match(text, /Successfully installed vllm-0\.0\.0\+editable/);
    assert.match(text, /BUILD_SUCCESS vllm from .* at [0-9a-f]{40}/);
    assert.match(text, new RegExp(`Successfully tagged ${tag.replace(/[/.]/g, '\\$&')}`));
    // Progress by step, from queued to the end.
    assert.equal(states[0], 'queued');
    assert.ok(
      states.some(s => /^building \d+\/\d+$/.test(s)),
      states.join(', '),
    );
    // The record, atomically written, names everything.
    const rec = JSON.parse(readFileSync(path.join(dir, 'build.json'), 'utf8')) as BuildRecord;
    assert.equal(rec.schema, 'bench-triage.build/v1');
    assert.deepEqual([rec.commit, rec.source, rec.base, rec.status], [fx.human, fx.parent, IMAGE, 'succeeded']);
    assert.equal(rec.args.MAX_JOBS, '32');
    assert.equal(rec.args.NVCC_THREADS, '2');
    assert.equal(rec.args.TORCH_CUDA_ARCH_LIST, '9.0');
    assert.equal(rec.host.label, 'test-engine');
    assert.ok(rec.durationS! > 0);
    assert.equal(rec.logBytes, log.length);
    const img = await docker.getImage(tag).inspect();
    assert.equal(img.Id, rec.imageId);
    assert.equal(img.Config.Labels['bench-triage.build-id'], r.buildId);
    assert.deepEqual(await allContainers(), containersBefore, 'no intermediate containers left');
    // The next Rerun of the baseline uses the built image, and succeeds.
    const run = cli(
      ...runRoleArgs(fx, 'baseline'),
      '--gpus',
      '0',
      '--checkout',
      fx.checkout,
      '--image-human',
      IMAGE,
      '--image-baseline',
      BASELINE,
      '--host',
      engine.unix,
    );
    assert.equal(run.status, 0, run.stderr);
    const res = JSON.parse(readFileSync(run.stdout.trim(), 'utf8'));
    assert.equal(res.status, 'succeeded');
    assert.equal(res.image, tag);
    // scan reads the build record: the commit's history shows it.
    const s = cli('scan', fx.folder, '--runs');
    assert.equal(s.status, 0, s.stderr);
    assert.match(s.stdout, new RegExp(`${fx.human.slice(0, 12)} baseline +skipped +BT2/bench-triage-build \\.bench-triage/builds/`));
  });

  it('an image the host has is reused unless Rebuild is asked for (CLI)', async function () {
    const args = [
      'build',
      '--folder',
      fx.folder,
      '--commit',
      fx.human.slice(0, 10),
      '--role',
      'baseline',
      '--host',
      engine.unix,
      '--checkout',
      fx.checkout,
      '--image-human',
      IMAGE,
      '--image-baseline',
      BASELINE,
      '--json',
    ];
    const again = cli(...args);
    assert.equal(again.status, 0, again.stderr);
    assert.equal(JSON.parse(again.stdout).status, 'reused');
    const old = JSON.parse(again.stdout).imageId;
    const rebuilt = cli(...args, '--rebuild');
    assert.equal(rebuilt.status, 0, rebuilt.stderr);
    const rec = JSON.parse(rebuilt.stdout);
    assert.equal(rec.status, 'succeeded');
    // Every step again (no layer cache), and the image the tag left is not left dangling on the host.
    assert.doesNotMatch(readFileSync(path.join(rec.dir, 'build.log'), 'utf8'), /Using cache/);
    assert.notEqual(rec.imageId, old);
    assert.equal(rec.replaced, old);
    await assert.rejects(docker.getImage(old).inspect(), /no such image|404/i);
    assert.match(rebuilt.stderr, /building · Step \d+\/\d+ : /);
    assert.ok(existsSync(path.join(rec.dir, 'build.log')));
  });

  it('a build whose step fails ends build-failed with the evidence line from its log, and leaves no containers or images of its own', async function () {
    const b = brokenParent('oom', fakeSetupPy("nvcc error   : 'cicc' died due to signal 9 (Kill signal)"));
    const containersBefore = await allContainers();
    const imagesBefore = await shortIds();
    const dangling = async () => (await docker.listImages({ filters: JSON.stringify({ dangling: ['true'] }) })).map(i => i.Id);
    const danglingBefore = await dangling();
    const r = await new Builds().start(await target(b.folder, b.commit), { host: host(), checkout: fx.checkout, settings: { templates } });
    assert.equal(r.status, 'failed');
    assert.match(r.error ?? '', /returned a non-zero code: 1/);
    assert.deepEqual(await allContainers(), containersBefore);
    const left = [...(await shortIds())].filter(id => !imagesBefore.has(id));
    assert.deepEqual(left, [], 'images of the failed build left behind');
    assert.deepEqual(
      (await dangling()).filter(id => !danglingBefore.includes(id)),
      [],
      'dangling images',
    );
    // classify names it, from the build log, with the evidence line.
    const c = cli('classify', b.folder, '--json');
    assert.equal(c.status, 0, c.stderr);
    const entry = JSON.parse(c.stdout).find((e: { commit: string }) => e.commit === b.commit);
    const baseline = entry.roles.baseline;
    assert.equal(baseline.category, 'build-failed', JSON.stringify(baseline));
    assert.equal(baseline.cause, 'compiler-out-of-memory');
    assert.match(baseline.evidence.text, /'cicc' died due to signal 9/);
    assert.match(baseline.evidence.file, /\.bench-triage\/builds\/.*\/build\.log$/);
  });

  it('cancelling mid-build stops it at once and leaves no containers or images from that build', async function () {
    const b = brokenParent('slow', fakeSetupPy(null).replace('import sys', 'import sys, time\ntime.sleep(120)'));
    const containersBefore = await allContainers();
    const imagesBefore = await shortIds();
    const ctl = new AbortController();
    const builds = new Builds();
    const logOf = (id: string) => path.join(b.folder, '.bench-triage/builds', b.commit.slice(0, 12), id, 'build.log');
    // Cancelled while the compile step runs (its pip has printed its first line, the 120 s compile is under way).
    builds.onEvent(x => {
      if (x.record.step && /pip install -e/.test(x.record.step.text) && !ctl.signal.aborted) {
        const wait = setInterval(() => {
          if (
            existsSync(logOf(x.record.buildId)) &&
            /Building editable for vllm \(pyproject\.toml\): started/.test(readFileSync(logOf(x.record.buildId), 'utf8'))
          ) {
            clearInterval(wait);
            setTimeout(() => ctl.abort(), 1000);
          }
        }, 100);
      }
    });
    const t0 = Date.now();
    const r = await builds.start(await target(b.folder, b.commit), { host: host(), checkout: fx.checkout, settings: { templates } }, ctl.signal);
    assert.equal(r.status, 'cancelled', r.error ?? '');
    assert.ok(Date.now() - t0 < 100_000, 'the 120 s step did not run to its end');
    assert.match(r.error ?? '', /cancelled at step \d+\/\d+/);
    assert.deepEqual(await allContainers(), containersBefore, 'containers of the cancelled build left behind');
    const left = [...(await shortIds())].filter(id => !imagesBefore.has(id));
    assert.deepEqual(left, [], 'images of the cancelled build left behind');
    assert.match(readFileSync(logOf(r.buildId), 'utf8'), /Obtaining file:\/\/\/opt\/vllm_baseline/, 'the log up to the cancel is kept');
    const rec = JSON.parse(readFileSync(path.join(path.dirname(logOf(r.buildId)), 'build.json'), 'utf8'));
    assert.equal(rec.status, 'cancelled');
  });

  it("a group's images go through the campaign queue: one build per image; a killed CLI's build is built again on resume, nothing twice, nothing left", async function () {
    // A parent of its own in every run (the fixture's commits have fixed dates, and the test engine keeps its images).
    const slow = brokenParent('campaign-slow', fakeSetupPy(null).replace('import sys', `import sys, time\n# ${Date.now()}-${process.pid}\ntime.sleep(20)`));
    // A second child of the slow parent (the same baseline image) and the fixture's commit (another parent).
    git(fx.checkout, 'checkout', '-q', '-B', 'campaign-slow-2', slow.parent);
    writeFileSync(path.join(fx.checkout, 'README'), 'second child');
    git(fx.checkout, 'add', 'README');
    git(fx.checkout, 'commit', '-qm', '[Perf] second child');
    const sibling = git(fx.checkout, 'rev-parse', 'HEAD');
    git(fx.checkout, 'checkout', '-q', '-');
    const line = (commit: string, parent: string) =>
      JSON.stringify({
        commit_hash: commit,
        parent_commit: parent,
        perf_command: 'python benchmarks/benchmark_serving.py --model facebook/opt-125m',
        models: ['facebook/opt-125m'],
      });
    writeFileSync(
      path.join(slow.folder, 'dataset.jsonl'),
      [line(slow.commit, slow.parent), line(sibling, slow.parent), line(fx.human, fx.parent)].join('\n') + '\n',
    );
    // Each commit's baseline failed for want of a wheel: the "No vLLM wheel" group.
    for (const c of [slow.commit, sibling, fx.human]) {
      const d = path.join(slow.folder, '.bench-triage/runs', c.slice(0, 8), 'baseline', 'r-nowheel');
      mkdirSync(d, { recursive: true });
      writeFileSync(
        path.join(d, 'result.json'),
        JSON.stringify({
          schema: 'bench-triage.run/v1',
          commit: c,
          role: 'baseline',
          status: 'failed',
          error: `No wheel for baseline ${c.slice(0, 8)}`,
          metrics: {},
          startedAt: '2026-11-01T00:00:00Z',
          durationS: 30,
        }),
      );
    }
    const containersBefore = await allContainers();
    const common = [
      '--folder',
      slow.folder,
      '--checkout',
      fx.checkout,
      '--host',
      engine.unix,
      '--gpus',
      '0',
      '--image-human',
      IMAGE,
      '--image-baseline',
      BASELINE,
    ];
    const plan = cli('campaign', 'plan', '--select', 'category=wheel-missing', '--build', ...common, '--json');
    assert.equal(plan.status, 0, plan.stderr + plan.stdout);
    const items = JSON.parse(plan.stdout).items as CampaignItem[];
    assert.deepEqual(items.map(i => `${i.kind}:${i.role}`).sort(), ['build:baseline', 'build:baseline'], 'one build per image: the two children share one');
    // Start, then kill the CLI (SIGKILL) while the slow image compiles.
    const child = spawn(process.execPath, [CLI, 'campaign', 'start', '--select', 'category=wheel-missing', '--build', '--id', 'c-build-kill', ...common], {
      env: { ...process.env, DOCKER_HOST: '' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let said = '';
    child.stderr!.on('data', (b: Buffer) => (said += b.toString('utf8')));
    const builds = path.join(slow.folder, '.bench-triage/builds');
    // The shared image is built under whichever of the two children the plan took.
    const slowDirs = [slow.commit, sibling].map(c => c.slice(0, 12));
    const slowLogs = () =>
      slowDirs.flatMap(c => {
        const d = path.join(builds, c);
        return existsSync(d) ? readdirSync(d).map(id => path.join(d, id)) : [];
      });
    const t0 = Date.now();
    while (
      !slowLogs().some(
        d =>
          existsSync(path.join(d, 'build.log')) &&
          /Building editable for vllm \(pyproject\.toml\): started/.test(readFileSync(path.join(d, 'build.log'), 'utf8')),
      )
    ) {
      if (child.exitCode !== null || Date.now() - t0 > 120_000) {
        await new Promise(r => setTimeout(r, 500));
        assert.fail(`the slow build never reached its compile step (CLI exit ${child.exitCode}): ${said}`);
      }
      await new Promise(r => setTimeout(r, 200));
    }
    child.kill('SIGKILL');
    await new Promise(r => child.once('exit', r));
    const [killed] = slowLogs();
    assert.equal(JSON.parse(readFileSync(path.join(killed, 'build.json'), 'utf8')).status, 'building', 'the killed attempt is left as it was');
    // Resume: the interrupted build goes again under a new id; the other image is built (or reused) once.
    const resumed = cli('campaign', 'resume', '--id', 'c-build-kill', ...common);
    assert.equal(resumed.status, 0, resumed.stderr);
    assert.match(resumed.stderr, /2 done, 0 running, 0 queued, 0 failed, 0 cancelled of 2/);
    const dir = path.join(slow.folder, '.bench-triage/campaigns/c-build-kill');
    const recs = readdirSync(path.join(dir, 'runs')).map(f => JSON.parse(readFileSync(path.join(dir, 'runs', f), 'utf8')));
    assert.deepEqual(
      recs.map(r => r.state),
      ['succeeded', 'succeeded'],
    );
    const slowRec = recs.find(r => slowDirs.some(c => r.resultDir.includes(c)))!;
    assert.notEqual(path.basename(slowRec.resultDir), path.basename(killed), 'a new attempt, the killed one kept');
    assert.equal(slowLogs().length, 2, 'the slow image was built twice: killed, then again — never a third time');
    assert.equal(slowDirs.filter(c => existsSync(path.join(builds, c))).length, 1, 'the two children share one build');
    const otherDirs = readdirSync(builds).filter(c => !slowDirs.includes(c));
    assert.equal(otherDirs.length, 1);
    assert.equal(readdirSync(path.join(builds, otherDirs[0])).length, 1, 'the other image: one build');
    assert.deepEqual(readdirSync(path.join(dir, 'claims')), [], 'no claim left');
    await docker.getImage(`bench-triage/fake-baseline:baseline-${slow.parent.slice(0, 12)}`).inspect();
    await docker.getImage(`bench-triage/fake-baseline:baseline-${fx.parent.slice(0, 12)}`).inspect();
    // The engine stopped the killed build with its client: no container of it is left.
    assert.deepEqual(await allContainers(), containersBefore, 'containers left behind');
  });
});
