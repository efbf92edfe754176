/**
 * Which project a commit or run belongs to (vllm, sglang …), from what the data says: a `repo`
 * field, a PR URL, a repository path, the folder a result sits in, or the command that ran.
 * Commits of different projects are never counted or tabled together.
 */
const KNOWN = ['vllm', 'sglang'];

function fromRepoText(s: unknown): string | null {
  if (typeof s !== 'string' || !s) return null;
  const gh = /github\.com\/[\w.-]+\/([\w.-]+?)(?:\.git)?(?:\/|$)/i.exec(s);
  const name = (gh ? gh[1] : (s.replace(/\/+$/, '').split('/').pop() ?? '')).toLowerCase();
  return /^[a-z0-9][\w.-]{0,40}$/.test(name) ? name : null;
}

/** From a dataset or result row: `repo`, `pr_url`, `repo_path`. */
export function projectOfRow(row: Record<string, unknown>): string | null {
  return fromRepoText(row.repo) ?? fromRepoText(row.pr_url) ?? fromRepoText(row.repo_path);
}

/** From where a result file sits and what it ran. */
export function projectOfPlace(path: string, command: string | null, source: string): string | null {
  if (source === 'sglang-modal') return 'sglang';
  // vLLM's own benchmark clients (the standalone files' sources) measure vLLM unless the path says otherwise.
  const vllmTool = /^(vllm bench |benchmark_serving\.py|vLLM )/.test(source);
  const seg = path.split('/');
  for (const k of KNOWN) if (seg.includes(k) || seg.some(s => s.endsWith(`_${k}`))) return k;
  if (command) {
    if (/\bsglang\b/.test(command)) return 'sglang';
    if (/\bvllm\b|benchmarks\/benchmark_\w+\.py/.test(command)) return 'vllm';
  }
  return vllmTool ? 'vllm' : null;
}
