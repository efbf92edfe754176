/**
 * Rough model sizing from the name (parameters in billions), to tell how many H100s a model needs.
 * bf16 weights = 2 bytes per parameter, plus ~20 % for activations and a minimal KV cache.
 */
const KNOWN: Array<[RegExp, number]> = [
  [/deepseek-(?:v3|r1)(?!-distill)/i, 671],
  [/deepseek-v2-lite/i, 16],
  [/deepseek-v2/i, 236],
  [/nemotron-4-340b/i, 340],
  [/dbrx/i, 132],
  [/llama-4-scout/i, 109],
  [/mixtral-8x22b/i, 141],
  [/mixtral-8x7b/i, 46.7],
  [/qwen3-30b-a3b/i, 30.5],
  [/opt-125m/i, 0.125],
];
const H100_GB = 80;

export interface ModelSize {
  params: number;
  gpuMemGB: number;
  h100s: number;
}

export function modelSize(model: string): ModelSize | null {
  let params: number | null = null;
  for (const [re, p] of KNOWN)
    if (re.test(model)) {
      params = p;
      break;
    }
  if (params === null) {
    const m = /(?:^|[-_/])(\d+(?:\.\d+)?)\s*([bm])(?:[-_.]|$)/i.exec(model) ?? /(\d+(?:\.\d+)?)([bm])\b/i.exec(model);
    if (!m) return null;
    params = Number(m[1]) / (m[2].toLowerCase() === 'm' ? 1000 : 1);
  }
  const gpuMemGB = params * 2 * 1.2;
  return { params, gpuMemGB, h100s: Math.max(1, 2 ** Math.ceil(Math.log2(Math.ceil(gpuMemGB / (H100_GB * 0.9))))) };
}
