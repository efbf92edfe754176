// Writes a synthetic log of N bytes, classifies it streaming, and prints the result with this
// process's peak RSS (measured here, in a fresh process, so nothing else counts against it).
import { statSync } from 'node:fs';
import { writeSynthLog } from '../../support/synthLog';
import { classifyLogFile } from '../../../src/cli/classifyCommands';

(async () => {
  const [file, bytes] = process.argv.slice(2);
  const { tailLine } = await writeSynthLog(file, Number(bytes));
  const rssBefore = process.resourceUsage().maxRSS / 1024;
  const t0 = Date.now();
  const result = await classifyLogFile(file);
  const ms = Date.now() - t0;
  process.stdout.write(JSON.stringify({ result, tailLine, ms, bytes: statSync(file).size, maxRssMB: process.resourceUsage().maxRSS / 1024, rssBeforeMB: rssBefore }) + '\n');
})().catch(e => { process.stderr.write(String(e?.stack ?? e)); process.exit(1); });
