import { createWriteStream, type WriteStream } from 'node:fs';
import { Writable } from 'node:stream';

/**
 * Appends a phase's stream to its log file as it arrives — never truncated, byte for byte —
 * except that secrets (e.g. the Hugging Face token) are masked with `*` even when split across
 * chunks. The mask has the secret's length, so a file's size stays the number of bytes received
 * (a re-attaching runner resumes from it). A write error (disk full) is kept and reported by the runner with the file name.
 */
export class LogSink extends Writable {
  bytes = 0;
  failure: NodeJS.ErrnoException | null = null;
  private readonly file: WriteStream;
  private carry = Buffer.alloc(0);
  private readonly secrets: Buffer[];
  private readonly keep: number;

  constructor(
    readonly path: string,
    secrets: string[] = [],
    append = false,
    private readonly onFailure?: (e: Error) => void,
  ) {
    super({ highWaterMark: 1 << 20 });
    this.secrets = secrets.filter(s => s.length >= 4).map(s => Buffer.from(s));
    this.keep = Math.max(0, ...this.secrets.map(s => s.length - 1));
    this.file = createWriteStream(path, { flags: append ? 'a' : 'w', highWaterMark: 1 << 20 });
    // The failure is kept and reported by the runner; the sink itself never emits 'error', so the
    // demultiplexer feeding it is not torn down mid-frame.
    this.file.on('error', e => {
      if (!this.failure) {
        this.failure = e;
        this.onFailure?.(e);
      }
    });
  }

  private redact(buf: Buffer, final: boolean): Buffer {
    if (!this.secrets.length) return buf;
    let data = this.carry.length ? Buffer.concat([this.carry, buf]) : buf;
    for (const s of this.secrets) {
      let i = data.indexOf(s);
      if (i < 0) continue;
      const parts: Buffer[] = [];
      let from = 0;
      for (; i >= 0; i = data.indexOf(s, from)) {
        parts.push(data.subarray(from, i), Buffer.alloc(s.length, '*'));
        from = i + s.length;
      }
      parts.push(data.subarray(from));
      data = Buffer.concat(parts);
    }
    const cut = final ? data.length : Math.max(0, data.length - this.keep);
    this.carry = Buffer.from(data.subarray(cut));
    return data.subarray(0, cut);
  }

  override _write(chunk: Buffer, _e: BufferEncoding, done: (e?: Error | null) => void): void {
    if (this.failure) {
      done();
      return;
    }
    this.bytes += chunk.length;
    const out = this.redact(chunk, false);
    if (!out.length || this.file.write(out)) {
      done();
      return;
    }
    const settle = () => {
      this.file.off('drain', settle);
      this.file.off('error', settle);
      done();
    };
    this.file.once('drain', settle).once('error', settle);
  }

  override _final(done: (e?: Error | null) => void): void {
    const rest = this.redact(Buffer.alloc(0), true);
    if (rest.length) this.file.write(rest);
    if (this.file.destroyed) {
      done();
      return;
    }
    this.file.end(() => done());
  }

  /** Ends the file and waits until it is on disk (or failed). */
  close(): Promise<void> {
    return new Promise(resolve => {
      if (this.writableFinished || this.destroyed) resolve();
      else this.end(() => resolve());
    });
  }
}
