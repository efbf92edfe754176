import type { Role } from '../model';
import { ROLES } from '../model';

/** One planned attempt: which role, and its place in the interleaved order. */
export interface PlannedAttempt {
  role: Role;
  round: number;
}

/**
 * N more attempts of each role, interleaved baseline → human → agent → baseline … so that drift
 * of the host (thermals, other tenants, driver state) hits every role alike. Roles the user
 * leaves out are skipped in every round.
 */
export function planRepeats(n: number, roles: readonly Role[] = ROLES): PlannedAttempt[] {
  if (!Number.isInteger(n) || n < 1 || n > 100) throw new Error(`repeats must be a whole number from 1 to 100 (got ${n})`);
  const out: PlannedAttempt[] = [];
  for (let round = 1; round <= n; round++) for (const role of ROLES) if (roles.includes(role)) out.push({ role, round });
  return out;
}

/**
 * How many more attempts an `unknown` verdict needs, as a first guess: enough that each role has
 * at least 5 (the smallest sample on which a two-sided Mann–Whitney test can reach p < 0.05 with
 * room to spare is 4 against 4).
 */
export function suggestedRepeats(have: { human: number; agent: number }): number {
  return Math.max(1, 5 - Math.min(have.human, have.agent));
}
