/**
 * Failure taxonomy (core/classify/taxonomy.ts). Ids are stable; titles and descriptions are for people.
 */
export const FIXABILITIES = ['retry', 'recipe', 'rebuild', 'config', 'more-gpus', 'unfixable', 'investigate', 'dataset', 'agent'] as const;
export type Fixability = (typeof FIXABILITIES)[number];

export const GROUPS = ['environment', 'resources', 'runtime', 'measurement', 'dataset', 'agent', 'unclassified'] as const;
export type Group = (typeof GROUPS)[number];

export interface CategoryDef {
  id: string;
  group: Group;
  title: string;
  fixability: Fixability;
  description: string;
  recipe?: string;
}

export const CATEGORIES: readonly CategoryDef[] = [
  {
    id: 'wheel-missing',
    group: 'environment',
    title: 'No vLLM wheel',
    fixability: 'rebuild',
    description: 'No pre-built vLLM wheel exists for the commit (and no ancestor wheel): build one or use a Docker image.',
  },
  {
    id: 'image-missing',
    group: 'environment',
    title: 'Docker image missing',
    fixability: 'rebuild',
    description:
      'The Docker image for the commit was not found (`manifest unknown`, pull denied): build and push it, or point the template at an existing image.',
  },
  {
    id: 'install-failed',
    group: 'environment',
    title: 'Install failed',
    fixability: 'rebuild',
    description: "Installing vLLM failed or it is not importable (`No module named 'vllm._C'`): rebuild the image/wheel for the commit.",
  },
  { id: 'build-failed', group: 'environment', title: 'Build failed', fixability: 'rebuild', description: 'Building vLLM from source failed or hung.' },
  {
    id: 'dependency-conflict',
    group: 'environment',
    title: 'Dependency drift',
    fixability: 'recipe',
    description: 'An import-time failure caused by Python dependency drift; a known recipe usually fixes it.',
  },
  {
    id: 'cuda-incompatible',
    group: 'environment',
    title: 'CUDA / driver incompatible',
    fixability: 'rebuild',
    description: 'A compiled module does not match the driver, architecture or torch (`cuTensorMapEncodeTiled`, undefined symbol).',
  },
  {
    id: 'model-unsupported',
    group: 'environment',
    title: 'Model not supported',
    fixability: 'unfixable',
    description: 'This vLLM does not know the model architecture or its RoPE / rope_scaling format.',
    recipe: 'rope-scaling',
  },
  {
    id: 'version-bug',
    group: 'environment',
    title: 'vLLM port-binding bug',
    fixability: 'unfixable',
    description: 'vLLM 0.6.3–0.6.4 cannot run serving benchmarks (port-binding bug #8791): use an offline benchmark.',
  },
  {
    id: 'gpu-oom',
    group: 'resources',
    title: 'GPU out of memory',
    fixability: 'config',
    description: 'CUDA ran out of memory: lower batch size / max model length, or use more GPUs.',
  },
  {
    id: 'multi-gpu-required',
    group: 'resources',
    title: 'Needs more GPUs',
    fixability: 'more-gpus',
    description: "The tensor-parallel size or the model size exceeds the host's GPUs, or the model is blocked as too large.",
  },
  {
    id: 'wrong-hardware',
    group: 'resources',
    title: 'Other hardware',
    fixability: 'unfixable',
    description: 'The commit targets other hardware (ROCm / MI300, Neuron, TPU, CPU).',
  },
  {
    id: 'disk-full',
    group: 'resources',
    title: 'Disk full',
    fixability: 'retry',
    description: '`no space left on device` on the host: clean up images and retry.',
  },
  {
    id: 'server-startup-failed',
    group: 'runtime',
    title: 'Server did not start',
    fixability: 'investigate',
    description: 'The vLLM server crashed or never became ready, and nothing more specific was found in the kept output.',
  },
  { id: 'timeout', group: 'runtime', title: 'Timed out', fixability: 'retry', description: 'The server or the benchmark exceeded its time limit.' },
  {
    id: 'infra-transient',
    group: 'runtime',
    title: 'Transient infrastructure error',
    fixability: 'retry',
    description: 'Broken pipe, sandbox / internal errors, git or network time-outs: retry.',
  },
  {
    id: 'no-metrics',
    group: 'measurement',
    title: 'No metrics',
    fixability: 'config',
    description: 'The benchmark ran but produced no parseable metrics (bad arguments, missing dataset, truncated output, parser miss).',
  },
  { id: 'no-perf-command', group: 'dataset', title: 'No perf command', fixability: 'dataset', description: 'The dataset has no perf command for the commit.' },
  {
    id: 'bad-perf-command',
    group: 'dataset',
    title: 'Bad perf command',
    fixability: 'dataset',
    description: 'The perf command has placeholders (`MODEL`, `BS`, …) or is not a benchmark command.',
  },
  {
    id: 'model-gated',
    group: 'dataset',
    title: 'Model gated or invalid',
    fixability: 'dataset',
    description: 'The model repository is gated (401/403), does not exist, or the id is invalid: set a token or fix the model.',
  },
  { id: 'agent-no-patch', group: 'agent', title: 'Agent made no patch', fixability: 'agent', description: 'The agent produced no patch: the agent lost.' },
  {
    id: 'agent-patch-failed',
    group: 'agent',
    title: 'Agent patch does not apply',
    fixability: 'agent',
    description: "The agent's patch does not apply to the parent commit.",
  },
  {
    id: 'agent-broke-server',
    group: 'agent',
    title: 'Agent patch broke the server',
    fixability: 'agent',
    description: "The server crashed only with the agent's patch applied.",
  },
  {
    id: 'agent-no-metrics',
    group: 'agent',
    title: 'Agent run produced no metrics',
    fixability: 'agent',
    description: "The agent's run produced no metrics while the others did.",
  },
  {
    id: 'unclassified',
    group: 'unclassified',
    title: 'Unclassified',
    fixability: 'investigate',
    description: 'No rule matched: read the last error lines, and add a rule from a selection.',
  },
];

