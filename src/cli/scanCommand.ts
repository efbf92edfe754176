import { statSync } from 'node:fs';
import { scan, summarize, type ScanSummary } from '../core/ingest';
import { nodeFileSource } from '../platform/nodeFileSource';
import { clean } from './terminal';

export interface ScanArgs {
  folder: string;
  json: boolean;
  runs: boolean;
}

export async function scanCommand(a: ScanArgs, out: (s: string) => void, err: (s: string) => void): Promise<number> {
  let isDir = false;
  try {
    isDir = statSync(a.folder).isDirectory();
  } catch {
    /* reported below */
  }
  if (!isDir) {
    err(`bench-triage scan: ${a.folder} is not a folder\n`);
    return 2;
  }
  const started = Date.now();
  let lastReport = 0;
  const result = await scan(nodeFileSource(a.folder), {
    onProgress: ({ done, total }) => {
      if (!a.json && process.stderr.isTTY && Date.now() - lastReport > 500) {
        lastReport = Date.now();
        err(`scanning… ${done}/${total} files\r`);
      }
    },
  });
  const s = summarize(result, a.runs);
  if (a.json) {
    out(JSON.stringify(s, null, 2));
    return 0;
  }
  out(readable(s, a.folder, Date.now() - started));
  return 0;
}

function readable(s: ScanSummary, folder: string, ms: number): string {
  const lines: string[] = [];
  lines.push(`Scanned ${folder} in ${(ms / 1000).toFixed(2)} s`);
  lines.push(`  ${s.commits} commits with runs, ${s.runs} runs (baseline ${s.runsByRole.baseline}, human ${s.runsByRole.human}, agent ${s.runsByRole.agent})`);
  const counts = (o: Record<string, number>) =>
    Object.entries(o)
      .sort()
      .map(([k, v]) => `${k} ${v}`)
      .join(', ') || 'none';
  lines.push(`  by status: ${counts(s.runsByStatus)}`);
  lines.push(`  by schema: ${counts(s.runsBySchema)}`);
  const kinds = s.files.nonRun ? counts(s.files.nonRunByKind) : '';
  lines.push(
    `  files: ${s.files.parsed} with runs, ${s.files.nonRun} other known files${kinds ? ` (${kinds})` : ''}, ${s.files.corrupt.length} corrupt, ${s.files.unknown.length} unknown, ${s.files.unattributed.length} not attributed, ${s.files.skipped.length} not read (links, special files)`,
  );
  lines.push(`  commit ids resolved to 40 hex: ${s.commitIds.full}/${s.runs} runs`);
  lines.push(`  agent runs: ${s.agentRuns.linked} linked, ${s.agentRuns.unlinked.length} unlinked`);
  for (const c of s.files.corrupt) lines.push(`  corrupt  ${c.path}: ${c.error}`);
  for (const u of s.files.unknown) lines.push(`  unknown  ${u.path}: ${u.reason}`);
  for (const u of s.files.unattributed) lines.push(`  not attributed  ${u.path} (${u.schema}, ${u.runs} run${u.runs === 1 ? '' : 's'}): ${u.reason}`);
  for (const u of s.files.skipped) lines.push(`  skipped  ${u.path}: ${u.reason}`);
  for (const u of s.agentRuns.unlinked) lines.push(`  unlinked ${u.path}: ${u.reason}`);
  for (const c of s.conflicts) lines.push(`  conflict ${c.message}`);
  for (const p of s.dataProblems) lines.push(`  caution  ${p.file} (${p.field}): ${p.message}`);
  // Provenance of every run: which file and schema it came from, and (for our runs) image and fixes.
  for (const r of s.runList ?? []) {
    // A standalone file names no commit or role: say where they came from.
    const who = r.identity.by === 'file' ? '' : `by ${r.identity.by} ${r.identity.source ?? ''}${r.identity.line ? `:${r.identity.line}` : ''}`.trim();
    const extra = [who, r.image && `image ${r.image}`, r.fixes?.length ? `fixes ${r.fixes.join(',')}` : '', r.timestamp && `at ${r.timestamp}`]
      .filter(Boolean)
      .join('; ');
    lines.push(`  run      ${r.commit.slice(0, 12)} ${r.role.padEnd(8)} ${r.status.padEnd(8)} ${r.schema}/${r.source} ${r.file}${extra ? ` (${extra})` : ''}`);
  }
  return lines.map(clean).join('\n');
}
