import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

/** The lint of the test command fails on what docs/ARCHITECTURE.md's layering forbids (each check shown to bite). */
describe('lint (scripts/lint.mjs)', function () {
  this.timeout(120_000);

  it('finds a cycle between core folders and names the imports that close it', async () => {
    const lint = await import(path.join(ROOT, 'scripts/lint.mjs'));
    const d = mkdtempSync(path.join(tmpdir(), 'bt-lint-'));
    try {
      for (const [f, text] of Object.entries({
        'ingest/a.ts': "import { b } from '../logs/b';\nexport const a = b;\n",
        'logs/b.ts': "import { c } from '../classify/c';\nexport const b = c;\n",
        'classify/c.ts': "import { a } from '../ingest/a';\nexport const c = 1; void a;\n",
        'model/m.ts': 'export const m = 1;\n',
      })) {
        mkdirSync(path.dirname(path.join(d, f)), { recursive: true });
        writeFileSync(path.join(d, f), text);
      }
      const cycles = lint.folderCycles(lint.coreFolderEdges(d));
      assert.equal(cycles.length, 1);
      assert.match(cycles[0].join('\n'), /ingest → logs \(.*ingest\/a\.ts imports \.\.\/logs\/b\)/);
      assert.equal(lint.folderCycles(lint.coreFolderEdges(path.join(ROOT, 'src/core'))).length, 0, 'the real core has none');
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  });

  it('ESLint refuses vscode in app, a layer import and Node I/O in core, detectors outside ingest, and runner/ in a front end', () => {
    const probes = {
      'src/app/zzProbe.ts': "import * as vscode from 'vscode';\nexport const p = vscode;\n",
      'src/core/report/zzProbe.ts':
        "import { Workspace } from '../../app/workspace';\nimport * as fs from 'node:fs';\nimport { detect } from '../ingest/detectors';\nexport const p = [Workspace, fs, detect];\n",
      'src/extension/zzProbe.ts': "import Docker from 'dockerode';\nexport const p = Docker;\n",
      'src/cli/zzProbe.ts': "import { hasCommit } from '../runner/containerFiles';\nexport const p = hasCommit;\n",
      'src/extension/commands/zzProbe.ts': "import { newRunId } from '../../runner/runRecord';\nexport const p = newRunId;\n",
    };
    try {
      for (const [f, t] of Object.entries(probes)) writeFileSync(path.join(ROOT, f), t);
      const r = spawnSync(path.join(ROOT, 'node_modules/.bin/eslint'), ['--format', 'json', ...Object.keys(probes)], { cwd: ROOT, encoding: 'utf8' });
      const msgs = (JSON.parse(r.stdout) as Array<{ filePath: string; messages: Array<{ ruleId: string; message: string }> }>).flatMap(f =>
        f.messages.map(m => `${path.relative(ROOT, f.filePath)}: ${m.ruleId}: ${m.message}`),
      );
      assert.ok(
        msgs.some(m => /app\/zzProbe.*no-restricted-imports.*vscode/.test(m)),
        msgs.join('\n'),
      );
      assert.ok(
        msgs.some(m => /report\/zzProbe.*no-restricted-paths.*core is pure/.test(m)),
        msgs.join('\n'),
      );
      assert.ok(
        msgs.some(m => /report\/zzProbe.*no-restricted-imports.*node:fs/.test(m)),
        msgs.join('\n'),
      );
      assert.ok(
        msgs.some(m => /report\/zzProbe.*no-restricted-paths.*detectors are internal/.test(m)),
        msgs.join('\n'),
      );
      assert.ok(
        msgs.some(m => /extension\/zzProbe.*dockerode/.test(m)),
        msgs.join('\n'),
      );
      for (const f of ['cli/zzProbe', 'extension/commands/zzProbe'])
        assert.ok(
          msgs.some(m => m.includes(f) && /no-restricted-paths.*front ends reach the runner through app/.test(m)),
          `${f}: ${msgs.join('\n')}`,
        );
    } finally {
      for (const f of Object.keys(probes)) rmSync(path.join(ROOT, f), { force: true });
    }
  });
});
