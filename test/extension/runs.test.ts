import * as assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import * as vscode from 'vscode';
import Docker from 'dockerode';
import type { CampaignNode, HostNode, RunNode } from '../../src/extension/tree/runsTree';
import { CampaignQueue } from '../../src/app/campaigns';
import type { CampaignItem } from '../../src/core/campaign/plan';
import { RunKeys, type RunKey } from '../../src/app/identity';
import { api, locate, until } from './support/api';
import { runEnvSetting } from '../../src/extension/settings';

/** Round "runs": the workspace was prepared by test/docker/runWorkspace.worker.ts (real dockerd, fake image). */
const prep = JSON.parse(process.env.BENCH_TRIAGE_RUNS ?? '{}') as { folder: string; engine: string; human: string; parent: string };
const docker = () => new Docker({ socketPath: prep.engine.slice('unix://'.length) });

/** The Runs view's node of a run, as the view gives it (host label checked on the way). */
async function runNodeOf(a: Awaited<ReturnType<typeof api>>, key: RunKey): Promise<RunNode> {
  const hosts = (await a.runsTreeForTests.getChildren()).filter((n): n is HostNode => n.kind === 'host');
  assert.ok(
    hosts.some(h => a.runsTreeForTests.getTreeItem(h).label === 'fake-h100'),
    'the host is listed',
  );
  for (const h of hosts)
    for (const n of await a.runsTreeForTests.getChildren(h)) if (n.kind === 'run' && RunKeys.equals((n as RunNode).run.key, key)) return n as RunNode;
  throw new Error('the run is not in the Runs view');
}

