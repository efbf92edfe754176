/**
 * Environment names a run's own configuration may not set: the runner's and the GPU runtime's.
 * A value given for one would replace what the runner set (a swarm run's slot or files, so its
 * command breaks) or widen the GPUs the container sees past those reserved for it.
 */
export function reservedEnvProblem(name: string): string | null {
  if (/^BENCH_TRIAGE_/.test(name))
    return `${name} is reserved: BENCH_TRIAGE_* variables are the runner's own (a swarm run's GPU slot and files); choose another name`;
  if (/^NVIDIA_VISIBLE_DEVICES$/.test(name))
    return `${name} is reserved: the runner gives each run the GPUs reserved for it, and this would let the container see others (to choose among a run's own GPUs, set CUDA_VISIBLE_DEVICES)`;
  if (/^DOCKER_RESOURCE_/.test(name)) return `${name} is reserved: the swarm sets it to the GPUs it assigned the run`;
  return null;
}
