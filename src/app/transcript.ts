import { constants, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { FINAL_STATES, type RunRecord } from '../core/run/records';
import { readRunRecord } from '../runner/recordRead';

/** A log file larger than this shows its head and tail in the transcript (the file itself stays whole). */
export const TRANSCRIPT_FILE_CAP = 8 * 1024 * 1024;
const HEAD = 1024 * 1024;

export interface TranscriptPart {
  title: string;
  file: string;
  size: number;
}

/** The logs of a run in the order they were written: each phase's stdout and stderr, then the runner's own log. */
export function transcriptParts(r: RunRecord): Array<Omit<TranscriptPart, 'size'> & { started: boolean }> {
  const parts: Array<Omit<TranscriptPart, 'size'> & { started: boolean }> = [];
  r.phases.forEach((p, i) => {
    const when = p.launchedAt ? `started ${p.launchedAt.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}` : 'not started';
    const end = p.exitCode !== null ? `, exit ${p.exitCode}` : p.launchedAt && !p.endedAt ? ', running' : '';
    parts.push({ title: `[${i + 1}/${r.phases.length}] ${p.name} · stdout · ${when}${end}`, file: p.stdout, started: !!p.launchedAt });
    parts.push({ title: `[${i + 1}/${r.phases.length}] ${p.name} · stderr`, file: p.stderr, started: !!p.launchedAt });
  });
  parts.push({ title: 'runner (queue, preflight, notes)', file: r.runnerLog, started: true });
  return parts;
}

async function readPart(file: string): Promise<{ text: string; size: number }> {
  let fh: fs.FileHandle;
  try {
    fh = await fs.open(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch {
    return { text: '', size: -1 };
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) return { text: `(not a regular file: not read)\n`, size: -1 };
    const read = async (pos: number, len: number) => {
      const b = Buffer.alloc(len);
      const { bytesRead } = await fh.read(b, 0, len, pos);
      return b.subarray(0, bytesRead).toString('utf8');
    };
    if (st.size <= TRANSCRIPT_FILE_CAP) return { text: await read(0, st.size), size: st.size };
    const tail = TRANSCRIPT_FILE_CAP - HEAD;
    return {
      size: st.size,
      text: `${await read(0, HEAD)}\n[bench-triage: ${(st.size - TRANSCRIPT_FILE_CAP).toLocaleString('en')} bytes of ${path.basename(file)} not shown here; open the log file itself for all of it]\n${await read(st.size - tail, tail)}`,
    };
  } finally {
    await fh.close();
  }
}

/**
 * One document for a whole run: every phase's logs in order, each under a header naming the phase,
 * stream, start and exit, then the runner's log; the run's state at the top. Files larger than
 * the cap show head and tail with a marker (the files themselves are never cut).
 */
export async function composeTranscript(runDir: string): Promise<{ text: string; fingerprint: string; record: RunRecord | null }> {
  const read = await readRunRecord(runDir);
  if (!read.ok) return { text: `No run here: ${read.finding}.\n`, fingerprint: 'none', record: null };
  const r = read.record;
  const out: string[] = [];
  const live = !FINAL_STATES.includes(r.status);
  out.push(
    `# ${r.role} of ${r.commit} on ${r.host.label} · ${r.status}${live ? ' (following: this document grows with the run)' : ''}${r.error ? ` · ${r.error}` : ''}`,
  );
  out.push(`# image ${r.image} · run ${r.runId}`);
  const sizes: number[] = [];
  for (const p of transcriptParts(r)) {
    if (!p.started) continue;
    const { text, size } = await readPart(path.join(runDir, p.file));
    sizes.push(size);
    if (size <= 0 && p.file.endsWith('stderr.log')) continue; // an empty stderr says nothing
    out.push('', `===== ${p.title} · ${p.file} =====`);
    out.push(size < 0 ? '(no output yet)' : text.replace(/\n$/, ''));
  }
  return { text: out.join('\n') + '\n', fingerprint: `${r.status}|${r.phases.length}|${sizes.join(',')}`, record: r };
}

/** What changes when the transcript would: the run's state and the sizes of its logs (stats only, nothing read). */
export async function transcriptFingerprint(runDir: string): Promise<{ fingerprint: string; bytes: number }> {
  const read = await readRunRecord(runDir);
  if (!read.ok) return { fingerprint: 'none', bytes: 0 };
  const r = read.record;
  const sizes = await Promise.all(
    transcriptParts(r)
      .filter(p => p.started)
      .map(p =>
        fs.lstat(path.join(runDir, p.file)).then(
          s => s.size,
          () => -1,
        ),
      ),
  );
  return {
    fingerprint: `${r.status}|${r.phases.length}|${sizes.join(',')}`,
    bytes: sizes.reduce((a, b) => a + Math.max(0, Math.min(b, TRANSCRIPT_FILE_CAP)), 0),
  };
}
