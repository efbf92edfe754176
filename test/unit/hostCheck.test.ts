import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

/**
 * scripts/host-check.sh, the test command's first and last step, on a folder of its own: what the
 * tests leave in the temporary folder is named, what was there before and the engine's kept
 * folder are not. (CI is cleared so that `before` never starts an engine; the socket compared is one no engine is on.)
 */
describe('the host check names what the tests left in /tmp (scripts/host-check.sh)', function () {
  this.timeout(60_000);
  let dir = '';
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'bt-hostcheck-'));
    mkdirSync(path.join(dir, 'tmp'));
    mkdirSync(path.join(dir, 'state'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const check = (step: 'before' | 'after') =>
    spawnSync('bash', [path.join(ROOT, 'scripts/host-check.sh'), step], {
      // No engine on that socket: the test reads no one's Docker, and nothing there can change under it.
      env: {
        ...process.env,
        CI: '',
        HOST_CHECK_TMP: path.join(dir, 'tmp'),
        HOST_CHECK_STATE: path.join(dir, 'state'),
        HOST_CHECK_SOCKET: path.join(dir, 'no-engine.sock'),
      },
      encoding: 'utf8',
      timeout: 50_000,
    });
  const plant = (name: string, asDir = false) => (asDir ? mkdirSync(path.join(dir, 'tmp', name)) : writeFileSync(path.join(dir, 'tmp', name), 'x'));

  it("a containerd's stack dump and a suite's folder made during the tests fail the check, each named; what was there before does not", () => {
    plant('bt-earlier-abc', true);
    plant('containerd.7.stacks.log');
    assert.equal(check('before').status, 0);
    plant('containerd.11242.stacks.log');
    plant('bt-run-xyz', true);
    plant('bench-triage-test-engine', true); // the suite's engine folder, kept for its images
    plant('unrelated-file'); // not the tests' by name
    const r = check('after');
    assert.equal(r.status, 1, r.stdout + r.stderr);
    const named = r.stderr.split('\n').filter(l => l.startsWith(path.join(dir, 'tmp')));
    assert.deepEqual(named.map(l => path.basename(l)).sort(), ['bt-run-xyz', 'containerd.11242.stacks.log']);
  });

  it('nothing new: the check passes and says so', () => {
    plant('bt-earlier-abc', true);
    assert.equal(check('before').status, 0);
    const r = check('after');
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /nothing of the tests' is left in /);
  });
});