describe('Rerun on H100 against the fake host (real VS Code, real dockerd)', function () {
  this.timeout(240_000);

  it('the Comparison webview has a nonce CSP, no inline handlers, and carries a hostile error string only as data', async () => {
    const a = await api();
    const panel = await vscode.commands.executeCommand('benchTriage.compare', prep.human);
    assert.ok(panel);
    const p = a.webviews.panel(prep.human)!;
    assert.match(p.html, /Content-Security-Policy" content="default-src 'none';[^"]*script-src 'nonce-[A-Za-z0-9+/=]{16,}'/);
    assert.doesNotMatch(p.html, /\son[a-z]+=/i, 'no inline event handlers');
    assert.doesNotMatch(p.html, /onerror=alert/, 'data never goes into the HTML');
    assert.equal(p.data.view, 'comparison');
    // The hostile text from the result file is in the data (rendered with textContent by the webview).
    const failures = p.data.view === 'comparison' ? p.data.failures : [];
    assert.ok(
      failures.some(f => f.evidence?.text.includes('<img src=x onerror=alert(1)>') || f.description.includes('<img src=x onerror=alert(1)>')),
      JSON.stringify(failures),
    );
  });

  it('Rerun on a failed role: queued → running → succeeded, live log grows, the commit moves group, the token is masked', async () => {
    const a = await api();
    await a.store.ensureScanned();
    const before = await locate(a.commitsTree, prep.human);
    assert.ok(before, 'the commit is in the Commits view');
    assert.match(before.group, /dependency|conflict/i, `group before: ${before.group}`);
    const human = before.roles.find(r => r.role === 'human')!;
    assert.equal(human.view.run!.status, 'failed');
    await vscode.commands.executeCommand('benchTriage.setHuggingFaceToken', 'hf_SecretFromTheCommand0123456789');
    const seen = new Set<string>();
    const sub = a.runs.onDidChange(r => {
      if (r) seen.add(r.run.record.status);
    });
    const done = vscode.commands.executeCommand('benchTriage.rerun', human, undefined, 'role') as Thenable<unknown>;
    const live = await until('a running benchmark phase', () => a.runs.list().find(r => r.record.phases.some(p => p.name === 'benchmark' && p.launchedAt)));
    // The Runs view shows it, with the host's label.
    const runNode = await runNodeOf(a, live.key);
    assert.match(String(a.runsTreeForTests.getTreeItem(runNode).description), /running/);
    // The token is kept out of docker inspect while the run is live (the processes get it from a secret file).
    const inspected = JSON.stringify(await docker().getContainer(live.record.containerId!).inspect());
    assert.ok(!inspected.includes('hf_SecretFromTheCommand0123456789'), 'docker inspect shows the token');
    // The live log: the document grows while the benchmark prints.
    const editor = (await vscode.commands.executeCommand('benchTriage.openRunLog', runNode)) as vscode.TextEditor;
    const doc = editor.document;
    assert.equal(doc.languageId, 'vllm-log');
    const len0 = doc.getText().length;
    await until('the log document to grow', () => doc.getText().length > len0, 30_000);
    // It is followed: the caret goes to the end as lines come.
    await until('the caret at the growing end', () => editor.selection.active.isEqual(doc.lineAt(doc.lineCount - 1).range.end) && doc.lineCount > 1, 30_000);
    await done;
    sub.dispose();
    const final = a.runs.list().find(r => RunKeys.equals(r.key, live.key))!;
    assert.equal(final.record.status, 'succeeded', final.record.error ?? '');
    for (const s of ['queued', 'preflight', 'running', 'succeeded']) assert.ok(seen.has(s), `saw ${[...seen].join(', ')}`);
    // Stored logs: the token masked everywhere.
    const dir = path.join(prep.folder, final.record.plan.resultDir);
    for (const f of readdirSync(path.join(dir, 'logs'))) assert.ok(!readFileSync(path.join(dir, 'logs', f), 'utf8').includes('hf_SecretFromTheCommand'), f);
    assert.match(readFileSync(path.join(dir, 'logs/server.stdout.log'), 'utf8'), /with token \*{10}/);
    // Driven by exactly one runner (the window's own re-attach pass leaves live runs alone).
    assert.equal(readFileSync(path.join(dir, 'logs/benchmark.stdout.log'), 'utf8').match(/Serving Benchmark Result/g)?.length, 1);
    // The new result moves the commit without a reload.
    const after = await until('the commit to leave its failure group', async () => {
      const l = await locate(a.commitsTree, prep.human);
      return l && l.group !== before.group ? l : null;
    });
    assert.ok(after.roles.find(r => r.role === 'human')!.view.run!.status === 'success');
  });

  it("the CLI's run and the extension's Rerun write the same run.json for the same plan (one run path)", async () => {
    const a = await api();
    const ext = a.runs.list().find(r => !r.fromDisk && r.record.role === 'human' && r.record.status === 'succeeded')!;
    assert.ok(ext, 'the Rerun of the test above');
    // The same settings as the workspace's, as CLI options; the token the extension passed as a secret.
    const settings = JSON.parse(readFileSync(path.join(prep.folder, '.vscode/settings.json'), 'utf8'));
    const host = settings['benchTriage.hosts'][0];
    const cli = spawnSync(
      process.execPath,
      [
        path.resolve(__dirname, '../../dist/cli.js'),
        'run',
        '--folder',
        prep.folder,
        '--commit',
        prep.human,
        '--role',
        'human',
        '--host',
        host.docker,
        '--gpus',
        String(host.gpus),
        '--label',
        host.label,
        '--image-human',
        settings['benchTriage.imageTemplates'].human,
        '--image-baseline',
        settings['benchTriage.imageTemplates'].baseline,
        '--checkout',
        settings['benchTriage.vllmCheckout'],
        '--server-timeout',
        String(settings['benchTriage.serverTimeoutSeconds']),
        ...settings['benchTriage.runEnv'].flatMap((e: string) => ['--env', e]),
        '--secret-env',
        'HF_TOKEN',
        '--secret-env',
        'HUGGING_FACE_HUB_TOKEN',
      ],
      {
        encoding: 'utf8',
        env: { ...process.env, HF_TOKEN: 'hf_SecretFromTheCommand0123456789', HUGGING_FACE_HUB_TOKEN: 'hf_SecretFromTheCommand0123456789' },
        timeout: 180_000,
      },
    );
    assert.equal(cli.status, 0, cli.stderr);
    const cliRecord = JSON.parse(readFileSync(path.join(path.dirname(cli.stdout.trim().split('\n').pop()!), 'run.json'), 'utf8'));
    const extRecord = JSON.parse(readFileSync(path.join(prep.folder, ext.record.plan.resultDir, 'run.json'), 'utf8'));
    // What differs between any two runs (ids, times, the container, measured values) is left out; the rest must be equal.
    const plan = (r: any) => {
      const { runId, createdAt, startedAt, endedAt, durationS, containerId, owner, readinessS, metrics, samples, phases, plan: p, ...rest } = r;
      void [runId, createdAt, startedAt, endedAt, durationS, containerId, owner, readinessS, samples];
      return {
        ...rest,
        metricKeys: Object.keys(metrics).sort(),
        plan: { ...p, resultDir: p.resultDir.replace(/[^/]+$/, '<run id>') },
        phases: phases.map((x: any) => ({ name: x.name, argv: x.argv, cwd: x.cwd, exitCode: x.exitCode, stdout: x.stdout, stderr: x.stderr })),
      };
    };
    assert.deepEqual(plan(cliRecord), plan(extRecord));
  });

  it("a finished run refreshes its commit's node alone; its phases redraw its own row and read no campaign file", async () => {
    const a = await api();
    const before = (await locate(a.commitsTree, prep.human))!; // the view as drawn (its nodes known)
    const commitsFired: Array<unknown> = [];
    const runsFired: Array<unknown> = [];
    const storeChanges: string[] = [];
    const tree = a.runsTreeForTests;
    // What reads campaign files: counted while the run goes through its phases.
    const campaigns = (tree as unknown as { campaigns: { list: (...x: unknown[]) => Promise<unknown> } }).campaigns;
    const list = campaigns.list;
    let campaignReads = 0;
    campaigns.list = (...x: unknown[]) => (campaignReads++, list.apply(campaigns, x));
    // The Runs view asks again when told everything changed (a run it does not show yet), as VS Code does.
    const subs = [
      a.commitsTree.onDidChangeTreeData(n => commitsFired.push(n)),
      a.store.onDidChange(c => storeChanges.push(c.kind === 'commits' ? `commits ${c.commits.map(x => x.slice(0, 8)).join(',')}` : c.kind)),
      tree.onDidChangeTreeData(async n => {
        runsFired.push(n);
        if (n === undefined) for (const h of await tree.getChildren()) await tree.getChildren(h);
      }),
    ];
    try {
      await tree.getChildren();
      await vscode.commands.executeCommand(
        'benchTriage.rerun',
        before.roles.find(r => r.role === 'human'),
        undefined,
        'role',
      );
    } finally {
      for (const s of subs) s.dispose();
      campaigns.list = list;
    }
    const after = (await locate(a.commitsTree, prep.human))!;
    assert.equal(after.group, before.group, 'the rerun keeps the commit where it was (so nothing else moves)');
    assert.ok(commitsFired.length > 0, 'the Commits view was told');
    for (const n of commitsFired) {
      assert.ok(n !== undefined, `never the whole Commits view (the store said: ${storeChanges.join('; ')})`);
      assert.equal(
        (n as { kind: string; entry?: { commit: string } }).entry?.commit,
        prep.human,
        `only the commit's own node: ${(n as { kind: string }).kind}`,
      );
    }
    assert.strictEqual(after.entry, commitsFired[0], 'the node VS Code was given is the one the view shows');
    const rows = runsFired.filter((n): n is RunNode => (n as { kind?: string })?.kind === 'run');
    assert.ok(rows.length >= 2, `phases redraw the run's own row (${runsFired.map(n => (n as { kind?: string })?.kind ?? 'all').join(', ')})`);
    assert.ok(runsFired.filter(n => n === undefined).length <= 1, 'the whole Runs view is redrawn once at most (when the run first shows)');
    assert.equal(campaignReads, 0, 'no campaign file was read for a run');
  });

  it('a campaign another process advances redraws its own row, reading that campaign alone; the Runs view is never redrawn whole for it', async () => {
    const a = await api();
    const tree = a.runsTreeForTests;
    const items: CampaignItem[] = [1, 2].map(n => ({ n, commit: prep.human, agent: null, role: 'baseline', repeat: n, estimateS: 60, gpus: 1 }));
    const q = await CampaignQueue.create(prep.folder, { items, refusals: [], gpuHours: 0 }, { select: 'rows test', repeats: 2, hosts: ['elsewhere'] });
    const id = q.record.id;
    const dir = path.join(prep.folder, '.bench-triage/campaigns', id);
    try {
      // Another process wrote it: the view learns from the records' watcher and lists it.
      const nodeOf = async () => (await tree.getChildren()).find((n): n is CampaignNode => n.kind === 'campaign' && (n as CampaignNode).view.id === id);
      const node = await until('the new campaign in the Runs view', nodeOf, 20_000);
      assert.match(String(tree.getTreeItem(node).description), /2 queued/);
      const campaigns = (tree as unknown as { campaigns: { list: (...x: unknown[]) => Promise<unknown>; view: (...x: unknown[]) => Promise<unknown> } })
        .campaigns;
      const [list, view] = [campaigns.list, campaigns.view];
      const reads: string[] = [];
      campaigns.list = (...x: unknown[]) => (reads.push('list'), list.apply(campaigns, x));
      campaigns.view = (...x: unknown[]) => (reads.push(`view ${String(x[1])}`), view.apply(campaigns, x));
      const fired: unknown[] = [];
      const sub = tree.onDidChangeTreeData(n => fired.push(n));
      try {
        // Its two runs cancelled on disk, as a CLI's cancel does.
        assert.equal(await q.requestCancel(), 2);
        await until(
          'its row redrawn with the cancel',
          async () => fired.includes(node) && /2 cancelled/.test(String(tree.getTreeItem(node).description)),
          20_000,
        );
      } finally {
        sub.dispose();
        campaigns.list = list;
        campaigns.view = view;
      }
      assert.ok(!fired.includes(undefined), `never the whole view (${fired.map(n => (n as { kind?: string } | undefined)?.kind ?? 'all').join(', ')})`);
      assert.ok(reads.length >= 1 && reads.every(r => r === `view ${id}`), `only this campaign was read: ${reads.join(', ')}`);
      assert.strictEqual(await nodeOf(), node, 'the view still shows the same node, now with the new status');
    } finally {
      rmSync(dir, { recursive: true, force: true });
      tree.refresh();
    }
  });

  it('Cancel from the Runs view removes the container and records cancelled', async () => {
    const a = await api();
    const entry = (await locate(a.commitsTree, prep.human))!;
    const done = vscode.commands.executeCommand(
      'benchTriage.rerun',
      entry.roles.find(r => r.role === 'human'),
      undefined,
      'role',
    );
    const live = await until('a running benchmark', () => a.runs.active().find(r => r.record.phases.some(p => p.name === 'benchmark' && p.launchedAt)));
    const id = live.record.containerId!;
    await vscode.commands.executeCommand('benchTriage.cancelRun', await runNodeOf(a, live.key));
    await done;
    assert.equal(a.runs.list().find(r => RunKeys.equals(r.key, live.key))!.record.status, 'cancelled');
    await assert.rejects(docker().getContainer(id).inspect(), /no such container/i);
    assert.ok(existsSync(path.join(prep.folder, live.record.plan.resultDir, 'logs/benchmark.stdout.log')), 'logs kept');
  });

  it('the Run lenses of the dataset and of the agent patch start real runs; Open log shows the stored file as vllm-log', async () => {
    const a = await api();
    const lensesOf = async (file: string) => {
      await vscode.workspace.openTextDocument(vscode.Uri.file(file));
      return (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', vscode.Uri.file(file), 1000)).filter(l =>
        l.command?.command.startsWith('benchTriage.'),
      );
    };
    const all0 = await lensesOf(path.join(prep.folder, 'dataset.jsonl'));
    assert.equal(all0[0].command!.title, 'Run campaign: 1 commit of this dataset on H100…');
    const ds = all0.slice(1);
    assert.deepEqual(
      ds.map(l => l.command!.title),
      ['Run baseline', 'human', 'agent', '3-way on H100', 'Explain'],
    );
    const n0 = a.runs.list().length;
    const records = await vscode.commands.executeCommand<Array<{ role: string; status: string }>>(ds[0].command!.command, ...ds[0].command!.arguments!);
    assert.deepEqual(
      records.map(r => `${r.role} ${r.status}`),
      ['baseline succeeded'],
    );
    const patch = path.join(prep.folder, 'state/runs/vllm/claude_code/default/2026-11-22_10-00-00/vllm_core-0000/model_patch.diff');
    const pl = await lensesOf(patch);
    assert.deepEqual(
      pl.map(l => l.command!.title),
      ['Compare with human patch', 'Run agent', 'Ablate…', `Open commit ${prep.human.slice(0, 8)}`],
    );
    const agent = await vscode.commands.executeCommand<Array<{ role: string; status: string }>>(pl[1].command!.command, ...pl[1].command!.arguments!);
    assert.deepEqual(
      agent.map(r => `${r.role} ${r.status}`),
      ['agent succeeded'],
    );
    assert.equal(a.runs.list().length, n0 + 2);
    await a.store.rescan();
    const found = (await locate(a.commitsTree, prep.human))!;
    const role = found.roles.find(r => r.role === 'agent')!;
    const editor = await vscode.commands.executeCommand<vscode.TextEditor>('benchTriage.openLog', role);
    const stored = path.join(
      prep.folder,
      role.view.run!.logFiles.find(f => f.endsWith('benchmark.stdout.log'))!,
    );
    assert.equal(editor.document.getText(), readFileSync(stored, 'utf8'));
    assert.equal(editor.document.languageId, 'vllm-log');
  });

  it('the Dashboard shows counts per category and fixability and the verdicts per agent', async () => {
    const a = await api();
    await vscode.commands.executeCommand('benchTriage.dashboard');
    const d = a.webviews.panel('dashboard')!;
    assert.ok(d, 'dashboard open');
    assert.match(d.html, /script-src 'nonce-/);
    assert.equal(d.data.view, 'dashboard');
    if (d.data.view !== 'dashboard') return;
    const p = d.data.projects[0];
    assert.equal(p.totals.commits, 1);
    assert.equal(
      p.byCategory.reduce((n, c) => n + c.count, 0),
      p.totals.entries,
    );
  });

  it('a log above 50 MB opens in full (not through the document API) and Go to First Error finds its line by streaming', async () => {
    const file = path.join(prep.folder, 'big-server.vllm.log');
    const line = 'INFO 11-22 10:00:00 engine.py:267] Avg prompt throughput: 0.0 tokens/s, Running: 1 reqs, padding padding padding padding\n';
    const block = line.repeat(Math.ceil((1 << 20) / line.length));
    const parts: string[] = [];
    for (let mb = 0; mb < 56; mb++) parts.push(mb === 40 ? 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n' + block : block);
    writeFileSync(file, parts.join(''));
    const expected = parts.slice(0, 40).join('').split('\n').length;
    const r = await vscode.commands.executeCommand('benchTriage.openLogFile', vscode.Uri.file(file));
    assert.equal(r, undefined, 'not a TextEditor: VS Code keeps documents above 50 MB from extensions');
    await until('the big log tab', () => vscode.window.tabGroups.all.some(g => g.tabs.some(t => t.label === 'big-server.vllm.log')), 20_000);
    assert.equal(await vscode.commands.executeCommand('benchTriage.goToFirstErrorInFile', vscode.Uri.file(file)), expected);
  });

  it('benchTriage.runEnv naming a variable of the runner or the GPU runtime is a problem naming the entry; the others are kept', async () => {
    const folder = vscode.workspace.workspaceFolders![0];
    const cfg = vscode.workspace.getConfiguration('benchTriage', folder.uri);
    const before = cfg.inspect<unknown[]>('runEnv')?.workspaceFolderValue;
    await cfg.update(
      'runEnv',
      ['BENCH_TRIAGE_FILES=3', { name: 'NVIDIA_VISIBLE_DEVICES', secret: true }, 'MY_FLAG=1'],
      vscode.ConfigurationTarget.WorkspaceFolder,
    );
    try {
      const r = runEnvSetting(folder.uri);
      assert.deepEqual(r.env, { MY_FLAG: '1' });
      assert.deepEqual(r.secretNames, []);
      assert.equal(r.problems.length, 2, r.problems.join('\n'));
      assert.match(r.problems[0], /^benchTriage\.runEnv\[0\]: BENCH_TRIAGE_FILES is reserved: BENCH_TRIAGE_\* variables are the runner's own/);
      assert.match(r.problems[1], /^benchTriage\.runEnv\[1\]\.name: NVIDIA_VISIBLE_DEVICES is reserved: /);
    } finally {
      await cfg.update('runEnv', before, vscode.ConfigurationTarget.WorkspaceFolder);
    }
  });

  it("a swarm host of the settings gets a Runs-view section: expanded, it lists the manager's nodes (role, state, availability, GPUs, runs); a manager that cannot be asked says so", async () => {
    const a = await api();
    const d = docker();
    const folder = vscode.workspace.workspaceFolders![0];
    const cfg = vscode.workspace.getConfiguration('benchTriage', folder.uri);
    const before = cfg.get<unknown[]>('hosts') ?? [];
    await d.swarmInit({ ListenAddr: '0.0.0.0:2377', AdvertiseAddr: '127.0.0.1' });
    try {
      await cfg.update(
        'hosts',
        [
          ...before,
          { label: 'test-swarm', docker: `swarm+${prep.engine}`, gpus: 0 },
          { label: 'gone-swarm', docker: 'swarm+unix:///nonexistent/docker.sock', gpus: 0 },
        ],
        vscode.ConfigurationTarget.WorkspaceFolder,
      );
      type Node = Parameters<typeof a.runsTreeForTests.getTreeItem>[0];
      const section = async (label: string): Promise<Node> => {
        let found: Node | undefined;
        await until(`the ${label} section`, async () => {
          found = (await a.runsTreeForTests.getChildren()).find(n => n.kind === 'swarm' && a.runsTreeForTests.getTreeItem(n).label === label);
          return !!found;
        });
        assert.equal(
          a.runsTreeForTests.getTreeItem(found!).collapsibleState,
          vscode.TreeItemCollapsibleState.Collapsed,
          'collapsed: the manager is asked only when expanded',
        );
        return found!;
      };
      const nodes = await a.runsTreeForTests.getChildren(await section('swarm test-swarm'));
      assert.equal(nodes.length, 1, 'a one-node swarm');
      const item = a.runsTreeForTests.getTreeItem(nodes[0]);
      assert.equal(nodes[0].kind, 'swarmNode');
      // The GPUs the engine advertises, as the swarm itself reports them.
      const [self] = (await d.listNodes()) as Array<{
        Description?: {
          Resources?: { GenericResources?: Array<{ NamedResourceSpec?: { Kind?: string }; DiscreteResourceSpec?: { Kind?: string; Value?: number } }> };
        };
      }>;
      const gpus = (self.Description?.Resources?.GenericResources ?? []).reduce(
        (n, g) =>
          n + (g.NamedResourceSpec?.Kind === 'NVIDIA-GPU' ? 1 : g.DiscreteResourceSpec?.Kind === 'NVIDIA-GPU' ? (g.DiscreteResourceSpec.Value ?? 0) : 0),
        0,
      );
      assert.equal(item.description, `manager (leader) · ready, active · GPUs 0/${gpus} · 0 runs`);
      const gone = await a.runsTreeForTests.getChildren(await section('swarm gone-swarm'));
      assert.equal(gone.length, 1);
      assert.match(String(a.runsTreeForTests.getTreeItem(gone[0]).label), /^the manager cannot be asked: .*nonexistent/);
    } finally {
      await cfg.update('hosts', before, vscode.ConfigurationTarget.WorkspaceFolder);
      await d.swarmLeave({ force: true });
    }
  });
});
