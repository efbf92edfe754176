import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * Unmounts (lazily) every mount a killed engine left under `root`: its overlay layers and the
 * netns files of its containers' sandboxes. A dockerd that dies without cleaning up leaves them,
 * and the next suite's `rm -r` of the folder then fails with EBUSY.
 */
export function unmountUnder(root: string): void {
  const prefix = root.replace(/\/+$/, '') + '/';
  const mounts = readFileSync('/proc/mounts', 'utf8')
    .split('\n')
    // /proc/mounts escapes blanks as octal (\040); decode so the path matches the folder's.
    .map(l => l.split(' ')[1]?.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8))))
    .filter((m): m is string => !!m && m.startsWith(prefix))
    .sort((a, b) => b.length - a.length);
  for (const m of mounts) {
    try {
      execFileSync('umount', ['-l', m], { stdio: 'ignore' });
    } catch {
      /* gone already (a parent's lazy unmount took it) */
    }
  }
}
