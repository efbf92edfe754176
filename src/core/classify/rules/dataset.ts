import type { RuleSpec } from '../ruleSchema';
import { S, any } from './helpers';

/** Dataset: the perf command or the model named by the dataset. */
export const DATASET_RULES: RuleSpec[] = [
  {
    id: 'dataset.no-perf-command',
    category: 'no-perf-command',
    strength: S,
    description: '{1}',
    indications: [
      any('(has no perf command: nothing to benchmark)'),
      any('(No perf_command in dataset|No test_script in dataset)'),
      any('(No optimizable code paths in commit[^\\n]{0,60})'),
    ],
  },
  {
    id: 'dataset.no-model',
    category: 'bad-perf-command',
    cause: 'placeholder',
    strength: S,
    description: '{1}',
    indications: [
      any('(placeholder \\S{1,40} left in the perf command[^\\n]{0,60})'),
      any("(invalid int value: '(?:BS|INPUT_LEN|OUTPUT_LEN|NUM_PROMPTS|TP|BATCH_SIZE|MODEL)')"),
      any("(invalid literal for int\\(\\) with base 10: '(?:BS|INPUT_LEN|OUTPUT_LEN|NUM_PROMPTS|TP|BATCH_SIZE|\\$\\w{1,30}|<\\w{1,30}>)')"),
      any("(can't open file '[^']{0,200}benchmarks?/[^']{1,120}\\.py': \\[Errno 2\\][^\\n]{0,40})"),
      any('(not a vLLM benchmark command \\(benchmarks/benchmark_\\*\\.py[^\\n]{0,60})'),
      any('(Could not extract model from perf_command[^\\n]{0,40})'),
    ],
  },
  {
    id: 'dataset.gated',
    category: 'model-gated',
    cause: 'gated',
    strength: S,
    description: '{1}',
    indications: [
      any('(Cannot access gated repo for url[^\\n]{0,80})'),
      any('(GatedRepoError[^\\n]{0,60})'),
      any('((?:401|403) Client Error[^\\n]{0,60})'),
      any('(Access to model \\S+ is restricted[^\\n]{0,40})'),
      any('(You are trying to access a gated repo[^\\n]{0,40})'),
      any('(HF_ACCESS_DENIED)'),
    ],
  },
  {
    id: 'dataset.invalid-repo',
    category: 'model-gated',
    cause: 'invalid-repo',
    strength: S,
    description: '{1}',
    indications: [
      any('(\\S{1,200} is not a local folder and is not a valid model identifier[^\\n]{0,40})'),
      any('(Repo id must be in the form[^\\n]{0,60})'),
      any('(Invalid repository ID[^\\n]{0,40})'),
      any('(RepositoryNotFoundError[^\\n]{0,40})'),
    ],
  },
];
