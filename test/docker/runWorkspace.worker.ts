// Prepares the "runs" round of the extension-host tests: starts the suite's Docker engine (left
// running; stopped by the caller through its pid files), builds the fake vLLM image, and writes a
// workspace with a failed human result (the aimv2 clash) and settings pointing at the fake host.
// Prints {folder, engine, human, parent} as JSON.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
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
  process.stdout.write(JSON.stringify({ folder: fx.folder, checkout: fx.checkout, engine: engine.unix, human: fx.human, parent: fx.parent }), () =>
    process.exit(0),
  );
}

main().catch(e => {
  process.stderr.write(String(e?.stack ?? e));
  process.exit(1);
});
