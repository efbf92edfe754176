#!/usr/bin/env node
// Serves the workbench with the extension loaded as a development extension and prints its URL.
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const { startCodeServer, workbenchUrl } = require('./codeServer.cjs');
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const workspace = path.resolve(process.env.BENCH_TRIAGE_DEMO ?? path.join(ROOT, 'demo/workspace'));
// One folder per port: two demos at once keep their own user data.
const port = Number(process.env.BENCH_TRIAGE_PORT ?? 8080);
const runDir = path.join(ROOT, 'test-results', port === 8080 ? 'demo' : `demo-${port}`);

const server = await startCodeServer({
  runDir,
  folder: workspace,
  host: process.env.BENCH_TRIAGE_HOST ?? '127.0.0.1',
  port,
});
const url = workbenchUrl(server, { folder: workspace, devPaths: [ROOT] });
console.log(`Bench Triage demo: VS Code ${server.base} with the extension on ${workspace}`);
console.log(`Open: ${url}`);
// One way out, whichever comes first (Ctrl-C, a kill, code-server ending): the server stopped and
// its TMPDIR removed before the process exits.
let stopping = null;
const stop = (code = 0) => (stopping ??= server.stop().then(() => process.exit(code)));
process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));
server.proc.on('exit', code => {
  console.log(`code-server exited (${code})`);
  void stop(code ?? 1);
});
