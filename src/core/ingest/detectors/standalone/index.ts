import type { Detector } from '../common';
import { VLLM_SERVE } from './vllmServe';
import { VLLM_THROUGHPUT, VLLM_LATENCY } from './vllmOffline';
import { SGLANG_SERVE } from './sglang';
import { GUIDELLM } from './guidellm';
import { AIPERF } from './aiperf';

/**
 * Result files of the field's own tools: they name no commit and no role (the scan attributes
 * them from a manifest or the path). Tried after ISO-Bench's schemas, whose files are specific.
 */
export const STANDALONE: readonly Detector[] = [VLLM_SERVE, VLLM_THROUGHPUT, VLLM_LATENCY, SGLANG_SERVE, GUIDELLM, AIPERF];
export const STANDALONE_IDS: ReadonlySet<string> = new Set(STANDALONE.map(d => d.id));
export { aiperfRequest, aiperfSamples } from './aiperf';
