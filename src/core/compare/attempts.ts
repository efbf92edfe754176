import { ROLES, type Role } from '../model';
import type { CommitTriage } from './triage';

/** A run's failure category by its id (every attempt's, not only the latest's). */
export type CategoryOf = (runId: string) => string | null;

/** One failed attempt of a role: its run id, its category, and whether it is the one the triage shows. */
export interface FailedAttempt {
  role: Role;
  runId: string;
  category: string;
  latest: boolean;
}

/**
 * Every failed attempt of every role, latest first per role. The tree groups a commit by its latest
 * outcome, so a commit that once failed for a missing wheel and later for something else is found
 * only here (ISO-Bench: 32 commits ever wheel-missing, 8 by their latest outcome).
 */
export function failedAttempts(e: CommitTriage, categoryOf?: CategoryOf): FailedAttempt[] {
  const out: FailedAttempt[] = [];
  for (const role of ROLES) {
    const v = e.roles[role];
    for (const run of [v.run, ...v.history]) {
      // A run someone cancelled did not fail: it says nothing about the commit.
      if (!run || /cancel/i.test(run.originalStatus ?? '')) continue;
      const latest = run === v.run;
      const category = categoryOf?.(run.id) ?? (latest ? (v.classification?.category ?? null) : null);
      if (category) out.push({ role, runId: run.id, category, latest });
    }
  }
  return out;
}

/** The categories the commit's earlier attempts failed with (not its shown ones), with how many attempts each. */
export function earlierCategories(e: CommitTriage, categoryOf?: CategoryOf): Array<{ category: string; count: number }> {
  const counts = new Map<string, number>();
  for (const a of failedAttempts(e, categoryOf)) if (!a.latest) counts.set(a.category, (counts.get(a.category) ?? 0) + 1);
  return [...counts].map(([category, count]) => ({ category, count })).sort((a, b) => b.count - a.count || a.category.localeCompare(b.category));
}

/** The runner's own pipeline: what a rerun from the editor or `bench-triage run` writes. */
export const OWN_PIPELINE_SCHEMA = 'BT1';

/**
 * The roles a rerun of `roles` would leave measured by another pipeline (or not measured at all):
 * a new run of this tool's runner is never comparable with those, so Rerun offers all three.
 */
export function strandedBy(e: CommitTriage, roles: readonly Role[]): Array<{ role: Role; schema: string | null }> {
  if (roles.length === ROLES.length) return [];
  return ROLES.filter(r => !roles.includes(r)).flatMap(role => {
    const run = e.roles[role].run;
    const schema = run?.provenance.schema ?? null;
    return schema === OWN_PIPELINE_SCHEMA ? [] : [{ role, schema }];
  });
}
