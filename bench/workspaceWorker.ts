// Measurements of the service layer's Workspace, each in a fresh process:
//   synth <folder> <n>                  write n synthetic commits (3 result files each, the runner's schema)
//   read <folder>                       read every file a scan parses, and nothing more → {ms}
//   cold <folder> [holds]               load without an index → {ms, entries}; with `holds`, also the longest the thread was held between event-loop turns
//   warm <folder> <cacheDir>            load once (index written), then load again from the index → {coldMs, warmMs, entries, read}
//   update <folder>                     load, then a finished run's result.json appears: update → {ms, change}
import { mkdirSync, promises as fs, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import { Workspace } from '../src/app/workspace';
import { fileIndexStore } from '../src/app/indexStore';
import { listFolder } from '../src/core/ingest';
import { nodeFileSource } from '../src/platform/nodeFileSource';

const FAILS = [
  "ValueError: 'aimv2' is already used by a Transformers config, pick another name.",
  'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.',
  'RuntimeError: Engine core initialization failed.',
  null,
  null,
];
const settings = () => ({ tieBand: 2, rules: [], primaryMetric: {} });
const ms = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;

export function synth(dir: string, n: number): void {
  rmSync(dir, { recursive: true, force: true });
  for (let i = 0; i < n; i++) {
    const commit = createHash('sha1').update(String(i)).digest('hex');
    for (const [k, role] of ['baseline', 'human', 'agent'].entries()) {
      const err = FAILS[(i + k) % FAILS.length];
      const d = path.join(dir, '.bench-triage/runs', commit.slice(0, 8), role, 'r1');
      mkdirSync(d, { recursive: true });
      writeFileSync(
        path.join(d, 'result.json'),
        JSON.stringify({
          schema: 'bench-triage.run/v1',
          commit,
          role,
          status: err ? 'failed' : 'succeeded',
          error: err,
          metrics: err ? {} : { request_throughput_req_s: 10 + (i % 7) + k, ttft_mean_ms: 40 - k },
          model: 'facebook/opt-125m',
          agent: role === 'agent' ? 'claude_code' : null,
          command: 'python3 benchmarks/benchmark_serving.py --model facebook/opt-125m',
          startedAt: '2026-11-01T00:00:00Z',
          durationS: 60,
        }),
      );
    }
  }
}

async function main(): Promise<void> {
  const [mode, folder, extra] = process.argv.slice(2);
  if (mode === 'synth') {
    synth(folder, Number(extra));
    process.stdout.write('{}\n');
    return;
  }
  if (mode === 'read') {
    // The least any tool does: find the files (the same walk) and read each, plainly
    // (fs.readFile, 8 at a time); and the floor, each read with one synchronous call.
    const src = nodeFileSource(folder);
    let t0 = process.hrtime.bigint();
    const paths = (await listFolder(src, undefined, undefined, { statOnRead: true })).files
      .filter(f => /\.jsonl?$/.test(f.path))
      .map(f => path.join(folder, f.path));
    let bytes = 0,
      next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < paths.length) bytes += (await fs.readFile(paths[next++], 'utf8')).length;
      }),
    );
    const asyncMs = ms(t0);
    t0 = process.hrtime.bigint();
    const again = (await listFolder(src, undefined, undefined, { statOnRead: true })).files
      .filter(f => /\.jsonl?$/.test(f.path))
      .map(f => path.join(folder, f.path));
    for (const p of again) bytes += readFileSync(p, 'utf8').length;
    process.stdout.write(JSON.stringify({ ms: asyncMs, syncMs: ms(t0), files: paths.length, bytes }) + '\n');
    return;
  }
  if (mode === 'cold') {
    const w = new Workspace(folder, nodeFileSource(folder), settings);
    // How long the thread is held between turns of the event loop (what a cancel or a view waits for).
    // Asked for apart: the ticks run while the load waits, so the plain figure is taken without them.
    let last = performance.now(),
      on = extra === 'holds',
      turns = 0,
      worst = 0,
      worstEnd = 0;
    const start = performance.now();
    const tick = () => {
      const now = performance.now();
      turns++;
      if (now - last > worst) [worst, worstEnd] = [now - last, now - start];
      last = now;
      if (on) setImmediate(tick);
    };
    if (on) setImmediate(tick);
    const t0 = process.hrtime.bigint();
    await w.load();
    const took = ms(t0);
    // The tick already queued records the stretch that ended the load (the load resolves before it runs).
    await new Promise(r => setImmediate(r));
    on = false;
    // When the longest hold ended, in ms from the load's start (which phase held it: see `phases`).
    const holdMs = turns ? { worst, endedAt: worstEnd, turns } : undefined;
    process.stdout.write(
      JSON.stringify({ ms: took, phases: w.lastLoad.ms, holdMs, entries: w.entries.length, maxRssMB: process.resourceUsage().maxRSS / 1024 }) + '\n',
    );
    return;
  }
  if (mode === 'warm') {
    rmSync(extra, { recursive: true, force: true });
    const first = new Workspace(folder, nodeFileSource(folder), settings, fileIndexStore(extra, folder));
    let t0 = process.hrtime.bigint();
    await first.load();
    const coldMs = ms(t0);
    await first.saveIndex();
    const again = new Workspace(folder, nodeFileSource(folder), settings, fileIndexStore(extra, folder));
    t0 = process.hrtime.bigint();
    const { warm, revalidated } = await again.open();
    const warmMs = ms(t0);
    const change = await revalidated;
    process.stdout.write(
      JSON.stringify({
        coldMs,
        warmMs,
        revalidatedMs: ms(t0),
        warm,
        change: change.kind,
        entries: again.entries.length,
        read: again.lastLoad.read,
        fromIndex: again.lastLoad.fromIndex,
      }) + '\n',
    );
    return;
  }
  if (mode === 'reopen') {
    // A window reloaded: a fresh process opens from the index an earlier one saved (`warm` wrote it).
    const again = new Workspace(folder, nodeFileSource(folder), settings, fileIndexStore(extra, folder));
    const t0 = process.hrtime.bigint();
    const { warm, revalidated } = await again.open();
    const warmMs = ms(t0);
    const change = await revalidated;
    process.stdout.write(JSON.stringify({ warmMs, revalidatedMs: ms(t0), warm, change: change.kind, entries: again.entries.length }) + '\n');
    return;
  }
  if (mode === 'update') {
    const w = new Workspace(folder, nodeFileSource(folder), settings);
    await w.load();
    const target = w.entries[Math.floor(w.entries.length / 2)];
    const dir = path.join(folder, '.bench-triage/runs', target.commit.slice(0, 8), 'human', `r-${Date.now()}`);
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'result.json');
    writeFileSync(
      file,
      JSON.stringify({
        schema: 'bench-triage.run/v1',
        commit: target.commit,
        role: 'human',
        status: 'succeeded',
        error: null,
        metrics: { request_throughput_req_s: 99, ttft_mean_ms: 12 },
        model: 'facebook/opt-125m',
        command: 'python3 benchmarks/benchmark_serving.py --model facebook/opt-125m',
        startedAt: new Date().toISOString(),
        durationS: 60,
      }),
    );
    const t0 = process.hrtime.bigint();
    const change = await w.update([path.relative(folder, file).split(path.sep).join('/')]);
    const took = ms(t0);
    const after = w.entries.find(e => e.commit === target.commit)!;
    rmSync(dir, { recursive: true, force: true });
    process.stdout.write(JSON.stringify({ ms: took, change: change.kind, humanNow: after.roles.human.run?.status, entries: w.entries.length }) + '\n');
    return;
  }
  throw new Error(`unknown mode ${mode}`);
}
main().then(
  () => process.exit(0),
  e => {
    process.stderr.write(String(e?.stack ?? e) + '\n');
    process.exit(1);
  },
);
