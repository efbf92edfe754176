import type { Fixability } from './taxonomy';

/** What each fixability asks of the reader, in words: screens show these, never the raw ids (`more-gpus`). */
const FIXABILITY_WORDS: Record<Fixability, string> = {
  retry: 'retry as is',
  recipe: 'rerun with a known fix',
  rebuild: 'rebuild the image',
  config: 'change the configuration',
  'more-gpus': 'needs more GPUs',
  unfixable: 'cannot be fixed here',
  investigate: 'investigate',
  dataset: 'fix the dataset',
  agent: "the agent's patch",
};

/** The words for a fixability id, the id itself for one this table does not know. */
export const fixabilityWords = (f: string): string => (FIXABILITY_WORDS as Record<string, string>)[f] ?? f;