const BY_ID = new Map(CATEGORIES.map(c => [c.id, c]));
export function category(id: string): CategoryDef {
  return BY_ID.get(id) ?? { id, group: 'unclassified', title: id, fixability: 'investigate', description: `User category ${id}` };
}
export const isKnownCategory = (id: string) => BY_ID.has(id);

/** Known causes inside a category (the recipe ids of the runner reuse these names). */
export const CAUSES: Record<string, string> = {
  'aimv2-registered': 'transformers already registers `aimv2` (Ovis config): register with exist_ok=True',
  numpy2: 'NumPy 2 installed where the stack needs numpy<2',
  'fa-utils-missing': '`vllm.vllm_flash_attn.fa_utils` missing from the image',
  'logits-warper': 'transformers removed `LogitsWarper`: pin transformers 4.44.2',
  pyairports: '`pyairports` missing (outlines)',
  'outlines-fsm': 'outlines API changed (`outlines.fsm.*` missing)',
  'transformers-utils': 'transformers installation broken (`No module named transformers.utils`)',
  'huggingface-hub': 'huggingface-hub version outside what transformers requires',
  'triton-api': 'triton API drift',
  'rope-scaling': 'RoPE scaling type unknown to this vLLM (Llama 3.1 `llama3`)',
  architecture: 'model architecture unknown to this vLLM',
  'cuda-graph-timeout': 'stuck capturing CUDA graphs',
  'bad-arguments': 'the benchmark script rejected its arguments',
  'dataset-missing': 'the dataset file does not exist',
  'output-truncated': 'the stored output was cut before the metrics',
  'parse-miss': 'metrics printed but not parsed',
  placeholder: 'placeholders left in the perf command',
  'model-too-large': 'model too large for the GPUs available',
  'tensor-parallel': "tensor-parallel size above the host's GPUs",
  'broken-pipe': 'broken pipe between orchestrator and worker',
  'git-timeout': 'git operation timed out',
  'sandbox-error': 'sandbox / internal error',
  gated: 'gated repository',
  'invalid-repo': 'repository id invalid or missing',
  'patch-partially-applied': "hunks of the agent patch failed and were skipped: what ran is not the agent's change",
};
