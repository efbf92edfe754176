import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { repoRoot } from './repo';

const REPO = repoRoot();
export const FAKE_VLLM = path.join(REPO, 'test/fake-vllm');

export interface RunFixture {
  /** The temporary folder holding all of it: removed by the suite when it ends. */
  root: string;
  folder: string;
  checkout: string;
  parent: string;
  human: string;
  badPatchFolder: string;
}

export const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' },
  }).trim();

/**
 * A vLLM checkout (git) whose benchmarks/ are the fake scripts, a parent and a human commit, and a
 * results folder in ISO-Bench's layout: dataset.jsonl with the serving perf command, an agent run
 * (journal.json + model_patch.diff that applies to the image's vllm package). A second folder has
 * an agent patch that does not apply.
 */
/** Every fixture's root made in this process: a suite removes them all when it ends. */
const made: string[] = [];
export function removeRunFixtures(): void {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
}

export function makeRunFixture(
  perfCommand = 'python benchmarks/benchmark_serving.py --model facebook/opt-125m --dataset-name random --random-input-len 32 --random-output-len 16 --num-prompts 20',
): RunFixture {
  const root = mkdtempSync(path.join(tmpdir(), 'bt-run-'));
  made.push(root);
  const checkout = path.join(root, 'vllm');
  mkdirSync(path.join(checkout, 'benchmarks'), { recursive: true });
  mkdirSync(path.join(checkout, 'vllm'), { recursive: true });
  for (const f of readdirSync(path.join(FAKE_VLLM, 'benchmarks'))) copyFileSync(path.join(FAKE_VLLM, 'benchmarks', f), path.join(checkout, 'benchmarks', f));
  copyFileSync(path.join(FAKE_VLLM, 'rootfs/opt/fakevllm/vllm/logger.py'), path.join(checkout, 'vllm/logger.py'));
  writeFileSync(path.join(checkout, 'setup.py'), fakeSetupPy());
  git(checkout, 'init', '-q');
  git(checkout, 'add', '-A');
  git(checkout, 'commit', '-qm', 'parent');
  const parent = git(checkout, 'rev-parse', 'HEAD');
  writeFileSync(
    path.join(checkout, 'vllm/logger.py'),
    execFileSync('git', ['show', 'HEAD:vllm/logger.py'], { cwd: checkout, encoding: 'utf8' }).replace(
      'flush=True)',
      'flush=True)  # human: one flush per line',
    ),
  );
  git(checkout, 'commit', '-qam', '[Perf] human change');
  const human = git(checkout, 'rev-parse', 'HEAD');
  const goodPatch = git(checkout, 'diff', parent, human, '--', 'vllm/logger.py') + '\n';
  const badPatch = goodPatch.replace(/ {4}stamp = time\.strftime/, '    stamp = clock.strftime');
  const folder = (name: string, patch: string) => {
    const f = path.join(root, name);
    mkdirSync(f, { recursive: true });
    writeFileSync(
      path.join(f, 'dataset.jsonl'),
      JSON.stringify({
        commit_hash: human,
        parent_commit: parent,
        commit_subject: '[Perf] human change',
        perf_command: perfCommand,
        models: ['facebook/opt-125m'],
      }) + '\n',
    );
    const item = path.join(f, 'state/runs/vllm/claude_code/default/2026-11-22_10-00-00/vllm_core-0000');
    mkdirSync(item, { recursive: true });
    writeFileSync(path.join(item, 'journal.json'), JSON.stringify({ task_id: 'vllm_core', commits: { pre: parent, human }, status: 'success' }));
    writeFileSync(path.join(item, 'model_patch.diff'), patch);
    return f;
  };
  return { root, folder: folder('results', goodPatch), badPatchFolder: folder('results-bad-patch', badPatch), checkout, parent, human };
}

/**
 * A vLLM-like setup.py that the fake image's pip runs for `pip install -e .`: the CMake and nvcc
 * lines of a real kernel build, or (with `fail`) a compile that dies the way it does on a host
 * short of memory.
 */
export function fakeSetupPy(fail: string | null = null): string {
  const lines = [
    'running build_ext',
    '-- The CXX compiler identification is GNU 11.4.0',
    '-- The CUDA compiler identification is NVIDIA 12.4.131',
    '-- CUDA target architectures: 9.0',
    '-- Build files have been written to: /opt/vllm_baseline/build/temp.linux-x86_64-cpython-310',
    '[1/3] Building CUDA object CMakeFiles/_C.dir/csrc/cache_kernels.cu.o',
    '[2/3] Building CUDA object CMakeFiles/_C.dir/csrc/attention/attention_kernels.cu.o',
  ];
  const body = [
    '"""Fake vLLM build (Bench Triage tests): prints what a CMake + nvcc build of the kernels prints."""',
    'import sys',
    `for line in ${JSON.stringify(lines)}:`,
    '    print(line, flush=True)',
    ...(fail
      ? [`print(${JSON.stringify(fail)}, flush=True)`, 'print("ninja: build stopped: subcommand failed.", flush=True)', 'sys.exit(1)']
      : ['print("[3/3] Linking CXX shared module _C.abi3.so", flush=True)']),
    '',
  ];
  return body.join('\n');
}

/** The CLI's `run` of one role of the fixture's commit (host and image options follow). */
export const runRoleArgs = (fx: Pick<RunFixture, 'folder' | 'human'>, role: string): string[] => [
  'run',
  '--folder',
  fx.folder,
  '--commit',
  fx.human.slice(0, 10),
  '--role',
  role,
];
