// Prepares the "runs" round of the extension-host tests: starts the suite's Docker engine (left
// running; stopped by the caller through its pid files), builds the fake vLLM image, and writes a
// workspace with a failed human result (the aimv2 clash) and settings pointing at the fake host.
// Prints {folder, engine, human, parent} as JSON.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { startEngine } from '../support/dockerEngine';
import { repoRoot } from '../support/repo';
import { makeRunFixture } from '../support/runFixture';

async function main(): Promise<void> {
  const engine = await startEngine();
  const built = spawnSync(process.execPath, [path.join(repoRoot(), 'scripts/fake-image.mjs')], {
    encoding: 'utf8',
    env: { ...process.env, DOCKER_HOST: engine.unix },
  });
  if (built.status !== 0) throw new Error(built.stderr);
  if (process.argv[2] === 'demo') return demo(engine.unix);
  const fx = makeRunFixture();
  const old = path.join(fx.folder, '.bench-triage/runs', fx.human.slice(0, 8), 'human', '20261101-000000-0000');
  mkdirSync(old, { recursive: true });
  writeFileSync(
    path.join(old, 'result.json'),
    JSON.stringify(
      {
        schema: 'bench-triage.run/v1',
        commit: fx.human,
        role: 'human',
        status: 'failed',
        metrics: {},
        model: 'facebook/opt-125m',
        image: 'bench-triage/fake-vllm:test',
        error:
          'Traceback (most recent call last):\n  File "/opt/fakevllm/vllm/transformers_utils/configs/ovis.py", line 13, in <module>\n    AutoConfig.register("aimv2", AIMv2Config)\nValueError: \'aimv2\' is already used by a Transformers config, pick another name. <img src=x onerror=alert(1)>',
        startedAt: '2026-11-01T00:00:00Z',
        durationS: 12,
        logs: [],
      },
      null,
      2,
    ),
  );
  mkdirSync(path.join(fx.folder, '.vscode'), { recursive: true });
  writeFileSync(
    path.join(fx.folder, '.vscode/settings.json'),
    JSON.stringify(
      {
        'benchTriage.hosts': [{ label: 'fake-h100', docker: engine.unix, gpus: 0 }],
        'benchTriage.imageTemplates': { human: 'bench-triage/fake-vllm:test', baseline: 'bench-triage/fake-vllm:test' },
        'benchTriage.vllmCheckout': fx.checkout,
        'benchTriage.serverTimeoutSeconds': 30,
        'benchTriage.runEnv': ['FAKE_VLLM_BENCH_SECONDS=6', 'FAKE_VLLM_FAULT=leak-token'],
      },
      null,
      2,
    ),
  );
  // The engine keeps running after this process (its pid files let the caller stop it).
  process.stdout.write(
    JSON.stringify({ root: fx.root, folder: fx.folder, checkout: fx.checkout, engine: engine.unix, human: fx.human, parent: fx.parent }),
    () => process.exit(0),
  );
}

/**
 * The demo workspace (scripts/make-demo.mjs) in a folder of its own, its fake host pointed at the
 * suite's engine: the end-to-end test presses every button on it without touching demo/ or the
 * machine's engine.
 */
function demo(engine: string): void {
  const folder = mkdtempSync(path.join(tmpdir(), 'bt-demo-'));
  const made = spawnSync(process.execPath, [path.join(repoRoot(), 'scripts/make-demo.mjs')], {
    encoding: 'utf8',
    env: { ...process.env, BENCH_TRIAGE_DEMO_OUT: folder },
  });
  if (made.status !== 0) throw new Error(made.stderr);
  const settings = JSON.parse(readFileSync(path.join(folder, '.vscode/settings.json'), 'utf8'));
  settings['benchTriage.hosts'] = [{ label: 'fake-h100', docker: engine, gpus: 0 }];
  settings['benchTriage.serverTimeoutSeconds'] = 30;
  settings['benchTriage.runEnv'] = ['FAKE_VLLM_BENCH_SECONDS=8'];
  writeFileSync(path.join(folder, '.vscode/settings.json'), JSON.stringify(settings, null, 2) + '\n');
  // The demo checkout in the folder, and the baseline images its fake host has (all but one).
  const images = spawnSync(process.execPath, [path.join(repoRoot(), 'scripts/demo-images.mjs'), folder], {
    encoding: 'utf8',
    env: { ...process.env, DOCKER_HOST: engine },
  });
  if (images.status !== 0) throw new Error(images.stderr);
  process.stdout.write(JSON.stringify({ root: folder, folder, engine }), () => process.exit(0));
}

main().catch(e => {
  process.stderr.write(String(e?.stack ?? e));
  process.exit(1);
});
