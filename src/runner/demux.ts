import { Writable } from 'node:stream';

/**
 * Splits Docker's multiplexed attach/exec stream (8-byte frame headers: stream type, 3 zero bytes,
 * big-endian length) into stdout and stderr, byte for byte. Written here rather than using
 * docker-modem's `demuxStream` because that one re-concatenates its buffer on every chunk and
 * ignores backpressure — hundreds of MB of output would pile up in memory.
 */
export class DockerDemuxer extends Writable {
  private header = Buffer.alloc(8);
  private headerFill = 0;
  private remaining = 0;
  private target: Writable | null = null;

  constructor(
    private readonly out: Writable,
    private readonly err: Writable,
  ) {
    super({ highWaterMark: 1 << 20 });
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, done: (e?: Error | null) => void): void {
    let pos = 0;
    let waitFor: Writable | null = null;
    while (pos < chunk.length) {
      if (this.remaining === 0) {
        const take = Math.min(8 - this.headerFill, chunk.length - pos);
        chunk.copy(this.header, this.headerFill, pos, pos + take);
        this.headerFill += take;
        pos += take;
        if (this.headerFill < 8) break;
        this.headerFill = 0;
        const type = this.header[0];
        if (type !== 1 && type !== 2 && type !== 0) {
          done(new Error(`Docker stream out of sync (frame type ${type})`));
          return;
        }
        this.remaining = this.header.readUInt32BE(4);
        this.target = type === 2 ? this.err : this.out;
        continue;
      }
      const take = Math.min(this.remaining, chunk.length - pos);
      const ok = this.target!.write(chunk.subarray(pos, pos + take));
      if (!ok) waitFor = this.target;
      this.remaining -= take;
      pos += take;
    }
    if (!waitFor) {
      done();
      return;
    }
    const w = waitFor;
    const onDrain = () => {
      w.off('error', onError);
      done();
    };
    const onError = (e: Error) => {
      w.off('drain', onDrain);
      done(e);
    };
    w.once('drain', onDrain).once('error', onError);
  }
}
