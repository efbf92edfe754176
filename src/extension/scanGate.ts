import { existsSync } from 'node:fs';
import type { FileSource, ListedFile, ListOptions } from '../core/ingest/source';

/**
 * For the e2e steps that press Cancel Scan: while the file named by `BENCH_TRIAGE_E2E_SCAN_GATE`
 * exists, a scan's listing waits, so the scan is still running when the button is pressed (the
 * test's signal, never its timing). Unset outside those tests: the source is returned as it is.
 */
export function gatedSource(source: FileSource, gate = process.env.BENCH_TRIAGE_E2E_SCAN_GATE): FileSource {
  if (!gate) return source;
  async function* list(signal?: AbortSignal, opts?: ListOptions): AsyncIterable<ListedFile> {
    while (existsSync(gate!)) {
      if (signal?.aborted) throw signal.reason ?? new Error('cancelled');
      await new Promise(r => setTimeout(r, 50));
    }
    yield* source.list(signal, opts);
  }
  return { ...source, list };
}
