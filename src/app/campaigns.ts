import { constants, promises as fs, watch, type FSWatcher } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pidAlive } from '../platform/processAlive';
import type { CampaignItem, CampaignPlan } from '../core/campaign/plan';
import {
  CAMPAIGN_ITEM_SCHEMA,
  CAMPAIGN_SCHEMA,
  SAFE_ID,
  parseCampaignRecord,
  parseItemRecord,
  type CampaignRecord,
  type ItemRecord as StoredItem,
} from '../core/campaign/records';
import { writeJsonAtomic } from '../runner/atomicJson';
import { ReadRefused, readTextBounded } from '../platform/boundedRead';

export { CAMPAIGN_ITEM_SCHEMA, CAMPAIGN_SCHEMA, type CampaignRecord };

/** `unreadable`: its record is damaged or missing; it is counted and named, never run again on a guess. */
export type ItemState = StoredItem['state'] | 'unreadable';
const FINAL: readonly ItemState[] = ['succeeded', 'failed', 'cancelled'];

/** One run of a campaign: `runs/<n>.json`, rewritten atomically at every change. */
export type ItemRecord = Omit<StoredItem, 'state'> & { state: ItemState };

/** A campaign whose own records can't be used: the message names the file and the field. */
export class CampaignRecordError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CampaignRecordError';
  }
}

const CAMPAIGN_CAP = 64 * 1024 * 1024;
const RECORD_CAP = 1024 * 1024;

/** What runs a campaign's items: the app's Runs in production, a fake in unit tests. */
export interface CampaignExecutor {
  /** Plans the item's run and fixes its id and folder (nothing touches a host). */
  prepare(item: CampaignItem): Promise<{ runId: string; resultDir: string }>;
  /** Runs it to the end on `host`; resolves with the run's final status. */
  start(
    item: CampaignItem,
    prepared: { runId: string; resultDir: string },
    host: string,
    signal: AbortSignal,
  ): Promise<{ status: string; error: string | null }>;
  /** The run's status from its run.json under the folder: null when there is none; `driven` while a live runner owns it. */
  recorded(resultDir: string): Promise<{ status: string; final: boolean; driven?: boolean; error?: string | null } | null>;
  /** Re-attaches to the folder's unfinished runs on `host` and completes them. */
  reattach(host: string, signal: AbortSignal): Promise<void>;
}

export interface CampaignHost {
  label: string;
  /** Runs at once on it (its GPUs; at least 1). */
  slots: number;
  gpus: number;
}

export interface CampaignStatus {
  id: string;
  total: number;
  done: number;
  running: number;
  queued: number;
  failed: number;
  cancelled: number;
  /** Runs whose record is damaged or missing (named in `findings`). */
  unreadable: number;
  findings: string[];
  /** Seconds left, from the estimates of the runs not done, over the slots; null when nothing is left. */
  etaS: number | null;
}

export function newCampaignId(now = new Date()): string {
  return `c-${now.toISOString().replace(/[-:]/g, '').replace(/\..*$/, '')}-${Math.random().toString(36).slice(2, 6)}`;
}

/**
 * A campaign's durable queue in `<folder>/.bench-triage/campaigns/<id>/`: `campaign.json`, one
 * `runs/<n>.json` per run, a `claims/<n>` file per run a process has taken (created exclusively,
 * so two processes never take the same run), and a `cancel` file when cancelling was asked for.
 * It survives a window reload and a killed CLI: `resume` finds every run where it was.
 */
export class CampaignQueue {
  private constructor(
    readonly folder: string,
    readonly dir: string,
    readonly record: CampaignRecord,
  ) {}

  static dirOf(folder: string, id: string): string {
    if (!SAFE_ID.test(id)) throw new Error(`campaign id "${id}" is not a campaign id`);
    return path.join(folder, '.bench-triage', 'campaigns', id);
  }

