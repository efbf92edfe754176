// Writes <file> atomically and dies (SIGKILL) at the moment the new file is complete on disk but
// not yet renamed over the old one — a real process crash, not a thrown error.
import { promises as fs } from 'node:fs';
import { writeJsonAtomic } from '../../src/runner/atomicJson';

const file = process.argv[2];
void writeJsonAtomic(
  file,
  { metrics: {}, half: 'x'.repeat(1 << 20) },
  {
    ...fs,
    rename: async () => {
      process.kill(process.pid, 'SIGKILL');
    },
  },
);
