import type { BenchmarkMode, Commit, Role, Run } from '../model';
import { BUILD_SOURCE, ROLES } from '../model';
import type { Classification } from '../classify/engine';
import { category } from '../classify/taxonomy';
import type { CommitConflict } from '../ingest/scan';
import type { PrimaryOverride } from '../metrics';
import { comparability, modeOfRun, runWorkload, sameMeasurement } from './comparability';
import { compareAttempts, type Comparison, type Verdict } from './verdict';

export type { Verdict } from './verdict';

export interface RoleView {
  /** The preferred run: what the tree and the one-line summaries show. */
  run: Run | null;
  /** Every other run of the role. */
  history: Run[];
  /** The successful runs of the role that measured the same thing as the preferred one (the statistics use all of them). */
  attempts: Run[];
  classification: Classification | null;
}

export interface CommitTriage {
  commit: string;
  agent: string | null;
  /** vllm, sglang … (`unknown` when nothing in the data says). */
  project: string;
  subject: string | null;
  prUrl: string | null;
  model: string | null;
  gpuConfig: string | null;
  /** vLLM (or SGLang) version the human run reported, where known. */
  version: string | null;
  mode: BenchmarkMode | null;
  roles: Record<Role, RoleView>;
  /** complete | incomparable | partial | <category id> */
  outcome: string;
  /** The role whose failure decides the outcome, if any. */
  blockingRole: Role | null;
  /** The headline verdict; `n/a` when the roles are not comparable (see `comparison.verdict`). */
  verdict: Verdict;
  comparison: Comparison | null;
  comparability: { ok: boolean; reasons: string[] };
  /** Data conflicts about this commit's identity, each naming the file and field. */
  conflicts: string[];
}

export interface TriageOptions {
  /** ± band in % within which agent and human are a tie (default 2). */
  tieBand?: number;
  commits?: ReadonlyMap<string, Commit>;
  /** The user's headline metric per benchmark mode. */
  primaryMetric?: PrimaryOverride;
  conflicts?: readonly CommitConflict[];
  /** Compare runs whose benchmark had failed requests (off: such a run is a finding, not a measurement). */
  allowFailedRequests?: boolean;
}

/**
 * The fixed request rate both runs were sent at, when the server kept up with it (each run's
 * request throughput within 10 % of the rate): then throughput is the offered load, not a result.
 * Null when the rate is unbounded, differs, or the server fell behind (then throughput tells).
 */
function keptUpRate(h: Run, a: Run): string | null {
  const rate = runWorkload(h).values.request_rate?.value ?? null;
  if (!rate || rate === 'inf' || rate !== (runWorkload(a).values.request_rate?.value ?? null)) return null;
  const r = Number(rate);
  const kept = (x: Run) => (x.metrics.request_throughput_req_s ?? 0) >= 0.9 * r;
  return Number.isFinite(r) && r > 0 && kept(h) && kept(a) ? rate : null;
}

const newest = (a: Run, b: Run) => (b.timestamp ?? '').localeCompare(a.timestamp ?? '');

/**
 * Preferred run of a role: a success first, then the anchor pipeline, then the newest. Image
 * builds are history, except a failed one newer than the role's best failure: the role now stands
 * at "the image for it could not be built".
 */
