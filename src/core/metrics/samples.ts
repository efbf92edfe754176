/**
 * Per-request samples from the serving clients' detailed results (vLLM `--save-detailed`, SGLang
 * `--output-details`): `ttfts` (seconds per request), `itls` (seconds between chunks, per
 * request), `output_lens`, and `latencies` (seconds, end to end). They give a distribution from a
 * single run: TTFT, TPOT as vLLM defines it (time after the first token over the tokens after the
 * first) and E2E latency per request. Failed requests (no tokens, an error text) are left out, as
 * the clients leave them out of their own means.
 */
export const MAX_SAMPLES = 100_000;

export interface SampleReading {
  samples: Record<string, number[]> | undefined;
  /** Arrays that could not be used as they are, each naming its field. */
  problems: Array<{ field: string; message: string }>;
}

/** Every k-th of a long array, so that at most MAX_SAMPLES are kept (an even thinning, said in a note). */
function thinned(xs: readonly unknown[], field: string, problems: SampleReading['problems']): readonly unknown[] {
  if (xs.length <= MAX_SAMPLES) return xs;
  const k = Math.ceil(xs.length / MAX_SAMPLES);
  problems.push({ field, message: `${xs.length} per-request values, above the ${MAX_SAMPLES} kept: every ${k}th is used` });
  const out: unknown[] = [];
  for (let i = 0; i < xs.length; i += k) out.push(xs[i]);
  return out;
}

const finite = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x) && x >= 0;

/**
 * Samples of one detailed result object (`prefix` names where its arrays sit, for findings).
 * Arrays of different lengths, or of non-numbers, are findings, not guesses.
 */
export function readSamples(doc: unknown, prefix = ''): SampleReading {
  const problems: SampleReading['problems'] = [];
  if (!doc || typeof doc !== 'object') return { samples: undefined, problems };
  const d = doc as Record<string, unknown>;
  // Three canonical keys at most: a plain object (see reconcileUnits).
  const out: Record<string, number[]> = {};
  const arr = (k: string): unknown[] | null => {
    const v = d[k];
    if (v === undefined || v === null) return null;
    if (!Array.isArray(v)) {
      problems.push({ field: prefix + k, message: 'is not an array: per-request values not read' });
      return null;
    }
    return v;
  };
  const lensAll = arr('output_lens');
  const ttftsAll = arr('ttfts');
  const latAll = arr('latencies');
  const itlsAll = arr('itls');
  const n = lensAll?.length ?? ttftsAll?.length ?? latAll?.length ?? 0;
  for (const [k, a] of [
    ['ttfts', ttftsAll],
    ['latencies', latAll],
    ['itls', itlsAll],
  ] as const)
    if (a && lensAll && a.length !== lensAll.length && a.length > 0) {
      problems.push({ field: prefix + k, message: `has ${a.length} entries but output_lens has ${lensAll.length}: per-request values not read` });
      return { samples: undefined, problems };
    }
  if (!n) return { samples: undefined, problems };
  // Pick the same requests from every array (thinned alike when there are too many).
  const idx =
    n > MAX_SAMPLES
      ? (thinned(
          Array.from({ length: n }, (_, i) => i),
          prefix + (lensAll ? 'output_lens' : ttftsAll ? 'ttfts' : 'latencies'),
          problems,
        ) as number[])
      : null;
  let bad = 0;
  const ok = (i: number) => {
    const len = lensAll?.[i];
    if (lensAll && !finite(len)) {
      bad++;
      return false;
    }
    return !lensAll || (len as number) > 0;
  };
  const ttft: number[] = [],
    tpot: number[] = [],
    e2el: number[] = [];
  const count = idx ? idx.length : n;
  for (let j = 0; j < count; j++) {
    const i = idx ? idx[j] : j;
    if (!ok(i)) continue;
    const t = ttftsAll?.[i];
    const l = latAll?.[i];
    const len = lensAll ? (lensAll[i] as number) : null;
    if (ttftsAll) {
      if (finite(t) && t > 0) ttft.push(t * 1000);
      else if (!finite(t)) bad++;
    }
    if (latAll) {
      if (finite(l) && l > 0) e2el.push(l * 1000);
      else if (!finite(l)) bad++;
    }
    if (len !== null && len > 1) {
      if (latAll && finite(l) && finite(t) && l > t) tpot.push(((l - t) * 1000) / (len - 1));
      else if (itlsAll) {
        const row = itlsAll[i];
        if (Array.isArray(row) && row.length && row.length <= 1_000_000 && row.every(finite))
          tpot.push((row.reduce((a: number, b: number) => a + b, 0) * 1000) / (len - 1));
      }
    }
  }
  if (bad) problems.push({ field: prefix + 'ttfts', message: `${bad} per-request values are not non-negative numbers: left out` });
  if (ttft.length >= 2) out.ttft_mean_ms = ttft;
  if (tpot.length >= 2) out.tpot_mean_ms = tpot;
  if (e2el.length >= 2) out.e2el_mean_ms = e2el;
  return { samples: Object.keys(out).length ? out : undefined, problems };
}

/** The runner's use: the samples of a `--save-result --save-detailed` file, problems aside. */
export function samplesFromResultJson(doc: unknown): Record<string, number[]> | undefined {
  return readSamples(doc).samples;
}

/** Plain per-request values of one metric, in ms (`scale` from the file's unit), thinned like the rest. */
export function valuesInMs(xs: readonly unknown[], scale: number, field: string, problems: SampleReading['problems']): number[] | undefined {
  const out: number[] = [];
  for (const x of thinned(xs, field, problems)) if (finite(x) && x > 0) out.push(x * scale);
  return out.length >= 2 ? out : undefined;
}
