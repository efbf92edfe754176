import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pyJson, vllmServeCli } from '../../scripts/field-formats.mjs';

const DIST = path.resolve(__dirname, '../../dist');

/**
 * The CLI is two bundles: dist/cli.js, and dist/cli-runner.js for the commands that drive Docker
 * or git. Here dist/cli.js runs alone in a folder of its own, so that a command which reached for
 * the runner's bundle (or had its dependencies inlined again) would show.
 */
describe('CLI: scan, classify, report and label start without the runner bundle', function () {
  this.timeout(60_000);
  let bin: string, data: string;
  before(() => {
    bin = fs.mkdtempSync(path.join(os.tmpdir(), 'bt-cli-alone-'));
    fs.copyFileSync(path.join(DIST, 'cli.js'), path.join(bin, 'cli.js'));
    data = fs.mkdtempSync(path.join(os.tmpdir(), 'bt-cli-alone-data-'));
    for (const [k, role] of ['baseline', 'human', 'agent/my-agent'].entries()) {
      fs.mkdirSync(path.join(data, '1a2b3c4d', role), { recursive: true });
      fs.writeFileSync(path.join(data, '1a2b3c4d', role, 'result.json'), pyJson(vllmServeCli({ seed: k, speed: 1 + k / 10 })));
    }
  });
  after(() => {
    for (const d of [bin, data]) fs.rmSync(d, { recursive: true, force: true });
  });
  const cli = (...args: string[]) => spawnSync(process.execPath, [path.join(bin, 'cli.js'), ...args], { encoding: 'utf8' });

  it('answers scan, classify, report and label from dist/cli.js alone', () => {
    const scan = cli('scan', data, '--json');
    assert.equal(scan.status, 0, scan.stderr);
    assert.equal(JSON.parse(scan.stdout).runs, 3);
    const classify = cli('classify', data, '--json');
    assert.equal(classify.status, 0, classify.stderr);
    assert.match(classify.stdout, /"commit": ?"1a2b3c4d"/);
    const report = cli('report', data, '--format', 'md');
    assert.equal(report.status, 0, report.stderr);
    assert.match(report.stdout, /1a2b3c4d/);
    const label = cli('label', data, '--list');
    assert.equal(label.status, 0, label.stderr);
  });

  it('a command that drives Docker loads dist/cli-runner.js (missing here: the error names it)', () => {
    const plan = cli('plan', '--folder', data, '--commit', '1a2b3c4d', '--role', 'human');
    assert.notEqual(plan.status, 0);
    assert.match(plan.stderr, /cli-runner\.js is missing beside .*cli\.js \(an incomplete install/);
    assert.doesNotMatch(plan.stderr, /Require stack/);
  });

  it('the runner bundle beside it answers the same command', () => {
    const r = spawnSync(process.execPath, [path.join(DIST, 'cli.js'), 'campaign', 'status', '--folder', data], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /no campaigns/);
  });

  it('dist/cli.js holds none of the runner’s dependencies', () => {
    const text = fs.readFileSync(path.join(DIST, 'cli.js'), 'utf8');
    for (const dep of ['node_modules/dockerode/', 'node_modules/ssh2/', 'node_modules/execa/', 'node_modules/@grpc/'])
      assert.ok(!text.includes(dep), `dist/cli.js bundles ${dep}`);
    assert.ok(fs.readFileSync(path.join(DIST, 'cli-runner.js'), 'utf8').includes('node_modules/dockerode/'), 'the runner bundle has dockerode');
  });
});
