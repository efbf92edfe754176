import * as vscode from 'vscode';
import { HF_TOKEN_KEY, secretKey } from '../runService';
import { register, stringArg } from './args';
import { COMMANDS } from './ids';

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Secrets runs get, kept in SecretStorage only (never settings.json). */
export function registerSecretCommands(context: vscode.ExtensionContext): void {
  register(context, COMMANDS.setHuggingFaceToken, async (value?: unknown) => {
    const token =
      stringArg(value) ??
      (await vscode.window.showInputBox({
        title: 'Hugging Face token',
        prompt: 'Stored in VS Code SecretStorage, passed to runs as HF_TOKEN and masked in every stored log',
        password: true,
        ignoreFocusOut: true,
      }));
    if (!token?.trim()) return;
    await context.secrets.store(HF_TOKEN_KEY, token.trim());
    void vscode.window.showInformationMessage('Bench Triage: Hugging Face token saved in SecretStorage.');
  });
  register(context, COMMANDS.clearHuggingFaceToken, async () => {
    await context.secrets.delete(HF_TOKEN_KEY);
    void vscode.window.showInformationMessage('Bench Triage: Hugging Face token removed from SecretStorage.');
  });
  register(context, COMMANDS.setRunSecret, async (nameArg?: unknown, valueArg?: unknown) => {
    const name =
      stringArg(nameArg) ??
      (await vscode.window.showInputBox({
        title: 'Run secret: name',
        prompt: 'The environment variable runs get (declare it in benchTriage.runEnv as { "name": …, "secret": true })',
        validateInput: v => (NAME.test(v) ? null : 'letters, digits and _ (not starting with a digit)'),
      }));
    if (!name || !NAME.test(name)) return;
    const value =
      stringArg(valueArg) ??
      (await vscode.window.showInputBox({
        title: `Run secret: value of ${name}`,
        prompt: 'Stored in VS Code SecretStorage; masked in every stored log; never in docker inspect',
        password: true,
        ignoreFocusOut: true,
      }));
    if (!value) return;
    await context.secrets.store(secretKey(name), value);
    void vscode.window.showInformationMessage(`Bench Triage: secret ${name} saved in SecretStorage.`);
  });
}
