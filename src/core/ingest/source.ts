/** The scan reads through this; the CLI and server pass Node's fs, the extension VS Code's. */
export interface ListedFile {
  path: string;
  /** Bytes; -1 when the listing left it to the read (`ListOptions.statOnRead`). */
  size: number;
  /** Last modification (ms since the epoch), when the file system says: the persistent index keys on it. */
  mtimeMs?: number;
  kind?: 'symlink' | 'special';
}

export interface ReadOptions {
  /** Bytes read at most (default 256 MiB). */
  maxBytes?: number;
  /** Refuse a larger file instead of reading its head and tail. */
  whole?: boolean;
  /** Called when only the head and tail of a larger file were read. */
  onCapped?(size: number, kept: number): void;
  /** The path came from the folder's own listing (a regular file found by walking real folders): links need no resolving. */
  listed?: boolean;
  /** Told the file's size and mtime as the read found them (a listing that left them to the read needs them). */
  onStat?(s: { size: number; mtimeMs?: number }): void;
}

export interface ListOptions {
  /**
   * Result files (.json, .jsonl) may be listed with size -1 and no mtime, their stat left to the
   * read, which reports it through `ReadOptions.onStat`: one system call less per file on a cold
   * scan. A source may ignore this and stat anyway.
   */
  statOnRead?: boolean;
}

export interface FileSource {
  /** Every file below the root, as posix paths relative to it. */
  list(signal?: AbortSignal, opts?: ListOptions): AsyncIterable<ListedFile>;
  /** `list` gives each folder's files one after another (walkFiles does): a reader may start on a folder once the next begins. */
  groupedByFolder?: boolean;
  /**
   * Reads a file below the root. Throws FileRefused when it resolves outside the root (after
   * following links) or is not a regular file; never blocks on a FIFO; reads at most the cap.
   */
  readText(path: string, opts?: ReadOptions): Promise<string>;
  /**
   * A listed file read at once, as `readText` with `listed` would (same refusals, same onStat),
   * when the source can (Node's fs, a small file); undefined when it must be read asynchronously.
   * A scan of thousands of small files then spends no promise per file.
   */
  readListedNow?(path: string, opts?: ReadOptions): string | undefined;
  /** When a caller reading at once has kept the thread long enough: a promise resolved after the event loop has turned; else undefined. */
  breather?(): Promise<void> | undefined;
  /** One file as a listing would give it (for updates after a file event); null when it is gone. */
  stat?(path: string): Promise<ListedFile | null>;
  /** Where a listed symbolic link leads (for the scan's record of it). */
  describe?(path: string): Promise<{ target: string | null; inside: boolean; regular: boolean; error?: string }>;
}

/** A file the scan or a data-named reference may not read, with the reason. */
export class FileRefused extends Error {}

export const DEFAULT_READ_CAP = 256 * 1024 * 1024;

/**
 * The shared tail of FileSource.readText: the whole file when it is within the cap, else (unless
 * `whole`) its head and tail around a marker line saying how much was left out.
 */
export async function readCapped(rel: string, size: number, opts: ReadOptions, readAt: (pos: number, len: number) => Promise<Uint8Array>): Promise<string> {
  const cap = opts.maxBytes ?? DEFAULT_READ_CAP;
  const dec = (b: Uint8Array) => new TextDecoder('utf-8').decode(b);
  if (size <= cap) return dec(await readAt(0, size));
  if (opts.whole) throw new FileRefused(`${rel} is ${(size / 1048576).toFixed(1)} MiB, above the ${(cap / 1048576).toFixed(0)} MiB limit: not read`);
  const half = Math.floor(cap / 2);
  opts.onCapped?.(size, 2 * half);
  return `${dec(await readAt(0, half))}\n[bench-triage: ${(size - 2 * half).toLocaleString('en')} bytes in the middle of ${rel} were not read; the first and last ${(half / 1048576).toFixed(0)} MiB were]\n${dec(await readAt(size - half, half))}`;
}
