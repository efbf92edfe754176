import * as vscode from 'vscode';
import type { Store } from './store';
import { COMMANDS } from './commands/ids';
import { codeLensEnabled } from './settings';
import { ablationResults, ablationsOf } from '../app/ablationCampaign';
import { hunkLines } from '../core/ablate/units';
import { effectText } from '../core/ablate/report';

const COMMIT_KEY = /"(?:commit_hash|human_commit_full|human_commit|commit|full_commit)"\s*:\s*"([0-9a-f]{7,40})"/;
const PERF_KEY = /"perf_command"\s*:\s*"(?!")/;
const MD_COMMAND = /(?:python3?\s+(?:\S*\/)?benchmarks\/benchmark_\w+\.py|vllm bench (?:serve|throughput|latency))/;
const HEX = /\b([0-9a-f]{8,40})\b/;

/** Documents that get lenses: datasets, result JSON and Markdown reports; agent patch files. Nothing else. */
export const CODELENS_SELECTOR: vscode.DocumentSelector = [
  { scheme: 'file', pattern: '**/*.jsonl' },
  { scheme: 'file', language: 'json' },
  { scheme: 'file', language: 'jsonl' },
  { scheme: 'file', language: 'markdown' },
  { scheme: 'file', pattern: '**/*.{diff,patch}' },
];

/**
 * *Run baseline | human | agent | 3-way on H100* and *Explain* on every perf command; *Compare with
 * human patch*, *Run agent*, *Open commit* on agent patch files.
 */
export class PerfCodeLens implements vscode.CodeLensProvider {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;

  constructor(private readonly store: Store) {
    // The lenses name commits the folder knows: a change within known commits moves none of them.
    store.onDidChange(c => {
      if (c.kind !== 'commits') this.changed.fire();
    });
  }

  dispose(): void {
    this.changed.dispose();
  }

  private resolve(prefix: string): string {
    const hits = new Set(this.store.scans.flatMap(s => s.result.commits.filter(c => c.hash.startsWith(prefix)).map(c => c.hash)));
    return hits.size === 1 ? [...hits][0] : prefix;
  }

  async provideCodeLenses(doc: vscode.TextDocument): Promise<vscode.CodeLens[]> {
    if (!codeLensEnabled(doc.uri)) return [];
    const name = doc.uri.path.slice(doc.uri.path.lastIndexOf('/') + 1);
    if (/\.(diff|patch)$/.test(name)) return this.patchLenses(doc);
    const md = doc.languageId === 'markdown';
    const lenses: vscode.CodeLens[] = [];
    let lastCommit: string | null = null;
    for (let i = 0; i < doc.lineCount; i++) {
      const text = doc.lineAt(i).text;
      if (md) {
        const h = /^#{1,6}\s/.test(text) || /^\|/.test(text) ? HEX.exec(text) : null;
        if (h) lastCommit = h[1];
      }
      const isCommand = md ? MD_COMMAND.test(text) : PERF_KEY.test(text);
      if (!isCommand) continue;
      let commit = (COMMIT_KEY.exec(text) ?? (md ? HEX.exec(text) : null))?.[1] ?? null;
      // Pretty-printed JSON: the commit key is a sibling a few lines away.
      for (let d = 1; !commit && !md && d <= 40; d++)
        commit = COMMIT_KEY.exec(doc.lineAt(Math.max(0, i - d)).text)?.[1] ?? COMMIT_KEY.exec(doc.lineAt(Math.min(doc.lineCount - 1, i + d)).text)?.[1] ?? null;
      commit ??= lastCommit;
      if (!commit) continue;
      if (this.store.scanned) commit = this.resolve(commit);
      const range = new vscode.Range(i, 0, i, 0);
      const run = (title: string, roles: string[] | 'all') =>
        new vscode.CodeLens(range, {
          title,
          command: COMMANDS.runCommit,
          arguments: [commit, roles],
          tooltip: `Run on the configured Docker host (${commit!.slice(0, 12)})`,
        });
      lenses.push(
        run('Run baseline', ['baseline']),
        run('human', ['human']),
        run('agent', ['agent']),
        run('3-way on H100', 'all'),
        new vscode.CodeLens(range, {
          title: 'Explain',
          command: COMMANDS.explainPlan,
          arguments: [commit],
          tooltip: 'What the run will do: images, server, benchmark, metrics',
        }),
      );
    }
    return md ? lenses : [...this.campaignLens(doc, lenses), ...lenses];
  }

