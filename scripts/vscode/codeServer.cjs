// Starts a real VS Code (code-server) on loopback, isolated per run, and opens it in Debian's
// Chromium through playwright-core. Used by the extension-host tests, the UI tests and the demo.
const { spawn } = require('node:child_process');
const net = require('node:net');
const fs = require('node:fs');
const path = require('node:path');
const os = require('node:os');
const http = require('node:http');

const TOOLS = process.env.BENCH_TRIAGE_TOOLS || path.join(os.homedir(), '.cache/bench-triage/vscode-tools');
const CODE_SERVER = process.env.CODE_SERVER_BIN || path.join(TOOLS, 'node_modules/.bin/code-server');
const CHROMIUM = process.env.CHROMIUM_BIN || '/usr/bin/chromium';

function requireTool(name) {
  return require(require.resolve(name, { paths: [TOOLS] }));
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

function httpOk(url) {
  return new Promise(resolve => {
    const req = http.get(url, res => {
      res.resume();
      resolve(res.statusCode >= 200 && res.statusCode < 400);
    });
    req.on('error', () => resolve(false));
    req.setTimeout(2000, () => {
      req.destroy();
      resolve(false);
    });
  });
}

/**
 * TMPDIR for one run. Chromium and code-server put Unix sockets there, and a socket path may not
 * exceed 107 bytes, so it lives under a short base (not under runDir, whose depth depends on where
 * the clone is); runDir/tmp links to it so the artifacts stay findable.
 */
function shortTmp(runDir) {
  const link = path.join(runDir, 'tmp');
  try {
    return fs.realpathSync(link);
  } catch {
    /* not made yet */
  }
  const base = os.tmpdir().length <= 24 ? os.tmpdir() : '/tmp';
  const dir = fs.mkdtempSync(path.join(base, 'btvsc-'));
  fs.symlinkSync(dir, link);
  return dir;
}

/** Run folders a code-server of this process uses: their TMPDIR goes when that server stops. */
const serverDirs = new Set();

/** Removes a run's short TMPDIR (only one this file made) and the link to it. */
function removeShortTmp(runDir) {
  const link = path.join(runDir, 'tmp');
  try {
    const dir = fs.realpathSync(link);
    if (path.basename(dir).startsWith('btvsc-')) fs.rmSync(dir, { recursive: true, force: true });
    fs.unlinkSync(link);
  } catch {
    /* never made, or gone */
  }
}

/** HOME, TMPDIR and XDG_* per run, so nothing leaks into the real home directory. */
function isolatedEnv(runDir, extra = {}) {
  const home = path.join(runDir, 'home');
  for (const d of ['', '.config', '.local/share', '.cache']) fs.mkdirSync(path.join(home, d), { recursive: true });
  const tmp = shortTmp(runDir);
  return {
    ...process.env,
    HOME: home,
    TMPDIR: tmp,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local/share'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
    ...extra,
  };
}

const DEFAULT_SETTINGS = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'update.mode': 'none',
  'telemetry.telemetryLevel': 'off',
  'security.workspace.trust.enabled': false,
  'chat.commandCenter.enabled': false,
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
};

async function startCodeServer({ runDir, folder, env = {}, settings = {}, extensionsDir, port, host = '127.0.0.1', log = () => {} }) {
  if (!fs.existsSync(CODE_SERVER)) throw new Error(`code-server not found at ${CODE_SERVER}: run scripts/setup-vscode-tools.sh`);
  fs.mkdirSync(runDir, { recursive: true });
  const userDir = path.join(runDir, 'user-data', 'User');
  fs.mkdirSync(userDir, { recursive: true });
  fs.writeFileSync(path.join(userDir, 'settings.json'), JSON.stringify({ ...DEFAULT_SETTINGS, ...settings }, null, 2));
  port ??= await freePort();
  const configFile = path.join(runDir, 'config.yaml');
  fs.writeFileSync(configFile, `bind-addr: ${host}:${port}\nauth: none\ncert: false\n`);
  const args = [
    '--config',
    configFile,
    '--bind-addr',
    `${host}:${port}`,
    '--auth',
    'none',
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-getting-started-override',
    '--ignore-last-opened',
    '--user-data-dir',
    path.join(runDir, 'user-data'),
    '--extensions-dir',
    extensionsDir || path.join(runDir, 'extensions'),
  ];
  if (folder) args.push(folder);
  const t0 = Date.now();
  const logFile = fs.createWriteStream(path.join(runDir, 'code-server.log'));
  const proc = spawn(CODE_SERVER, args, { env: isolatedEnv(runDir, env), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  proc.stdout.on('data', d => {
    logFile.write(d);
    log(String(d));
  });
  proc.stderr.on('data', d => {
    logFile.write(d);
    log(String(d));
  });
  let exited = false;
  proc.on('exit', () => {
    exited = true;
  });
  const base = `http://${host}:${port}`;
  for (;;) {
    if (exited) throw new Error('code-server exited early, see ' + path.join(runDir, 'code-server.log'));
    if (await httpOk(base + '/healthz')) break;
    if (Date.now() - t0 > 60000) throw new Error('code-server did not become ready within 60 s');
    await new Promise(r => setTimeout(r, 100));
  }
  const stopProcess = () =>
    new Promise(resolve => {
      if (exited) return resolve();
      proc.once('exit', () => resolve());
      try {
        process.kill(-proc.pid, 'SIGTERM');
      } catch {
        try {
          proc.kill('SIGTERM');
        } catch {
          /* gone */
        }
      }
      setTimeout(() => {
        try {
          process.kill(-proc.pid, 'SIGKILL');
        } catch {
          /* gone */
        }
        resolve();
      }, 5000);
    });
  // The run's short TMPDIR goes with it (a run left one behind in /tmp each time).
  serverDirs.add(path.resolve(runDir));
  const stop = async () => {
    await stopProcess();
    removeShortTmp(runDir);
  };
  return { port, base, authority: `${host}:${port}`, proc, readyMs: Date.now() - t0, stop };
}

async function launchBrowser(runDir) {
  const { chromium } = requireTool('playwright-core');
  if (!fs.existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: run scripts/install-system-deps.sh`);
  const profile = path.join(runDir, 'chromium-profile');
  fs.rmSync(profile, { recursive: true, force: true });
  const ctx = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    env: isolatedEnv(runDir),
    viewport: { width: 1400, height: 900 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  // A browser with a TMPDIR of its own (no code-server of this process shares it) removes it on close.
  ctx.on('close', () => {
    if (!serverDirs.has(path.resolve(runDir))) removeShortTmp(runDir);
  });
  return ctx;
}

/** Workbench URL that loads `devPaths` as development extensions (and optionally a test entry). */
function workbenchUrl(server, { folder, devPaths = [], testsPath }) {
  const remote = p => `vscode-remote://${server.authority}${path.resolve(p)}`;
  const payload = [...devPaths.map(p => ['extensionDevelopmentPath', remote(p)]), ['skipWelcome', 'true']];
  if (testsPath) payload.push(['extensionTestsPath', remote(testsPath)]);
  let url = `${server.base}/?payload=${encodeURIComponent(JSON.stringify(payload))}`;
  url += folder ? `&folder=${encodeURIComponent(path.resolve(folder))}` : '&ew=true';
  return url;
}

module.exports = { TOOLS, freePort, startCodeServer, launchBrowser, workbenchUrl, isolatedEnv };
