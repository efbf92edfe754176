import { BUILD_SOURCE, ROLES, type Role } from '../model';
import { category } from '../classify';
import { failedAttempts, type CategoryOf, type CommitTriage } from '../compare';

/**
 * A campaign: a set of (commit, role, agent, repeat) runs, planned before anything runs. Repeats
 * are interleaved — every commit's B, H, A of repeat 1, then of repeat 2 … — so that drift of the
 * host (thermal, clocks, neighbours) hits every role alike.
 */
export interface CampaignItem {
  /** 1-based position in the campaign's order. */
  n: number;
  /** What the item does: a run of the role (absent, as in older campaigns), or a build of the role's image. */
  kind?: 'build';
  commit: string;
  agent: string | null;
  role: Role;
  repeat: number;
  /** Estimated duration (s) from the data, and GPUs it takes (tensor-parallel size). */
  estimateS: number;
  gpus: number;
  /** A patch ablation's variant (see `core/ablate`): its units, and the patch file it applies (folder-relative; null: the parent). */
  variant?: { id: string; units: string[]; patch: string | null };
}

export interface CampaignRefusal {
  commit: string;
  role: Role | null;
  reason: string;
}

export interface CampaignPlan {
  items: CampaignItem[];
  refusals: CampaignRefusal[];
  /** Sum over runs of duration × GPUs, in hours. */
  gpuHours: number;
}

/** A selection clause: `key=value` (`!=` negates); clauses joined by `,` must all hold. */
const KEYS = ['category', 'ever', 'outcome', 'agent', 'commit', 'project', 'model', 'fixability', 'blocked', 'verdict', 'role'] as const;
type Key = (typeof KEYS)[number];

export interface Selector {
  clauses: Array<{ key: Key; value: string; negate: boolean }>;
}

/** Parses `category=wheel-missing,agent=claude_code`; an unknown key or a clause without `=` is an error naming it. */
export function parseSelector(text: string): Selector {
  const clauses: Selector['clauses'] = [];
  for (const raw of text.split(',')) {
    const part = raw.trim();
    if (!part) continue;
    const m = /^([a-z]+)\s*(!?=)\s*(.+)$/.exec(part);
    if (!m) throw new Error(`--select "${part}": expected key=value (keys: ${KEYS.join(', ')})`);
    if (!(KEYS as readonly string[]).includes(m[1])) throw new Error(`--select "${part}": unknown key ${m[1]} (keys: ${KEYS.join(', ')})`);
    // A role that does not exist would select nothing without a word.
    if (m[1] === 'role' && !(ROLES as readonly string[]).includes(m[3].trim()))
      throw new Error(`--select "${part}": role ${m[3].trim()} is not one of ${ROLES.join(', ')}`);
    clauses.push({ key: m[1] as Key, value: m[3].trim(), negate: m[2] === '!=' });
  }
  if (!clauses.length) throw new Error('--select is empty (e.g. category=wheel-missing)');
  return { clauses };
}

export type { CategoryOf };

function values(e: CommitTriage, key: Key, categoryOf?: CategoryOf): string[] {
  const roles = ROLES.map(r => e.roles[r]);
  switch (key) {
    case 'category':
      return [e.outcome, ...roles.flatMap(v => (v.classification ? [v.classification.category] : []))];
    case 'outcome':
      return [e.outcome];
    case 'agent':
      return [e.agent ?? '(none)'];
    case 'commit':
      return [e.commit];
    case 'project':
      return [e.project];
    case 'model':
      return e.model ? [e.model] : [];
    case 'fixability':
      return roles.flatMap(v => (v.classification ? [v.classification.fixability] : []));
    case 'blocked':
      // The fixability of what blocks the entry: the one the tree's Group By fixability and the Dashboard count.
      return e.blockingRole ? [e.roles[e.blockingRole].classification?.fixability ?? category(e.outcome).fixability] : [];
    case 'verdict':
      return [e.verdict];
    case 'ever':
      // Every attempt of every role: a commit that once failed for a missing wheel and later for something else is found.
      return failedAttempts(e, categoryOf).map(a => a.category);
    case 'role':
      return [];
  }
}

/** The entries a selector picks (`commit=` matches a prefix; every other key an exact value). */
export function selectEntries(entries: readonly CommitTriage[], s: Selector, categoryOf?: CategoryOf): CommitTriage[] {
  return entries.filter(e =>
    s.clauses.every(c => {
      if (c.key === 'role') return true; // picks roles, not entries (rolesOf)
      const hit = values(e, c.key, categoryOf).some(v => (c.key === 'commit' ? v.startsWith(c.value) : v === c.value));
      return c.negate ? !hit : hit;
    }),
  );
}

/** Roles a selector names with `role=`, else all three. */
export function rolesOf(s: Selector): Role[] {
  const named = s.clauses.filter(c => c.key === 'role' && !c.negate).map(c => c.value);
  const minus = new Set(s.clauses.filter(c => c.key === 'role' && c.negate).map(c => c.value));
  return ROLES.filter(r => (named.length ? named.includes(r) : true) && !minus.has(r));
}

/** The images an entry's failures call for: each failed role whose fix is a rebuild (the agent runs on the baseline's image), or the `only` roles asked for. */
export function rolesToBuild(e: CommitTriage, only?: readonly Role[]): Array<'baseline' | 'human'> {
  const wanted = (only ?? ROLES).filter(r => {
    const c = e.roles[r].classification;
    return only ? true : e.roles[r].run?.status !== 'success' && c?.fixability === 'rebuild';
  });
  const out = new Set(wanted.map(r => (r === 'agent' ? 'baseline' : r)));
  return (['baseline', 'human'] as const).filter(r => out.has(r));
}

