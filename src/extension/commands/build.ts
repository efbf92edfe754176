import * as path from 'node:path';
import * as vscode from 'vscode';
import { ROLES, type Role } from '../../core/model';
import type { CommitTriage } from '../../core/compare';
import { refusalLines, rolesToBuild } from '../../core/campaign/plan';
import { BuildPlanError, type BuildRole } from '../../core/run/buildPlan';
import type { BuildRecord } from '../../core/run/records';
import type { HostConfig } from '../../core/run/hosts';
import type { BuildService } from '../buildService';
import type { CampaignService } from '../campaignService';
import { openBuildLog } from '../evidence';
import { TrustError } from '../runService';
import type { FolderScan, Store } from '../store';
import { GroupNode } from '../tree/commitNodes';
import { BuildNode } from '../tree/runsTree';
import { pickCommitFirst, register, targetOf } from './args';
import { COMMANDS } from './ids';
import { pickHost } from './run';

const took = (s: number | null) =>
  s === null
    ? ''
    : s < 60
      ? `${Math.round(s)} s`
      : s < 3600
        ? `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`
        : `${Math.floor(s / 3600)} h ${Math.round((s % 3600) / 60)} min`;

/** The roles a rerun after a build covers: every role of the entry that has not succeeded (agent only with a patch). */
function rolesToRerun(e: CommitTriage): Role[] {
  return ROLES.filter(r => e.roles[r].run?.status !== 'success' && (r !== 'agent' || e.roles.agent.run));
}

function report(e: unknown): void {
  if (e instanceof TrustError) {
    void vscode.window.showWarningMessage(e.message, 'Manage Workspace Trust').then(a => a && vscode.commands.executeCommand('workbench.trust.manage'));
    return;
  }
  void vscode.window.showErrorMessage(`Bench Triage: ${e instanceof BuildPlanError ? 'refused: ' : ''}${e instanceof Error ? e.message : String(e)}`);
}

