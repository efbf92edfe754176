import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { analyze } from '../../src/app/folderAnalysis';
import { readBuildRecords, Builds } from '../../src/app/builds';
import { indexLog } from '../../src/core/logs';
import { emptyCommit } from '../../src/core/model';
import { nodeFileSource } from '../../src/platform/nodeFileSource';
import { BuildPlanError, DEFAULT_DOCKERFILE, planBuild } from '../../src/core/run/buildPlan';
import { inRegistry, registryProblem, repositoryOf } from '../../src/core/run/hosts';
import { BUILD_SCHEMA } from '../../src/core/run/records';
import { BuildProgress, BuildStreamDecoder, messageText, type BuildMessage } from '../../src/runner/buildStream';
import { durationEstimates } from '../../src/core/campaign/plan';

const HUMAN = 'a'.repeat(40);
const PARENT = 'b'.repeat(40);
const host = { label: 'h100', docker: '', gpus: 0 };
const commit = () => ({ ...emptyCommit(HUMAN), parent: PARENT });
const templates = { human: 'lab/vllm:{commit12}', baseline: 'lab/vllm-baseline:baseline-{parent12}' };

describe('image builds: plan, stream, records (issue 16)', () => {
  describe('planBuild', () => {
    it('a baseline image: the parent’s source FROM the human image, tagged per template, ISO-Bench’s build args', () => {
      const p = planBuild(commit(), 'baseline', { host, buildId: 'b1', settings: { templates } });
      assert.equal(p.source, PARENT);
      assert.equal(p.tag, `lab/vllm-baseline:baseline-${PARENT.slice(0, 12)}`);
      assert.equal(p.base, `lab/vllm:${HUMAN.slice(0, 12)}`);
      assert.deepEqual(
        [p.args.MAX_JOBS, p.args.NVCC_THREADS, p.args.TORCH_CUDA_ARCH_LIST, p.args.BASE_IMAGE, p.args.VLLM_COMMIT],
        ['32', '2', '9.0', p.base, PARENT],
      );
      assert.equal(p.dir, `.bench-triage/builds/${HUMAN.slice(0, 12)}/b1`);
      assert.equal(p.dockerfile, DEFAULT_DOCKERFILE.join('\n') + '\n');
      assert.match(p.dockerfile, /pip install -e \. --no-build-isolation/);
      // No value of the data in the Dockerfile: only build args.
      assert.ok(!p.dockerfile.includes(PARENT) && !p.dockerfile.includes(HUMAN));
    });

    it('a human image starts from the configured base; user args override the defaults', () => {
      const p = planBuild(commit(), 'human', { host, buildId: 'b2', settings: { templates, humanBase: 'vllm/vllm-openai:v0.6.3', args: { MAX_JOBS: '8' } } });
      assert.deepEqual([p.source, p.base, p.tag, p.args.MAX_JOBS], [HUMAN, 'vllm/vllm-openai:v0.6.3', `lab/vllm:${HUMAN.slice(0, 12)}`, '8']);
    });

    it('refuses, saying what to change', () => {
      const refuse = (f: () => unknown, re: RegExp) => assert.throws(f, (e: Error) => e instanceof BuildPlanError && re.test(e.message));
      refuse(() => planBuild(commit(), 'agent', { host, buildId: 'x', settings: { templates } }), /runs on the baseline image/);
      refuse(() => planBuild({ ...commit(), parent: null }, 'baseline', { host, buildId: 'x' }), /parent .* unknown/);
      refuse(() => planBuild({ ...commit(), hash: 'abc1234' }, 'baseline', { host, buildId: 'x' }), /only the prefix/);
      refuse(() => planBuild(commit(), 'human', { host, buildId: 'x', settings: { templates } }), /humanBaseImage/);
      refuse(() => planBuild(commit(), 'baseline', { host, buildId: 'x', settings: { templates: { human: 'same:1', baseline: 'same:1' } } }), /FROM itself/);
      refuse(
        () => planBuild(commit(), 'baseline', { host, buildId: 'x', settings: { templates: { ...templates, baseline: 'Lab Images/x:{nope}' } } }),
        /not an image reference/,
      );
      refuse(() => planBuild(commit(), 'baseline', { host, buildId: 'x', settings: { templates, args: { 'BAD-NAME': '1' } } }), /is not a name/);
      refuse(() => planBuild(commit(), 'baseline', { host, buildId: 'x', settings: { templates, args: { MAX_JOBS: '8\nRUN x' } } }), /one line/);
      refuse(() => planBuild(commit(), 'baseline', { host, buildId: 'x', settings: { templates, dockerfile: ['RUN true'] } }), /no FROM line/);
    });

    it('on a swarm with a registry the images live there: the build tags and pulls FROM registry names and pushes; a plain host, a swarm without one, or a named registry are left alone', () => {
      const swarm = { ...host, kind: 'swarm' as const, registry: 'reg.lab:5000' };
      const p = planBuild(commit(), 'baseline', { host: swarm, buildId: 'r1', settings: { templates } });
      assert.deepEqual(
        [p.tag, p.base, p.push],
        [`reg.lab:5000/lab/vllm-baseline:baseline-${PARENT.slice(0, 12)}`, `reg.lab:5000/lab/vllm:${HUMAN.slice(0, 12)}`, true],
      );
      assert.equal(p.args.BASE_IMAGE, p.base);
      const human = planBuild(commit(), 'human', { host: swarm, buildId: 'r2', settings: { templates, humanBase: 'vllm/vllm-openai:v0.6.3' } });
      assert.deepEqual(
        [human.tag, human.base],
        [`reg.lab:5000/lab/vllm:${HUMAN.slice(0, 12)}`, 'vllm/vllm-openai:v0.6.3'],
        'a release base is pulled from where it is named',
      );
      assert.equal(planBuild(commit(), 'baseline', { host: { ...host, registry: 'reg.lab:5000' }, buildId: 'r3', settings: { templates } }).push, false);
      assert.equal(planBuild(commit(), 'baseline', { host: { ...swarm, registry: undefined }, buildId: 'r4', settings: { templates } }).push, false);
      const named = planBuild(commit(), 'baseline', {
        host: swarm,
        buildId: 'r5',
        settings: { templates: { human: 'other.io/v:{commit12}', baseline: 'other.io/b:{parent12}' } },
      });
      assert.deepEqual([named.tag, named.push], [`other.io/b:${PARENT.slice(0, 12)}`, true], 'a template naming a registry is pushed where it names');
    });

    it('a registry address is host[:port][/path]: schemes, credentials, tags and bare names are refused, each said', () => {
      for (const ok of ['reg.lab:5000', 'localhost:5000', '10.0.0.5:5000/team', 'registry.example.com']) assert.equal(registryProblem(ok), null, ok);
      for (const [bad, re] of [
        ['https://reg.lab', /scheme/],
        ['me:pw@reg.lab', /credentials/],
        ['reg.lab:5000/x:tag', /not host/],
        ['reg.lab:99999', /out of range/],
        ['myregistry', /names no registry host/],
        ['Reg.Lab', /not host/],
      ] as const)
        assert.match(registryProblem(bad) ?? '', re, bad);
      assert.equal(inRegistry('lab/x:1', { ...host, kind: 'swarm', registry: 'reg.lab:5000/' }), 'reg.lab:5000/lab/x:1');
      assert.equal(inRegistry('localhost:5000/x:1', { ...host, kind: 'swarm', registry: 'reg.lab:5000' }), 'localhost:5000/x:1');
      assert.equal(repositoryOf('reg.lab:5000/lab/x:1'), 'reg.lab:5000/lab/x');
      assert.equal(repositoryOf('reg.lab:5000/lab/x@sha256:' + 'a'.repeat(64)), 'reg.lab:5000/lab/x');
    });

    it('Builds.plan refuses without a checkout, naming the setting', () => {
      assert.throws(() => new Builds().plan({ folder: '/tmp', commit: commit(), role: 'baseline' }, { host, checkout: null }), /benchTriage\.vllmCheckout/);
    });
  });

  describe('the engine’s build stream', () => {
    const sample: BuildMessage[] = [
      { stream: 'Step 1/3 : FROM base\n' },
      { stream: ' ---> 0123456789ab\n' },
      { stream: 'Step 2/3 : RUN make\n' },
      { stream: ' ---> Using cache\n' },
      { stream: ' ---> 1111111111aa\n' },
      { stream: 'Step 3/3 : RUN pip install -e .\n' },
      { stream: ' ---> Running in ffffffffffff\n' },
      { stream: 'ünïcode \u2570\u2500> [3 lines of output]\r\n' },
      { stream: ' ---> 2222222222bb\n' },
      { aux: { ID: 'sha256:' + '2'.repeat(64) } },
      { stream: 'Successfully built 2222222222bb\n' },
      { status: 'Downloading', id: 'abc', progressDetail: { current: 5, total: 10 } },
      {
        error: "The command '/bin/sh -c false' returned a non-zero code: 1",
        errorDetail: { message: "The command '/bin/sh -c false' returned a non-zero code: 1" },
      },
    ];
    const raw = Buffer.from(sample.map(m => JSON.stringify(m) + '\r\n').join(''), 'utf8');

    it('decodes the same messages however the response is cut into chunks', () => {
      fc.assert(
        fc.property(fc.array(fc.integer({ min: 1, max: raw.length - 1 }), { maxLength: 40 }), cuts => {
          const got: BuildMessage[] = [];
          const d = new BuildStreamDecoder(m => got.push(m));
          const at = [...new Set(cuts)].sort((a, b) => a - b);
          let from = 0;
          for (const c of [...at, raw.length]) {
            d.push(raw.subarray(from, c));
            from = c;
          }
          d.end();
          assert.deepEqual(got, sample);
        }),
        { numRuns: 200 },
      );
    });

    it('the log text: every stream exactly, pull status without progress bars, the error line', () => {
      const text = sample.map(messageText).join('');
      assert.ok(text.includes('ünïcode \u2570\u2500> [3 lines of output]\r\n'));
      assert.ok(!text.includes('Downloading'));
      assert.ok(text.endsWith('returned a non-zero code: 1\n'));
    });

    it('progress: steps, the step container, the images this build made (not cached ones)', () => {
      const p = new BuildProgress();
      const steps = sample.map(m => p.take(m)).filter(Boolean).length;
      assert.equal(steps, 3);
      assert.deepEqual(p.step, { n: 3, total: 3, text: 'RUN pip install -e .' });
      assert.deepEqual(p.containers, ['ffffffffffff']);
      assert.deepEqual(p.created, ['0123456789ab', '2222222222bb']);
      assert.match(p.error ?? '', /non-zero code: 1/);
    });

    it('a line that is not JSON is kept as text; a message without a line end is bounded', () => {
      const got: BuildMessage[] = [];
      const d = new BuildStreamDecoder(m => got.push(m), 1024);
      d.push(Buffer.from('not json\n'));
      assert.deepEqual(got, [{ stream: 'not json\n' }]);
      assert.throws(() => d.push(Buffer.alloc(2048, 0x61)), /over 1024 bytes/);
    });
  });

  describe('build records in the Commits view and the log language', () => {
    let dir: string;
    beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'bt-build-unit-'))));
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    const record = (id: string, status: string, startedAt: string, error: string | null, log: string) => {
      const d = path.join(dir, '.bench-triage/builds', HUMAN.slice(0, 12), id);
      mkdirSync(d, { recursive: true });
      writeFileSync(path.join(d, 'build.log'), log);
      writeFileSync(
        path.join(d, 'build.json'),
        JSON.stringify({
          schema: BUILD_SCHEMA,
          buildId: id,
          commit: HUMAN,
          role: 'baseline',
          source: PARENT,
          base: 'lab/vllm:x',
          tag: 'lab/b:x',
          args: {},
          host: { label: 'h100', docker: '', gpus: 0 },
          status,
          error,
          imageId: null,
          step: null,
          createdAt: startedAt,
          startedAt,
          endedAt: startedAt,
          durationS: 1800,
          log: 'build.log',
          dockerfile: 'Dockerfile',
          checkout: '/src/vllm',
          logBytes: log.length,
          owner: 'elsewhere:1',
        }),
      );
    };
    const dataset = () => {
      mkdirSync(path.join(dir, 'results/modal/aaaaaaaa'), { recursive: true });
      writeFileSync(
        path.join(dir, 'results/modal/aaaaaaaa/benchmark_result.json'),
        JSON.stringify({
          instance: { commit_hash: HUMAN, perf_command: 'python benchmarks/benchmark_latency.py --model facebook/opt-125m' },
          result: {
            status: 'error',
            error: `Baseline install failed: No wheel available and no ancestor wheel found for ${PARENT.slice(0, 12)}`,
            duration_s: 2762.1,
            commit: HUMAN.slice(0, 8),
            full_commit: HUMAN,
            parent_commit: PARENT,
            model: 'facebook/opt-125m',
            gpu_config: 'H100:1',
            baseline_metrics: {},
            human_metrics: {},
            agent_metrics: null,
          },
        }),
      );
    };

    it('a failed build newer than the role’s failure is where the role stands: build-failed, its cause and evidence line from build.log', async () => {
      dataset();
      const log =
        'Step 9/16 : RUN pip install -e .\n ---> Running in 4b1f0c2d9e7a\nObtaining file:///opt/vllm_baseline\n  error: subprocess-exited-with-error\n      ERROR: No matching distribution found for pyairports\n';
      record('20261101-000000-aaaa', 'failed', '2026-11-01T00:00:00Z', "The command '/bin/sh -c pip' returned a non-zero code: 1", log);
      const a = await analyze(nodeFileSource(dir));
      const e = a.entries.find(x => x.commit === HUMAN)!;
      const b = e.roles.baseline;
      assert.equal(b.run?.source, 'bench-triage-build');
      assert.equal(b.classification?.category, 'build-failed');
      assert.equal(b.classification?.cause, 'pyairports');
      assert.match(b.classification?.evidence?.text ?? '', /No matching distribution found for pyairports/);
      assert.match(b.classification?.evidence?.file ?? '', /\.bench-triage\/builds\/.*\/build\.log$/);
      assert.equal(b.history.length, 1, 'the pipeline’s own failure is history');
      assert.equal(e.outcome, 'build-failed');
    });

    it('the usual build failures, each build-failed with its cause and the evidence line of build.log', async () => {
      dataset();
      const cases: Array<[string, string, RegExp]> = [
        [
          "  [2/3] Building CUDA object csrc/attention.cu.o\n      nvcc error   : 'cicc' died due to signal 9 (Kill signal)\nninja: build stopped: subcommand failed.\n",
          'compiler-out-of-memory',
          /'cicc' died due to signal 9/,
        ],
        [
          '  CMake Error at CMakeLists.txt:70 (message):\n    CUDA 12.1 or later is required, found CUDA 11.8\n',
          'cuda-toolkit-version',
          /CUDA 12\.1 or later is required/,
        ],
        [
          'ERROR: Could not find a version that satisfies the requirement pyairports (from versions: none)\nERROR: No matching distribution found for pyairports\n',
          'pyairports',
          /pyairports/,
        ],
        ['failed to copy files: copy file range failed: no space left on device\n', 'disk-full', /no space left on device/],
      ];
      for (const [i, [log]] of cases.entries())
        record(
          `2026110${i + 1}-000000-000${i}`,
          'failed',
          `2026-11-0${i + 1}T00:00:00Z`,
          "The command '/bin/sh -c x' returned a non-zero code: 1",
          `Step 9/16 : RUN x\n${log}`,
        );
      const a = await analyze(nodeFileSource(dir));
      const e = a.entries.find(x => x.commit === HUMAN)!;
      const runs = [e.roles.baseline.run!, ...e.roles.baseline.history].filter(r => r.source === 'bench-triage-build');
      assert.equal(runs.length, cases.length);
      for (const [i, [, cause, evidence]] of cases.entries()) {
        const run = runs.find(r => r.provenance.file.includes(`000${i}/`))!;
        const c = a.classifications.get(run.id)!;
        assert.equal(c.category, 'build-failed', cause);
        assert.equal(c.cause, cause);
        assert.match(c.evidence?.text ?? '', evidence, cause);
      }
    });

    it('a build that succeeded is history only: the role still stands at its last run, and campaign estimates ignore build times', async () => {
      dataset();
      record('20261101-000000-bbbb', 'succeeded', '2026-11-01T00:00:00Z', null, 'Successfully tagged lab/b:x\n');
      const a = await analyze(nodeFileSource(dir));
      const e = a.entries.find(x => x.commit === HUMAN)!;
      assert.notEqual(e.roles.baseline.run?.source, 'bench-triage-build');
      assert.ok(e.roles.baseline.history.some(h => h.source === 'bench-triage-build' && h.originalStatus === 'built (succeeded)'));
      assert.equal(e.outcome, 'wheel-missing');
      assert.equal(durationEstimates(a.entries)(e, 'baseline'), 2762.1, 'the run’s own duration; the 30-min build is not a run');
    });

    it('readBuildRecords: newest first; a build whose process is gone reads as interrupted', async () => {
      record('20261101-000000-aaaa', 'failed', '2026-11-01T00:00:00Z', 'x', '');
      record('20261102-000000-bbbb', 'building', '2026-11-02T00:00:00Z', null, '');
      assert.deepEqual(
        (await readBuildRecords(dir)).map(r => r.record.buildId),
        ['20261102-000000-bbbb', '20261101-000000-aaaa'],
      );
      const d = path.join(dir, '.bench-triage/builds', HUMAN.slice(0, 12), '20261102-000000-bbbb', 'build.json');
      const rec = JSON.parse(require('node:fs').readFileSync(d, 'utf8'));
      writeFileSync(d, JSON.stringify({ ...rec, owner: `${require('node:os').hostname()}:999999` }));
      const h = await new Builds().history(dir);
      assert.equal(h[0].record.status, 'interrupted');
      assert.match(h[0].record.error ?? '', /is gone/);
    });

    it('build output folds by step and its first error is found', () => {
      const ix = indexLog(
        [
          'Step 1/3 : ARG BASE_IMAGE',
          'Step 2/3 : FROM x',
          ' ---> 0123456789ab',
          'Step 3/3 : RUN pip install -e .',
          ' ---> Running in ffffffffffff',
          "      nvcc error   : 'cicc' died due to signal 9 (Kill signal)",
          "The command '/bin/sh -c pip' returned a non-zero code: 1",
        ].join('\n'),
      );
      assert.deepEqual(
        ix.phases.map(p => [p.name, p.startLine, p.endLine]),
        [
          ['Step 1/3: ARG BASE_IMAGE', 1, 1],
          ['Step 2/3: FROM x', 2, 3],
          ['Step 3/3: RUN pip install -e .', 4, 7],
        ],
      );
      assert.equal(ix.firstError?.line, 6);
    });
  });
});
