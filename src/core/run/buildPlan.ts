import { maskSecretShapes } from '../logs/secretShapes';
import type { Commit, Role } from '../model';
import { inRegistry, namesRegistry, hostKind, type HostConfig } from './hosts';
import { imageFor, imageTemplatesOf, type ImageTemplates } from './plan';

/** Roles that have an image of their own (the agent runs on the baseline's). */
export const BUILD_ROLES = ['baseline', 'human'] as const;
export type BuildRole = (typeof BUILD_ROLES)[number];

/**
 * The default Dockerfile: ISO-Bench's baseline image (research: isobench-data "baseline image"):
 * the human image plus a CUDA toolkit, the source at /opt/vllm_baseline, an editable install
 * built for H100, then the known fixes. Every value comes in as a build arg, so no text of the
 * dataset is ever part of the Dockerfile.
 */
export const DEFAULT_DOCKERFILE: readonly string[] = [
  '# Bench Triage image build (setting benchTriage.build.dockerfile). Bench Triage passes the build args.',
  'ARG BASE_IMAGE',
  'FROM ${BASE_IMAGE}',
  'ARG VLLM_COMMIT',
  'ARG CUDA_TOOLKIT=cuda-toolkit-12-4',
  'ARG TORCH_CUDA_ARCH_LIST=9.0',
  'ARG MAX_JOBS=32',
  'ARG NVCC_THREADS=2',
  'ENV DEBIAN_FRONTEND=noninteractive',
  '# nvcc for the CUDA kernels: serving images ship the runtime only',
  'RUN if ! command -v nvcc >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/nvcc ]; then apt-get update && apt-get install -y --no-install-recommends "$CUDA_TOOLKIT" git && rm -rf /var/lib/apt/lists/*; fi',
  'ENV PATH=/usr/local/cuda/bin:$PATH',
  'COPY . /opt/vllm_baseline',
  'WORKDIR /opt/vllm_baseline',
  'RUN python3 -m pip uninstall -y vllm || true',
  'RUN TORCH_CUDA_ARCH_LIST="$TORCH_CUDA_ARCH_LIST" MAX_JOBS="$MAX_JOBS" NVCC_THREADS="$NVCC_THREADS" python3 -m pip install -e . --no-build-isolation',
  '# Known fixes: aimv2 registered twice by newer transformers, NumPy 2, pyairports for outlines',
  'RUN for f in vllm/transformers_utils/configs/ovis.py vllm/transformers_utils/configs/ovis2.py; do if [ -f "$f" ]; then sed -i \'s/AutoConfig.register("aimv2", AIMv2Config)/AutoConfig.register("aimv2", AIMv2Config, exist_ok=True)/\' "$f"; fi; done',
  'RUN python3 -m pip install "numpy<2" pyairports pycountry',
  "RUN python3 -c \"import os, vllm; print('BUILD_SUCCESS vllm from', vllm.__file__, 'at', os.environ.get('VLLM_COMMIT'))\"",
];

/** ISO-Bench's build settings (an H100 host: 32 compile jobs, two nvcc threads each, Hopper only). */
export const DEFAULT_BUILD_ARGS: Readonly<Record<string, string>> = {
  MAX_JOBS: '32',
  NVCC_THREADS: '2',
  TORCH_CUDA_ARCH_LIST: '9.0',
  CUDA_TOOLKIT: 'cuda-toolkit-12-4',
};

export interface BuildSettings {
  /** Dockerfile lines; default DEFAULT_DOCKERFILE. */
  dockerfile?: readonly string[];
  /** Build args over DEFAULT_BUILD_ARGS. */
  args?: Record<string, string>;
  /** FROM for a human image (a baseline image starts from the human image). */
  humanBase?: string;
  /** The build's limit (s); default 3 h, ISO-Bench's. */
  timeoutS?: number;
  templates?: ImageTemplates;
}

/** Everything a build will do, decided before anything reaches a host. */
export interface BuildPlan {
  buildId: string;
  /** The dataset's commit (the one the role belongs to). */
  commit: string;
  role: BuildRole;
  /** The commit whose source is built: the parent for a baseline image, the commit for a human one. */
  source: string;
  tag: string;
  base: string;
  args: Record<string, string>;
  dockerfile: string;
  host: HostConfig;
  timeoutS: number;
  /** Relative to the results folder. */
  dir: string;
  /** Pushed to the swarm's registry once built (or found built): the nodes pull it from there. */
  push: boolean;
}

