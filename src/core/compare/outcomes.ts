import { category } from '../classify/taxonomy';

/**
 * Outcomes of an entry that are not a failure category, in the order every screen shows them.
 * One table, so that the tree, the report and the Dashboard name and count them alike.
 */
export const MEASURED_OUTCOMES: Record<string, { title: string; description: string; rank: number }> = {
  complete: { title: 'Complete 3-way', description: 'All three roles measured the same workload on the same model, GPUs and pipeline.', rank: 0 },
  'agent-vs-human': {
    title: 'Agent vs human (baseline not comparable)',
    description: 'Human and agent measured the same thing and are compared; the baseline measured something else, so there is no 3-way improvement.',
    rank: 1,
  },
  incomparable: {
    title: 'Measured, not comparable',
    description: 'Human and agent were both measured, but not the same thing (different models, workloads, GPUs, pipelines or script versions).',
    rank: 2,
  },
  partial: { title: 'Partial (roles never ran)', description: 'Some roles have no run at all.', rank: 3 },
};

export function outcomeTitle(outcome: string): string {
  return MEASURED_OUTCOMES[outcome]?.title ?? category(outcome).title;
}
