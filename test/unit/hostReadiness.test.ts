import * as assert from 'node:assert/strict';
import { Runs } from '../../src/app/runs';
import type { HostConfig } from '../../src/core/run/hosts';
import type { ContainerRuntime } from '../../src/runner/runtime';

/** A runtime that answers ping and info as an engine would (the rest is never called before a run). */
function engine(answer: { runtimes?: string[]; down?: string }, calls: { n: number }): ContainerRuntime {
  return {
    where: 'local engine (no host set) (unix:///var/run/docker.sock)',
    async ping() {
      calls.n++;
      if (answer.down) throw new Error(answer.down);
    },
    async facts() {
      return { serverVersion: '26.1.5', runtimes: answer.runtimes ?? ['runc'], ncpu: 2, memBytes: 24 << 30 };
    },
  } as unknown as ContainerRuntime;
}
const host = (gpus: number, label = 'local engine (no host set)'): HostConfig => ({ label, docker: '', gpus });

describe('a host that cannot run is said before the click (issue 24, item 1)', () => {
  it('GPUs promised without the NVIDIA runtime: not ready, in the runner’s own words', async () => {
    const r = await new Runs(() => engine({}, { n: 0 })).hostReadiness(host(1));
    assert.equal(r.ok, false);
    assert.ok(
      !r.ok && r.kind === 'no-gpu-runtime' && /has no NVIDIA container runtime, so it cannot give the run GPUs \(runtimes: runc\)/.test(r.reason),
      JSON.stringify(r),
    );
  });
  it('a CPU-only host (gpus: 0) or one with the NVIDIA runtime is ready', async () => {
    assert.deepEqual(await new Runs(() => engine({}, { n: 0 })).hostReadiness(host(0)), { ok: true });
    assert.deepEqual(await new Runs(() => engine({ runtimes: ['runc', 'nvidia'] }, { n: 0 })).hostReadiness(host(8)), { ok: true });
  });
  it('an engine that does not answer is said with its address, as unreachable', async () => {
    const r = await new Runs(() => engine({ down: 'connect ENOENT /var/run/docker.sock' }, { n: 0 })).hostReadiness(host(1));
    assert.ok(!r.ok && r.kind === 'unreachable' && /does not answer: connect ENOENT/.test(r.reason), JSON.stringify(r));
  });
  it('asked once a minute per host unless asked fresh', async () => {
    const calls = { n: 0 };
    const runs = new Runs(() => engine({}, calls));
    await runs.hostReadiness(host(1));
    await runs.hostReadiness(host(1));
    assert.equal(calls.n, 1);
    await runs.hostReadiness(host(1), { fresh: true });
    assert.equal(calls.n, 2);
    await runs.hostReadiness(host(1, 'another'));
    assert.equal(calls.n, 3);
  });
});
