import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { FileSource } from '../core/ingest/scan';
import { walkFiles } from '../core/ingest/walk';

/** Node's fs behind the core's FileSource: used by the CLI, the language server and benchmarks. */
export function nodeFileSource(root: string): FileSource {
  const abs = path.resolve(root);
  return {
    list: signal => walkFiles(
      async rel => (await fs.readdir(path.join(abs, rel), { withFileTypes: true })).map(e => ({ name: e.name, dir: e.isDirectory(), file: e.isFile() })),
      async rel => (await fs.stat(path.join(abs, rel))).size,
      signal),
    readText: p => fs.readFile(path.join(abs, p), 'utf8'),
  };
}
