import { createHash } from 'node:crypto';
import * as path from 'node:path';
import type { FileSource, ListedFile } from '../core/ingest';
import { readBytesBounded } from '../platform/boundedRead';
import { folderListings } from '../platform/folderListings';
import { nodeFileSource } from '../platform/nodeFileSource';
import { writeTextAtomic } from '../runner/atomicJson';
import { BUILD } from './workspace';

/** What a command printed: its standard output and the lines it wrote to standard error. */
export interface Answer {
  stdout: string;
  stderr: string[];
}

/** A saved answer as read back: its standard output as the bytes saved (tens of MB, printed as they are, never decoded). */
export interface RecalledAnswer {
  stdout: Uint8Array;
  stderr: string[];
}

/**
 * A folder listed once, for a command whose answer a cache directory may hold (the CLI's
 * `classify --cache`). The answer is a function of the question (command, options, the rules'
 * content, the build) and of the folder's listing (every file's path, size and mtime, links and
 * special files): when neither changed since it was saved, it is printed again without loading
 * the index or computing anything. `source` gives the same listing to the analysis, not walked twice.
 */
export interface ListedFolder {
  source: FileSource;
  /** The saved answer to this question about this listing, or null. */
  recall(): Promise<RecalledAnswer | null>;
  /** Saves the answer (a failure to write is not the command's failure: the next run computes it again). */
  keep(answer: Answer): Promise<void>;
}

// 2: the second line also holds the output's length (an answer cut short is not printed).
const VERSION = 2;
/** Larger than any answer (10 000 commits print ~45 MB of JSON); a larger file is recomputed. */
const ANSWER_CAP = 512 * 1024 * 1024;
const idOf = (s: string) => createHash('sha1').update(s).digest('hex').slice(0, 16);

/**
 * `question` names the answer (one file per question and folder: a new answer to it replaces the
 * old); `inputs` is what else it depends on (the rules' content), checked but not naming it.
 */
export async function listForAnswer(folder: string, cacheDir: string, question: unknown, inputs: unknown = null): Promise<ListedFolder> {
  const abs = path.resolve(folder);
  const listings = await folderListings(path.join(cacheDir, `listings-${idOf(abs)}.json`), abs, writeTextAtomic);
  const walked = nodeFileSource(abs, { listings });
  // A cache kept inside the folder is not part of it: its files change at every run.
  const inside = path.relative(abs, path.resolve(cacheDir));
  const own = inside && !inside.startsWith('..') && !path.isAbsolute(inside) ? `${inside.split(path.sep).join('/')}/` : null;
  const files: ListedFile[] = [];
  for await (const f of walked.list()) if (!own || !f.path.startsWith(own)) files.push(f);
  await listings.save().catch(() => undefined);
  // In path order: the walk reads many folders at once, so its order varies from run to run.
  const fingerprint = createHash('sha1');
  for (const f of [...files].sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0)))
    fingerprint.update(`${f.path}\0${f.size}\0${f.mtimeMs ?? ''}\0${f.kind ?? ''}\n`);
  const q = JSON.stringify(question);
  // The first line of the answer file: an answer is used only when this line is the same.
  const key = JSON.stringify({ v: VERSION, build: BUILD, folder: abs, question: q, inputs, listing: fingerprint.digest('hex') });
  const file = path.join(cacheDir, `answer-${idOf(`${abs}\0${q}`)}.txt`);
  let replayed = false;
  const source: FileSource = {
    ...walked,
    // The analysis's first listing is this one; later ones (a caller that lists again) walk.
    list: (signal, opts) => {
      if (replayed) return walked.list(signal, opts);
      replayed = true;
      return (async function* () {
        yield* files;
      })();
    },
  };
  return {
    source,
    async recall() {
      let bytes: Buffer;
      try {
        bytes = await readBytesBounded(file, { maxBytes: ANSWER_CAP, what: 'a saved answer' });
      } catch {
        return null;
      }
      // Only the two header lines are decoded: the output is printed as the bytes it was saved as.
      const first = bytes.indexOf(0x0a),
        second = first < 0 ? -1 : bytes.indexOf(0x0a, first + 1);
      if (first < 0 || second < 0 || bytes.toString('utf8', 0, first) !== key) return null;
      try {
        const meta: unknown = JSON.parse(bytes.toString('utf8', first + 1, second));
        const stderr = meta && typeof meta === 'object' ? (meta as { stderr?: unknown }).stderr : null;
        if (!Array.isArray(stderr) || !stderr.every(s => typeof s === 'string')) return null;
        // Written without a flush to disk: after a crash of the machine, the output may be cut short.
        if ((meta as { bytes?: unknown }).bytes !== bytes.length - second - 1) return null;
        return { stdout: bytes.subarray(second + 1), stderr };
      } catch {
        return null;
      }
    },
    async keep(answer) {
      // A cache: checked when read (its key, its length), recomputed when not whole, so not flushed to disk.
      const meta = JSON.stringify({ stderr: answer.stderr, bytes: Buffer.byteLength(answer.stdout) });
      await writeTextAtomic(file, `${key}\n${meta}\n${answer.stdout}`, undefined, { durable: false }).catch(() => undefined);
    },
  };
}
