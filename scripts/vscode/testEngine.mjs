// The fake-H100 workspace shared by the extension-host "runs" rounds and the end-to-end test:
// test/docker/runWorkspace.worker.ts starts the suite's dockerd (+ sshd) and writes the folder;
// stopTestEngine ends them through their pid files.
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const ENGINE_DIR = '/tmp/bench-triage-test-engine';

/** {folder, checkout, engine, human, parent} (mode 'demo': {folder, engine}, the demo workspace on the suite's engine) and the raw JSON; throws with the worker's stderr. */
export function prepareRunsWorkspace(mode = 'runs') {
  const raw = execFileSync(process.execPath, [path.join(ROOT, 'dist-test/docker/runWorkspace.worker.js'), ...(mode === 'demo' ? ['demo'] : [])], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const ws = JSON.parse(raw);
  if (ws.root) made.push(ws.root);
  return { ...ws, raw };
}
/** The temporary folders the workspaces were made in: removed with the engine. */
const made = [];

/** Stops the engine and its sshd, waits for dockerd to exit, then removes its network namespace. */
export function stopTestEngine() {
  let dockerd = 0;
  for (const pid of ['docker.pid', 'sshd.pid']) {
    try {
      const n = Number(readFileSync(path.join(ENGINE_DIR, pid), 'utf8'));
      if (pid === 'docker.pid') dockerd = n;
      process.kill(n, 'SIGTERM');
    } catch {
      /* not running */
    }
  }
  for (let i = 0; i < 300 && dockerd && alive(dockerd); i++) execFileSync('sleep', ['0.1']);
  try {
    execFileSync('ip', ['netns', 'del', 'bt-test-engine'], { stdio: 'ignore' });
  } catch {
    /* already gone */
  }
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
}

const alive = pid => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
