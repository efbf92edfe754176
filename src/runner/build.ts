import { createWriteStream, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { archiveContext, CONTEXT_DOCKERFILE, resolveSource } from './buildContext';
import type { BuildPlan } from '../core/run/buildPlan';
import { repositoryOf } from '../core/run/hosts';
import { initialBuildRecord, saveBuildRecord } from './buildRecord';
import { type BuildRecord, type BuildState } from '../core/run/records';
import { BuildProgress, BuildStreamDecoder, messageText } from './buildStream';
import { RunnerError } from './errors';
import type { HostQueue } from './hostQueue';
import type { ImageRuntime } from './runtime';

export const BUILD_LABEL = { buildId: 'bench-triage.build-id', commit: 'bench-triage.commit', role: 'bench-triage.role' } as const;

export interface BuildEvents {
  /** Every change of state or step (the record as written). */
  state?(r: BuildRecord): void;
}

export interface BuildJob {
  plan: BuildPlan;
  /** The results folder (absolute): the build goes to `<folder>/<plan.dir>`. */
  folder: string;
  checkout: string;
  /** Build even when the host has the tag. */
  rebuild?: boolean;
  signal?: AbortSignal;
  /** Every chunk of the engine's response, undecoded (tests and benches compare the log with it). */
  onChunk?: (b: Buffer) => void;
}

class BuildEnd extends Error {
  constructor(
    readonly state: BuildState,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Builds one image on one host: queued behind the host's other builds, reused when the host has
 * the tag already, otherwise `git archive` of the source sent as the context, the engine's stream
 * written to build.log as it arrives, progress by step. A failed, timed-out or cancelled build
 * leaves no containers and no images of its own behind.
 */
export class Builder {
  constructor(
    private readonly rt: ImageRuntime,
    private readonly queue: HostQueue,
    private readonly events: BuildEvents = {},
  ) {}

  async build(job: BuildJob): Promise<BuildRecord> {
    const { plan } = job;
    const dir = path.join(job.folder, plan.dir);
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(path.join(dir, 'Dockerfile'), plan.dockerfile);
    // There from the start, so the editor can open it and follow it while the build is queued.
    await fs.writeFile(path.join(dir, 'build.log'), '');
    const r = initialBuildRecord(plan, job.checkout);
    const save = async () => {
      await saveBuildRecord(dir, r);
      this.events.state?.({ ...r, step: r.step && { ...r.step } });
    };
    await save();
    const t0 = Date.now();
    let slot: string[] | null = null;
    const progress = new BuildProgress();
    let before: Set<string> | null = null;
    const timer = new AbortController();
    const timeout = setTimeout(() => timer.abort(), plan.timeoutS * 1000);
    const stop = job.signal ? AbortSignal.any([job.signal, timer.signal]) : timer.signal;
    const ended = (): never => {
      if (timer.signal.aborted) throw new BuildEnd('failed', `Build timed out (exceeded ${plan.timeoutS} s)`);
      throw new BuildEnd('cancelled', 'cancelled');
    };
    // On a swarm the nodes pull from its registry: an image not pushed is no image for them.
    const push = async () => {
      if (!plan.push) return;
      const p0 = Date.now();
      await fs.appendFile(path.join(dir, 'build.log'), `pushing ${plan.tag} to the swarm's registry …\n`);
      const digest = await this.rt.push(plan.tag, stop).catch(e => {
        if (stop.aborted) ended();
        throw new BuildEnd('failed', `${plan.tag} was built, but its push to the registry failed (the swarm's nodes cannot pull it): ${(e as Error).message}`);
      });
      r.pushed = { ref: `${repositoryOf(plan.tag)}@${digest}`, s: Math.round((Date.now() - p0) / 100) / 10 };
      await fs.appendFile(path.join(dir, 'build.log'), `pushed ${r.pushed.ref} in ${r.pushed.s} s\n`);
    };
    try {
      try {
        slot = await this.queue.acquire(0, stop);
      } catch {
        ended();
      }
      r.status = 'preparing';
      r.startedAt = new Date().toISOString();
      await save();
      await this.rt.ping(stop).catch(e => {
        if (stop.aborted) ended();
        throw new BuildEnd('failed', (e as Error).message);
      });
      const have = await this.rt.imageId(plan.tag);
      if (!job.rebuild) {
        if (have) {
          r.imageId = have;
          await push();
          throw new BuildEnd(
            'reused',
            `${plan.tag} is on ${plan.host.label} already (${have.replace(/^sha256:/, '').slice(0, 12)}): reused; ask for Rebuild to build it again`,
          );
        }
      }
      if (!(await this.rt.imageId(plan.base)))
        await this.rt.pull(plan.base, stop).catch(e => {
          if (stop.aborted) ended();
          throw new BuildEnd('failed', `the base image ${plan.base} is not on ${plan.host.label} and could not be pulled: ${(e as Error).message}`);
        });
      const source = await resolveSource(job.checkout, plan.source, stop).catch(e => {
        if (stop.aborted) ended();
        throw new BuildEnd('failed', (e as Error).message);
      });
      before = await this.rt.imageIds();
      r.status = 'building';
      await save();
      await this.stream(job, dir, source, stop, progress, r, save);
      if (stop.aborted) ended();
      if (progress.error) throw new BuildEnd('failed', progress.error);
      const id = await this.rt.imageId(plan.tag);
      if (!id || (progress.imageId && !id.replace(/^sha256:/, '').startsWith(progress.imageId.replace(/^sha256:/, '').slice(0, 12))))
        throw new BuildEnd('failed', `the engine's response ended without an image tagged ${plan.tag}`);
      r.imageId = id;
      await push();
      r.status = 'succeeded';
      // A rebuild moves the tag: the image it leaves (tens of GB on a real host) goes unless a container uses it.
      if (have && have !== id) {
        r.replaced = have;
        await this.rt.removeImage(have).catch(() => {});
      }
    } catch (e) {
      const end = e instanceof BuildEnd ? e : stop.aborted ? new BuildEnd(timer.signal.aborted ? 'failed' : 'cancelled', 'cancelled') : null;
      if (!end) {
        r.status = 'failed';
        r.error = e instanceof RunnerError || e instanceof Error ? e.message : String(e);
      } else {
        r.status = end.state;
        r.error =
          end.state === 'reused' ? null : end.state === 'cancelled' ? (r.step ? `cancelled at step ${r.step.n}/${r.step.total}` : 'cancelled') : end.message;
        if (end.state === 'reused') await fs.writeFile(path.join(dir, 'build.log'), `${end.message}\n`, { flag: 'a' });
      }
      if (r.status === 'failed' && timer.signal.aborted && !/timed out/.test(r.error ?? '')) r.error = `Build timed out (exceeded ${plan.timeoutS} s)`;
      if (before && r.status !== 'succeeded') await this.cleanUp(progress, before);
    } finally {
      clearTimeout(timeout);
      if (slot) this.queue.release(slot);
    }
    r.endedAt = new Date().toISOString();
    r.durationS = Math.round((Date.now() - t0) / 100) / 10;
    r.logBytes = await fs.stat(path.join(dir, 'build.log')).then(
      s => s.size,
      () => 0,
    );
    await save();
    return r;
  }

  /** Sends the context and writes the stream to build.log; resolves when the response has ended (or the build was stopped). */
  private async stream(
    job: BuildJob,
    dir: string,
    source: string,
    stop: AbortSignal,
    progress: BuildProgress,
    r: BuildRecord,
    save: () => Promise<void>,
  ): Promise<void> {
    const log = createWriteStream(path.join(dir, 'build.log'), { flags: 'a' });
    let logError: Error | null = null;
    log.on('error', e => (logError ??= e));
    let pendingSave: Promise<void> = Promise.resolve();
    const decoder = new BuildStreamDecoder(m => {
      const text = messageText(m);
      if (text) {
        log.write(text);
        r.logBytes += Buffer.byteLength(text);
      }
      if (progress.take(m)) {
        r.step = progress.step;
        pendingSave = pendingSave.then(save, save);
      }
    });
    const ctx = archiveContext(job.checkout, source, job.plan.dockerfile);
    try {
      await this.rt.build(ctx.stream, {
        tag: job.plan.tag,
        dockerfile: CONTEXT_DOCKERFILE,
        buildargs: job.plan.args,
        labels: { [BUILD_LABEL.buildId]: job.plan.buildId, [BUILD_LABEL.commit]: job.plan.commit, [BUILD_LABEL.role]: job.plan.role },
        nocache: !!job.rebuild,
        signal: stop,
        onChunk: b => {
          job.onChunk?.(b);
          decoder.push(b);
        },
      });
      decoder.end();
      await ctx.done.catch(e => {
        if (!stop.aborted) throw new BuildEnd('failed', (e as Error).message);
      });
    } catch (e) {
      ctx.kill();
      if (e instanceof BuildEnd) throw e;
      if (!stop.aborted) throw new BuildEnd('failed', (e as Error).message);
    } finally {
      await pendingSave;
      await new Promise<void>(res => log.end(() => res()));
    }
    if (logError) throw new BuildEnd('failed', `cannot write ${path.join(dir, 'build.log')}: ${(logError as Error).message}`);
  }

  /** Removes what a stopped build left: its step container, then the images it created (newest first). */
  private async cleanUp(progress: BuildProgress, before: Set<string>): Promise<void> {
    // The engine stops a build whose client went away on its own time: its step container first.
    for (const c of progress.containers) {
      await this.rt.remove(c).catch(() => {});
      for (let i = 0; i < 40 && (await this.rt.inspect(c).catch(() => null)); i++) await new Promise(res => setTimeout(res, 250));
    }
    for (const id of [...progress.created].reverse()) if (!before.has(id)) await this.rt.removeImage(id).catch(() => {});
  }
}
