import { dict } from '../model';
import type { BenchmarkMode, Commit, Role, Run } from '../model';
import { BUILD_SOURCE, ROLES } from '../model';
import type { Classification } from '../classify/engine';
import { category } from '../classify/taxonomy';
import type { CommitConflict } from '../ingest/scan';
import type { PrimaryOverride } from '../metrics';
import { comparability, effectiveModel, modeOfRun, pipelineOf, runWorkload, sameMeasurement } from './comparability';
import { compareAttempts, wantsMoreRuns, type Comparison, type Verdict } from './verdict';

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
  /** The model of each role's compared run (where they differ, `model` names each). */
  models: Record<Role, string | null>;
  /** Agent vs human: `n/a` when those two are not comparable (then no verdict anywhere, see `pair`). */
  verdict: Verdict;
  comparison: Comparison | null;
  /** The 3-way comparability: all three roles measured the same thing (the baseline columns count only then). */
  comparability: { ok: boolean; reasons: string[]; notes?: string[] };
  /** Agent vs human alone: the question asked first, answered whenever these two are comparable. */
  pair: { ok: boolean; reasons: string[] };
  /** Why the baseline cannot be used although human and agent are comparable (null when it can, or there is none). */
  baselineNote: string | null;
  /** Which attempts were compared when several pipelines or workloads measured the commit, and why not the others. */
  chosen: { why: string; rejected: string[] } | null;
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

/** The model shown for an entry: the one its compared runs ran, or each role's where they differ; the dataset's only when no run says. */
function modelShown(models: Record<Role, string | null>, info: Commit | null): string | null {
  const named = ROLES.filter(r => models[r]);
  const distinct = [...new Set(named.map(r => models[r]))];
  if (distinct.length === 1) return distinct[0];
  if (distinct.length > 1) return named.map(r => `${r} ${models[r]}`).join(' · ');
  return info?.models[0] ?? null;
}

/** Strips the verdicts of a comparison whose roles are not comparable: the numbers stay, no win, loss or tie anywhere. */
function withoutVerdicts(c: Comparison): void {
  c.verdict = 'n/a';
  c.mixed = false;
  for (const m of c.metrics) m.verdict = 'n/a';
}

interface ChosenAttempts {
  human: Run[];
  agent: Run[];
  /** The baseline's attempts of the same measurement, newest first (empty when it has none). */
  baseline: Run[];
  why: string;
  rejected: string[];
}

/** Successful runs of a role grouped by what they measured (pipeline, model, workload), newest first in each group. */
function measurements(runs: readonly Run[], info: Commit | null, allowFailed: boolean): Run[][] {
  const groups: Run[][] = [];
  for (const r of [...runs].filter(x => x.status === 'success' && x.source !== BUILD_SOURCE).sort(newest)) {
    const g = groups.find(x => sameMeasurement(x[0], r, info));
    if (g) g.push(r);
    else groups.push([r]);
  }
  // A group's clean attempts first (its newest clean run stands for it).
  for (const g of groups) g.sort((a, b) => Number(!allowFailed && !!a.failedRequests) - Number(!allowFailed && !!b.failedRequests) || newest(a, b));
  return groups;
}

/**
 * When human and agent were measured more than one way (several pipelines, workloads or models),
 * the pair of measurements that is comparable, with the most repeats, then the newest; and the
 * baseline's measurement that goes with it. Null when there is only one way (nothing to choose).
 */
