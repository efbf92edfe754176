// Entry the VS Code extension host calls (`extensionTestsPath`): runs every *.test.js beside this
// file with mocha, mirrors results to the console and to $BENCH_TRIAGE_TEST_RESULTS.
import * as fs from 'node:fs';
import * as path from 'node:path';
import Mocha from 'mocha';

export function run(): Promise<void> {
  const mocha = new Mocha({
    ui: 'bdd',
    timeout: 120000,
    color: false,
    reporter: class {
      constructor(runner: Mocha.Runner) {
        const failures: Array<{ title: string; error: string }> = [];
        let passed = 0;
        runner.on('pass', t => {
          passed++;
          console.log(`[bt-test]   ✔ ${t.fullTitle()} (${t.duration} ms)`);
        });
        runner.on('fail', (t, err) => {
          failures.push({ title: t.fullTitle(), error: String(err?.stack ?? err) });
          console.log(
            `[bt-test]   ✗ ${t.fullTitle()}\n${String(err?.stack ?? err)
              .split('\n')
              .slice(0, 8)
              .join('\n')}`,
          );
        });
        runner.on('end', () => {
          console.log(`[bt-test] ${passed} passing, ${failures.length} failing`);
          const out = process.env.BENCH_TRIAGE_TEST_RESULTS;
          if (out) fs.writeFileSync(out, JSON.stringify({ passed, failed: failures.length, failures }, null, 2));
        });
      }
    } as unknown as typeof Mocha.reporters.Base,
  });
  // Suites named corpus.* run on ../shared/isobench as the workspace, runs.* on the fake-host
  // workspace (a real dockerd), the others on the fixture.
  const suite = process.env.BENCH_TRIAGE_SUITE ?? '';
  for (const f of fs.readdirSync(__dirname).sort()) {
    const prefix = /^(corpus|runs|untrusted|bench)\./.exec(f)?.[1] ?? '';
    if (f.endsWith('.test.js') && prefix === suite) mocha.addFile(path.join(__dirname, f));
  }
  return new Promise((resolve, reject) => {
    mocha.run(failures => (failures ? reject(new Error(`${failures} test(s) failed`)) : resolve()));
  });
}
