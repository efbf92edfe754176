/** One JSON message of the engine's build response (classic builder). */
export interface BuildMessage {
  stream?: string;
  status?: string;
  id?: string;
  progressDetail?: { current?: number; total?: number };
  error?: string;
  errorDetail?: { message?: string; code?: number };
  aux?: { ID?: string };
}

/** A message larger than this is not a build message: the response is refused, not buffered. */
export const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/**
 * Splits the engine's response into its JSON messages as chunks arrive. Linear: a message split
 * over many chunks is joined once, when its newline comes (strings in JSON escape newlines, so a
 * raw newline only ever ends a message). A line that is not JSON is kept as text.
 */
export class BuildStreamDecoder {
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  constructor(
    private readonly onMessage: (m: BuildMessage) => void,
    private readonly maxMessage = MAX_MESSAGE_BYTES,
  ) {}

  push(chunk: Buffer): void {
    let from = 0;
    for (let nl = chunk.indexOf(10, from); nl >= 0; nl = chunk.indexOf(10, from)) {
      const part = chunk.subarray(from, nl);
      const line = this.pending.length ? Buffer.concat([...this.pending, part]) : part;
      this.pending = [];
      this.pendingBytes = 0;
      this.line(line);
      from = nl + 1;
    }
    if (from < chunk.length) {
      this.pendingBytes += chunk.length - from;
      if (this.pendingBytes > this.maxMessage) throw new Error(`the engine sent a build message over ${this.maxMessage} bytes without a line end`);
      this.pending.push(Buffer.from(chunk.subarray(from)));
    }
  }

  end(): void {
    if (!this.pending.length) return;
    const line = Buffer.concat(this.pending);
    this.pending = [];
    this.line(line);
  }

  private line(b: Buffer): void {
    const t = b.toString('utf8').replace(/\r$/, '');
    if (!t.trim()) return;
    let v: unknown;
    try {
      v = JSON.parse(t);
    } catch {
      this.onMessage({ stream: `${t}\n` });
      return;
    }
    if (v && typeof v === 'object' && !Array.isArray(v)) this.onMessage(v as BuildMessage);
    else this.onMessage({ stream: `${t}\n` });
  }
}

/**
 * The text a message adds to build.log: what the builder printed (`stream`) exactly as sent, pull
 * status lines (without the progress bars), and the error the build ended with.
 */
export function messageText(m: BuildMessage): string {
  if (typeof m.stream === 'string') return m.stream;
  if (typeof m.error === 'string') return m.error.endsWith('\n') ? m.error : `${m.error}\n`;
  if (typeof m.status === 'string' && !(m.progressDetail && (m.progressDetail.total || m.progressDetail.current)))
    return `${m.id ? `${m.id}: ` : ''}${m.status}\n`;
  return '';
}

/** What a build's messages tell the runner: its steps, its intermediate containers and images, its result. */
export class BuildProgress {
  step: { n: number; total: number; text: string } | null = null;
  /** Intermediate containers (`Running in …`), short ids. */
  readonly containers: string[] = [];
  /** Images this build created (not those it took from the cache), short ids, in order. */
  readonly created: string[] = [];
  imageId: string | null = null;
  error: string | null = null;
  private cached = false;

  /** Takes a message; true when it starts a new step. */
  take(m: BuildMessage): boolean {
    if (m.aux?.ID) this.imageId = m.aux.ID;
    if (typeof m.error === 'string') this.error = m.errorDetail?.message || m.error;
    if (typeof m.stream !== 'string') return false;
    let newStep = false;
    for (const line of m.stream.split('\n')) {
      const step = /^Step (\d+)\/(\d+) : (.*)$/.exec(line);
      if (step) {
        this.step = { n: Number(step[1]), total: Number(step[2]), text: step[3].slice(0, 200) };
        newStep = true;
        continue;
      }
      const running = /^ ---> Running in ([0-9a-f]{12})\s*$/.exec(line);
      if (running) {
        this.containers.push(running[1]);
        continue;
      }
      if (/^ ---> Using cache\s*$/.test(line)) {
        this.cached = true;
        continue;
      }
      const id = /^ ---> ([0-9a-f]{12})\s*$/.exec(line);
      if (id) {
        if (!this.cached) this.created.push(id[1]);
        this.cached = false;
        continue;
      }
      const built = /^Successfully built ([0-9a-f]{12})\s*$/.exec(line);
      if (built && !this.imageId) this.imageId = built[1];
    }
    return newStep;
  }
}
