import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { execa } from 'execa';

/** The Dockerfile's name inside the context (beside the source, never one of its files). */
export const CONTEXT_DOCKERFILE = '.bench-triage.Dockerfile';

/** The commit's full id in the checkout, or an error that says what to do. No shell: argv only. */
export async function resolveSource(checkout: string, commit: string, signal?: AbortSignal): Promise<string> {
  let isDir = false;
  try {
    isDir = statSync(checkout).isDirectory();
  } catch {
    /* below */
  }
  if (!isDir) throw new Error(`the vLLM checkout ${checkout} does not exist (setting benchTriage.vllmCheckout, or --checkout)`);
  try {
    const r = await execa('git', ['-C', checkout, 'rev-parse', '--verify', '--quiet', `${commit}^{commit}`], { timeout: 30_000, cancelSignal: signal });
    return r.stdout.trim();
  } catch (e) {
    if (signal?.aborted) throw e;
    const msg = (e as { stderr?: string }).stderr?.trim();
    if (msg && /not a git repository/i.test(msg)) throw new Error(`${checkout} is not a git checkout of vLLM (${msg.split('\n')[0]})`);
    throw new Error(`commit ${commit.slice(0, 12)} is not in the checkout ${checkout}: fetch it first (git -C ${checkout} fetch origin ${commit})`);
  }
}

/**
 * The build context as a tar stream: `git archive` of the commit, plus the Dockerfile and a
 * .dockerignore that keeps both out of the image. Streams (a vLLM tree is tens of MB); `done`
 * settles when git has exited, with its error text on failure.
 */
export function archiveContext(checkout: string, commit: string, dockerfile: string): { stream: NodeJS.ReadableStream; done: Promise<void>; kill(): void } {
  const tmp = mkdtempSync(path.join(tmpdir(), 'bt-build-'));
  writeFileSync(path.join(tmp, CONTEXT_DOCKERFILE), dockerfile);
  writeFileSync(path.join(tmp, '.dockerignore'), `${CONTEXT_DOCKERFILE}\n.dockerignore\n.git\n`);
  const git = spawn(
    'git',
    ['-C', checkout, 'archive', '--format=tar', `--add-file=${path.join(tmp, CONTEXT_DOCKERFILE)}`, `--add-file=${path.join(tmp, '.dockerignore')}`, commit],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let err = '';
  git.stderr.on('data', (b: Buffer) => {
    if (err.length < 4096) err += b.toString('utf8');
  });
  const done = new Promise<void>((resolve, reject) => {
    git.on('error', e => reject(new Error(`git archive could not start: ${e.message}`)));
    git.on('close', code =>
      code === 0 ? resolve() : reject(new Error(`git archive ${commit.slice(0, 12)} failed (exit ${code}): ${err.trim().split('\n')[0]}`)),
    );
  }).finally(() => rmSync(tmp, { recursive: true, force: true }));
  done.catch(() => {});
  return { stream: git.stdout, done, kill: () => git.kill('SIGTERM') };
}
