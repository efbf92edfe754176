import { closeSync, constants, fstatSync, openSync, promises as fs, readSync, type Stats } from 'node:fs';

/** A file the tool was told to read and will not: not a regular file, too big, a link where none may be. */
export class ReadRefused extends Error {
  constructor(
    readonly file: string,
    readonly why: string,
  ) {
    super(`${file}: ${why}`);
    this.name = 'ReadRefused';
  }
}

export interface BoundedReadOptions {
  /** Refused above this size (bytes), the cap named in the refusal. */
  maxBytes: number;
  /** Follow a symbolic link (a file named by the user on a command line); records the tool writes never follow one. */
  follow?: boolean;
  /** What the file is, for the refusal ("user rules", "a campaign record"). */
  what?: string;
}

export function kindOf(st: Stats): string {
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  if (st.isDirectory()) return 'a folder';
  if (st.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

export function sizeText(bytes: number): string {
  return bytes >= 1048576 ? `${(bytes / 1048576).toFixed(1)} MB` : bytes >= 1024 ? `${(bytes / 1024).toFixed(0)} KB` : `${bytes} bytes`;
}

/**
 * Reads a whole text file named by a setting, a flag or the tool's own records: opened without
 * blocking (a FIFO cannot hang it), without following a link unless asked, sized by the open file
 * (a device like /dev/zero is refused before one byte is read) and refused above the cap. Never
 * reads more than the cap even if the file grows meanwhile.
 */
export async function readTextBounded(file: string, opts: BoundedReadOptions): Promise<string> {
  return (await readBytesBounded(file, opts)).toString('utf8').replace(/^\uFEFF/, '');
}

/** The same, as bytes: for what is written out again as it was read (a saved answer), never decoded whole. */
export async function readBytesBounded(file: string, opts: BoundedReadOptions): Promise<Buffer> {
  const what = opts.what ? `${opts.what} ` : '';
  let fh: fs.FileHandle;
  try {
    fh = await fs.open(file, constants.O_RDONLY | constants.O_NONBLOCK | (opts.follow ? 0 : constants.O_NOFOLLOW));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new ReadRefused(file, `${what}is a symbolic link: not followed`);
    throw e;
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw new ReadRefused(file, `${what}is ${kindOf(st)}, not a regular file: not read`);
    if (st.size > opts.maxBytes) throw new ReadRefused(file, `${what}is ${sizeText(st.size)}, over the ${sizeText(opts.maxBytes)} cap: not read`);
    const buf = Buffer.alloc(st.size);
    let got = 0;
    while (got < st.size) {
      const { bytesRead } = await fh.read(buf, got, st.size - got, got);
      if (!bytesRead) break;
      got += bytesRead;
    }
    return got === buf.length ? buf : buf.subarray(0, got);
  } finally {
    await fh.close();
  }
}

/** The same, for synchronous callers (the CLI's start-up reads). */
export function readTextBoundedSync(file: string, opts: BoundedReadOptions): string {
  const what = opts.what ? `${opts.what} ` : '';
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | (opts.follow ? 0 : constants.O_NOFOLLOW));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ELOOP') throw new ReadRefused(file, `${what}is a symbolic link: not followed`);
    throw e;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new ReadRefused(file, `${what}is ${kindOf(st)}, not a regular file: not read`);
    if (st.size > opts.maxBytes) throw new ReadRefused(file, `${what}is ${sizeText(st.size)}, over the ${sizeText(opts.maxBytes)} cap: not read`);
    const buf = Buffer.alloc(st.size);
    let got = 0;
    while (got < st.size) {
      const n = readSync(fd, buf, got, st.size - got, got);
      if (!n) break;
      got += n;
    }
    return buf.toString('utf8', 0, got).replace(/^\uFEFF/, '');
  } finally {
    closeSync(fd);
  }
}
