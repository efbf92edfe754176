#!/usr/bin/env node
// Builds bench-triage/fake-vllm:test into the Docker engine named by DOCKER_HOST, from project
// files only (no registry): Debian's python3 + git + busybox copied with their libraries, and
// the fake vLLM of test/fake-vllm. Usage: node scripts/fake-image.mjs [tag]
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import Docker from 'dockerode';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const FAKE_IMAGE = 'bench-triage/fake-vllm:test';
const PYTHON = '/usr/bin/python3';
const BUSYBOX = '/usr/bin/busybox';
const GIT = '/usr/bin/git';
const APPLETS = [
  'sh',
  'sleep',
  'cat',
  'ls',
  'kill',
  'ps',
  'df',
  'tail',
  'head',
  'cp',
  'mv',
  'rm',
  'mkdir',
  'sed',
  'grep',
  'env',
  'id',
  'true',
  'false',
  'echo',
  'nproc',
  'du',
  'chmod',
  'printf',
  'test',
  '[',
];

function need(file, pkg) {
  if (!existsSync(file)) throw new Error(`fake image: ${file} is missing (install Debian's ${pkg})`);
}

/** Shared libraries a binary loads (ldd), as absolute paths. */
function libsOf(bin) {
  const out = execFileSync('ldd', [bin], { encoding: 'utf8' });
  return [...out.matchAll(/(?:=>\s*)?(\/\S+)\s+\(0x/g)].map(m => m[1]);
}

function copyAbs(file, rootfs) {
  const dest = path.join(rootfs, file);
  mkdirSync(path.dirname(dest), { recursive: true });
  if (!existsSync(dest)) copyFileSync(realpathSync(file), dest);
}

export function stageContext() {
  need(PYTHON, 'python3');
  need(BUSYBOX, 'busybox-static');
  need(GIT, 'git');
  const ctx = mkdtempSync(path.join(tmpdir(), 'bt-fake-image-'));
  const rootfs = path.join(ctx, 'rootfs');
  const py = realpathSync(PYTHON);
  const stdlib = execFileSync(PYTHON, ['-c', 'import sysconfig; print(sysconfig.get_paths()["stdlib"])'], { encoding: 'utf8' }).trim();
  const skip = new Set([
    'test',
    'tests',
    'idlelib',
    'tkinter',
    'turtledemo',
    'ensurepip',
    'lib2to3',
    'site-packages',
    'dist-packages',
    '__pycache__',
    'pydoc_data',
  ]);
  cpSync(stdlib, path.join(rootfs, stdlib), { recursive: true, dereference: true, filter: src => !skip.has(path.basename(src)) });
  const bins = [py, GIT];
  const dynload = path.join(stdlib, 'lib-dynload');
  if (existsSync(dynload))
    bins.push(
      ...readdirSync(dynload)
        .filter(f => f.endsWith('.so'))
        .map(f => path.join(dynload, f)),
    );
  for (const b of bins) {
    copyAbs(b, rootfs);
    for (const lib of libsOf(b)) copyAbs(lib, rootfs);
  }
  mkdirSync(path.join(rootfs, 'usr/bin'), { recursive: true });
  if (path.join('/usr/bin', 'python3') !== py) symlinkSync(path.basename(py), path.join(rootfs, 'usr/bin/python3'));
  symlinkSync('python3', path.join(rootfs, 'usr/bin/python'));
  mkdirSync(path.join(rootfs, 'bin'), { recursive: true });
  copyFileSync(BUSYBOX, path.join(rootfs, 'bin/busybox'));
  for (const a of APPLETS) symlinkSync('busybox', path.join(rootfs, 'bin', a));
  for (const d of ['tmp', 'root', 'results', 'etc']) mkdirSync(path.join(rootfs, d), { recursive: true });
  writeFileSync(path.join(rootfs, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/sh\n');
  cpSync(path.join(ROOT, 'test/fake-vllm/rootfs'), rootfs, { recursive: true });
  cpSync(path.join(ROOT, 'test/fake-vllm/benchmarks'), path.join(rootfs, 'vllm-workspace/benchmarks'), { recursive: true });
  writeFileSync(
    path.join(ctx, 'Dockerfile'),
    [
      'FROM scratch',
      'COPY rootfs/ /',
      'ENV PATH=/usr/local/bin:/usr/bin:/bin PYTHONPATH=/opt/fakevllm LANG=C.UTF-8 HOME=/root',
      'LABEL org.opencontainers.image.title="Bench Triage fake vLLM (tests only)"',
      'WORKDIR /vllm-workspace',
      'CMD ["python3", "-m", "vllm.entrypoints.openai.api_server"]',
      '',
    ].join('\n'),
  );
  return ctx;
}

export async function buildFakeImage(docker = new Docker(), tag = FAKE_IMAGE) {
  const ctx = stageContext();
  try {
    const tar = spawn('tar', ['-C', ctx, '-c', '.'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const stream = await docker.buildImage(tar.stdout, { t: tag, rm: true, forcerm: true });
    const events = await new Promise((resolve, reject) => docker.modem.followProgress(stream, (err, res) => (err ? reject(err) : resolve(res))));
    const failed = events.find(e => e.error || e.errorDetail);
    if (failed) throw new Error(`fake image build failed: ${failed.error ?? failed.errorDetail?.message}`);
    return tag;
  } finally {
    rmSync(ctx, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const tag = process.argv[2] ?? FAKE_IMAGE;
  const t0 = Date.now();
  buildFakeImage(new Docker(), tag).then(
    t => {
      console.log(`built ${t} in ${((Date.now() - t0) / 1000).toFixed(1)} s (DOCKER_HOST=${process.env.DOCKER_HOST ?? 'default'})`);
    },
    e => {
      console.error(`fake-image: ${e.message}`);
      process.exit(1);
    },
  );
}
