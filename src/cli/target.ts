import { statSync } from 'node:fs';
import { scan } from '../core/ingest';
import { ROLES, type AgentRun, type Commit, type Role } from '../core/model';
import { nodeFileSource } from '../platform/nodeFileSource';
import { ReadRefused, readTextBounded } from '../platform/boundedRead';
import { MAX_PATCH_BYTES, patchProblem } from '../core/patch';

export interface Target {
  commit: Commit;
  roles: Role[];
  agentRun: AgentRun | null;
  patchPath: string | null;
}

/** Resolves `--folder/--commit/--role` for `plan` and `run`; throws a message naming what is wrong. */
export async function resolveTarget(folder: string, commitPrefix: string, role: string, agentPatch?: string): Promise<Target> {
  try {
    if (!statSync(folder).isDirectory()) throw new Error();
  } catch {
    throw new Error(`${folder} is not a folder`);
  }
  const roles: Role[] = role === 'all' ? [...ROLES] : (ROLES as readonly string[]).includes(role) ? [role as Role] : [];
  if (!roles.length) throw new Error(`--role must be baseline, human, agent or all (got ${role})`);
  if (agentPatch !== undefined) {
    let text: string;
    try {
      text = await readTextBounded(agentPatch, { maxBytes: MAX_PATCH_BYTES, follow: true, what: 'the patch' });
    } catch (e) {
      throw new Error(
        `--agent-patch ${e instanceof ReadRefused ? e.message : `${agentPatch}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : ((e as NodeJS.ErrnoException).code ?? (e as Error).message)}`}`,
      );
    }
    const problem = patchProblem(text);
    if (problem) throw new Error(`--agent-patch ${agentPatch}: ${problem}`);
  }
  const result = await scan(nodeFileSource(folder));
  const matches = result.commits.filter(c => c.hash.startsWith(commitPrefix.toLowerCase()));
  if (matches.length !== 1)
    throw new Error(
      matches.length ? `${commitPrefix} is ambiguous (${matches.map(c => c.hash.slice(0, 12)).join(', ')})` : `no commit ${commitPrefix} in ${folder}`,
    );
  const commit = matches[0];
  const agentRun = result.agentRuns.find(r => r.commit === commit.hash && r.patch && !r.patch.empty) ?? null;
  return { commit, roles, agentRun, patchPath: agentPatch ?? agentRun?.patch?.path ?? null };
}
