import type { RuleSpec } from '../ruleSchema';
import { C, ctx } from './helpers';

/** Context: inferred from the command, the model and the subject when the logs say nothing specific. */
export const CONTEXT_RULES: RuleSpec[] = [
  {
    id: 'context.placeholder',
    category: 'bad-perf-command',
    cause: 'placeholder',
    strength: C,
    description: 'Placeholder left in the perf command: {1}',
    indications: [ctx('--model[= ](MODEL)\\b'), ctx('--[\\w-]+[= ](BS|INPUT_LEN|OUTPUT_LEN|MODEL_NAME|NUM_PROMPTS|TP)\\b'), ctx('(<[a-z_]+>)')],
  },
  {
    id: 'context.tp',
    category: 'multi-gpu-required',
    cause: 'tensor-parallel',
    strength: C,
    description: 'The command asks for tensor-parallel size {1} on a 1-GPU configuration',
    indications: [ctx('(?:--tensor-parallel-size|-tp)[= ]([2-9]|\\d\\d)\\b')],
  },
  {
    id: 'context.large-model',
    category: 'multi-gpu-required',
    cause: 'model-too-large',
    strength: C,
    description: 'Model too large for one H100: {1}',
    indications: [
      ctx('(deepseek-ai/DeepSeek-(?:V2(?!-Lite)|V3|R1)[\\w.-]*)', 'i'),
      ctx('(nemotron-4-340b[\\w-]*|dbrx[\\w-]*|Llama-4-Scout[\\w-]*|Mixtral-8x22B[\\w-]*|[\\w./-]{0,80}-(?:70|72|110|180|405)B[\\w.-]{0,40})', 'i'),
    ],
  },
  {
    id: 'context.hardware',
    category: 'wrong-hardware',
    strength: C,
    description: 'The commit targets other hardware: {1}',
    indications: [
      ctx('subject: .*(\\[(?:ROCm|ROCM|AMD|Hardware\\]\\[AMD|Neuron|TPU|XPU|Intel|CPU|Hardware\\]\\[Intel)\\])'),
      ctx('subject: .*\\b(mi300|MI300|rocm|neuron)\\b'),
    ],
  },
];
