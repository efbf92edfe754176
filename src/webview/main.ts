/**
 * Webview entry (bundled to dist/webview.js). The comparison and dashboard views arrive with the
 * editor issue; this entry only wires the typed message channel.
 */
declare function acquireVsCodeApi(): { postMessage(msg: unknown): void; getState(): unknown; setState(s: unknown): void };
const vscode = acquireVsCodeApi();
window.addEventListener('message', () => { /* host → webview messages, see src/extension/webviewProtocol.ts later */ });
vscode.postMessage({ type: 'ready' });