export class BuildPlanError extends Error {}

/** A Docker image reference we are willing to tag (no placeholder left, no spaces or shell text). */
const IMAGE_REF = /^[a-z0-9]+(?:[._-][a-z0-9]+)*(?::\d+)?(?:\/[a-z0-9]+(?:[._-][a-z0-9]+)*)*(?::[\w][\w.-]{0,127})?$/;
/** Names that say a value is a credential (the same test `--env` uses). */
const SECRET_NAME = /TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY/i;
const ARG_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * (commit, role, settings) → the build, or a refusal that says what to change. The agent's image
 * is the baseline's; a baseline needs the parent; every value must be a plain build arg.
 */
export function planBuild(commit: Commit, role: Role, opts: { host: HostConfig; buildId: string; settings?: BuildSettings }): BuildPlan {
  const s = opts.settings ?? {};
  const c12 = commit.hash.slice(0, 12);
  if (role === 'agent') throw new BuildPlanError(`the agent of ${c12} runs on the baseline image: build the baseline image instead`);
  if (!/^[0-9a-f]{40}$/.test(commit.hash)) throw new BuildPlanError(`only the prefix ${commit.hash} of the commit is known: its source cannot be named`);
  if (role === 'baseline' && !commit.parent) throw new BuildPlanError(`the parent of ${c12} is unknown, so there is no baseline source to build`);
  if (role === 'baseline' && !/^[0-9a-f]{7,40}$/.test(commit.parent!)) throw new BuildPlanError(`the parent "${commit.parent}" of ${c12} is not a commit id`);
  const templates = imageTemplatesOf(s.templates);
  // On a swarm with a registry, both live there: built on the manager, pushed, pulled by the nodes.
  const tag = inRegistry(imageFor(commit, role, templates), opts.host);
  const humanImage = inRegistry(imageFor(commit, 'human', templates), opts.host);
  const base = role === 'baseline' ? humanImage : (s.humanBase ?? '').trim();
  if (!base)
    throw new BuildPlanError(
      `a human image is built FROM another image: set benchTriage.build.humanBaseImage (e.g. a vLLM release image with CUDA and PyTorch)`,
    );
  for (const [what, ref] of [
    ['image template', tag],
    ['base image', base],
  ] as const)
    if (!IMAGE_REF.test(ref)) throw new BuildPlanError(`the ${what} gives "${ref}", which is not an image reference (check benchTriage.imageTemplates)`);
  if (tag === base) throw new BuildPlanError(`the ${role} image ${tag} would be built FROM itself: give benchTriage.imageTemplates.${role} its own name`);
  const source = role === 'baseline' ? commit.parent! : commit.hash;
  const args: Record<string, string> = { ...DEFAULT_BUILD_ARGS, ...(s.args ?? {}), BASE_IMAGE: base, VLLM_COMMIT: source };
  for (const [k, v] of Object.entries(args)) {
    if (!ARG_NAME.test(k)) throw new BuildPlanError(`build arg "${k}" is not a name (letters, digits, _)`);
    if (typeof v !== 'string' || /[\u0000-\u001f]/.test(v)) throw new BuildPlanError(`build arg ${k} must be one line of text`);
    // Build args stay in the image (`docker history`, `docker inspect`) and in build.json: a secret
    // is refused by name or by shape, and its value is never repeated in the message.
    if (SECRET_NAME.test(k) || maskSecretShapes(v) !== v)
      throw new BuildPlanError(
        `build arg ${k} looks like a secret: build args are kept in the image's history (docker history) and in the build record, so it is refused. An image build needs no credentials; give them to the runs instead (--secret-env ${k}, or Set Secret… in the editor)`,
      );
  }
  const lines = s.dockerfile?.length ? s.dockerfile : DEFAULT_DOCKERFILE;
  if (!lines.some(l => /^\s*FROM\s/i.test(l))) throw new BuildPlanError('benchTriage.build.dockerfile has no FROM line');
  return {
    buildId: opts.buildId,
    commit: commit.hash,
    role,
    source,
    tag,
    base,
    args,
    dockerfile: lines.join('\n') + '\n',
    host: opts.host,
    timeoutS: s.timeoutS && s.timeoutS > 0 ? s.timeoutS : 3 * 3600,
    dir: `.bench-triage/builds/${c12}/${opts.buildId}`,
    push: hostKind(opts.host) === 'swarm' && !!opts.host.registry && namesRegistry(tag),
  };
}
