import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { FileSource, ListedFile } from '../../src/core/ingest';

/** The real ISO-Bench data, read in place (never copied into the repo). */
export const ISOBENCH = path.resolve(__dirname, '../../../shared/isobench');

export function requireCorpus(): void {
  if (!fs.existsSync(ISOBENCH))
    throw new Error(
      `this test reads the real ISO-Bench data, which is not at ${ISOBENCH}: put the project's shared folder beside this checkout (../shared, with isobench/ in it; CI has it there), or a link to it — the tests read it in place and never copy it. Tests without "[ISO-Bench data]" in their name run without it.`,
    );
}

/** Every file below `dir`, relative, posix. */
export function walk(dir: string, rel = ''): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    const p = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...walk(dir, p));
    else if (e.isFile()) out.push(p);
  }
  return out;
}

/** An in-memory folder for feeding hand-made and mangled files to the scanner. */
export function memorySource(files: Record<string, string>): FileSource {
  return {
    async *list(): AsyncIterable<ListedFile> {
      for (const [p, text] of Object.entries(files)) yield { path: p, size: Buffer.byteLength(text) };
    },
    readText: async p => files[p],
  };
}

/** Runs the built CLI (dist/cli.js) as a user would. */
export function runCli(...args: string[]) {
  return spawnSync(process.execPath, [path.resolve(__dirname, '../../dist/cli.js'), ...args], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
}
