import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

/** The repository root, from wherever a bundle of this file ends up (dist-test/…, dist-bench). */
export function repoRoot(from = __dirname): string {
  for (let d = from; d !== path.dirname(d); d = path.dirname(d)) {
    const pkg = path.join(d, 'package.json');
    if (existsSync(pkg) && JSON.parse(readFileSync(pkg, 'utf8')).name === 'bench-triage') return d;
  }
  throw new Error(`no bench-triage package.json above ${from}`);
}
