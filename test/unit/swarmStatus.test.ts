import * as assert from 'node:assert/strict';
import { formatSwarmCheck, formatSwarmStatus, swarmResourceFinding, type SwarmNodeStatus } from '../../src/core/run/swarm';
import { runCli } from './helpers';

const node = (over: Partial<SwarmNodeStatus>): SwarmNodeStatus => ({
  id: 'n',
  name: 'n',
  role: 'worker',
  leader: false,
  state: 'ready',
  availability: 'active',
  address: null,
  engine: null,
  gpusAdvertised: 0,
  gpusReserved: 0,
  runs: [],
  ...over,
});

describe('swarm status and check (issue 26): what the CLI prints', () => {
  it('a table of nodes with GPUs used/advertised, each run on its own line, and totals', () => {
    const text = formatSwarmStatus([
      node({ name: 'mgr', role: 'manager', leader: true }),
      node({
        name: 'h100-a',
        engine: 'tcp://10.0.0.2:2376',
        gpusAdvertised: 8,
        gpusReserved: 2,
        runs: [{ runId: 'r1', commit: '0123456789abcdef', role: 'human', state: 'running' }],
      }),
      node({ name: 'h100-b', state: 'down', gpusAdvertised: 8 }),
    ]);
    const lines = text.trimEnd().split('\n');
    assert.match(lines[0], /^NODE +ROLE +STATE +AVAILABILITY +GPUS USED\/ADVERTISED +RUNS +ENGINE$/);
    assert.match(lines[1], /^mgr \(leader\) +manager +ready +active +0\/0 +0 +\(the manager\)$/);
    assert.match(lines[2], /^h100-a +worker +ready +active +2\/8 +1 +tcp:\/\/10\.0\.0\.2:2376$/);
    assert.match(lines[3], /^h100-b +worker +down +active +0\/8 +0 +—$/);
    assert.equal(lines[4], '  h100-a: run r1 — 0123456789ab human (running)');
    assert.equal(lines[5], '3 node(s), 2 ready; GPUs 2 of 16 reserved');
  });

  it('data never moves the cursor: control characters in node names and labels are shown as ?', () => {
    const text = formatSwarmStatus([node({ name: 'evil\x1b[2Jnode', engine: 'tcp://x\r\n:1' })]);
    assert.ok(!/[\x1b\r]/.test(text));
    assert.match(text, /evil\?\[2Jnode/);
    assert.match(formatSwarmCheck([{ node: 'a\x07', ok: false, what: 'GPUs', detail: 'x\x1by' }]), /^MISS a\?: GPUs: x\?y\n1 thing\(s\) missing\n$/);
  });

  it('check: ok and MISS lines, and a summary', () => {
    assert.equal(
      formatSwarmCheck([{ node: 'w1', ok: true, what: 'GPUs', detail: '2 NVIDIA-GPU advertised' }]),
      'ok   w1: GPUs: 2 NVIDIA-GPU advertised\nevery node has what runs need\n',
    );
  });

  it('CLI: swarm needs a subcommand and a swarm manager, naming what is wrong', () => {
    const none = runCli('swarm');
    assert.equal(none.status, 2);
    assert.match(none.stderr, /swarm: unknown subcommand \(none\); one of status, check/);
    const noHost = runCli('swarm', 'status');
    assert.equal(noHost.status, 2);
    assert.match(noHost.stderr, /swarm status needs --host swarm\+tcp:\/\/MANAGER:2376/);
    const plain = runCli('swarm', 'check', '--host', 'tcp://10.0.0.1:2376');
    assert.equal(plain.status, 2);
    assert.match(plain.stderr, /--host tcp:\/\/10\.0\.0\.1:2376: not a swarm manager/);
    const down = runCli('swarm', 'status', '--host', 'swarm+unix:///nonexistent/docker.sock');
    assert.equal(down.status, 1);
    assert.match(down.stderr, /^swarm status: .*nonexistent\/docker\.sock/m);
    const rel = runCli('swarm', 'check', '--host', 'swarm+unix:///nonexistent/docker.sock', '--nvidia-config', 'etc/config.toml');
    assert.equal(rel.status, 2);
    assert.match(rel.stderr, /--nvidia-config needs the absolute path/);
    const plainRegistry = runCli(
      'run',
      '--folder',
      '/nonexistent',
      '--commit',
      'abc1234',
      '--role',
      'human',
      '--host',
      'tcp://10.0.0.1:2376',
      '--registry',
      'reg.lab:5000',
    );
    assert.equal(plainRegistry.status, 2);
    assert.match(plainRegistry.stderr, /--registry is for a swarm/);
    const badRegistry = runCli(
      'run',
      '--folder',
      '/nonexistent',
      '--commit',
      'abc1234',
      '--role',
      'human',
      '--host',
      'swarm+tcp://10.0.0.1:2376',
      '--registry',
      'https://reg.lab',
    );
    assert.equal(badRegistry.status, 2);
    assert.match(badRegistry.stderr, /--registry .*has a scheme/);
  });

  it("swarm-resource in the toolkit's config.toml (its shipped form: commented out): read at the top level only, each problem said with the line to write", () => {
    // The shape nvidia-container-toolkit ships (config.toml: top-level keys, then [nvidia-container-cli] and [nvidia-container-runtime]).
    const shipped = [
      'disable-require = false',
      '#swarm-resource = "DOCKER_RESOURCE_GPU"',
      '#accept-nvidia-visible-devices-envvar-when-unprivileged = true',
      '',
      '[nvidia-container-cli]',
      '#root = "/run/nvidia/driver"',
      'ldconfig = "@/sbin/ldconfig.real"',
      '',
      '[nvidia-container-runtime]',
      '#debug = "/var/log/nvidia-container-runtime.log"',
    ].join('\n');
    const commented = swarmResourceFinding(shipped, 'NVIDIA-GPU');
    assert.equal(commented.ok, false);
    assert.match(commented.detail, /commented out \(line 2\).*set swarm-resource = "DOCKER_RESOURCE_NVIDIA-GPU"/);
    const set = swarmResourceFinding(
      shipped.replace('#swarm-resource = "DOCKER_RESOURCE_GPU"', 'swarm-resource = "DOCKER_RESOURCE_NVIDIA-GPU"  # for the swarm'),
      'NVIDIA-GPU',
    );
    assert.deepEqual(set, { ok: true, detail: 'swarm-resource = "DOCKER_RESOURCE_NVIDIA-GPU" (line 2)' });
    const other = swarmResourceFinding(shipped.replace('#swarm-resource', 'swarm-resource'), 'NVIDIA-GPU');
    assert.equal(other.ok, false);
    assert.match(other.detail, /line 2: swarm-resource = "DOCKER_RESOURCE_GPU", which is not DOCKER_RESOURCE_NVIDIA-GPU/);
    // A key of the same name inside a table is not the runtime's setting.
    assert.equal(swarmResourceFinding('[nvidia-container-cli]\nswarm-resource = "DOCKER_RESOURCE_NVIDIA-GPU"\n', 'NVIDIA-GPU').ok, false);
    assert.match(swarmResourceFinding('swarm-resource = DOCKER_RESOURCE_NVIDIA-GPU\n', 'NVIDIA-GPU').detail, /not a quoted string/);
    assert.equal(swarmResourceFinding("swarm-resource = 'DOCKER_RESOURCE_GPU,DOCKER_RESOURCE_NVIDIA-GPU'\n", 'NVIDIA-GPU').ok, true);
  });
});
