// What the editor reads from a vLLM checkout (git), so that front ends spawn no git of their own.
import { execa } from 'execa';
import { hasCommit } from '../runner/containerFiles';

/** Whether the checkout has the commit (a missing checkout or commit is false, never an error). */
export const checkoutHas = (checkout: string, commit: string): Promise<boolean> => hasCommit(checkout, commit);

/** `git diff parent commit`: the human patch as the checkout has it. */
export async function commitDiff(checkout: string, parent: string, commit: string): Promise<string> {
  return (await execa('git', ['-C', checkout, 'diff', parent, commit], { timeout: 30_000 })).stdout;
}

/** A file's text at a commit, its final newline kept (a diff against it must not gain one). */
export async function fileAt(checkout: string, commit: string, rel: string): Promise<string> {
  return (await execa('git', ['-C', checkout, 'show', `${commit}:${rel}`], { timeout: 30_000, stripFinalNewline: false })).stdout;
}