/** A build's duration estimate: the median of the data's builds, else 30 min (ISO-Bench's builds took 30–35 min on an H100 host). */
export function buildEstimate(entries: readonly CommitTriage[]): number {
  const d = entries.flatMap(e =>
    ROLES.flatMap(r =>
      [e.roles[r].run, ...e.roles[r].history].flatMap(x => (x?.source === BUILD_SOURCE && x.durationS && x.durationS > 0 ? [x.durationS] : [])),
    ),
  );
  return median(d) ?? 1800;
}

export interface BuildPlanInput {
  entries: readonly CommitTriage[];
  /** Roles asked for (a role node), else those whose failure calls for a rebuild. */
  only?: readonly Role[];
  /** The image a (commit, role) build makes, or why it cannot be built. */
  check: (e: CommitTriage, role: 'baseline' | 'human') => { refused: string } | { tag: string };
  estimateS: number;
}

/** A campaign of image builds: one per image (commits that share a parent share their baseline image), no GPU each. */
export function planBuildCampaign(p: BuildPlanInput): CampaignPlan {
  const refusals: CampaignRefusal[] = [];
  const items: CampaignItem[] = [];
  const tags = new Set<string>();
  for (const e of p.entries)
    for (const role of rolesToBuild(e, p.only)) {
      const c = p.check(e, role);
      if ('refused' in c) refusals.push({ commit: e.commit, role, reason: c.refused });
      else if (!tags.has(c.tag)) {
        tags.add(c.tag);
        items.push({ n: items.length + 1, kind: 'build', commit: e.commit, agent: null, role, repeat: 1, estimateS: p.estimateS, gpus: 0 });
      }
    }
  return { items, refusals, gpuHours: 0 };
}

/** Median of known durations, or null. */
function median(xs: number[]): number | null {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** A run's duration estimate: that role's own runs of that commit, else the median of the role across the data, else 15 min. */
export function durationEstimates(entries: readonly CommitTriage[]): (e: CommitTriage, role: Role) => number {
  const byRole = new Map<Role, number[]>();
  for (const e of entries)
    for (const r of ROLES) {
      const d = [e.roles[r].run, ...e.roles[r].history].flatMap(x => (x?.durationS && x.durationS > 0 && x.source !== BUILD_SOURCE ? [x.durationS] : []));
      byRole.set(r, [...(byRole.get(r) ?? []), ...d]);
    }
  const fallback = new Map(ROLES.map(r => [r, median(byRole.get(r) ?? []) ?? 900]));
  return (e, role) => {
    const own = [e.roles[role].run, ...e.roles[role].history].flatMap(x => (x?.durationS && x.durationS > 0 && x.source !== BUILD_SOURCE ? [x.durationS] : []));
    return median(own) ?? fallback.get(role)!;
  };
}

export interface PlanInput {
  entries: readonly CommitTriage[];
  roles: readonly Role[];
  repeats: number;
  /** Why a (commit, role) cannot run (no perf command, no agent patch …), or null when it can; its GPU need. */
  check: (e: CommitTriage, role: Role) => { refused: string } | { gpus: number };
  estimate: (e: CommitTriage, role: Role) => number;
}

/** The campaign's runs in their interleaved order, with refusals and the GPU-hours estimate. */
export function planCampaign(p: PlanInput): CampaignPlan {
  if (!Number.isInteger(p.repeats) || p.repeats < 1 || p.repeats > 100) throw new Error(`repeats must be a whole number from 1 to 100 (got ${p.repeats})`);
  const refusals: CampaignRefusal[] = [];
  const runnable: Array<{ e: CommitTriage; role: Role; gpus: number; estimateS: number }> = [];
  for (const e of p.entries)
    for (const role of p.roles) {
      const c = p.check(e, role);
      if ('refused' in c) refusals.push({ commit: e.commit, role, reason: c.refused });
      else runnable.push({ e, role, gpus: c.gpus, estimateS: p.estimate(e, role) });
    }
  const items: CampaignItem[] = [];
  for (let repeat = 1; repeat <= p.repeats; repeat++)
    for (const r of runnable)
      items.push({ n: items.length + 1, commit: r.e.commit, agent: r.e.agent, role: r.role, repeat, estimateS: r.estimateS, gpus: r.gpus });
  const gpuHours = items.reduce((s, i) => s + (i.estimateS * i.gpus) / 3600, 0);
  return { items, refusals, gpuHours };
}

/**
 * One line per refused commit when every refused role of it has the same reason (a commit without
 * a perf command is refused once, not three times), else one per role; order kept.
 */
export function refusalLines(refusals: readonly CampaignRefusal[]): string[] {
  const byCommit = new Map<string, CampaignRefusal[]>();
  for (const r of refusals) byCommit.set(r.commit, [...(byCommit.get(r.commit) ?? []), r]);
  const lines: string[] = [];
  for (const [commit, rs] of byCommit) {
    const short = commit.slice(0, 8);
    if (rs.length > 1 && rs.every(r => r.reason === rs[0].reason)) lines.push(`${short} (${rs.map(r => r.role ?? 'image').join(', ')}): ${rs[0].reason}`);
    else for (const r of rs) lines.push(`${short}${r.role ? ` ${r.role}` : ''}: ${r.reason}`);
  }
  return lines;
}