  static async create(folder: string, plan: CampaignPlan, meta: { select: string; repeats: number; hosts: string[]; id?: string }): Promise<CampaignQueue> {
    const id = meta.id ?? newCampaignId();
    const dir = CampaignQueue.dirOf(folder, id);
    await fs.mkdir(path.join(dir, 'runs'), { recursive: true });
    await fs.mkdir(path.join(dir, 'claims'), { recursive: true });
    await confined(folder, dir);
    const record: CampaignRecord = {
      schema: CAMPAIGN_SCHEMA,
      id,
      createdAt: new Date().toISOString(),
      select: meta.select,
      repeats: meta.repeats,
      hosts: meta.hosts,
      gpuHours: plan.gpuHours,
      refusals: plan.refusals,
      items: plan.items,
    };
    // Runs first, then campaign.json: a campaign that exists has all its run records.
    for (const item of plan.items) await writeJsonAtomic(path.join(dir, 'runs', `${item.n}.json`), fresh(item.n));
    await writeJsonAtomic(path.join(dir, 'campaign.json'), record);
    return new CampaignQueue(folder, dir, record);
  }

  static async load(folder: string, id: string): Promise<CampaignQueue> {
    const dir = CampaignQueue.dirOf(folder, id);
    await confined(folder, dir);
    const file = path.join(dir, 'campaign.json');
    const rel = path.relative(folder, file);
    let text: string;
    try {
      text = await readTextBounded(file, { maxBytes: CAMPAIGN_CAP, what: 'the campaign record' });
    } catch (e) {
      throw new CampaignRecordError(
        e instanceof ReadRefused
          ? `campaign ${id}: ${rel}: ${e.why}`
          : `campaign ${id}: cannot read ${rel} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
      );
    }
    const r = parseCampaignRecord(text, rel);
    if (!r.ok) throw new CampaignRecordError(`campaign ${id}: ${r.finding}`);
    if (r.value.id !== id) throw new CampaignRecordError(`campaign ${id}: ${rel}: field id: is "${r.value.id}", not the folder's name "${id}"`);
    return new CampaignQueue(folder, dir, r.value);
  }

  /**
   * Adds runs at the end of the campaign (an ablation's minimise design adds each subset ddmin asks
   * for): their records first, then campaign.json, so a campaign that lists a run has its record.
   * Not while this process drives the campaign.
   */
  async append(items: readonly CampaignItem[]): Promise<void> {
    let next = this.record.items.length + 1;
    for (const i of items) if (i.n !== next++) throw new Error(`campaign ${this.record.id}: run ${i.n} does not follow run ${next - 2}`);
    for (const i of items) await writeJsonAtomic(path.join(this.dir, 'runs', `${i.n}.json`), fresh(i.n));
    this.record.items.push(...items);
    this.record.gpuHours += items.reduce((s, i) => s + (i.estimateS * Math.max(1, i.gpus)) / 3600, 0);
    await writeJsonAtomic(path.join(this.dir, 'campaign.json'), this.record);
  }

  /** The campaigns of a folder, newest first. */
  static async list(folder: string): Promise<string[]> {
    const root = path.join(folder, '.bench-triage', 'campaigns');
    const names = await fs.readdir(root).catch(() => [] as string[]);
    return names
      .filter(n => SAFE_ID.test(n))
      .sort()
      .reverse();
  }

  async item(n: number): Promise<ItemRecord> {
    const file = path.join(this.dir, 'runs', `${n}.json`);
    const rel = path.relative(this.folder, file);
    let text: string;
    try {
      text = await readTextBounded(file, { maxBytes: RECORD_CAP, what: 'the run record' });
    } catch (e) {
      const why =
        e instanceof ReadRefused
          ? e.why
          : (e as NodeJS.ErrnoException).code === 'ENOENT'
            ? 'is missing'
            : `cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`;
      return unreadable(n, `${rel}: ${why}`);
    }
    const r = parseItemRecord(text, rel, n);
    return r.ok ? r.value : unreadable(n, r.finding);
  }

  async items(): Promise<ItemRecord[]> {
    return Promise.all(this.record.items.map(i => this.item(i.n)));
  }

  private save(r: ItemRecord): Promise<void> {
    // A damaged record is never overwritten by a guess: it stays for the person to look at.
    if (r.state === 'unreadable') return Promise.resolve();
    return writeJsonAtomic(path.join(this.dir, 'runs', `${r.n}.json`), r);
  }

  /** Takes run `n` for this process; false when another process holds it. */
  private async claim(n: number): Promise<boolean> {
    try {
      await fs.writeFile(path.join(this.dir, 'claims', String(n)), JSON.stringify({ pid: process.pid, host: os.hostname(), at: new Date().toISOString() }), {
        flag: 'wx',
      });
      return true;
    } catch {
      return false;
    }
  }

  private async release(n: number): Promise<void> {
    await fs.rm(path.join(this.dir, 'claims', String(n)), { force: true });
  }

  /** A claim whose process is gone (same machine, pid not alive): a killed CLI's. */
  private async staleClaim(n: number): Promise<boolean> {
    let owner: { pid?: unknown; host?: unknown };
    try {
      owner = JSON.parse(await readTextBounded(path.join(this.dir, 'claims', String(n)), { maxBytes: 4096 })) as typeof owner;
      if (!owner || typeof owner !== 'object') return true;
    } catch (e) {
      return (e as NodeJS.ErrnoException).code !== 'ENOENT';
    }
    if (owner.host !== os.hostname() || typeof owner.pid !== 'number') return false;
    if (owner.pid === process.pid) return true;
    return !pidAlive(owner.pid);
  }

  get cancelFile(): string {
    return path.join(this.dir, 'cancel');
  }

  async cancelRequested(): Promise<boolean> {
    return fs.access(this.cancelFile).then(
      () => true,
      () => false,
    );
  }

  /** Asks every process running this campaign to stop; runs nobody holds become cancelled now. */
  async requestCancel(): Promise<number> {
    // Not through a link planted where the cancel file goes.
    const fh = await fs.open(this.cancelFile, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    try {
      await fh.writeFile(new Date().toISOString());
    } finally {
      await fh.close();
    }
    let n = 0;
    for (const r of await this.items()) {
      if (r.state !== 'queued') continue;
      if (!(await this.claim(r.n))) continue;
      await this.save({ ...r, state: 'cancelled', endedAt: new Date().toISOString(), error: 'cancelled before it started' });
      n++;
    }
    return n;
  }

  async status(): Promise<CampaignStatus> {
    const items = await this.items();
    const count = (s: ItemState) => items.filter(i => i.state === s).length;
    const left = this.record.items.filter(i => !FINAL.includes(items[i.n - 1]?.state ?? 'queued') && items[i.n - 1]?.state !== 'unreadable');
    const slots = Math.max(1, this.record.hosts.length);
    return {
      id: this.record.id,
      total: items.length,
      done: count('succeeded'),
      running: count('running'),
      queued: count('queued'),
      failed: count('failed'),
      cancelled: count('cancelled'),
      unreadable: count('unreadable'),
      findings: items.filter(i => i.state === 'unreadable').map(i => i.error ?? `run ${i.n}: unreadable`),
      etaS: left.length ? left.reduce((s, i) => s + i.estimateS, 0) / slots : null,
    };
  }

  /**
   * Puts every run where it really is: a run whose process is gone is read from its run.json
   * (final: done; unfinished: re-attached on its host and completed), or queued again when it
   * never started. Runs another live process holds are left to it.
   */
  async reconcile(exec: CampaignExecutor, signal: AbortSignal, log: (s: string) => void = () => {}): Promise<void> {
    const reattach = new Set<string>();
    for (const r of await this.items()) {
      if (r.state !== 'running' || !(await this.staleClaim(r.n))) continue;
      const rec = r.resultDir ? await exec.recorded(r.resultDir) : null;
      // A finished run of a killed process may still have its container (or swarm service): the
      // re-attach pass removes those too.
      if (rec && r.host) reattach.add(r.host);
    }
    for (const host of reattach) {
      log(`re-attaching to the unfinished runs on ${host} (and removing what finished runs left)\n`);
      await exec.reattach(host, signal);
    }
    for (const r of await this.items()) {
      if (r.state !== 'running' || !(await this.staleClaim(r.n))) continue;
      let rec = r.resultDir ? await exec.recorded(r.resultDir) : null;
      // Still running: a live runner (a window's automatic re-attach, another process) is
      // completing it. Its run.json says when it is done.
      while (rec && !rec.final && rec.driven && r.resultDir && !signal.aborted) {
        await new Promise(res => setTimeout(res, 1000));
        rec = await exec.recorded(r.resultDir);
      }
      if (rec && !rec.final) {
        // Nobody drives it and nothing could be re-attached (its container is gone: the process
        // that ran it ended mid-run). That attempt stays on disk as it is; the run goes again.
        await this.save({
          ...r,
          state: 'queued',
          runId: null,
          resultDir: null,
          host: null,
          startedAt: null,
          error: `interrupted attempt ${r.runId} left as it was`,
        });
        await this.release(r.n);
        continue;
      }
      // Interrupted while its process was away (its task still waiting for GPUs, its node lost):
      // run again under a new id, as a live driver does, the attempt named in the record.
      if (rec?.final && rec.status === 'interrupted' && (r.earlier?.length ?? 0) < RUN_AGAIN_MAX) {
        await this.save({
          ...requeued(r, `attempt ${r.runId} was interrupted (${rec.error ?? 'no reason given'}); queued again`),
          runStatus: null,
          earlier: [...(r.earlier ?? []), { runId: r.runId!, resultDir: r.resultDir!, error: rec.error ?? null }],
        });
        await this.release(r.n);
        continue;
      }
      if (rec?.final) {
        await this.save({
          ...r,
          state: rec.status === 'succeeded' ? 'succeeded' : rec.status === 'cancelled' ? 'cancelled' : 'failed',
          runStatus: rec.status,
          // The item says why, as one a live driver ended does (status says how).
          error: rec.status === 'succeeded' ? r.error : (rec.error ?? r.error),
          endedAt: new Date().toISOString(),
        });
        await this.release(r.n);
      } else if (!rec) {
        // It never started (no run.json): queue it again under the same run id.
        await this.save({ ...r, state: 'queued', host: null, startedAt: null });
        await this.release(r.n);
      }
    }
    // Claims of queued runs left by a killed process.
    for (const r of await this.items()) if (r.state === 'queued' && (await this.staleClaim(r.n))) await this.release(r.n);
  }

  /**
   * Runs the queued runs on the hosts, each host `slots` at a time, in campaign order, until every
   * run has ended or the campaign is cancelled (here or from another process, through the cancel
   * file). Runs another process holds are waited for, and taken over when it lets them go.
   */
  async run(
    exec: CampaignExecutor,
    hosts: CampaignHost[],
    signal: AbortSignal,
    onChange: (r: ItemRecord) => void = () => {},
    opts: { waitMs?: number } = {},
  ): Promise<CampaignStatus> {
    const ctl = new AbortController();
    const stop = () => ctl.abort();
    signal.addEventListener('abort', stop, { once: true });
    const check = () => void this.cancelRequested().then(c => c && ctl.abort());
    const poll = setInterval(check, 1000);
    // A cancel from another process is seen as its file appears (a swarm's tasks go within a second or two); the poll stays for file systems without events.
    let watcher: FSWatcher | null = null;
    try {
      watcher = watch(this.dir, (_ev, name) => name === 'cancel' && check());
      watcher.on('error', () => watcher?.close());
    } catch {
      watcher = null;
    }
    const byN = new Map(this.record.items.map(i => [i.n, i]));
    const takeable = (n: number) => hosts.some(h => !(byN.get(n)!.gpus > h.gpus && h.gpus > 0));
    // Runs known not to be ours to take (taken, finished, or held by another process): skipped
    // without reading their records again, so the next run starts as soon as a slot frees.
    let gone = new Set<number>();
    // The full read of the records that marks ended runs as gone, started once the first run has
    // started (or a picker met an ended run): before, its reads would queue ahead of the first claims.
    let readAll = () => {};
    type Ready = { was: ItemRecord; picked: ItemRecord; item: CampaignItem; prepared: { runId: string; resultDir: string }; early: boolean };
    const fitsOn = (host: CampaignHost) => (i: CampaignItem) => !(i.gpus > host.gpus && host.gpus > 0);
    /** Claims, reads and plans the next queued run that `fits`; its id and folder are saved with it. */
    const pick = async (fits: (i: CampaignItem) => boolean, early = false): Promise<Ready | null> => {
      for (;;) {
        if (ctl.signal.aborted) return null;
        let picked: ItemRecord | null = null;
        for (const i of this.record.items) {
          if (gone.has(i.n) || !fits(i)) continue;
          gone.add(i.n); // before the first await: two pickers never take the same run
          if (await this.claim(i.n)) {
            picked = await this.item(i.n); // read under the claim
            if (picked.state === 'queued') break;
            await this.release(i.n);
            picked = null;
            readAll(); // a resumed campaign: skip what has ended without claiming it first
          }
        }
        if (!picked) return null;
        const item = byN.get(picked.n)!;
        try {
          // An id saved with a queued run is used again only if that attempt never started (a
          // process that died between saving it and starting it); else a new attempt gets a new id.
          const again = picked.runId && picked.resultDir && !(await exec.recorded(picked.resultDir));
          const prepared = again ? { runId: picked.runId!, resultDir: picked.resultDir! } : await exec.prepare(item);
          // Picked ahead of its start: saved queued with its id and folder, so that the running
          // record can be written while the run starts (see the worker).
          if (early && !again) await this.save({ ...picked, runId: prepared.runId, resultDir: prepared.resultDir });
          return { was: picked, picked: { ...picked, ...prepared }, item, prepared, early };
        } catch (e) {
          // It cannot even be planned now (its commit gone from the folder, a setting missing): that item fails, saying why; the rest go on.
          const failed: ItemRecord = { ...picked, state: 'failed', error: e instanceof Error ? e.message : String(e), endedAt: new Date().toISOString() };
          await this.save(failed);
          await this.release(failed.n);
          onChange(failed);
        }
      }
    };
    // Runs are claimed and planned ahead while the slots are busy, so a freed slot starts one at
    // once (the queue's own record writes and claims never keep a GPU idle).
    const ahead: Ready[] = [];
    let fetching: Promise<void> | null = null;
    // As many ahead as there are slots: slots that free together each find one.
    const aheadMax = hosts.reduce((n, h) => n + Math.max(1, h.slots), 0);
    const fetchAhead = (fits: (i: CampaignItem) => boolean) => {
      if (fetching || ahead.length >= aheadMax || ctl.signal.aborted) return;
      fetching = pick(fits, true).then(
        r => {
          fetching = null;
          if (r) {
            ahead.push(r);
            fetchAhead(fits);
          }
        },
        () => {
          fetching = null;
        },
      );
    };
    const takeAhead = (fits: (i: CampaignItem) => boolean) => {
      const k = ahead.findIndex(r => fits(r.item));
      return k < 0 ? null : ahead.splice(k, 1)[0];
    };
    const next = async (host: CampaignHost): Promise<Ready | null> => {
      const fits = fitsOn(host);
      let r = takeAhead(fits);
      if (!r && fetching) {
        await fetching;
        r = takeAhead(fits);
      }
      r ??= await pick(fits);
      if (!r && fetching) {
        await fetching;
        r = takeAhead(fits);
      }
      return r;
    };
    const worker = async (host: CampaignHost) => {
      for (;;) {
        if (ctl.signal.aborted) return;
        const r = await next(host);
        if (!r || ctl.signal.aborted) {
          if (r) ahead.push(r); // given back below
          return;
        }
        const { picked, item, prepared } = r;
        const rec: ItemRecord = {
          ...picked,
          state: 'running',
          runId: prepared.runId,
          resultDir: prepared.resultDir,
          host: host.label,
          startedAt: new Date().toISOString(),
          error: null,
        };
        // A run picked ahead is recorded as running while it starts: its queued record already
        // names its id and folder, so a process that dies in between leaves an attempt the next
        // driver recognises. One picked now is recorded first.
        let saved: Promise<void> = Promise.resolve();
        const record = () => (saved = this.save(rec).then(() => onChange(rec)));
        if (!r.early) await record();
        // The run starts before anything else is done in this tick (a run picked ahead is recorded
        // and the next one fetched while it starts), so the hand-off costs the GPU no queue work.
        const starting = (async () => exec.start(item, prepared, host.label, ctl.signal))();
        if (r.early) void record();
        readAll();
        fetchAhead(fitsOn(host));
        let out: { status: string; error: string | null };
        try {
          out = await starting;
        } catch (e) {
          out = { status: ctl.signal.aborted ? 'cancelled' : 'failed', error: e instanceof Error ? e.message : String(e) };
        }
        await saved.catch(() => {});
        // Stopped because this process is going away (a window reload), not because anyone
        // cancelled the campaign: the run goes back to the queue for Resume.
        if (out.status === 'cancelled' && ctl.signal.aborted && !(await this.cancelRequested())) {
          endings.push(this.save(requeued(rec, `attempt ${rec.runId} stopped when its process ended`)).then(() => this.release(rec.n)));
          return;
        }
        // Lost with its engine or node (killed, down, drained, removed): run again under a new id
        // wherever the GPUs are free; the lost attempt's folder and logs stay, named in the record.
        if (out.status === 'interrupted' && !ctl.signal.aborted && (rec.earlier?.length ?? 0) < RUN_AGAIN_MAX) {
          const again: ItemRecord = {
            ...requeued(rec, `attempt ${rec.runId} was interrupted (${out.error ?? 'no reason given'}); queued again`),
            runStatus: null,
            earlier: [...(rec.earlier ?? []), { runId: rec.runId!, resultDir: rec.resultDir!, error: out.error }],
          };
          await this.save(again);
          await this.release(again.n);
          gone.delete(again.n);
          onChange(again);
          continue;
        }
        const final: ItemRecord = {
          ...rec,
          state: out.status === 'succeeded' ? 'succeeded' : out.status === 'cancelled' ? 'cancelled' : 'failed',
          runStatus: out.status,
          error: out.error,
          endedAt: new Date().toISOString(),
        };
        // The slot goes to the next run at once; the finished run's record is written once that run
        // has started, not before (its run.json already holds the outcome, so a crash here loses
        // nothing): begun here, the write's own work held the next start (bench/campaign: 0.54×).
        endings.push(
          afterThisTick()
            .then(() => this.save(final))
            .then(() => this.release(final.n))
            .then(() => onChange(final)),
        );
      }
    };
    /** Runs claimed ahead but not started go back to the queue as they were. */
    const giveBack = async () => {
      if (fetching) await fetching;
      for (const r of ahead.splice(0)) {
        await this.save(r.was);
        await this.release(r.was.n);
      }
    };
    const endings: Array<Promise<void>> = [];
    try {
      for (let round = 0; ; round++) {
        if (round === 0) {
          // The first runs start without waiting for every record to be read (40 ms for 30 runs on
          // a busy machine, seconds for thousands, with the GPUs idle): pickers claim and read
          // records one by one, and the finished ones are skipped as soon as the full read lands.
          // Only ended runs are added: a run read as running may be queued again meanwhile.
          gone = new Set();
          const seen = gone;
          readAll = () => {
            readAll = () => {};
            void this.items().then(
              rs => {
                for (const r of rs) if (FINAL.includes(r.state) || r.state === 'unreadable') seen.add(r.n);
              },
              () => {},
            );
          };
        } else gone = new Set((await this.items()).filter(r => r.state !== 'queued').map(r => r.n));
        await Promise.all(hosts.flatMap(h => Array.from({ length: Math.max(1, h.slots) }, () => worker(h))));
        await giveBack();
        await Promise.all(endings.splice(0));
        if (ctl.signal.aborted) break;
        // Nothing left for us to take, but another process (a window being reloaded, a CLI) may
        // still hold runs: this driver stays until they end, and takes over any that process
        // hands back to the queue or leaves behind when it dies, so that Resume completes.
        const open = (await this.items()).filter(r => r.state === 'running' || (r.state === 'queued' && takeable(r.n)));
        if (!open.length) break;
        await abortableSleep(opts.waitMs ?? 2000, ctl.signal);
        if (ctl.signal.aborted) break;
        await this.reconcile(exec, ctl.signal);
      }
      if (ctl.signal.aborted && (await this.cancelRequested())) {
        // Cancelled: what nobody started is cancelled too (the runs that were running ended as
        // cancelled). A process that only stops (a reload) leaves them queued for Resume.
        for (const r of await this.items())
          if (r.state === 'queued' && (await this.claim(r.n))) {
            const c: ItemRecord = { ...r, state: 'cancelled', endedAt: new Date().toISOString(), error: 'campaign cancelled' };
            await this.save(c);
            onChange(c);
          }
      }
    } finally {
      await giveBack().catch(() => {});
      clearInterval(poll);
      watcher?.close();
      signal.removeEventListener('abort', stop);
    }
    return this.status();
  }
}

/** A run's record back in the queue, saying why: no id, folder, host or start (a next attempt gets its own). */
function requeued(rec: ItemRecord, error: string): ItemRecord {
  return { ...rec, state: 'queued', runId: null, resultDir: null, host: null, startedAt: null, error };
}

/** How many times a run lost with its engine or node is run again before its item fails. */
const RUN_AGAIN_MAX = 2;

/** Resolves once the event loop has turned: work begun here waits until what this tick starts (the next run) has started. */
const afterThisTick = () => new Promise<void>(r => setImmediate(r));

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise(res => {
    const t = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      res();
    }
  });
}

function unreadable(n: number, finding: string): ItemRecord {
  return { ...fresh(n), state: 'unreadable', error: finding };
}

/**
 * The campaign's folder and its runs/ and claims/ folders are real folders inside the workspace
 * folder (no link leads out of it), so every record the queue writes stays inside.
 */
async function confined(folder: string, dir: string): Promise<void> {
  const base = await fs.realpath(folder);
  const real = await fs.realpath(dir).catch(() => null);
  const rel = path.relative(folder, dir);
  if (!real) throw new CampaignRecordError(`${rel}: no such campaign`);
  if (real !== path.join(base, path.relative(folder, dir)))
    throw new CampaignRecordError(`${rel}: leads to ${real} through a symbolic link; the campaign's records must be inside ${folder}`);
  for (const sub of ['runs', 'claims']) {
    const st = await fs.lstat(path.join(dir, sub)).catch(() => null);
    if (st && !st.isDirectory())
      throw new CampaignRecordError(`${path.join(rel, sub)}: is not a folder (a symbolic link or a file): the campaign's records must be inside ${folder}`);
  }
}

function fresh(n: number): ItemRecord {
  return {
    schema: CAMPAIGN_ITEM_SCHEMA,
    n,
    state: 'queued',
    runId: null,
    resultDir: null,
    host: null,
    runStatus: null,
    error: null,
    startedAt: null,
    endedAt: null,
  };
}
