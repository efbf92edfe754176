/** Docker and transport failures turned into one line that names the host and says what to do. */
export class RunnerError extends Error {
  constructor(
    message: string,
    readonly kind: 'unreachable' | 'tls' | 'auth' | 'host-key' | 'no-gpu-runtime' | 'image' | 'timeout' | 'cancelled' | 'docker' | 'disk',
  ) {
    super(message);
  }
}

export function describeDockerError(e: unknown, hostLabel: string, url: string, hostKeyProblem?: string | null): RunnerError {
  if (e instanceof RunnerError) return e;
  const err = e as NodeJS.ErrnoException & { statusCode?: number; json?: { message?: string }; reason?: string; level?: string };
  const msg = String(err?.json?.message ?? err?.message ?? e).trim();
  const code = err?.code ?? '';
  const at = `${hostLabel} (${url})`;
  if (hostKeyProblem) return new RunnerError(`${at}: ${hostKeyProblem}`, 'host-key');
  if (err?.name === 'AbortError' || code === 'ABORT_ERR') return new RunnerError(`${at}: cancelled`, 'cancelled');
  if (code === 'ECONNREFUSED') return new RunnerError(`${at}: connection refused — is dockerd running and listening there?`, 'unreachable');
  if (code === 'ENOENT' && /connect/.test(msg)) return new RunnerError(`${at}: no Docker socket at that path — is dockerd running?`, 'unreachable');
  if (code === 'EACCES') return new RunnerError(`${at}: permission denied on the Docker socket — add your user to the docker group`, 'auth');
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return new RunnerError(`${at}: host name not found`, 'unreachable');
  if (code === 'ETIMEDOUT' || /timed? ?out/i.test(msg)) return new RunnerError(`${at}: timed out — the host or its daemon does not answer`, 'timeout');
  if (/CERT|SSL|TLS|self[- ]signed|certificate|alert/i.test(code + ' ' + msg))
    return new RunnerError(`${at}: TLS handshake failed (${msg || code}) — check the CA, client certificate and key configured for this host`, 'tls');
  if (err?.level === 'client-authentication' || /All configured authentication methods failed/i.test(msg))
    return new RunnerError(`${at}: SSH authentication failed — the host rejected the key; check the identity file or ssh-agent`, 'auth');
  if (/Host denied|verification failed/i.test(msg)) return new RunnerError(`${at}: SSH host key verification failed`, 'host-key');
  if (/dial-stdio|command not found|docker: not found/i.test(msg))
    return new RunnerError(`${at}: the docker CLI on the SSH host cannot reach its daemon (${msg})`, 'unreachable');
  if (code === 'ECONNRESET' || code === 'EPIPE' || /socket hang up/i.test(msg))
    return new RunnerError(`${at}: connection lost (${code || msg})`, 'unreachable');
  if (err?.statusCode === 404 && /image/i.test(msg)) return new RunnerError(`${at}: ${msg}`, 'image');
  return new RunnerError(`${at}: ${msg || code || 'Docker error'}`, 'docker');
}
