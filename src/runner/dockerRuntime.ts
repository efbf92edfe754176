import type Docker from 'dockerode';

// Loaded with the first engine: `classify` and the other commands that never reach one do not pay
// for dockerode and its SSH transport at start-up.
const dockerode = (): typeof Docker => require('dockerode') as typeof Docker;
import { PassThrough, type Writable } from 'node:stream';
import { extract } from 'tar-stream';
import { DockerDemuxer } from './demux';
import { describeDockerError, RunnerError } from './errors';
import { connectOptions, effectiveDockerUrl } from './hosts';
import { type HostConfig } from '../core/run/hosts';
import type {
  ContainerRuntime,
  ContainerSpec,
  ContainerState,
  ExecOptions,
  ExecOutcome,
  HostFacts,
  ImageBuildOptions,
  ImageRuntime,
  LabelledContainer,
} from './runtime';

/** Default limit for one Docker API call (long streams have none, but are cancellable). */
const CALL_TIMEOUT_MS = 30_000;
/** dockerode honours `abortSignal` in options, but its typings do not list it. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
const withSignal = (s: AbortSignal, extra: object = {}): {} => ({ ...extra, abortSignal: s });

/** The module that talks to dockerode (with its swarm subclass). Every call is bounded in time and cancellable. */
export class DockerRuntime implements ContainerRuntime, ImageRuntime {
  readonly where: string;
  protected readonly docker: Docker;
  private readonly hostKeyProblem: () => string | null;

  constructor(
    protected readonly host: HostConfig,
    env = process.env,
  ) {
    const url = effectiveDockerUrl(host, env);
    this.where = `${host.label} (${url})`;
    const { options, hostKeyProblem } = connectOptions(host, env);
    this.hostKeyProblem = hostKeyProblem;
    // The env-derived defaults of docker-modem would override ours (DOCKER_HOST, DOCKER_CERT_PATH): pass everything explicitly.
    this.docker = new (dockerode())({ ...options, connectionTimeout: 15_000 } as Docker.DockerOptions);
  }

  private fail(e: unknown): RunnerError {
    return describeDockerError(e, this.host.label, effectiveDockerUrl(this.host), this.hostKeyProblem());
  }

