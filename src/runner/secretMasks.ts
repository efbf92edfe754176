// Secret values never reach a stored byte: what the runner writes itself (notes, errors, run.json,
// result.json) is masked here; the logs it streams are masked by LogSink, across chunk boundaries.
import type { RunRecord } from '../core/run/records';
import type { RunRequest } from './execute';

/** Every value a run must never store (shorter than 4 characters: too common to mask safely). */
export const secretValues = (req: Pick<RunRequest, 'secretEnv' | 'secrets'>): string[] =>
  [...Object.values(req.secretEnv ?? {}), ...(req.secrets ?? [])].filter(s => s.length >= 4);

/** Masks secret values in text the runner stores itself, each by stars of its own length. */
export function maskText(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s.length >= 4 && out.includes(s)) out = out.split(s).join('*'.repeat(s.length));
  return out;
}

/** The secret values of each run a runner drives, by its record. */
export class RunMasks {
  private readonly byRun = new WeakMap<RunRecord, string[]>();
  set(r: RunRecord, values: string[]): void {
    this.byRun.set(r, values);
  }
  of(r: RunRecord): (t: string) => string {
    const secrets = this.byRun.get(r) ?? [];
    return t => maskText(t, secrets);
  }
}