function chooseAttempts(byRole: Record<Role, Run[]>, info: Commit | null, opts: TriageOptions): ChosenAttempts | null {
  const allow = !!opts.allowFailedRequests;
  const hs = measurements(byRole.human, info, allow),
    as = measurements(byRole.agent, info, allow);
  if (!hs.length || !as.length || hs.length * as.length === 1) {
    if (hs.length === 1 && as.length === 1) {
      const bs = measurements(byRole.baseline, info, allow);
      const b = bs.find(g => comparability({ baseline: g[0], human: hs[0][0], agent: as[0][0] }, info, { allowFailedRequests: allow }).ok);
      if (b && bs.length > 1)
        return { human: hs[0], agent: as[0], baseline: b, why: `the baseline attempts measured like human and agent (${pipelineOf(b[0])})`, rejected: [] };
    }
    return null;
  }
  const label = (g: Run[]) => `${pipelineOf(g[0])}${g[0].model ? `, ${effectiveModel(g[0])}` : ''} (${g.length} attempt${g.length === 1 ? '' : 's'})`;
  const pairs = hs.flatMap(h => as.map(a => ({ h, a, comp: comparability({ human: h[0], agent: a[0] }, info, { allowFailedRequests: allow }) })));
  const ts = (g: Run[]) => g[0].timestamp ?? '';
  pairs.sort(
    (x, y) =>
      Number(y.comp.ok) - Number(x.comp.ok) ||
      Math.min(y.h.length, y.a.length) - Math.min(x.h.length, x.a.length) ||
      (ts(y.h) > ts(y.a) ? ts(y.h) : ts(y.a)).localeCompare(ts(x.h) > ts(x.a) ? ts(x.h) : ts(x.a)),
  );
  const best = pairs[0];
  const bs = measurements(byRole.baseline, info, allow);
  const baseline = bs.find(g => comparability({ baseline: g[0], human: best.h[0], agent: best.a[0] }, info, { allowFailedRequests: allow }).ok) ?? [];
  const why = best.comp.ok
    ? `human ${label(best.h)} and agent ${label(best.a)}: comparable${pairs.length > 1 ? ', with the most repeats, then the newest' : ''}`
    : `no human/agent measurements are comparable; the ones with the most repeats, then the newest: human ${label(best.h)}, agent ${label(best.a)}`;
  const rejected = pairs
    .slice(1)
    .filter(p => p.h !== best.h || p.a !== best.a)
    .slice(0, 5)
    .map(p =>
      p.comp.ok
        ? `human ${label(p.h)} with agent ${label(p.a)}: comparable, fewer repeats or older`
        : `human ${label(p.h)} with agent ${label(p.a)}: ${p.comp.reasons.slice(0, 2).join('; ')}`,
    );
  return { human: best.h, agent: best.a, baseline, why, rejected };
}

/** Labels that name an attempt rather than a configuration (vLLM's `run_number` counts `--num-runs`). */
const ATTEMPT_LABELS = new Set(['run_number']);

/**
 * Labels a file carries (vLLM `--metadata` and `--label`, SGLang `--tag`, GuideLLM and AIPerf
 * labels) that differ among the attempts pooled for one role: free text whose meaning the tool
 * cannot know (`tp=2` and `tp=4` pooled would not be repeats), so a note, never a reason.
 */
