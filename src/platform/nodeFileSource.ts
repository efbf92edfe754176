import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { FileSource, ListedFile } from '../core/ingest/scan';

/** Node's fs behind the core's FileSource: used by the CLI, the language server and benchmarks. */
export function nodeFileSource(root: string): FileSource {
  const abs = path.resolve(root);
  return {
    async *list(signal?: AbortSignal): AsyncIterable<ListedFile> {
      const stack = [''];
      while (stack.length) {
        if (signal?.aborted) return;
        const rel = stack.pop()!;
        let entries;
        try { entries = await fs.readdir(path.join(abs, rel), { withFileTypes: true }); } catch { continue; }
        for (const e of entries) {
          const p = rel ? `${rel}/${e.name}` : e.name;
          if (e.isDirectory()) { if (e.name !== 'node_modules' && e.name !== '.git') stack.push(p); }
          else if (e.isFile()) {
            // Sizes matter only for files the scan may read; skip the stat for everything else.
            if (!/\.(json|jsonl|diff|txt)$/.test(e.name)) { yield { path: p, size: 0 }; continue; }
            let size = 0;
            try { size = (await fs.stat(path.join(abs, p))).size; } catch { continue; }
            yield { path: p, size };
          }
        }
      }
    },
    readText: p => fs.readFile(path.join(abs, p), 'utf8'),
  };
}
