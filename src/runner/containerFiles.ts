import { execa } from 'execa';
import type { BenchForms } from '../core/perfcmd';
import { extract, pack } from 'tar-stream';
import HELPER from './assets/bt_helper.py';

import { C } from '../core/run/containerPaths';
export { C } from '../core/run/containerPaths';

/** A tar (as a Buffer) of small files, for `putArchive` at `/`; with the run's folders unless `bare`. */
export async function tarOf(files: Array<{ name: string; body: string | Buffer; mode?: number }>, opts: { bare?: boolean } = {}): Promise<Buffer> {
  const p = pack();
  const chunks: Buffer[] = [];
  p.on('data', (b: unknown) => {
    chunks.push(b as Buffer);
  });
  const done = new Promise<void>((resolve, reject) => {
    p.on('end', resolve);
    p.on('error', reject);
  });
  for (const f of files) p.entry({ name: f.name.replace(/^\//, ''), mode: f.mode ?? 0o644 }, f.body);
  if (!opts.bare) {
    for (const d of ['bench-triage/logs', 'bench-triage/src', 'bench-triage/files', 'results']) p.entry({ name: d, type: 'directory', mode: 0o777 });
    p.entry({ name: 'bench-triage/secrets', type: 'directory', mode: 0o700 });
  }
  p.finalize();
  await done;
  return Buffer.concat(chunks);
}

/**
 * Several tars, each meant for `putArchive` at its own directory, as one tar for `/`: each entry's
 * name (and a hard link's target) gets its directory's path in front, in order, so a later part
 * lands after an earlier one. One extraction instead of several: on a busy node each is a process
 * of the engine's own, about a second apiece.
 */
export async function joinTars(parts: Array<{ dir: string; tar: Buffer }>): Promise<Buffer> {
  const out = pack();
  const chunks: Buffer[] = [];
  out.on('data', (b: unknown) => chunks.push(b as Buffer));
  const done = new Promise<void>((resolve, reject) => {
    out.on('end', resolve);
    out.on('error', reject);
  });
  for (const { dir, tar } of parts) {
    const prefix = dir.replace(/^\/+|\/+$/g, '');
    const under = (name: string) => (prefix ? `${prefix}/${name.replace(/^\/+/, '')}` : name.replace(/^\/+/, ''));
    await new Promise<void>((resolve, reject) => {
      const x = extract();
      x.on('entry', (header, body, next) => {
        const h = { ...header, name: under(header.name) };
        if (h.type === 'link' && h.linkname) h.linkname = under(h.linkname);
        body.pipe(out.entry(h, next));
      });
      x.on('finish', resolve);
      x.on('error', reject);
      x.end(tar);
    });
  }
  out.finalize();
  await done;
  return Buffer.concat(chunks);
}

export const helperFile = () => ({ name: C.helper, body: HELPER, mode: 0o755 });

/**
 * The benchmark scripts of the commit under test, from a local vLLM checkout: `git archive` of
 * `benchmarks/` (the scripts import their siblings, e.g. backend_request_func.py).
 */
export async function benchmarksFromCheckout(checkout: string, commit: string, signal?: AbortSignal): Promise<Buffer> {
  try {
    const r = await execa('git', ['-C', checkout, 'archive', '--format=tar', commit, 'benchmarks'], {
      encoding: 'buffer',
      timeout: 60_000,
      cancelSignal: signal,
    });
    return Buffer.from(r.stdout);
  } catch (e) {
    const msg = (e as { stderr?: Buffer | string; shortMessage?: string }).stderr?.toString().trim() || (e as Error).message;
    throw new Error(`vLLM checkout ${checkout}: cannot read benchmarks/ at ${commit.slice(0, 12)} (${msg.split('\n')[0]})`);
  }
}

export async function fileFromCheckout(checkout: string, commit: string, rel: string): Promise<Buffer> {
  try {
    return Buffer.from((await execa('git', ['-C', checkout, 'show', `${commit}:${rel}`], { encoding: 'buffer', timeout: 30_000 })).stdout);
  } catch {
    throw new Error(`vLLM checkout ${checkout}: ${rel} does not exist at ${commit.slice(0, 12)}`);
  }
}

/** Whether the checkout has the commit (a missing checkout or commit is false, never an error). */
export async function hasCommit(checkout: string, commit: string): Promise<boolean> {
  try {
    await execa('git', ['-C', checkout, 'cat-file', '-e', `${commit}^{commit}`], { timeout: 30_000 });
    return true;
  } catch {
    return false;
  }
}

const CLI_MODULE: Record<string, string> = {
  serving: 'vllm/benchmarks/serve.py',
  throughput: 'vllm/benchmarks/throughput.py',
  latency: 'vllm/benchmarks/latency.py',
};
const SCRIPT_FILE: Record<string, string> = {
  serving: 'benchmarks/benchmark_serving.py',
  throughput: 'benchmarks/benchmark_throughput.py',
  latency: 'benchmarks/benchmark_latency.py',
};

/**
 * What a commit of the checkout can run for a benchmark kind: `vllm bench` (its module exists),
 * and the old script — whole, the stub #24411 left, or gone — with the flags its source defines.
 * Null when the checkout or the commit is missing (the plan then keeps the command's form).
 */
export async function benchFormsAt(checkout: string, commit: string, kind: string): Promise<BenchForms | null> {
  if (!CLI_MODULE[kind] || !(await hasCommit(checkout, commit))) return null;
  const git = (args: string[]) => execa('git', ['-C', checkout, ...args], { timeout: 30_000, reject: false, maxBuffer: 8 << 20 });
  const cli = (await git(['cat-file', '-e', `${commit}:${CLI_MODULE[kind]}`])).exitCode === 0;
  const shown = await git(['show', `${commit}:${SCRIPT_FILE[kind]}`]);
  if (shown.exitCode !== 0) return { cli, script: 'absent' };
  const text = String(shown.stdout);
  if (/DEPRECATED: This script has been moved to the vLLM CLI/.test(text)) return { cli, script: 'stub' };
  const flags = [...new Set([...text.matchAll(/add_argument\(\s*["'](--[\w-]+)["']/g)].map(m => m[1]))];
  return { cli, script: 'full', scriptFlags: flags };
}
