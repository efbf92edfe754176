import type { RuleSpec } from '../ruleSchema';
import { S, any } from './helpers';

/** Resources: GPU memory, GPU count, hardware, disk. */
export const RESOURCES_RULES: RuleSpec[] = [
  {
    id: 'gpu-oom',
    category: 'gpu-oom',
    strength: S,
    description: '{1}',
    indications: [
      any('(Not enough memory\\. Please try to increase --mem-fraction-static[^\\n]{0,20})'),
      any('(is larger than the maximum number of tokens that can be stored in KV cache[^\\n]{0,60})'),
      any('(Insufficient memory for KV cache[^\\n]{0,60}|KV cache is needed, which is larger than the available KV cache memory[^\\n]{0,60})'),
      any("(NCCL WARN Cuda failure 'out of memory')"),
      any('(CUDA out of memory[^\\n]{0,80})'),
      any('(torch\\.OutOfMemoryError[^\\n]{0,60})'),
      any('(CUBLAS_STATUS_ALLOC_FAILED)'),
      any('(No available memory for the cache blocks[^\\n]{0,40})'),
    ],
  },
  {
    id: 'multi-gpu.tp',
    category: 'multi-gpu-required',
    cause: 'tensor-parallel',
    strength: S,
    description: '{1}',
    indications: [
      any('(CUDA error: invalid device ordinal)'),
      any('(tensor parallel size \\(?\\d+\\)? (?:is )?(?:larger|greater) than the number of (?:available )?GPUs[^\\n]{0,40})', 'i'),
      any('(Requires tensor-parallel-size \\d+[^\\n]{0,60})'),
      any('(only \\d+ H100 available)'),
      any('(The number of required GPUs exceeds the total number of available GPUs[^\\n]{0,40})'),
      any('(Total number of attention heads \\(\\d+\\) must be divisible by tensor parallel size[^\\n]{0,20})'),
    ],
  },
  {
    id: 'multi-gpu.blocked',
    category: 'multi-gpu-required',
    cause: 'model-too-large',
    strength: S,
    description: '{1}',
    indications: [any('(Model \\S+ is blocked: too large[^\\n]{0,60})')],
  },
  {
    id: 'hardware.other-platform',
    category: 'wrong-hardware',
    strength: S,
    description: 'The code needs other hardware: {1}',
    indications: [
      any("(No module named '?(?:vllm\\._rocm_C|torch_xla|torch_neuronx|transformers_neuronx|intel_extension_for_pytorch|habana_frameworks)[\\w.]{0,40}'?)"),
      any('(hipErrorNoBinaryForGpu[^\\n]{0,60}|HIP error: [^\\n]{0,80})'),
      any('(amdsmi[^\\n]{0,40}(?:not found|failed to initialize)[^\\n]{0,40})', 'i'),
      any('(ROCm is not available[^\\n]{0,40}|requires (?:ROCm|an AMD GPU|a TPU|Neuron devices)[^\\n]{0,40})'),
      any("(Unknown device type[^\\n]{0,20}'(?:xpu|hpu|tpu|neuron)'[^\\n]{0,20})"),
    ],
  },
];
