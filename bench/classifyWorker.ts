// Measurements for bench/classify, each in a fresh process:
//   corpus <folder>             classify every failed run of the corpus → {ms, bytes, files[], runs}
//   log <file>                  classify one plain log, streaming → {ms, bytes, maxRssMB, category}
//   log-js <file>               the same with the literal walk in JavaScript (not WebAssembly)
//   synth <file> <bytes>        write the synthetic log
//   patterns <file>             write the built-in line patterns, in ripgrep syntax, one per line
import { promises as fs, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { scan } from '../src/core/ingest';
import { BUILTIN_RULES, Classifier, classifyRuns } from '../src/core/classify';
import { nodeFileSource } from '../src/platform/nodeFileSource';
import { classifyLogFile } from '../src/cli/classifyCommands';
import { useWasmWalk } from '../src/core/classify/literalScanner';
import { writeSynthLog } from '../test/support/synthLog';

async function main(): Promise<void> {
  const [mode, a, b] = process.argv.slice(2);
  if (mode === 'corpus') {
    const r = await scan(nodeFileSource(a));
    const files = new Set<string>();
    for (const run of r.runs)
      if (run.status !== 'success') {
        files.add(run.provenance.file);
        for (const l of run.logFiles) files.add(l);
      }
    let bytes = 0;
    for (const f of files) bytes += statSync(path.join(a, f)).size;
    const t0 = process.hrtime.bigint();
    const c = await classifyRuns(r, p => fs.readFile(path.join(a, p), 'utf8'), new Classifier());
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    process.stdout.write(JSON.stringify({ ms, bytes, files: [...files], runs: c.size }) + '\n');
  } else if (mode === 'log' || mode === 'log-js') {
    // log-js: the literal walk in JavaScript only, for comparison with the WebAssembly one.
    if (mode === 'log-js') useWasmWalk(false);
    const t0 = process.hrtime.bigint();
    const r = await classifyLogFile(a);
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    process.stdout.write(
      JSON.stringify({ ms, bytes: statSync(a).size, maxRssMB: process.resourceUsage().maxRSS / 1024, category: r.category, line: r.evidence?.line }) + '\n',
    );
  } else if (mode === 'synth') {
    process.stdout.write(JSON.stringify(await writeSynthLog(a, Number(b))) + '\n');
  } else if (mode === 'patterns') {
    // JS and ripgrep share this syntax except lookaround, which ripgrep's default engine lacks.
    const lines: string[] = [];
    let skipped = 0;
    for (const r of BUILTIN_RULES)
      for (const i of r.indications) {
        if (i.scope === 'context' || i.multiline) continue;
        if (/\(\?[=!<]/.test(i.pattern)) {
          skipped++;
          continue;
        }
        lines.push((i.flags === 'i' ? '(?i)' : '') + i.pattern);
      }
    writeFileSync(a, lines.join('\n') + '\n');
    process.stdout.write(JSON.stringify({ patterns: lines.length, skipped }) + '\n');
  } else throw new Error(`unknown mode ${mode}`);
}
main().catch(e => {
  process.stderr.write(String(e?.stack ?? e) + '\n');
  process.exit(1);
});
