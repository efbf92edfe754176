import type { Commit, Role, Run } from '../model';
import { ROLES } from '../model';
import type { Classification } from '../classify/engine';
import { category } from '../classify/taxonomy';
import { comparability } from './comparability';
import { improvement, primaryShared } from './metrics';

export type Verdict = 'win' | 'tie' | 'loss' | 'agent-failed' | 'n/a';

export interface RoleView { run: Run | null; history: Run[]; classification: Classification | null }

export interface CommitTriage {
  commit: string;
  agent: string | null;
  subject: string | null;
  model: string | null;
  roles: Record<Role, RoleView>;
  /** complete | incomparable | partial | <category id> */
  outcome: string;
  /** The role whose failure decides the outcome, if any. */
  blockingRole: Role | null;
  verdict: Verdict;
  comparison: { metric: string; baseline: number | null; human: number; agent: number; humanImprovement: number | null; agentImprovement: number | null; agentVsHuman: number } | null;
  comparability: { ok: boolean; reasons: string[] };
}

export interface TriageOptions {
  /** ± band in % within which agent and human are a tie (default 2). */
  tieBand?: number;
  commits?: ReadonlyMap<string, Commit>;
}

const newest = (a: Run, b: Run) => (b.timestamp ?? '').localeCompare(a.timestamp ?? '');

/** Preferred run of a role: a success first, then the anchor pipeline, then the newest. */
function prefer(runs: Run[], anchor: string | null): Run | null {
  if (!runs.length) return null;
  const rank = (r: Run) => (r.status === 'success' ? 0 : 2) + (anchor && r.source === anchor ? 0 : 1);
  return [...runs].sort((a, b) => rank(a) - rank(b) || newest(a, b))[0];
}

export function verdictOf(human: Run | null, agent: Run | null, baseline: Run | null, tieBand: number): Pick<CommitTriage, 'verdict' | 'comparison'> {
  if (human?.status === 'success' && agent && agent.status !== 'success') return { verdict: 'agent-failed', comparison: null };
  if (human?.status !== 'success' || agent?.status !== 'success') return { verdict: 'n/a', comparison: null };
  const metric = primaryShared(human.metrics, agent.metrics);
  if (!metric) return { verdict: 'n/a', comparison: null };
  const h = human.metrics[metric], a = agent.metrics[metric];
  const b = baseline?.status === 'success' && metric in baseline.metrics ? baseline.metrics[metric] : null;
  const avh = improvement(metric, h, a);
  if (avh === null) return { verdict: 'n/a', comparison: null };
  const verdict: Verdict = Math.abs(avh) <= tieBand ? 'tie' : avh > 0 ? 'win' : 'loss';
  return {
    verdict,
    comparison: { metric, baseline: b, human: h, agent: a, agentVsHuman: avh,
      humanImprovement: b !== null ? improvement(metric, b, h) : null, agentImprovement: b !== null ? improvement(metric, b, a) : null },
  };
}

/**
 * One entry per (commit, agent): the preferred run of each role, every other attempt as history,
 * the outcome (DESIGN §4) and the agent-vs-human verdict (DESIGN §5).
 */
export function triage(runs: readonly Run[], classifications: ReadonlyMap<string, Classification>, opts: TriageOptions = {}): CommitTriage[] {
  const tieBand = opts.tieBand ?? 2;
  const byCommit = new Map<string, Run[]>();
  for (const r of runs) (byCommit.get(r.commit) ?? byCommit.set(r.commit, []).get(r.commit)!).push(r);
  const out: CommitTriage[] = [];
  for (const [commit, all] of byCommit) {
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
      const roles = Object.fromEntries(ROLES.map(role => {
        const run = prefer(byRole[role], anchor);
        return [role, { run, history: byRole[role].filter(r => r !== run), classification: run ? classifications.get(run.id) ?? null : null }];
      })) as Record<Role, RoleView>;
      const blockingRole = ROLES.find(role => roles[role].run && roles[role].run!.status !== 'success') ?? null;
      const allMeasured = ROLES.every(role => roles[role].run?.status === 'success');
      const comp = comparability({ baseline: roles.baseline.run, human: roles.human.run, agent: roles.agent.run });
      const outcome = blockingRole ? (roles[blockingRole].classification?.category ?? 'unclassified')
        : allMeasured ? (comp.ok && primaryShared(roles.baseline.run!.metrics, roles.human.run!.metrics, roles.agent.run!.metrics) ? 'complete' : 'incomparable')
        : 'partial';
      if (allMeasured && !primaryShared(roles.baseline.run!.metrics, roles.human.run!.metrics, roles.agent.run!.metrics)) comp.reasons.push('no metric was measured by all three roles');
      const info = opts.commits?.get(commit);
      out.push({
        commit, agent, subject: info?.subject ?? null, model: info?.models[0] ?? mine.find(r => r.model)?.model ?? null,
        roles, outcome, blockingRole, ...verdictOf(roles.human.run, roles.agent.run, roles.baseline.run, tieBand),
        comparability: { ok: comp.reasons.length === 0, reasons: comp.reasons },
      });
    }
  }
  return out.sort((a, b) => a.commit.localeCompare(b.commit) || String(a.agent).localeCompare(String(b.agent)));
}

export interface Aggregates {
  byOutcome: Record<string, number>;
  byFixability: Record<string, number>;
  byAgent: Record<string, Record<Verdict, number>>;
}

export function aggregate(entries: readonly CommitTriage[], includeIncomparable = false): Aggregates {
  const byOutcome: Record<string, number> = {}, byFixability: Record<string, number> = {};
  const byAgent: Record<string, Record<Verdict, number>> = {};
  for (const e of entries) {
    byOutcome[e.outcome] = (byOutcome[e.outcome] ?? 0) + 1;
    if (e.blockingRole) { const f = e.roles[e.blockingRole].classification?.fixability ?? category(e.outcome).fixability; byFixability[f] = (byFixability[f] ?? 0) + 1; }
    if (!includeIncomparable && e.outcome === 'incomparable') continue;
    const a = (byAgent[e.agent ?? '(none)'] ??= { win: 0, tie: 0, loss: 0, 'agent-failed': 0, 'n/a': 0 });
    a[e.verdict]++;
  }
  return { byOutcome, byFixability, byAgent };
}
