// Whether the process that holds a record (a run, a build, a campaign claim, a temp file) is still
// there: one answer for every owner check, so runs, builds and campaigns agree on who is gone.
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

/** `<hostname>:<pid>` of this process, as run.json and build.json name their owner. */
export const ownerHere = (): string => `${hostname()}:${process.pid}`;

/**
 * A process of this machine is alive: kill(0) answers (EPERM: alive, another user's), and it is
 * not a zombie (a killed process its parent has not reaped yet still answers kill(0)).
 */
export function pidAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    return !/^\d+ \(.*\) Z/s.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true; // no /proc (macOS): kill(0) is all there is
  }
}

/** Whether the owner a record names (`host:pid`) is alive; another machine's always counts as alive (never steal its work). */
export function ownerAlive(owner: string | undefined | null): boolean {
  if (!owner) return false;
  const i = owner.lastIndexOf(':');
  if (i < 0) return false;
  if (owner.slice(0, i) !== hostname()) return true;
  return pidAlive(Number(owner.slice(i + 1)));
}