function prefer(runs: Run[], anchor: string | null): Run | null {
  const measured = runs.filter(r => r.source !== BUILD_SOURCE);
  // A run someone cancelled says nothing about the commit: it is history unless it is all there is.
  // A clean measurement comes before one whose requests partly failed.
  const rank = (r: Run) =>
    (r.status === 'success' ? (r.failedRequests ? 1 : 0) : /^cancel/i.test(r.originalStatus) ? 5 : 3) * 2 + (anchor && r.source === anchor ? 0 : 1);
  const best = measured.length ? [...measured].sort((a, b) => rank(a) - rank(b) || newest(a, b))[0] : null;
  const build = runs.filter(r => r.source === BUILD_SOURCE && r.status === 'failed').sort(newest)[0];
  if (build && (!best || (best.status !== 'success' && (build.timestamp ?? '') > (best.timestamp ?? '')))) return build;
  return best;
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
/**
 * The order of entries: project, commit, agent (no agent first), by code unit — the same in every
 * locale, and cheap enough to keep 10 000 entries sorted on each update.
 */
export const compareEntries = (a: Pick<CommitTriage, 'project' | 'commit' | 'agent'>, b: Pick<CommitTriage, 'project' | 'commit' | 'agent'>): number =>
  cmp(a.project, b.project) || cmp(a.commit, b.commit) || cmp(a.agent ?? '', b.agent ?? '');

/**
 * One entry per (commit, agent): the preferred run of each role, every other attempt as history,
 * the outcome (DESIGN §4), comparability with its reasons, and the agent-vs-human comparison over
 * every comparable attempt (DESIGN §5).
 */
export function triage(runs: readonly Run[], classifications: ReadonlyMap<string, Classification>, opts: TriageOptions = {}): CommitTriage[] {
  const tieBand = opts.tieBand ?? 2;
  const byCommit = new Map<string, Run[]>();
  for (const r of runs) (byCommit.get(r.commit) ?? byCommit.set(r.commit, []).get(r.commit)!).push(r);
  const conflictsOf = new Map<string, string[]>();
  for (const c of opts.conflicts ?? []) (conflictsOf.get(c.resolvedTo) ?? conflictsOf.set(c.resolvedTo, []).get(c.resolvedTo)!).push(c.message);
  const out: CommitTriage[] = [];
  for (const [commit, all] of byCommit) {
    const info = opts.commits?.get(commit) ?? null;
    const shared = all.filter(r => r.role !== 'agent');
    const agents = [...new Set(all.filter(r => r.role === 'agent').map(r => r.agent))];
    for (const agent of agents.length ? agents : [null]) {
      const mine = [...shared, ...all.filter(r => r.role === 'agent' && r.agent === agent)];
      const byRole = Object.fromEntries(ROLES.map(role => [role, mine.filter(r => r.role === role)])) as Record<Role, Run[]>;
      // A pipeline that measured all three roles successfully is preferred for every role.
      const sources = [...new Set(mine.map(r => r.source))];
      const complete = sources.find(s => ROLES.every(role => byRole[role].some(r => r.source === s && r.status === 'success')));
      const agentPick = prefer(byRole.agent, null);
      const anchor = complete ?? agentPick?.source ?? prefer(byRole.human, null)?.source ?? null;
      const roles = Object.fromEntries(
        ROLES.map(role => {
          const run = prefer(byRole[role], anchor);
          // Attempts with failed requests are left out of the statistics (unless allowed), as the client leaves failed requests out of its means.
          const clean = (r: Run) => r === run || opts.allowFailedRequests || !r.failedRequests;
          const attempts =
            run?.status === 'success' ? byRole[role].filter(r => r.status === 'success' && clean(r) && (r === run || sameMeasurement(r, run, info))) : [];
          return [role, { run, history: byRole[role].filter(r => r !== run), attempts, classification: run ? (classifications.get(run.id) ?? null) : null }];
        }),
      ) as Record<Role, RoleView>;
      const blockingRole = ROLES.find(role => roles[role].run && roles[role].run!.status !== 'success') ?? null;
      const allMeasured = ROLES.every(role => roles[role].run?.status === 'success');
      const comp = comparability({ baseline: roles.baseline.run, human: roles.human.run, agent: roles.agent.run }, info, {
        allowFailedRequests: opts.allowFailedRequests,
      });
      const mode =
        (roles.human.run && modeOfRun(roles.human.run, info)) ?? (roles.agent.run && modeOfRun(roles.agent.run, info)) ?? info?.benchmarkMode ?? null;
      let comparison: Comparison | null = null;
      let verdict: Verdict = 'n/a';
      if (roles.human.run?.status === 'success' && roles.agent.run && roles.agent.run.status !== 'success') verdict = 'agent-failed';
      else if (roles.human.run?.status === 'success' && roles.agent.run?.status === 'success') {
        comparison = compareAttempts(
          { baseline: roles.baseline.attempts, human: roles.human.attempts, agent: roles.agent.attempts },
          { tieBand, override: opts.primaryMetric, mode, requestRate: keptUpRate(roles.human.run, roles.agent.run) },
        );
        if (!comparison) comp.reasons.push('human and agent share no metric');
      }
      if (allMeasured && comparison && comparison.baseline === null) comp.reasons.push('no metric was measured by all three roles');
      const ok = comp.reasons.length === 0;
      if (comparison && ok) verdict = comparison.verdict;
      const outcome = blockingRole
        ? (roles[blockingRole].classification?.category ?? 'unclassified')
        : allMeasured
          ? ok && comparison
            ? 'complete'
            : 'incomparable'
          : 'partial';
      const runOf = (role: Role) => roles[role].run;
      out.push({
        commit,
        agent,
        project: info?.project ?? mine.find(r => r.project)?.project ?? 'unknown',
        subject: info?.subject ?? null,
        prUrl: info?.prUrl ?? null,
        model: info?.models[0] ?? mine.find(r => r.model)?.model ?? null,
        gpuConfig: runOf('human')?.gpuConfig ?? info?.gpuConfig ?? mine.find(r => r.gpuConfig)?.gpuConfig ?? null,
        version: runOf('human')?.version ?? null,
        mode,
        roles,
        outcome,
        blockingRole,
        verdict,
        comparison,
        comparability: { ok, reasons: comp.reasons },
        conflicts: conflictsOf.get(commit) ?? [],
      });
    }
  }
  return out.sort(compareEntries);
}

export interface VerdictCounts {
  win: number;
  tie: number;
  loss: number;
  unknown: number;
  'agent-failed': number;
  'n/a': number;
  mixed: number;
}
const zero = (): VerdictCounts => ({ win: 0, tie: 0, loss: 0, unknown: 0, 'agent-failed': 0, 'n/a': 0, mixed: 0 });

export interface Aggregates {
  byOutcome: Record<string, number>;
  byFixability: Record<string, number>;
  /** Headline verdicts per agent, plus mixed commits. */
  byAgent: Record<string, VerdictCounts>;
  /** Headline verdicts per headline metric. */
  byMetric: Record<string, VerdictCounts>;
  /** Entries left out of the verdict counts because their roles are not comparable. */
  leftOut: number;
}

/** Counts for one project's entries; incomparable entries only when asked for. */
export function aggregate(entries: readonly CommitTriage[], includeIncomparable = false): Aggregates {
  const byOutcome: Record<string, number> = {},
    byFixability: Record<string, number> = {};
  const byAgent: Record<string, VerdictCounts> = {},
    byMetric: Record<string, VerdictCounts> = {};
  let leftOut = 0;
  for (const e of entries) {
    byOutcome[e.outcome] = (byOutcome[e.outcome] ?? 0) + 1;
    if (e.blockingRole) {
      const f = e.roles[e.blockingRole].classification?.fixability ?? category(e.outcome).fixability;
      byFixability[f] = (byFixability[f] ?? 0) + 1;
    }
    const incomparable = !!e.comparison && !e.comparability.ok;
    if (incomparable && !includeIncomparable) {
      leftOut++;
      continue;
    }
    const v: Verdict = incomparable ? e.comparison!.verdict : e.verdict;
    const a = (byAgent[e.agent ?? '(none)'] ??= zero());
    a[v]++;
    if (e.comparison?.mixed) a.mixed++;
    if (e.comparison && v !== 'n/a') {
      const m = (byMetric[e.comparison.metric] ??= zero());
      m[v]++;
      if (e.comparison.mixed) m.mixed++;
    }
  }
  return { byOutcome, byFixability, byAgent, byMetric, leftOut };
}

/** Entries by project, in a stable order. */
export function byProject<T extends { project: string }>(entries: readonly T[]): Array<[string, T[]]> {
  const m = new Map<string, T[]>();
  for (const e of entries) (m.get(e.project) ?? m.set(e.project, []).get(e.project)!).push(e);
  return [...m].sort(([a], [b]) => a.localeCompare(b));
}
