/**
 * Values shaped like well-known credentials (Hugging Face, GitHub, OpenAI-style keys, AWS access
 * keys, bearer tokens, `token=` query values): masked in text copied out of logs into files the
 * tool writes, whatever the log's own masking did.
 */
const SHAPES =
  /\b(?:hf_[A-Za-z0-9]{20,}|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,}|sk-[A-Za-z0-9_-]{20,}|AKIA[0-9A-Z]{16})\b|(Bearer\s+)[A-Za-z0-9._~+/=-]{16,}|((?:token|access_token|api_key|apikey|password)=)[^\s&"']{8,}/gi;

export function maskSecretShapes(text: string): string {
  return text.replace(SHAPES, (_m, bearer?: string, kv?: string) => `${bearer ?? kv ?? ''}***`);
}
