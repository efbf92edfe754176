/**
 * Per-request samples from vLLM's detailed result JSON (`benchmark_serving.py --save-result
 * --save-detailed`): `ttfts` (seconds per request), `itls` (seconds between tokens, per request)
 * and `output_lens`. They give a distribution from a single run: TTFT per request, and TPOT per
 * request as vLLM defines it (time after the first token over the tokens after the first).
 */
const MAX_SAMPLES = 100_000;

const nums = (v: unknown): number[] | null =>
  Array.isArray(v) && v.length <= MAX_SAMPLES ? v.map(x => (typeof x === 'number' && Number.isFinite(x) && x >= 0 ? x : NaN)) : null;

export function samplesFromResultJson(doc: unknown): Record<string, number[]> | undefined {
  if (!doc || typeof doc !== 'object') return undefined;
  const d = doc as Record<string, unknown>;
  const out: Record<string, number[]> = {};
  const ttfts = nums(d.ttfts);
  // Requests that failed carry a ttft of 0 and no tokens; vLLM leaves them out of its means too.
  const lens = nums(d.output_lens);
  if (ttfts && lens && lens.length === ttfts.length) {
    const ok = ttfts.map((t, i) => (lens[i] > 0 && t > 0 ? t * 1000 : NaN)).filter(Number.isFinite);
    if (ok.length >= 2) out.ttft_mean_ms = ok;
  }
  if (Array.isArray(d.itls) && lens && d.itls.length === lens.length && d.itls.length <= MAX_SAMPLES) {
    const tpots: number[] = [];
    d.itls.forEach((row, i) => {
      const xs = nums(row);
      if (!xs || lens[i] < 2 || xs.some(x => !Number.isFinite(x))) return;
      tpots.push((xs.reduce((a, b) => a + b, 0) * 1000) / (lens[i] - 1));
    });
    if (tpots.length >= 2) out.tpot_mean_ms = tpots;
  }
  return Object.keys(out).length ? out : undefined;
}