  /** Runs one API call with a deadline and the caller's cancellation. */
  protected async call<T>(what: (signal: AbortSignal) => Promise<T>, signal?: AbortSignal, timeoutMs = CALL_TIMEOUT_MS): Promise<T> {
    const ctl = new AbortController();
    const timer = setTimeout(() => ctl.abort(new RunnerError(`${this.where}: no answer within ${timeoutMs / 1000} s`, 'timeout')), timeoutMs);
    const onAbort = () => ctl.abort(new RunnerError(`${this.where}: cancelled`, 'cancelled'));
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      return await new Promise<T>((resolve, reject) => {
        ctl.signal.addEventListener('abort', () => reject(ctl.signal.reason), { once: true });
        what(ctl.signal).then(resolve, reject);
      });
    } catch (e) {
      throw this.fail(e);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /**
   * Calls `onContainer(serviceId, containerId)` as this engine creates (then starts) a swarm task's
   * container carrying `label` (the engine pushes its events: nothing is polled). Best effort: an engine that cannot give its
   * events, or drops the stream, is simply not watched. Returns the function that stops watching;
   * the watch never keeps the process alive.
   */
  watchTaskContainers(
    label: string,
    onContainer: (serviceId: string, containerId: string, action: string, attributes: Record<string, unknown>) => void,
    events: string[] = ['create', 'start'],
    sinceMs?: number,
  ): () => void {
    let stream: (NodeJS.ReadableStream & { destroy?: () => void; socket?: { unref?: () => void } }) | null = null;
    let stopped = false;
    // Created: the manager names a task's container from then on (its files can go in before it starts).
    const filters = JSON.stringify({ type: ['container'], event: events, label: [label] });
    // `since` replays what the engine saw while the stream was being opened.
    const since = sinceMs === undefined ? {} : { since: (sinceMs / 1000).toFixed(3) };
    (this.docker.getEvents as (o: object) => Promise<typeof stream>).call(this.docker, { filters, ...since }).then(
      st => {
        if (!st) return;
        if (stopped) return st.destroy?.();
        stream = st;
        st.socket?.unref?.();
        let rest = '';
        st.on('data', (d: Buffer) => {
          const lines = (rest + d.toString('utf8')).split('\n');
          rest = lines.pop() ?? '';
          // A line is bounded by what an engine writes for one event; a stream that never ends a line is cut.
          if (rest.length > 1 << 20) rest = '';
          for (const l of lines) {
            let ev: { Action?: unknown; Actor?: { ID?: unknown; Attributes?: Record<string, unknown> } } | undefined;
            try {
              ev = JSON.parse(l) as typeof ev;
            } catch {
              continue;
            }
            const actor = ev?.Actor;
            const service = actor?.Attributes?.['com.docker.swarm.service.id'];
            if (typeof service === 'string' && typeof actor?.ID === 'string') onContainer(service, actor.ID, String(ev?.Action ?? ''), actor.Attributes ?? {});
          }
        });
        st.on('error', () => {});
      },
      () => {},
    );
    return () => {
      stopped = true;
      stream?.destroy?.();
    };
  }

  async ping(signal?: AbortSignal): Promise<void> {
    await this.call(s => (this.docker.ping as (o: object) => Promise<unknown>).call(this.docker, withSignal(s)), signal, 15_000);
  }

  async facts(): Promise<HostFacts> {
    const info = await this.call(s => (this.docker.info as (o: object) => Promise<Record<string, any>>).call(this.docker, withSignal(s)));
    return {
      serverVersion: String(info.ServerVersion ?? ''),
      runtimes: Object.keys(info.Runtimes ?? {}),
      ncpu: Number(info.NCPU ?? 0),
      memBytes: Number(info.MemTotal ?? 0),
      defaultRuntime: String(info.DefaultRuntime ?? ''),
    };
  }

  async hasImage(image: string): Promise<boolean> {
    try {
      await this.call(s => this.docker.getImage(image).inspect(withSignal(s)));
      return true;
    } catch (e) {
      if (/no such image|404/i.test(String((e as Error).message))) return false;
      throw e;
    }
  }

  async pull(image: string, signal?: AbortSignal): Promise<void> {
    await this.call(
      async s => {
        const stream = await this.docker.pull(image, withSignal(s));
        await new Promise<void>((resolve, reject) =>
          this.docker.modem.followProgress(stream, (err: Error | null, events: Array<{ error?: string }>) => {
            const bad = err ?? (events.find(e => e.error) ? new Error(events.find(e => e.error)!.error) : null);
            if (bad) reject(bad);
            else resolve();
          }),
        );
      },
      signal,
      3 * 3600_000,
    );
  }

  async push(image: string, signal?: AbortSignal): Promise<string> {
    return await this.call(
      async s => {
        // No credentials: the registry is the swarm's own (TLS, trusted by every node's engine).
        const stream = (await this.docker.getImage(image).push(withSignal(s, { authconfig: {} }) as never)) as unknown as NodeJS.ReadableStream;
        return await new Promise<string>((resolve, reject) =>
          this.docker.modem.followProgress(stream, (err: Error | null, events: Array<{ error?: string; aux?: { Digest?: string } }>) => {
            const bad = err ?? (events.find(e => e.error) ? new Error(events.find(e => e.error)!.error) : null);
            const digest = events.find(e => e.aux?.Digest)?.aux?.Digest;
            if (bad) reject(bad);
            else if (!digest || !/^sha256:[0-9a-f]{64}$/.test(digest)) reject(new Error(`the registry answered the push of ${image} without a digest`));
            else resolve(digest);
          }),
        );
      },
      signal,
      3 * 3600_000,
    );
  }

  async create(spec: ContainerSpec): Promise<string> {
    const c = await this.call(s =>
      this.docker.createContainer({
        name: spec.name,
        Image: spec.image,
        Cmd: spec.cmd,
        Entrypoint: [],
        Labels: spec.labels,
        WorkingDir: spec.workdir,
        Env: Object.entries(spec.env).map(([k, v]) => `${k}=${v}`),
        HostConfig: {
          ShmSize: 2 * 1024 ** 3,
          DeviceRequests: spec.gpuIds.length ? [{ Driver: 'nvidia', DeviceIDs: spec.gpuIds, Capabilities: [['gpu']] }] : undefined,
        },
        abortSignal: s,
      } as Docker.ContainerCreateOptions & { abortSignal: AbortSignal }),
    );
    return c.id;
  }

  async putArchive(id: string, dir: string, tar: Buffer | NodeJS.ReadableStream): Promise<void> {
    await this.call(
      s => this.docker.getContainer(id).putArchive(tar as NodeJS.ReadableStream, withSignal(s, { path: dir }) as { path: string }),
      undefined,
      120_000,
    );
  }

  async start(id: string, _signal?: AbortSignal): Promise<void> {
    await this.call(s => this.docker.getContainer(id).start(withSignal(s)));
  }

  async exec(id: string, argv: string[], opts: ExecOptions = {}): Promise<ExecOutcome> {
    const exec = await this.call(
      s => this.docker.getContainer(id).exec({ Cmd: argv, AttachStdout: !opts.detach, AttachStderr: !opts.detach, abortSignal: s } as Docker.ExecCreateOptions),
      opts.signal,
    );
    if (opts.detach) {
      await this.call(s => exec.start({ Detach: true, abortSignal: s } as Docker.ExecStartOptions), opts.signal);
      return { exitCode: null, stdout: Buffer.alloc(0), stderr: Buffer.alloc(0) };
    }
    const collected: [Buffer[], Buffer[]] = [[], []];
    const sink = (w: Writable | undefined, k: 0 | 1): Writable => w ?? new PassThrough().on('data', (b: Buffer) => collected[k].push(b));
    const stream = (await this.call(
      s => exec.start({ hijack: true, stdin: false, abortSignal: s } as Docker.ExecStartOptions),
      opts.signal,
    )) as NodeJS.ReadableStream & { destroy(e?: Error): void };
    const demux = new DockerDemuxer(sink(opts.stdout, 0), sink(opts.stderr, 1));
    await new Promise<void>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const stop = (e: Error) => {
        stream.destroy();
        reject(e);
      };
      const onAbort = () => stop(new RunnerError(`${this.where}: cancelled`, 'cancelled'));
      if (opts.signal?.aborted) return onAbort();
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      if (opts.timeoutMs)
        timer = setTimeout(
          () => stop(new RunnerError(`${this.where}: ${argv.join(' ').slice(0, 80)} did not finish within ${opts.timeoutMs! / 1000} s`, 'timeout')),
          opts.timeoutMs,
        );
      const finish = (e?: Error | null) => {
        clearTimeout(timer);
        opts.signal?.removeEventListener('abort', onAbort);
        if (e) reject(this.fail(e));
        else resolve();
      };
      stream.on('error', finish);
      demux.on('error', e => {
        stream.destroy();
        finish(e);
      });
      stream.pipe(demux).on('finish', () => finish());
    });
    const info = await this.call(s => exec.inspect(withSignal(s)));
    return { exitCode: info.Running ? null : (info.ExitCode ?? null), stdout: Buffer.concat(collected[0]), stderr: Buffer.concat(collected[1]) };
  }

  async inspect(id: string): Promise<ContainerState | null> {
    try {
      const i = await this.call(s => this.docker.getContainer(id).inspect(withSignal(s)));
      return {
        running: i.State.Running,
        status: i.State.Status,
        exitCode: i.State.Running ? null : i.State.ExitCode,
        oomKilled: i.State.OOMKilled,
        error: i.State.Error ?? '',
      };
    } catch (e) {
      if (/no such container|404/i.test((e as Error).message)) return null;
      throw e;
    }
  }

  /**
   * The last lines a container's first process wrote (stdout and stderr as they came, the last
   * 2 KB at most): what an error says when that process ended before the run could begin.
   */
  async lastOutput(id: string): Promise<string> {
    const c = this.docker.getContainer(id);
    const raw = await this.call(s =>
      (c.logs as (o: object) => Promise<Buffer>).call(c, { stdout: true, stderr: true, tail: 5, follow: false, abortSignal: s }),
    );
    // Without a TTY the engine frames each write: stream byte, 3 zeros, big-endian length.
    const parts: Buffer[] = [];
    for (let at = 0; at + 8 <= raw.length;) {
      const n = raw.readUInt32BE(at + 4);
      parts.push(raw.subarray(at + 8, at + 8 + n));
      at += 8 + n;
    }
    const all = Buffer.concat(parts);
    return all
      .subarray(Math.max(0, all.length - 2048))
      .toString('utf8')
      .trim();
  }

  /** Sends a signal to a container's first process. */
  async signal(id: string, signal: string): Promise<void> {
    await this.call(s => this.docker.getContainer(id).kill(withSignal(s, { signal })));
  }

  /** Whether a path exists in a container (the engine's stat of it: nothing runs in the container). */
  async hasPath(id: string, file: string): Promise<boolean> {
    return (await this.statPath(id, file)) !== null;
  }

  /** When a path in a container was last modified (ms since the epoch, from the engine's stat of it), or null when it is not there. */
  async pathTime(id: string, file: string): Promise<number | null> {
    const stat = await this.statPath(id, file);
    if (!stat) return null;
    try {
      const t = Date.parse(String((JSON.parse(Buffer.from(stat, 'base64').toString('utf8')) as { mtime?: unknown }).mtime));
      return Number.isFinite(t) ? t : null;
    } catch {
      return null;
    }
  }

  /** The engine's stat of a path in a container (its base64 header, '' when the engine gave none), or null when it is not there. */
  private async statPath(id: string, file: string): Promise<string | null> {
    let res: { headers?: Record<string, string | undefined>; resume?: () => void };
    try {
      res = (await this.call(s => this.docker.getContainer(id).infoArchive(withSignal(s, { path: file })))) as typeof res;
    } catch (e) {
      if (/no such file|not found|404/i.test(String((e as Error).message))) return null;
      throw e;
    }
    res.resume?.();
    return res.headers?.['x-docker-container-path-stat'] ?? '';
  }

  async remove(id: string): Promise<void> {
    try {
      await this.call(s => this.docker.getContainer(id).remove(withSignal(s, { force: true, v: true })));
    } catch (e) {
      if (!/no such container|404|already in progress/i.test((e as Error).message)) throw e;
    }
  }

  /**
   * A small file of the engine's own machine (a node's NVIDIA runtime config), read through a
   * container created from an image the engine has, never started, and removed: nothing runs on
   * the node and nothing is created there (a bind mount of a missing folder is refused, not made).
   * Null when the file or its folder is absent.
   */
  async readHostFile(file: string, maxBytes = 256 * 1024): Promise<string | null> {
    const images = await this.call(s => this.docker.listImages(withSignal(s)) as Promise<Docker.ImageInfo[]>);
    const image = images.filter(i => (i.RepoTags ?? []).some(t => t !== '<none>:<none>')).sort((a, b) => a.Size - b.Size)[0];
    if (!image) throw new RunnerError(`${this.where}: no image on the engine to read ${file} through`, 'image');
    const slash = file.lastIndexOf('/');
    const [dir, name] = [file.slice(0, slash) || '/', file.slice(slash + 1)];
    let id: string;
    try {
      const c = await this.call(s =>
        this.docker.createContainer(
          withSignal(s, {
            Image: image.Id,
            Cmd: ['true'],
            Labels: { 'bench-triage.check': 'read-host-file' },
            NetworkDisabled: true,
            HostConfig: { Mounts: [{ Type: 'bind', Source: dir, Target: '/bt-host', ReadOnly: true }] },
          }) as Docker.ContainerCreateOptions,
        ),
      );
      id = c.id;
    } catch (e) {
      if (/bind source path does not exist|no such file/i.test((e as Error).message)) return null;
      throw e;
    }
    try {
      const tar = (await this.call(s =>
        this.docker.getContainer(id).getArchive(withSignal(s, { path: `/bt-host/${name}` }) as never),
      )) as unknown as NodeJS.ReadableStream;
      return await firstFileOf(tar, maxBytes, `${this.where}: ${file}`);
    } catch (e) {
      if (/no such file|not found|404/i.test((e as Error).message)) return null;
      throw e;
    } finally {
      await this.remove(id);
    }
  }

  async list(label: string): Promise<LabelledContainer[]> {
    const all = await this.call(
      s => this.docker.listContainers(withSignal(s, { all: true, filters: JSON.stringify({ label: [label] }) })) as Promise<Docker.ContainerInfo[]>,
    );
    return all.map(c => ({ id: c.Id, labels: c.Labels ?? {}, state: c.State }));
  }

  async imageId(ref: string): Promise<string | null> {
    try {
      const i = await this.call(s => this.docker.getImage(ref).inspect(withSignal(s)));
      return i.Id;
    } catch (e) {
      if (/no such image|404/i.test(String((e as Error).message))) return null;
      throw e;
    }
  }

  async imageIds(): Promise<Set<string>> {
    const all = await this.call(s => this.docker.listImages(withSignal(s, { all: true })) as Promise<Docker.ImageInfo[]>);
    return new Set(all.map(i => i.Id.replace(/^sha256:/, '').slice(0, 12)));
  }

  async removeImage(id: string): Promise<void> {
    try {
      await this.call(s => this.docker.getImage(id).remove(withSignal(s, { force: false, noprune: false })));
    } catch (e) {
      if (!/no such image|404/i.test((e as Error).message)) throw e;
    }
  }

  /**
   * The classic builder (its `Step n/m` lines are the progress), with intermediate containers
   * removed even when a step fails. The response is handed over chunk by chunk, undecoded; the
   * call has no deadline (builds take half an hour) but ends at once on the caller's signal,
   * which also makes the engine stop the build (it cancels when the client goes away).
   */
  async build(context: NodeJS.ReadableStream, opts: ImageBuildOptions): Promise<void> {
    const ctl = new AbortController();
    const onAbort = () => ctl.abort(new RunnerError(`${this.where}: build cancelled`, 'cancelled'));
    if (opts.signal?.aborted) throw new RunnerError(`${this.where}: build cancelled`, 'cancelled');
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const stream = (await this.docker.buildImage(context, {
        t: opts.tag,
        dockerfile: opts.dockerfile,
        buildargs: opts.buildargs,
        labels: opts.labels,
        rm: true,
        forcerm: true,
        nocache: !!opts.nocache,
        version: '1',
        abortSignal: ctl.signal,
      } as Docker.ImageBuildOptions & { abortSignal: AbortSignal })) as NodeJS.ReadableStream & { destroy(e?: Error): void };
      await new Promise<void>((resolve, reject) => {
        const stop = () => {
          stream.destroy();
          reject(ctl.signal.reason);
        };
        if (ctl.signal.aborted) return stop();
        ctl.signal.addEventListener('abort', stop, { once: true });
        stream.on('data', (b: Buffer) => opts.onChunk(Buffer.isBuffer(b) ? b : Buffer.from(b)));
        stream.on('error', e => reject(ctl.signal.aborted ? ctl.signal.reason : this.fail(e)));
        stream.on('end', () => resolve());
      });
    } catch (e) {
      if (ctl.signal.aborted) throw ctl.signal.reason;
      throw e instanceof RunnerError ? e : this.fail(e);
    } finally {
      opts.signal?.removeEventListener('abort', onAbort);
    }
  }
}

/** The first file of a tar stream as text, at most `maxBytes` (a bigger one is an error naming it). */
function firstFileOf(tar: NodeJS.ReadableStream, maxBytes: number, what: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const x = extract();
    let done = false;
    x.on('entry', (header, body, next) => {
      if (done || header.type !== 'file') {
        body.resume();
        body.on('end', next);
        return;
      }
      if ((header.size ?? 0) > maxBytes) {
        done = true;
        reject(new RunnerError(`${what} is ${header.size} bytes: more than the ${maxBytes} read`, 'docker'));
        x.destroy();
        return;
      }
      const parts: Buffer[] = [];
      body.on('data', (b: unknown) => parts.push(b as Buffer));
      body.on('end', () => {
        done = true;
        resolve(Buffer.concat(parts).toString('utf8'));
        next();
      });
    });
    x.on('finish', () => !done && reject(new RunnerError(`${what}: the engine sent no file`, 'docker')));
    x.on('error', e => !done && reject(e));
    tar.pipe(x);
  });
}