export function pooledLabelCautions(roles: Record<Role, Pick<RoleView, 'attempts'>>): string[] {
  const out: string[] = [];
  for (const role of ROLES) {
    const runs = roles[role].attempts;
    if (runs.length < 2) continue;
    const keys = [...new Set(runs.flatMap(r => Object.keys(r.labels ?? {})))].filter(k => !ATTEMPT_LABELS.has(k)).sort();
    const differing: string[] = [];
    for (const k of keys) {
      const counts = new Map<string, number>();
      for (const r of runs) {
        const v = r.labels?.[k] ?? '(none)';
        counts.set(v, (counts.get(v) ?? 0) + 1);
      }
      if (counts.size < 2) continue;
      const shown = [...counts].slice(0, 4).map(([v, n]) => `${v.length > 40 ? `${v.slice(0, 39)}…` : v} (${n})`);
      differing.push(`${k} = ${shown.join(', ')}${counts.size > 4 ? `, and ${counts.size - 4} more` : ''}`);
    }
    if (differing.length)
      out.push(
        `${role}'s ${runs.length} pooled attempts carry different labels: ${differing.slice(0, 3).join('; ')}${differing.length > 3 ? `; and ${differing.length - 3} more` : ''} (are they repeats of one configuration?)`,
      );
  }
  return out;
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
 * the outcome (core/classify/taxonomy.ts), comparability with its reasons, and the agent-vs-human comparison over
 * every comparable attempt (README: How verdicts are made).
 */
export function triage(runs: readonly Run[], classifications: ReadonlyMap<string, Classification>, opts: TriageOptions = {}): CommitTriage[] {
  const steps = triageSteps(runs, classifications, opts);
  for (;;) {
    const s = steps.next();
    if (s.done) return s.value;
  }
}

/**
 * The same entries, giving the thread back between commits whenever `pause` asks (a cold load of
 * 10 000 standalone results spends seconds in per-request bootstraps: a UI thread held that long
 * hears no cancel), and stopping with the signal's reason once it is aborted.
 */
export async function triageYielding(
  runs: readonly Run[],
  classifications: ReadonlyMap<string, Classification>,
  opts: TriageOptions,
  pause: () => Promise<void> | undefined,
  signal?: AbortSignal,
  onProgress?: (done: number, total: number) => void,
): Promise<CommitTriage[]> {
  const steps = triageSteps(runs, classifications, opts);
  for (;;) {
    const s = steps.next();
    if (s.done) return s.value;
    const wait = pause();
    if (!wait) continue;
    onProgress?.(s.value.done, s.value.total);
    await wait;
    if (signal?.aborted) throw signal.reason ?? new Error('cancelled');
  }
}

/** Triage, one commit a step (each step says how many commits are done, of how many). */
function* triageSteps(
  runs: readonly Run[],
  classifications: ReadonlyMap<string, Classification>,
  opts: TriageOptions,
): Generator<{ done: number; total: number }, CommitTriage[], void> {
  const tieBand = opts.tieBand ?? 2;
  const byCommit = new Map<string, Run[]>();
  for (const r of runs) (byCommit.get(r.commit) ?? byCommit.set(r.commit, []).get(r.commit)!).push(r);
  const conflictsOf = new Map<string, string[]>();
  for (const c of opts.conflicts ?? []) (conflictsOf.get(c.resolvedTo) ?? conflictsOf.set(c.resolvedTo, []).get(c.resolvedTo)!).push(c.message);
  const out: CommitTriage[] = [];
  let commitsDone = 0;
  for (const [commit, all] of byCommit) {
    const info = opts.commits?.get(commit) ?? null;
    const shared = all.filter(r => r.role !== 'agent');
    const agents = [...new Set(all.filter(r => r.role === 'agent').map(r => r.agent))];
    for (const agent of agents.length ? agents : [null]) {
      const mine = [...shared, ...all.filter(r => r.role === 'agent' && r.agent === agent)];
      const byRole = Object.fromEntries(ROLES.map(role => [role, mine.filter(r => r.role === role)])) as Record<Role, Run[]>;
      // Attempts with failed requests are left out of the statistics (unless allowed), as the client leaves failed requests out of its means.
      const clean = (r: Run) => opts.allowFailedRequests || !r.failedRequests;
      // Among the human/agent measurements (pipelines, workloads, models), the comparable set with the most repeats, then the newest.
      const chosen = chooseAttempts(byRole, info, opts);
      const sources = [...new Set(mine.map(r => r.source))];
      const complete = sources.find(s => ROLES.every(role => byRole[role].some(r => r.source === s && r.status === 'success')));
      const agentPick = prefer(byRole.agent, null);
      const anchor = chosen?.human[0].source ?? complete ?? agentPick?.source ?? prefer(byRole.human, null)?.source ?? null;
      const roles = Object.fromEntries(
        ROLES.map(role => {
          const set = chosen ? (role === 'human' ? chosen.human : role === 'agent' ? chosen.agent : chosen.baseline) : null;
          const run = set?.[0] ?? prefer(byRole[role], anchor);
          const attempts =
            run?.status === 'success'
              ? (set ?? byRole[role].filter(r => r.status === 'success' && (r === run || (clean(r) && sameMeasurement(r, run, info))))).filter(
                  r => r === run || clean(r),
                )
              : [];
          return [role, { run, history: byRole[role].filter(r => r !== run), attempts, classification: run ? (classifications.get(run.id) ?? null) : null }];
        }),
      ) as Record<Role, RoleView>;
      const blockingRole = ROLES.find(role => roles[role].run && roles[role].run!.status !== 'success') ?? null;
      const cautions = pooledLabelCautions(roles);
      const allMeasured = ROLES.every(role => roles[role].run?.status === 'success');
      const copts = { allowFailedRequests: opts.allowFailedRequests };
      const comp = comparability({ baseline: roles.baseline.run, human: roles.human.run, agent: roles.agent.run }, info, copts);
      comp.notes.push(...cautions);
      const bothMeasured = roles.human.run?.status === 'success' && roles.agent.run?.status === 'success';
      const pair = bothMeasured ? comparability({ human: roles.human.run, agent: roles.agent.run }, info, copts) : { ok: false, reasons: [] as string[] };
      const mode =
        (roles.human.run && modeOfRun(roles.human.run, info)) ?? (roles.agent.run && modeOfRun(roles.agent.run, info)) ?? info?.benchmarkMode ?? null;
      // The baseline counts only when all three measured the same thing; human vs agent is answered regardless.
      const baselineUsable = roles.baseline.run?.status === 'success' && comp.ok;
      let comparison: Comparison | null = null;
      let verdict: Verdict = 'n/a';
      if (roles.human.run?.status === 'success' && roles.agent.run && roles.agent.run.status !== 'success') verdict = 'agent-failed';
      else if (bothMeasured) {
        comparison = compareAttempts(
          { baseline: baselineUsable ? roles.baseline.attempts : [], human: roles.human.attempts, agent: roles.agent.attempts },
          { tieBand, override: opts.primaryMetric, mode, requestRate: keptUpRate(roles.human.run!, roles.agent.run!) },
        );
        if (!comparison) {
          pair.reasons.push(noSharedMetric(roles.human.run!, roles.agent.run!));
          pair.ok = false;
        }
      }
      // The 3-way reasons already name every difference between any roles; only a finding of the pair alone is added.
      if (!comparison && bothMeasured) comp.reasons.push(noSharedMetric(roles.human.run!, roles.agent.run!));
      if (allMeasured && comparison && baselineUsable && comparison.baseline === null) comp.reasons.push('no metric was measured by all three roles');
      const ok = comp.reasons.length === 0;
      if (comparison && pair.ok) verdict = comparison.verdict;
      // Incomparable means no verdict anywhere: the numbers stay, marked.
      if (comparison && !pair.ok) withoutVerdicts(comparison);
      const outcome = blockingRole
        ? (roles[blockingRole].classification?.category ?? 'unclassified')
        : allMeasured
          ? ok && comparison
            ? 'complete'
            : pair.ok
              ? 'agent-vs-human'
              : 'incomparable'
          : 'partial';
      const baselineNote =
        pair.ok && roles.baseline.run?.status === 'success' && !ok ? comp.reasons.filter(r => !pair.reasons.includes(r)).join('; ') || null : null;
      const runOf = (role: Role) => roles[role].run;
      const models = Object.fromEntries(ROLES.map(role => [role, runOf(role) ? effectiveModel(runOf(role)!) : null])) as Record<Role, string | null>;
      out.push({
        commit,
        agent,
        project: info?.project ?? mine.find(r => r.project)?.project ?? 'unknown',
        subject: info?.subject ?? null,
        prUrl: info?.prUrl ?? null,
        model: modelShown(models, info),
        models,
        gpuConfig: runOf('human')?.gpuConfig ?? info?.gpuConfig ?? mine.find(r => r.gpuConfig)?.gpuConfig ?? null,
        version: runOf('human')?.version ?? null,
        mode,
        roles,
        outcome,
        blockingRole,
        verdict,
        comparison,
        comparability: { ok, reasons: comp.reasons, ...(comp.notes.length ? { notes: comp.notes } : {}) },
        pair: { ok: pair.ok, reasons: pair.reasons },
        baselineNote,
        chosen: chosen ? { why: chosen.why, rejected: chosen.rejected } : null,
        conflicts: conflictsOf.get(commit) ?? [],
      });
    }
    yield { done: ++commitsDone, total: byCommit.size };
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
  /** Of the wins, ties and losses, those resting on a single run each (hints, noise unknown). */
  single: number;
}
const zero = (): VerdictCounts => ({ win: 0, tie: 0, loss: 0, unknown: 0, 'agent-failed': 0, 'n/a': 0, mixed: 0, single: 0 });

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
  const byOutcome: Record<string, number> = dict(),
    byFixability: Record<string, number> = dict();
  const byAgent: Record<string, VerdictCounts> = dict(),
    byMetric: Record<string, VerdictCounts> = dict();
  let leftOut = 0;
  for (const e of entries) {
    byOutcome[e.outcome] = (byOutcome[e.outcome] ?? 0) + 1;
    if (e.blockingRole) {
      const f = e.roles[e.blockingRole].classification?.fixability ?? category(e.outcome).fixability;
      byFixability[f] = (byFixability[f] ?? 0) + 1;
    }
    // Verdicts count where agent and human are comparable (the baseline need not be).
    const incomparable = !!e.comparison && !e.pair.ok;
    if (incomparable && !includeIncomparable) {
      leftOut++;
      continue;
    }
    const v: Verdict = e.verdict;
    const hint = !!e.comparison && wantsMoreRuns(v, e.comparison.basis) && v !== 'unknown';
    const a = (byAgent[e.agent ?? '(none)'] ??= zero());
    a[v]++;
    if (hint) a.single++;
    if (e.comparison?.mixed) a.mixed++;
    if (e.comparison && v !== 'n/a') {
      const m = (byMetric[e.comparison.metric] ??= zero());
      m[v]++;
      if (hint) m.single++;
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

/** Why human and agent gave no comparison: no metric in common, or common ones that can't be compared (a zero baseline). */
function noSharedMetric(h: Run, a: Run): string {
  const shared = Object.keys(h.metrics).filter(k => k in a.metrics);
  if (!shared.length) return 'human and agent share no metric';
  const zero = shared.filter(k => h.metrics[k] === 0);
  return zero.length
    ? `human's ${zero.slice(0, 3).join(', ')} ${zero.length === 1 ? 'is' : 'are'} 0: no relative change can be taken against it`
    : `human and agent share ${shared.slice(0, 3).join(', ')} but no headline metric`;
}
