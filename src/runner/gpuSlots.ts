/**
 * Which of a process's GPU slots on a swarm a run takes. A slot is a holder task that keeps the
 * swarm's reservation of `gpus` GPUs on one node; runs on it take its GPUs in turn (a node-local
 * lock), so the next run can be placed and started while the one before still runs. Pure
 * bookkeeping: the swarm calls are `swarmRuntime.ts`'s.
 */
export interface Slot {
  readonly id: string;
  readonly gpus: number;
  /** Runs given this slot and not yet released, in line: the one on its GPUs first, then those waiting for them. */
  readonly runs: Set<string>;
  /** Its holder is placed (its node known). */
  placed: boolean;
  /** Its holder is gone or going (retired, its node lost): no run is given it any more. */
  dead: boolean;
  /** When its present run took its GPUs (Infinity before): a run that must wait follows the run that began first, the likeliest to end first. */
  busySince: number;
}

/** Runs a slot takes at most: the one on its GPUs, one ready behind it, one more held back until that one takes the GPUs. */
export const SLOT_DEPTH = 3;

/**
 * The slot for a run of `gpus` GPUs, in this order:
 * 1. a live slot of that size with no run;
 * 2. a new slot, while this process's slots hold fewer than `cap` GPUs (the host's `gpus`);
 * 3. a live slot of that size with room in its line, as its last run (the shortest line first, then
 *    placed slots, then the one whose run began first);
 * 4. a new slot anyway (the swarm holds it until GPUs free: a size no slot has, or every line full).
 */
export function chooseSlot<S extends Slot>(slots: Iterable<S>, gpus: number, cap: number, make: () => S): { slot: S; made: boolean } {
  const live = [...slots].filter(s => !s.dead);
  const free = live.find(s => s.gpus === gpus && s.runs.size === 0);
  if (free) return { slot: free, made: false };
  const held = live.reduce((n, s) => n + s.gpus, 0);
  if (held + gpus <= cap) return { slot: make(), made: true };
  const next = live
    .filter(s => s.gpus === gpus && s.runs.size < SLOT_DEPTH)
    .sort((a, b) => a.runs.size - b.runs.size || Number(b.placed) - Number(a.placed) || a.busySince - b.busySince)[0];
  if (next) return { slot: next, made: false };
  return { slot: make(), made: true };
}