/** Build Image on H100… (a commit or a role), Build Images for Group…, Cancel Build, Open Build Log. */
export function registerBuildCommands(
  context: vscode.ExtensionContext,
  store: Store,
  builds: BuildService,
  campaigns: CampaignService,
  focusRuns: () => void,
): void {
  /** Builds one image with progress by step (cancellable); the live log opens as soon as the build exists. */
  const buildOne = async (folder: FolderScan, commit: string, role: BuildRole, host: HostConfig, rebuild: boolean, follow: boolean) => {
    let opened = false;
    return vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Building the ${role} image of ${commit.slice(0, 8)} on ${host.label}`, cancellable: true },
      async (progress, token) => {
        const ctl = new AbortController();
        token.onCancellationRequested(() => ctl.abort());
        let lastStep = 0;
        const sub = builds.onDidChange(b => {
          if (!b || b.record.commit !== commit || b.record.role !== role || b.folder !== folder.root.fsPath) return;
          if (follow && !opened) {
            opened = true;
            void openBuildLog(path.join(b.dir, 'build.log'));
          }
          const s = b.record.step;
          if (s && s.n !== lastStep) {
            progress.report({ message: `Step ${s.n}/${s.total} : ${s.text.slice(0, 80)}`, increment: ((s.n - lastStep) / s.total) * 100 });
            lastStep = s.n;
          } else if (!s) progress.report({ message: b.record.status });
        });
        try {
          return await builds.start(folder, commit, role, host, rebuild, ctl.signal);
        } finally {
          sub.dispose();
        }
      },
    );
  };

  /** The end of a build said once: built (with Rerun), reused, failed (with the log), cancelled. */
  const announce = async (folder: FolderScan, entry: CommitTriage | null, records: BuildRecord[]) => {
    const ok = records.filter(r => r.status === 'succeeded' || r.status === 'reused');
    const bad = records.filter(r => r.status === 'failed' || r.status === 'interrupted');
    if (bad.length) {
      const r = bad[0];
      const a = await vscode.window.showErrorMessage(`Bench Triage: building ${r.tag} failed: ${(r.error ?? '').slice(0, 300)}`, 'Open Build Log');
      if (a) await openBuildLog(path.join(folder.root.fsPath, '.bench-triage/builds', r.commit.slice(0, 12), r.buildId, 'build.log'));
      return;
    }
    if (!ok.length) return;
    const what = ok.map(r => `${r.tag} ${r.status === 'reused' ? '(already on the host, reused)' : `built in ${took(r.durationS)}`}`).join('; ');
    const roles = entry ? rolesToRerun(store.entry(folder.keyOf(entry))?.entry ?? entry) : [];
    const rerun = roles.length ? `Rerun ${roles.join(', ')}` : null;
    const a = await vscode.window.showInformationMessage(`Bench Triage: ${what}.`, ...(rerun ? [rerun] : []));
    if (a && a === rerun && entry) await vscode.commands.executeCommand(COMMANDS.rerun, { commit: entry.commit, agent: entry.agent }, roles);
  };

  register(context, COMMANDS.buildImage, async (arg?: unknown) => {
    await store.ensureScanned();
    const t = targetOf(store, arg);
    if (!t?.entry) return pickCommitFirst();
    const roles = rolesToBuild(t.entry, t.roles.length === 1 ? t.roles : undefined);
    if (!roles.length) roles.push('baseline');
    const host = await pickHost(t.folder.root, 'Build on which host?');
    if (!host) return;
    // Refusals before anything reaches the host; the roles that can be built still are.
    const plans = [];
    const refused: string[] = [];
    for (const role of roles)
      try {
        plans.push(builds.plan(t.folder, t.commit, role, host).plan);
      } catch (e) {
        if (!(e instanceof BuildPlanError)) throw e;
        refused.push(`${role}: ${e.message}`);
      }
    if (!plans.length) return report(new BuildPlanError(refused.join('; ')));
    if (refused.length) void vscode.window.showWarningMessage(`Bench Triage: not built: ${refused.join('; ')}`);
    roles.splice(0, roles.length, ...plans.map(p => p.role));
    const pick = await vscode.window.showQuickPick(
      [
        {
          label: `$(tools) Build ${plans.map(p => p.tag).join(', ')}`,
          detail: `FROM ${plans.map(p => p.base).join(', ')}: git archive of ${plans.map(p => p.source.slice(0, 12)).join(', ')}; an image ${host.label} has already is reused`,
          rebuild: false,
        },
        { label: `$(refresh) Rebuild, even if ${host.label} has the image`, detail: 'the image is built again and the tag moves to it', rebuild: true },
      ],
      { title: `Build the ${roles.join(' and ')} image of ${t.commit.slice(0, 8)} on ${host.label}` },
    );
    if (!pick) return;
    focusRuns();
    const records: BuildRecord[] = [];
    try {
      for (const role of roles) records.push(await buildOne(t.folder, t.commit, role, host, pick.rebuild, records.length === 0));
    } catch (e) {
      report(e);
      return records;
    }
    void announce(t.folder, t.entry, records);
    return records;
  });

  register(context, COMMANDS.buildImagesForGroup, async (arg?: unknown) => {
    if (!(arg instanceof GroupNode) || !arg.entries.length) {
      void vscode.window.showInformationMessage('Bench Triage: right-click a group in the Commits view to build the images its commits need.');
      return;
    }
    await store.ensureScanned();
    const folder = arg.entries[0].folder;
    const host = await pickHost(folder.root, 'Build on which host?');
    if (!host) return;
    // One build per image (commits that share a parent share their baseline image), through the
    // durable campaign queue: a reload or a crash loses none, Resume picks them up.
    const plan = campaigns.planBuilds(
      folder,
      arg.entries.filter(x => x.folder === folder).map(x => x.entry),
      host,
    );
    const refused = refusalLines(plan.refusals);
    if (!plan.items.length) {
      void vscode.window.showWarningMessage(`Bench Triage: no image in “${arg.title}” can be built.`, { modal: true, detail: refused.slice(0, 12).join('\n') });
      return;
    }
    const tags = plan.items.map(i => builds.plan(folder, i.commit, i.role, host).plan.tag);
    const n = plan.items.length;
    const detail = [
      `${n} image${n === 1 ? '' : 's'}, one at a time on ${host.label} (an image the host has is reused), about ${took(plan.items.reduce((s, i) => s + i.estimateS, 0))}:`,
      ...tags.slice(0, 12),
      ...(n > 12 ? [`… ${n - 12} more`] : []),
      ...(refused.length ? [`Refused (${refused.length}):`, ...refused.slice(0, 8)] : []),
      'A campaign on disk: the Runs view shows its progress; Resume Campaign picks it up after a reload.',
    ].join('\n');
    if ((await vscode.window.showInformationMessage(`Build the images of “${arg.title}”?`, { modal: true, detail }, 'Build Images')) !== 'Build Images') return;
    focusRuns();
    let s;
    try {
      s = await campaigns.start(folder, plan, `images of “${arg.title}”`, 1, [host], false);
    } catch (e) {
      report(e);
      return;
    }
    // The next step is the rerun of the group's commits on the images now there.
    const tail = `${s.done} of ${s.total} images of “${arg.title}” ready${s.failed ? `; ${s.failed} failed (see the Runs view)` : ''}${s.cancelled ? `; ${s.cancelled} cancelled` : ''}`;
    const rerun = s.done ? 'Rerun Group on H100…' : undefined;
    const show = s.failed || s.cancelled ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
    void show(`Bench Triage: ${tail}.`, ...(rerun ? [rerun] : [])).then(a => a && vscode.commands.executeCommand(COMMANDS.runGroup, arg));
    return s;
  });

  register(context, COMMANDS.cancelBuild, (arg?: unknown) => {
    if (!(arg instanceof BuildNode)) {
      void vscode.window.showInformationMessage('Bench Triage: Cancel Build works on a build in the Runs view.');
      return;
    }
    if (!builds.cancel(arg.build)) void vscode.window.showInformationMessage(`Bench Triage: that build is not running in this window.`);
  });

  register(context, COMMANDS.openBuildLog, (arg?: unknown) => {
    if (!(arg instanceof BuildNode)) {
      void vscode.window.showInformationMessage('Bench Triage: Open Build Log works on a build in the Runs view.');
      return;
    }
    return openBuildLog(path.join(arg.build.dir, 'build.log'));
  });
}