  /** *Run campaign* at the top of a dataset file: every (known) commit it states a perf command for. */
  private campaignLens(doc: vscode.TextDocument, lenses: vscode.CodeLens[]): vscode.CodeLens[] {
    const commits = [...new Set(lenses.filter(l => l.command?.command === COMMANDS.runCommit).map(l => String(l.command!.arguments![0])))].filter(c =>
      /^[0-9a-f]{40}$/.test(c),
    );
    if (!commits.length) return [];
    return [
      new vscode.CodeLens(new vscode.Range(0, 0, 0, 0), {
        title: `Run campaign: ${commits.length} commit${commits.length === 1 ? '' : 's'} of this dataset on H100…`,
        command: COMMANDS.runCampaign,
        arguments: [doc.uri, commits],
        tooltip: 'Every role of every commit this file states a perf command for, planned first (GPU-hours, refusals), through the durable campaign queue',
      }),
    ];
  }

  /** After an ablation of this patch: each unit's measured effect above its first hunk (the newest ablation's figures). */
  private async unitLenses(doc: vscode.TextDocument, root: string, commit: string, source: string): Promise<vscode.CodeLens[]> {
    const [id] = await ablationsOf(root, commit, source).catch(() => []);
    if (!id) return [];
    const r = await ablationResults(root, id).catch(() => null);
    if (!r) return [];
    const at = new Map(hunkLines(doc.getText()).map(h => [`${h.file}:${h.hunk}`, h.line]));
    const effects = new Map(r.attribution?.units.map(u => [u.unit, u]) ?? []);
    const out: vscode.CodeLens[] = [];
    for (const u of r.record.units) {
      const line = at.get(`${u.parts[0]?.file}:${u.parts[0]?.hunk}`);
      if (line === undefined) continue;
      const e = effects.get(u.id);
      const parts = [
        e?.removal ? `removed: ${effectText(e.removal)}` : '',
        e?.alone ? `alone: ${effectText(e.alone)}` : '',
        !e?.removal && !e?.alone && r.record.units.length === 1 && r.attribution?.full ? `the whole patch: ${effectText(r.attribution.full)}` : '',
      ].filter(Boolean);
      const title = `${u.id}: ${parts.length ? parts.join(' · ') : r.pending ? 'measuring…' : 'not measured'}${r.attribution ? ` (${r.attribution.metric})` : ''}`;
      // A lens with no command is a label; the figures are the report's (ablate report, or the document the command opened).
      out.push(new vscode.CodeLens(new vscode.Range(line, 0, line, 0), { title, command: '', tooltip: `ablation ${id}: ${u.label}` }));
    }
    return out;
  }

  private async patchLenses(doc: vscode.TextDocument): Promise<vscode.CodeLens[]> {
    await this.store.ensureScanned();
    for (const s of this.store.scans) {
      const rel = vscode.workspace.asRelativePath(doc.uri, false);
      const relToRoot = doc.uri.fsPath.startsWith(s.root.fsPath + '/') ? doc.uri.fsPath.slice(s.root.fsPath.length + 1) : rel;
      const ar = s.result.agentRuns.find(r => r.patch?.path === relToRoot);
      if (!ar?.commit) continue;
      const range = new vscode.Range(0, 0, 0, 0);
      return [
        new vscode.CodeLens(range, { title: 'Compare with human patch', command: COMMANDS.diffAgentVsHuman, arguments: [ar.commit] }),
        new vscode.CodeLens(range, { title: 'Run agent', command: COMMANDS.runCommit, arguments: [ar.commit, ['agent']] }),
        new vscode.CodeLens(range, {
          title: 'Ablate…',
          command: COMMANDS.ablatePatch,
          arguments: [{ commit: ar.commit, agent: ar.agent }],
          tooltip: 'Which hunks carry the speed-up: leave-one-out, each alone, or the smallest subset that keeps it',
        }),
        new vscode.CodeLens(range, { title: `Open commit ${ar.commit.slice(0, 8)}`, command: COMMANDS.filter, arguments: [ar.commit.slice(0, 8)] }),
        ...(s.root.scheme === 'file' ? await this.unitLenses(doc, s.root.fsPath, ar.commit, relToRoot) : []),
      ];
    }
    return [];
  }
}
