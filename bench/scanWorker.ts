// One measurement in a fresh process, so peak RSS belongs to it alone.
//   node dist-bench/scanWorker.js read|floor|parse|scan <folder>   → prints {"ms", "maxRssMB", "bytes", "files"}
//   (parse: read and JSON.parse each file, line by line for JSON lines: the floor under any reader of these files)
import { promises as fs, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { scan } from '../src/core/ingest';
import { nodeFileSource } from '../src/platform/nodeFileSource';

async function main(): Promise<void> {
  const [mode, folder] = process.argv.slice(2);
  const src = nodeFileSource(folder);
  const t0 = process.hrtime.bigint();
  let bytes = 0,
    files = 0;
  if (mode === 'read' || mode === 'parse' || mode === 'floor') {
    // The same files the scan parses (.json, .jsonl), found by the same walk. `read`: each read as
    // any tool reads a file (fs.readFile, 8 at a time), the reference; `floor`: one synchronous
    // call each, the least reading can cost, for scale; `parse`: read, then JSON.parse each (line
    // by line for JSON lines), the floor under any reader that parses every byte.
    const paths: string[] = [];
    for await (const f of src.list()) if (/\.jsonl?$/.test(f.path) && !/(^|\/)node_modules\//.test(f.path)) paths.push(path.join(folder, f.path));
    const take = (p: string, t: string) => {
      bytes += Buffer.byteLength(t);
      files++;
      if (mode === 'parse')
        for (const line of /^\s*\{[^\n]*\}\s*\n\s*\{/.test(t) || p.endsWith('.jsonl') ? t.split('\n') : [t])
          if (line.trim())
            try {
              JSON.parse(line.replace(/\bInfinity\b/g, '1e999'));
            } catch {
              /* not JSON: the scan reports it */
            }
    };
    if (mode === 'floor') for (const p of paths) take(p, readFileSync(p, 'utf8'));
    else {
      let next = 0;
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (next < paths.length) {
            const p = paths[next++];
            take(p, await fs.readFile(p, 'utf8'));
          }
        }),
      );
    }
  } else {
    const r = await scan(src);
    files = r.files.length;
    bytes = r.runs.length;
  }
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  process.stdout.write(JSON.stringify({ ms, maxRssMB: process.resourceUsage().maxRSS / 1024, bytes, files }) + '\n');
}
void main();
