// One measurement in a fresh process, so peak RSS belongs to it alone.
//   node dist-bench/scanWorker.js read|parse|scan <folder>   → prints {"ms", "maxRssMB", "bytes", "files"}
//   (parse: read and JSON.parse each file, line by line for JSON lines: the floor under any reader of these files)
import { promises as fs } from 'node:fs';
import { scan } from '../src/core/ingest';
import { nodeFileSource } from '../src/platform/nodeFileSource';

async function main(): Promise<void> {
  const [mode, folder] = process.argv.slice(2);
  const src = nodeFileSource(folder);
  const t0 = process.hrtime.bigint();
  let bytes = 0,
    files = 0;
  if (mode === 'read' || mode === 'parse') {
    // The same files the scan parses (.json, .jsonl), read as text and nothing more.
    const paths: string[] = [];
    for await (const f of src.list()) if (/\.jsonl?$/.test(f.path) && !/(^|\/)node_modules\//.test(f.path)) paths.push(f.path);
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < paths.length) {
          const t = await src.readText(paths[next++]);
          bytes += Buffer.byteLength(t);
          files++;
          if (mode === 'parse')
            for (const line of /^\s*\{[^\n]*\}\s*\n\s*\{/.test(t) || paths[next - 1].endsWith('.jsonl') ? t.split('\n') : [t])
              if (line.trim())
                try {
                  JSON.parse(line.replace(/\bInfinity\b/g, '1e999'));
                } catch {
                  /* not JSON: the scan reports it */
                }
        }
      }),
    );
  } else {
    const r = await scan(src);
    files = r.files.length;
    bytes = r.runs.length;
  }
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  process.stdout.write(JSON.stringify({ ms, maxRssMB: process.resourceUsage().maxRSS / 1024, bytes, files }) + '\n');
  void fs;
}
void main();
