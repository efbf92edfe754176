import { reservedEnvProblem } from '../core/perfcmd/reservedEnv';

/** Values of `--secret-env NAME…` from this process's environment; a name that is not set is an error naming it. */
export function secretEnvOf(names: readonly string[], env = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of names) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(n)) throw new Error(`--secret-env ${n}: not an environment variable name`);
    const reserved = reservedEnvProblem(n);
    if (reserved) throw new Error(`--secret-env ${reserved}`);
    const v = env[n];
    if (!v)
      throw new Error(
        `--secret-env ${n}: the variable is not set in this environment (export it first; its value is never written anywhere but the container)`,
      );
    out[n] = v;
  }
  return out;
}
