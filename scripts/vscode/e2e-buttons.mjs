#!/usr/bin/env node
// Presses every button of the extension the way a person does, on the demo workspace (a copy,
// its fake H100 host pointed at the suite's own engine): each entry of contributes.menus —
// view/title with an item selected, view/item/context through the context menu, inline actions
// by hovering the row, editor/title, and the command palette (what it offers and what it hides).
// Each step asserts its effect, checks that .vscode/settings.json is unchanged unless the command
// is meant to change it, and keeps a screenshot in test-results/e2e/buttons/. At the end, every
// menu entry must have been covered by a step. Prints "e2e: N passed, N failed".
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { prepareRunsWorkspace, stopTestEngine } from './testEngine.mjs';

const require = createRequire(import.meta.url);
const { startCodeServer, launchBrowser, workbenchUrl } = require('./codeServer.cjs');
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
// The demo's "No vLLM wheel" commit is a real commit of the demo checkout, whose files include the
// fake's benchmark scripts (scripts/demo-checkout.mjs): its id follows them, so it is read, not written here.
const WHEEL = JSON.parse(
  readFileSync(path.join(ROOT, 'demo/workspace/dataset/vllm_commits.jsonl'), 'utf8')
    .split('\n')
    .find(l => l.includes('"[Core] Optimize block_manager"')),
).commit_hash.slice(0, 8);
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const shots = path.join(ROOT, 'test-results', 'e2e', 'buttons');
const runDir = path.join(ROOT, 'test-results', 'vscode', `e2e-${Date.now()}`);
rmSync(shots, { recursive: true, force: true });
mkdirSync(shots, { recursive: true });
mkdirSync(runDir, { recursive: true });

const title = id => pkg.contributes.commands.find(c => c.command === id).title;
const results = [];
const covered = new Set();
let page = null;
let shotNo = 0;

/** Every menu entry as `menu:command:group` (what the coverage check at the end needs). */
const MENU_ENTRIES = Object.entries(pkg.contributes.menus).flatMap(([menu, list]) => list.map(e => `${menu}:${e.command}:${e.group ?? ''}`));
const entry = (menu, command, group = '') => {
  const k = `${menu}:${command}:${group}`;
  if (!MENU_ENTRIES.includes(k)) throw new Error(`no menu entry ${k} in package.json`);
  return k;
};

let settingsFile = '';
const readSettings = () => readFileSync(settingsFile, 'utf8');

/**
 * One step: runs `fn`, checks the settings file (unchanged, or changed as `settings` says),
 * screenshots the window, records the menu entries it covers.
 */
async function step(name, covers, fn, { settings = null } = {}) {
  // E2E_ONLY=regex runs only the steps it names (a developer's loop; CI runs every step).
  if (process.env.E2E_ONLY && !new RegExp(process.env.E2E_ONLY).test(name)) return;
  const before = readSettings();
  let err = null;
  try {
    await fn();
    const after = readSettings();
    if (settings) settings(before, after);
    else if (after !== before) throw new Error(`.vscode/settings.json changed:\n--- before\n${before}\n--- after\n${after.slice(0, 2000)}`);
    for (const c of covers) covered.add(c);
  } catch (e) {
    err = e;
  }
  const file = path.join(shots, `${String(++shotNo).padStart(2, '0')}-${name.replace(/\W+/g, '-').slice(0, 70)}.png`);
  await page?.screenshot({ path: file }).catch(() => {});
  // A failed step may leave a modal dialog open: it would block every later step.
  if (
    err &&
    page &&
    (await page
      .locator('.monaco-dialog-box')
      .count()
      .catch(() => 0))
  )
    await page.keyboard.press('Escape').catch(() => {});
  results.push([name, err]);
  console.log(
    `[e2e]   ${err ? '✗' : '✔'} ${name}${
      err
        ? `\n${String(err?.stack ?? err)
            .split('\n')
            .slice(0, 8)
            .join('\n')}`
        : ''
    }`,
  );
}

// A campaign's run records (runs/<n>.json); a write's temporary (<n>.json.<pid>.tmp) can be listed, empty, mid-write.
const RECORD = /^\d+\.json$/;

const assert = (cond, msg) => {
  if (!cond) throw new Error(msg);
};
const until = async (what, f, ms = 60000) => {
  const t0 = Date.now();
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() - t0 > ms) throw new Error(`timed out after ${ms / 1000} s waiting for ${what}`);
    await new Promise(r => setTimeout(r, 250));
  }
};
/** The CLI's view of the folder (the files the extension's runs wrote). */
const classify = folder =>
  JSON.parse(execFileSync(process.execPath, [path.join(ROOT, 'dist/cli.js'), 'classify', folder, '--json'], { encoding: 'utf8', maxBuffer: 64 << 20 }));

let engineUp = false;
try {
  const demo = prepareRunsWorkspace('demo');
  engineUp = true;
  const folder = demo.folder;
  settingsFile = path.join(folder, '.vscode/settings.json');
  // DOCKER_HOST: with no host set, the extension's stand-in is the local engine; here that is the
  // suite's own engine, never the machine's.
  // Present only while a Cancel Scan step holds a scan (see that step).
  const scanGate = path.join(runDir, 'scan-gate');
  const server = await startCodeServer({ runDir, folder, env: { DOCKER_HOST: demo.engine, BENCH_TRIAGE_E2E_SCAN_GATE: scanGate } });
  const ctx = await launchBrowser(runDir).catch(async e => {
    await server.stop();
    throw e;
  });
  try {
    page = ctx.pages()[0] || (await ctx.newPage());
    page.setDefaultTimeout(30000);
    await page.setViewportSize({ width: 1500, height: 1250 });
    await page.goto(workbenchUrl(server, { folder, devPaths: [ROOT] }));
    await page.locator('.monaco-workbench').waitFor();
    await page.locator('.activitybar .action-item a[aria-label^="Bench Triage"]').first().click();
    const pane = name => page.locator('.pane', { has: page.locator('.pane-header', { hasText: new RegExp(`^\\s*${name}`, 'i') }) });
    const commits = pane('Commits');
    const runs = pane('Runs');
    const row = (p, text) => p.locator('.monaco-list-row', { hasText: text }).first();
    const rows = p => p.locator('.monaco-list-row');
    /**
     * After a reload the workbench may restore the Bench Triage sidebar on its own, a little later,
     * and its views may take a while to render. The icon is clicked only while Bench Triage is not
     * the active container (the icon's own checked state): a click on the active icon would hide it.
     */
    const showBenchTriage = async () => {
      await page.locator('.monaco-workbench').waitFor();
      const icon = page.locator('.activitybar .action-item', { has: page.locator('a[aria-label^="Bench Triage"]') }).first();
      const active = () =>
        icon.evaluate(e => e.classList.contains('checked') || !!e.querySelector('.checked, [aria-pressed="true"], [aria-selected="true"]')).catch(() => false);
      for (let i = 0; i < 20 && !(await runs.isVisible().catch(() => false)); i++) {
        // A click on the active container's icon hides the side bar, so it is clicked when not active;
        // a window just reloaded can keep the side bar hidden under an icon that looks active, or
        // redraw the icon (its badge counting the scan) under every click: then the command opens it.
        if (i > 0 && i % 3 === 0) {
          await palette('View: Show Bench Triage').catch(() => {});
          await page.keyboard.press('Enter');
        } else if (!(await active()))
          await icon
            .locator('a')
            .click({ timeout: 5000 })
            .catch(() => {});
        await runs.waitFor({ timeout: 3000 }).catch(() => {});
      }
      await runs.waitFor({ timeout: 60000 });
    };
    /** Scrolls a view's list until a row with `text` is rendered (lists render only what is in view). */
    const scrollTo = async (p, text) => {
      const r = typeof text === 'string' ? row(p, text) : text;
      // A rendered row can still be clipped by the list (it renders a little beyond its viewport,
      // and Playwright cannot scroll the workbench's own scrollable element): in view means inside.
      const inView = async () => {
        if (!(await r.count())) return false;
        const [b, l] = await Promise.all([
          r.boundingBox().catch(() => null),
          p
            .locator('.monaco-list')
            .first()
            .boundingBox()
            .catch(() => null),
        ]);
        return !!b && !!l && b.y >= l.y - 1 && b.y + b.height <= l.y + l.height + 1;
      };
      if (await inView()) return r;
      // By keyboard, with the mouse away: a wheel over the list lands on whatever hover a row's
      // tooltip opened under the pointer, and the list does not move.
      await dismiss();
      const list = p.locator('.monaco-list').first();
      await list.focus();
      if (!(await r.count()) || (await r.boundingBox().catch(() => null))?.y < ((await list.boundingBox())?.y ?? 0)) {
        await page.keyboard.press('Home');
        await page.waitForTimeout(250);
      }
      for (let i = 0; i < 60 && !(await inView()); i++) {
        await page.keyboard.press('PageDown');
        await page.waitForTimeout(250);
      }
      await r.waitFor();
      return r;
    };
    const dismiss = async () => {
      await page.mouse.move(1200, 800);
      await page.keyboard.press('Escape');
      await page
        .locator('.monaco-hover')
        .first()
        .waitFor({ state: 'hidden', timeout: 3000 })
        .catch(() => {});
    };
    /** A title-bar button of a view, pressed with a row selected (VS Code then passes that row's node). */
    const titleButton = async (p, label) => {
      await p.locator('.pane-header').hover();
      await p.locator(`.pane-header .actions .action-label[aria-label^="${label}"]`).click();
    };
    const overflow = async (p, item) => {
      await p.locator('.pane-header').hover();
      await p.locator('.pane-header .actions .action-label[aria-label^="More Actions"]').click();
      await page.locator('.context-view .monaco-menu .action-label', { hasText: item }).first().waitFor();
      await contextItem(item);
    };
    const contextItem = async item => {
      const labels = page.locator('.context-view .monaco-menu .action-item:not(.disabled) .action-label:not(.separator)');
      await labels.first().waitFor();
      const texts = (await labels.allTextContents()).map(t => t.trim());
      const i = texts.findIndex(t => t === item);
      if (i < 0) throw new Error(`no "${item}" in the menu (${texts.join(' | ')})`);
      for (let k = 0; k <= i; k++) await page.keyboard.press('ArrowDown');
      await page.keyboard.press('Enter');
    };
    /** Right-click a row and choose an item (by keyboard: the workbench's menus act on their own key handling). */
    const menu = async (r, item) => {
      await dismiss();
      await r.click({ button: 'right' });
      await contextItem(item);
    };
    /**
     * A context-menu entry whose effect is a dialog or a quick pick: the views re-render as runs
     * change state, which can close a menu just opened, so it is opened again until `target` shows.
     */
    const menuUntil = async (r, item, target) => {
      for (let i = 0; i < 4 && !(await target.isVisible().catch(() => false)); i++) {
        await menu(r, item).catch(() => {});
        await target.waitFor({ timeout: 8000 }).catch(() => {});
      }
      await target.waitFor();
    };
    const inline = async (r, label) => {
      await dismiss();
      await r.hover();
      await r.locator(`.action-label[aria-label^="${label}"]`).click();
    };
    // An inline button whose effect shows: pressed again if a view refresh (a campaign or build
    // record written just then) re-rendered the row under the press and the click was lost.
    const inlineUntil = async (r, label, target) => {
      for (let i = 0; i < 4 && !(await target.isVisible().catch(() => false)); i++) {
        await inline(r, label).catch(() => {});
        await target.waitFor({ timeout: 8000 }).catch(() => {});
      }
      await target.waitFor();
    };
    const quickPick = async (text, { enter = true } = {}) => {
      const input = page.locator('.quick-input-widget .quick-input-box input');
      await input.waitFor();
      await input.fill(text);
      if (enter) await page.keyboard.press('Enter');
    };
    const palette = async text => {
      await dismiss();
      await page.keyboard.press('F1');
      await quickPick(`>${text}`, { enter: false });
      await page.waitForTimeout(400);
    };
    const paletteOffers = async commandTitle => {
      const items = (await page.locator('.quick-input-list .monaco-list-row').allTextContents()).map(t => t.trim());
      return items.some(t => t.includes(`Bench Triage: ${commandTitle}`));
    };
    const notification = text => page.locator('.notifications-toasts .notification-toast', { hasText: text }).first();
    const clearNotifications = async () => {
      await page.keyboard.press('Escape');
      for (const b of await page.locator('.notifications-toasts .codicon-notifications-clear, .notifications-toasts .action-label.codicon-close').all())
        await b.click().catch(() => {});
    };
    const filterTo = async text => {
      await titleButton(commits, title('benchTriage.filter'));
      await quickPick(text);
    };
    const clearFilterByPalette = async () => {
      await page.keyboard.press('F1');
      await quickPick(`>Bench Triage: ${title('benchTriage.clearFilter')}`);
    };
    const webview = () => page.frameLocator('iframe.webview.ready').last().frameLocator('iframe#active-frame');
    const closeEditors = async () => {
      await page.keyboard.press('F1');
      await quickPick('>View: Close All Editors');
      await page.waitForTimeout(300);
    };

    // ---------- the Commits view's title bar, with a tree item selected ----------
    await step('the Commits view fills with the demo categories; the Runs view lists the recorded runs from disk', [], async () => {
      for (const g of ['Complete 3-way', 'GPU out of memory', 'Dependency drift', 'Model not supported']) await row(commits, g).waitFor();
      await row(runs, 'c53eb0e4 agent').waitFor();
      await row(runs, 'aa4f87dd human').waitFor();
    });

    await step(
      'Group By… in the title bar with an item selected asks, and writes only the chosen group-by',
      [entry('view/title', 'benchTriage.groupBy', 'navigation@2')],
      async () => {
        await row(commits, 'GPU out of memory').click();
        await titleButton(commits, title('benchTriage.groupBy'));
        await quickPick('agent');
        const group = commits.locator('.monaco-list-row[aria-label^="claude_code,"]').first();
        await group.waitFor();
        // One agent, one entry: the demo's agent results all count as claude_code (named by their agent runs).
        const label = await group.getAttribute('aria-label');
        const expected = classify(folder).filter(e => e.agent === 'claude_code').length;
        assert(label.includes(`${expected} commit`), `group claude_code: "${label}", expected ${expected} commits`);
      },
      {
        settings: (before, after) => {
          const a = JSON.parse(after),
            b = JSON.parse(before);
          assert(a['benchTriage.groupBy'] === 'agent', `groupBy is ${JSON.stringify(a['benchTriage.groupBy'])?.slice(0, 100)}`);
          delete a['benchTriage.groupBy'];
          assert(JSON.stringify(a) === JSON.stringify(b), 'only benchTriage.groupBy changed');
          assert(after.length < before.length + 100, `settings.json grew by ${after.length - before.length} bytes`);
        },
      },
    );

    await step(
      'Group By… again from the title bar: back to category',
      [],
      async () => {
        await commits.locator('.monaco-list-row[aria-label^="claude_code,"]').first().click();
        await titleButton(commits, title('benchTriage.groupBy'));
        await quickPick('category');
        await row(commits, 'Complete 3-way').waitFor();
      },
      { settings: (_b, after) => assert(JSON.parse(after)['benchTriage.groupBy'] === 'category', 'groupBy is category') },
    );

    await step(
      'Filter… in the title bar with an item selected asks for the text and filters',
      [entry('view/title', 'benchTriage.filter', 'navigation@1')],
      async () => {
        await row(commits, 'Complete 3-way').click();
        await filterTo('out of memory');
        await until(
          'only the OOM group',
          async () =>
            (await rows(commits).allTextContents()).join('|').includes('GPU out of memory') &&
            !(await rows(commits).allTextContents()).join('|').includes('Complete 3-way'),
        );
        const desc = await commits.locator('.pane-header .description').textContent();
        assert(/filter: out of memory/.test(desc ?? ''), `view description "${desc}"`);
      },
    );

    await step('Clear Filter from the title bar overflow menu', [entry('view/title', 'benchTriage.clearFilter', '1_filter@1')], async () => {
      await row(commits, 'GPU out of memory').click();
      await overflow(commits, title('benchTriage.clearFilter'));
      await row(commits, 'Complete 3-way').waitFor();
    });

    await step(
      'Rescan Results in the title bar with an item selected keeps the tree',
      [entry('view/title', 'benchTriage.refresh', 'navigation@3')],
      async () => {
        await row(commits, 'Complete 3-way').click();
        await titleButton(commits, title('benchTriage.refresh'));
        await row(commits, 'Complete 3-way').waitFor();
        await row(commits, 'GPU out of memory').waitFor();
      },
    );

    await step(
      'Open Dashboard in the title bar; its Include incomparable toggle changes the counts',
      [entry('view/title', 'benchTriage.dashboard', 'navigation@4')],
      async () => {
        await row(commits, 'Complete 3-way').click();
        await titleButton(commits, title('benchTriage.dashboard'));
        const w = webview();
        await w.locator('h1', { hasText: 'Bench Triage' }).waitFor();
        const text0 = await w.locator('main').textContent();
        await w.locator('#include-incomparable').check();
        await until('the counts to change', async () => (await w.locator('main').textContent()) !== text0, 15000);
        await w.locator('#include-incomparable').uncheck();
      },
    );

    await step('Export Report… from the Dashboard asks where, writes there and says where', [], async () => {
      const w = webview();
      await w.locator('button', { hasText: 'Export report' }).click();
      const target = path.join(folder, 'exported-report.md');
      // The save dialog fills in its proposed path after it opens: type only once it has.
      const input = page.locator('.quick-input-widget .quick-input-box input');
      await until('the save dialog with its proposed name', async () => /bench-triage-report/.test(await input.inputValue().catch(() => '')), 20000);
      await quickPick(target, { enter: false });
      await page.screenshot({ path: path.join(runDir, 'export-dialog.png') });
      await page.keyboard.press('Enter');
      await until('the report file', () => existsSync(target), 30000);
      await notification(`report written to ${target}`).waitFor();
      assert(existsSync(target) && /# /.test(readFileSync(target, 'utf8')), 'the report file exists');
      await clearNotifications();
      await closeEditors();
    });

    await step(
      'Dashboard rows lead somewhere: a category row filters the Commits view to exactly its count, a fixability row to its own, a not-comparable row opens that commit; no "(none)" agent row, no empty table',
      [],
      async () => {
        await titleButton(commits, title('benchTriage.dashboard'));
        const w = webview();
        await w.locator('h1', { hasText: 'Bench Triage' }).waitFor();
        const tables = await w.locator('table').count();
        for (let i = 0; i < tables; i++) assert((await w.locator('table').nth(i).locator('tbody tr').count()) > 0, `table ${i} is empty`);
        assert(!(await w.locator('tr', { hasText: '(none)' }).count()), 'a "(none)" agent row');
        const oom = w.locator('table[aria-label^="Commits per category"] tbody tr', { hasText: 'GPU out of memory' }).first();
        const n = Number(await oom.locator('td').nth(1).textContent());
        await oom.click();
        await until('the Commits view filtered to outcome=gpu-oom', async () =>
          /filter: outcome=gpu-oom/.test((await commits.locator('.pane-header .description').textContent()) ?? ''),
        );
        const oomGroup = commits.locator('.monaco-list-row', { hasText: 'GPU out of memory' }).first();
        await oomGroup.waitFor();
        assert((await rows(commits).count()) >= 1 && (await oomGroup.textContent()).includes(String(n)), `the group shows ${n}`);
        await page.screenshot({ path: path.join(shots, 'dashboard-row-opens-group.png') });
        const fixRow = w.locator('table[aria-label^="Failures per fixability"] tbody tr').first();
        const fixCount = Number(await fixRow.locator('td').nth(1).textContent());
        await fixRow.click();
        await until('the Commits view filtered to blocked=…', async () =>
          /filter: blocked=/.test((await commits.locator('.pane-header .description').textContent()) ?? ''),
        );
        const groupCounts = (await commits.locator('.monaco-list-row[aria-level="1"] .label-description').allTextContents()).map(Number);
        assert(groupCounts.reduce((a, b) => a + b, 0) === fixCount, `groups ${groupCounts.join('+')} vs the row's ${fixCount}`);
        const nc = w.locator('table[aria-label^="Not comparable"] tbody tr').first();
        if (await nc.count()) {
          const commit = ((await nc.locator('td').first().textContent()) ?? '').trim();
          const why = nc.locator('td.wrap');
          assert((await why.evaluate(e => getComputedStyle(e).textAlign)) === 'left', 'the why-not text reads left-aligned');
          await nc.click();
          await page
            .locator('.tab', { hasText: new RegExp(commit) })
            .first()
            .waitFor();
        }
        // Keys go to the workbench again, not to the webview that has the focus.
        await rows(commits).first().click();
        await clearFilterByPalette();
        await closeEditors();
      },
    );

    // ---------- context menu and inline actions on a commit entry and its roles ----------
    /** Opens a row's children without closing them when they are open already (a click toggles). */
    const expand = async (r, child) => {
      // A refresh of the view can land between reading the row's state and the click (the click
      // then toggles it shut, or lands on a row being replaced): check, and try again.
      for (let i = 0; ; i++) {
        await r.waitFor();
        if ((await r.getAttribute('aria-expanded').catch(() => null)) !== 'true') await r.click();
        try {
          await until('the row to open', async () => (await r.getAttribute('aria-expanded').catch(() => null)) === 'true', 5000);
          if (child) await child.first().waitFor({ timeout: 10000 });
          return;
        } catch (e) {
          if (i >= 2) throw e;
        }
      }
    };
    /** The first role row of an expanded entry, scrolled into view (a big group above can push it below the fold). */
    const roleRow = async role => scrollTo(commits, commits.locator(`.monaco-list-row[aria-label^="${role},"]`).first());
    const expandTo = async (group, commit) => {
      if (
        /filter:/.test(
          (await commits
            .locator('.pane-header .description')
            .textContent()
            .catch(() => '')) ?? '',
        )
      )
        await clearFilterByPalette();
      // The list renders only what is in view: a group below the fold is scrolled to.
      await row(commits, group)
        .waitFor({ timeout: 5000 })
        .catch(() => scrollTo(commits, group));
      if (!(await row(commits, commit).count()) || !(await row(commits, commit).isVisible())) await expand(row(commits, group));
      await row(commits, commit)
        .waitFor({ timeout: 5000 })
        .catch(() => {});
      return scrollTo(commits, commit);
    };

    await step(
      'Compare (context menu of an entry) opens the 3-way webview with every metric',
      [entry('view/item/context', 'benchTriage.compare', '2_compare@0')],
      async () => {
        const e = await expandTo('Complete 3-way', '2e18d6d1');
        await menu(e, 'Compare');
        const w = webview();
        await w.locator('h1', { hasText: '2e18d6d1' }).waitFor();
        await w.locator('#metrics th', { hasText: 'TPOT mean' }).first().waitFor();
        await closeEditors();
      },
    );

    await step(
      "pooled attempts with different labels: the commit's hover and its Compare view say so (the own campaign's c0ffee01, one baseline attempt on another H100)",
      [],
      async () => {
        const c = await expandTo('Complete 3-way', 'c0ffee01');
        await dismiss();
        await c.hover();
        const hover = page.locator('.workbench-hover').filter({ hasText: 'carry different labels' }).first();
        await hover.waitFor({ timeout: 15000 });
        const text = ((await hover.textContent()) ?? '').replace(/\u00a0/g, ' ');
        assert(/baseline's 5 pooled attempts carry different labels: gpu = H100-SXM5-80GB \(4\), H100-PCIe-80GB \(1\)/.test(text), text);
        await dismiss();
        await menu(c, 'Compare');
        const w = webview();
        await w.locator('h1', { hasText: 'c0ffee01' }).waitFor();
        await w.locator('p.note', { hasText: 'gpu = H100-SXM5-80GB (4), H100-PCIe-80GB (1)' }).waitFor();
        await closeEditors();
      },
    );

    await step(
      'Diff Agent vs Human Patch (context menu of an entry) shows both patches of vllm/logger.py',
      [entry('view/item/context', 'benchTriage.diffAgentVsHuman', '2_compare@1')],
      async () => {
        await menu(row(commits, '2e18d6d1'), 'Diff Agent vs Human Patch');
        await page.locator('.monaco-editor .view-line', { hasText: 'agent: explicit clock' }).first().waitFor();
        await page.locator('.monaco-editor .view-line', { hasText: 'human: one flush per line' }).first().waitFor();
        await closeEditors();
      },
    );

    await step('Diff Agent vs Human Patch without a vLLM checkout: the two patches side by side file by file, not as two walls of text', [], async () => {
      const settings = readSettings();
      const unset = JSON.parse(settings);
      delete unset['benchTriage.vllmCheckout'];
      writeFileSync(settingsFile, JSON.stringify(unset, null, 1));
      try {
        await page.waitForTimeout(500); // the settings file change reaches the extension
        await menu(row(commits, '2e18d6d1'), 'Diff Agent vs Human Patch');
        await page
          .locator('.tab', { hasText: /file by file/ })
          .first()
          .waitFor({ timeout: 30000 });
        await page.locator('.monaco-editor .view-line', { hasText: 'agent: explicit clock' }).first().waitFor();
        await page.locator('.monaco-editor .view-line', { hasText: 'human: one flush per line' }).first().waitFor();
        // One file per pair: the header of a multi-file diff names vllm/logger.py.
        await page.locator('.multiDiffEntry', { hasText: 'logger.py' }).first().waitFor();
        await page.screenshot({ path: path.join(shots, 'patch-diff-file-by-file.png') });
      } finally {
        writeFileSync(settingsFile, settings);
        await closeEditors();
      }
    });

    await step(
      'Copy Perf Command (context menu of an entry) copies the dataset command',
      [entry('view/item/context', 'benchTriage.copyPerfCommand', '4_misc@1')],
      async () => {
        await menu(row(commits, '2e18d6d1'), 'Copy Perf Command');
        await notification('copied python benchmarks/benchmark_serving.py').waitFor();
        await clearNotifications();
      },
    );

    await step(
      'Annotate… (context menu of an entry) writes the note to .bench-triage/notes.json',
      [entry('view/item/context', 'benchTriage.annotate', '4_misc@2')],
      async () => {
        await menu(row(commits, '2e18d6d1'), 'Annotate…');
        await quickPick('checked by the e2e');
        await until(
          'the note on disk',
          () =>
            existsSync(path.join(folder, '.bench-triage/notes.json')) &&
            /checked by the e2e/.test(readFileSync(path.join(folder, '.bench-triage/notes.json'), 'utf8')),
          10000,
        );
      },
    );

    await step(
      'a single-run verdict reads as a hint ("tie?", question icon) and Run More Attempts… (context menu of that entry) proposes the repeats it needs',
      [entry('view/item/context', 'benchTriage.runMore', '1_run@3')],
      async () => {
        const e = await expandTo('Complete 3-way', '2e18d6d1');
        const text = (await e.textContent()) ?? '';
        assert(/tie\?/.test(text), `the entry reads "tie?": ${text}`);
        assert((await e.locator('.codicon-question').count()) === 1, 'the entry shows the question icon');
        const dialog = page.locator('.monaco-dialog-box');
        await menuUntil(e, 'Run More Attempts…', dialog);
        const d = (await dialog.textContent()) ?? '';
        assert(/more attempts? of 2e18d6d1/.test(d), d);
        await dialog.locator('.monaco-button', { hasText: 'Cancel' }).click();
        await dialog.waitFor({ state: 'hidden' });
        assert(
          !existsSync(path.join(folder, '.bench-triage/campaigns')) || !readdirSync(path.join(folder, '.bench-triage/campaigns')).length,
          'Cancel starts no campaign',
        );
      },
    );

    await step(
      'Open Log (inline on a role) opens the complete run log, evidence deep inside',
      [entry('view/item/context', 'benchTriage.openLog', 'inline@1')],
      async () => {
        const e = await expandTo('GPU out of memory', 'c53eb0e4');
        await expand(e);
        const agent = await roleRow('agent');
        await inlineUntil(agent, title('benchTriage.openLog'), page.locator('.tab', { hasText: 'server.stdout.log' }).first());
      },
    );

    await step(
      'Go to First Error in the log editor title bar selects the OOM line, hundreds of lines in',
      [entry('editor/title', 'benchTriage.goToFirstError', 'navigation')],
      async () => {
        await page.locator('.editor-actions .action-label[aria-label^="Go to First Error"]').first().click();
        await page.locator('.monaco-editor .view-line', { hasText: 'torch.OutOfMemoryError' }).first().waitFor();
        const status = await page.locator('.statusbar-item[id="status.editor.selection"]').textContent();
        const line = Number(/Ln (\d+)/.exec(status ?? '')?.[1]);
        assert(line > 300, `the first error is on line ${line} (${status})`);
      },
    );

    await step(
      'Go to First Error from the palette (offered for a log editor) selects the same line',
      [entry('commandPalette', 'benchTriage.goToFirstError')],
      async () => {
        await palette(`Bench Triage: ${title('benchTriage.goToFirstError')}`);
        assert(await paletteOffers(title('benchTriage.goToFirstError')), 'the palette offers Go to First Error');
        await page.keyboard.press('Enter');
        await page.locator('.monaco-editor .view-line', { hasText: 'torch.OutOfMemoryError' }).first().waitFor();
        await closeEditors();
      },
    );

    await step('Open Log (context menu of a role)', [entry('view/item/context', 'benchTriage.openLog', '3_open@1')], async () => {
      await menu(await roleRow('agent'), 'Open Log');
      await page.locator('.tab', { hasText: 'server.stdout.log' }).first().waitFor();
      await closeEditors();
    });

    await step('Open Result (context menu of a role) opens its result.json', [entry('view/item/context', 'benchTriage.openResult', '3_open@2')], async () => {
      await menu(await roleRow('agent'), 'Open Result');
      await page.locator('.tab', { hasText: 'result.json' }).first().waitFor();
      await closeEditors();
    });

    await step('Copy Perf Command (context menu of a role)', [entry('view/item/context', 'benchTriage.copyPerfCommand', '4_misc@1')], async () => {
      await menu(await roleRow('agent'), 'Copy Perf Command');
      await notification('copied python benchmarks/benchmark_serving.py').waitFor();
      await clearNotifications();
    });

    await step(
      'Set Category… (context menu of a role) keeps the label in .bench-triage/labels.json; the run shows it and its commit moves group',
      [entry('view/item/context', 'benchTriage.setCategory', '4_misc@3')],
      async () => {
        await expandTo('Disk full', '1e7d810c');
        await expand(row(commits, '1e7d810c'));
        const agent = await scrollTo(commits, commits.locator('.monaco-list-row[aria-label^="agent,"]', { hasText: 'Disk full' }).first());
        await menuUntil(agent, 'Set Category…', page.locator('.quick-input-widget .quick-input-box input'));
        await quickPick('Transient infrastructure error');
        const file = path.join(folder, '.bench-triage', 'labels.json');
        await until('the label on disk', () => existsSync(file) && /"category": "infra-transient"/.test(readFileSync(file, 'utf8')), 15000);
        const label = JSON.parse(readFileSync(file, 'utf8')).labels.find(l => l.commit.startsWith('1e7d810c'));
        assert(label?.role === 'agent' && label.was === 'disk-full' && label.lines.length >= 1, JSON.stringify(label));
        const e = classify(folder).find(x => x.commit.startsWith('1e7d810c'));
        assert(e?.outcome === 'infra-transient' && e.roles.agent.strength === 'label', `the CLI agrees: ${e?.outcome} ${e?.roles.agent.strength}`);
        await notification('set by you').waitFor();
        await clearNotifications();
        await expandTo('Transient infrastructure error', '1e7d810c');
        await expand(row(commits, '1e7d810c'));
        await scrollTo(commits, commits.locator('.monaco-list-row[aria-label^="agent,"]', { hasText: 'set by you' }).first());
      },
    );

    // ---------- a host that cannot run is said before anything starts (issue 24, item 1) ----------
    /** Every run record file of the demo folder: a refused Rerun writes none. */
    const runFiles = () => {
      const runsDir = path.join(folder, '.bench-triage/runs');
      return existsSync(runsDir) ? execFileSync('find', [runsDir, '-name', '*.json'], { encoding: 'utf8' }).split('\n').filter(Boolean).sort() : [];
    };
    await step(
      "with the demo's hosts unset, Rerun says the local engine cannot give GPUs and offers host set-up; nothing is started or recorded, the tree and counts stay",
      [],
      async () => {
        const before = {
          files: runFiles(),
          triage: classify(folder)
            .map(e => `${e.commit}:${e.outcome}`)
            .sort(),
        };
        const settings = readSettings();
        const unset = JSON.parse(settings);
        delete unset['benchTriage.hosts'];
        writeFileSync(settingsFile, JSON.stringify(unset, null, 1));
        try {
          await clearNotifications();
          await expandTo('No vLLM wheel', WHEEL);
          await expand(row(commits, WHEEL));
          await inline(await roleRow('baseline'), title('benchTriage.rerun'));
          const dialog = page.locator('.monaco-dialog-box', { hasText: 'cannot run this' });
          await dialog.waitFor({ timeout: 30000 });
          const text = (await dialog.textContent()) ?? '';
          assert(
            /local engine \(no host set\) cannot run this/.test(text) &&
              /no NVIDIA container runtime/.test(text) &&
              /Nothing was started or recorded/.test(text),
            text,
          );
          assert(await dialog.locator('.monaco-button', { hasText: 'Set Up Hosts…' }).count(), 'Set Up Hosts… is offered');
          await page.screenshot({ path: path.join(shots, 'host-cannot-run.png') });
        } finally {
          // Closed whatever happened: an open modal would block every later step.
          await page.keyboard.press('Escape');
          await page
            .locator('.monaco-dialog-box')
            .waitFor({ state: 'detached' })
            .catch(() => {});
          writeFileSync(settingsFile, settings);
        }
        assert(JSON.stringify(runFiles()) === JSON.stringify(before.files), 'no run file was written');
        const after = classify(folder)
          .map(e => `${e.commit}:${e.outcome}`)
          .sort();
        assert(JSON.stringify(after) === JSON.stringify(before.triage), 'the triage is as before');
        await row(commits, 'No vLLM wheel').waitFor();
      },
    );

    // ---------- runs: Rerun from the context menu and inline, the Runs view's buttons ----------
    await step(
      'Rerun on H100 (context menu of the complete entry) runs all three roles; the commit stays one complete, comparable entry',
      [entry('view/item/context', 'benchTriage.rerun', '1_run@1')],
      async () => {
        await menu(await expandTo('Complete 3-way', '2e18d6d1'), 'Rerun on H100');
        await row(runs, '2e18d6d1 baseline').waitFor();
        await until(
          'three succeeded runs of 2e18d6d1',
          async () => {
            const texts = await runs.locator('.monaco-list-row', { hasText: '2e18d6d1' }).allTextContents();
            return texts.filter(t => /succeeded/.test(t)).length >= 3 ? texts : null;
          },
          240000,
        );
        await clearFilterByPalette();
        await filterTo('2e18d6d1');
        await until(
          'one group holding the commit',
          async () => {
            const groups = (await commits.locator('.monaco-list-row').evaluateAll(els => els.map(e => e.getAttribute('aria-label') ?? ''))).filter(l =>
              /, \d+ commits?$/.test(l),
            );
            return groups.length === 1 && /^Complete 3-way, 1 commit$/.test(groups[0]);
          },
          30000,
        );
        const e = classify(folder).filter(x => x.commit.startsWith('2e18d6d1'));
        assert(e.length === 1, `${e.length} entries for 2e18d6d1 (agents ${e.map(x => x.agent).join(', ')})`);
        assert(e[0].outcome === 'complete' && e[0].comparability.ok, `outcome ${e[0].outcome}, ${e[0].comparability.reasons.join('; ')}`);
        for (const role of ['baseline', 'human', 'agent']) assert(e[0].roles[role].source === 'bench-triage', `${role} from ${e[0].roles[role].source}`);
        await clearFilterByPalette();
      },
    );

    await step('Compare after the rerun: the run history has every attempt, its When column in one date format', [], async () => {
      await menu(await expandTo('Complete 3-way', '2e18d6d1'), 'Compare');
      const w = webview();
      await w.locator('h1', { hasText: '2e18d6d1' }).waitFor();
      const when = (await w.locator('table[aria-label="Attempts per role"] tbody tr td:nth-child(5)').allTextContents()).map(t => t.trim());
      assert(when.length >= 6, `${when.length} attempt rows`);
      assert(
        when.some(t => / UTC$/.test(t)),
        `no runner time among ${when.join(', ')}`,
      );
      for (const t of when) assert(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}( UTC)?$|^$/.test(t), `When "${t}"`);
      await closeEditors();
    });

    await step(
      'Rerun (inline on a role) of f6978a76 human says the other roles came from another pipeline and offers them too; they run, and the commit is comparable',
      [entry('view/item/context', 'benchTriage.rerun', 'inline@2')],
      async () => {
        await expandTo('Model not supported', 'f6978a76');
        await expand(row(commits, 'f6978a76'));
        const human = await roleRow('human');
        await inline(human, title('benchTriage.rerun'));
        const dialog = page.locator('.monaco-dialog-box', { hasText: 'could not be compared with the other roles' });
        await dialog.waitFor();
        const text = (await dialog.textContent()) ?? '';
        assert(/pipelines differ/.test(text) && /Rerun human Only/.test(text), text);
        const wider = dialog.locator('.monaco-button', { hasText: /^Rerun (All Three Roles|baseline and human)$/ });
        const roles = /All Three/.test((await wider.textContent()) ?? '') ? ['baseline', 'human', 'agent'] : ['baseline', 'human'];
        await page.screenshot({ path: path.join(shots, 'rerun-all-roles-offer.png') });
        await wider.click();
        const e = await until(
          `${roles.join(', ')} of f6978a76 to succeed`,
          async () => {
            const x = classify(folder).find(y => y.commit.startsWith('f6978a76'));
            // Each role's run is this rerun's (the runner's result.json), not an older success of another pipeline.
            return x && roles.every(r => x.roles[r]?.status === 'success' && /(^|\/)\.bench-triage\/runs\//.test(x.roles[r]?.file ?? '')) ? x : null;
          },
          300000,
        );
        for (const r of roles)
          await runs
            .locator('.monaco-list-row', { hasText: `f6978a76 ${r}` })
            .first()
            .waitFor();
        const why = [...e.comparability.reasons, ...e.pair.reasons].join('; ');
        assert(!/models differ|pipelines differ/.test(why), why);
      },
    );

    await step(
      'Open Live Log (inline on a run) follows every phase of the run in one document',
      [entry('view/item/context', 'benchTriage.openRunLog', 'inline@2')],
      async () => {
        await inlineUntil(row(runs, '2e18d6d1 agent'), title('benchTriage.openRunLog'), page.locator('.tab', { hasText: 'run.vllm.log' }).first());
        for (const h of ['patch · stdout', 'server · stdout', 'benchmark · stdout', 'runner (queue, preflight, notes)'])
          await page
            .locator('.monaco-editor .view-line', { hasText: h })
            .first()
            .waitFor()
            .catch(async () => {
              // Further down in a long transcript: search for it.
              await page.keyboard.press('Control+F');
              await page.keyboard.type(h);
              await page.keyboard.press('Enter');
              await page.keyboard.press('Escape');
              await page.locator('.monaco-editor .view-line', { hasText: h }).first().waitFor();
            });
        await closeEditors();
      },
    );

    await step(
      'Rerun with Fix… (context menu of a role) proposes recipes; the run is cancelled from the Runs view (inline), logs kept',
      [entry('view/item/context', 'benchTriage.rerunWithFix', '1_run@2'), entry('view/item/context', 'benchTriage.cancelRun', 'inline@1')],
      async () => {
        await expandTo('Dependency drift', 'aa4f87dd');
        await expand(row(commits, 'aa4f87dd'));
        const human = await roleRow('human');
        await menu(human, 'Rerun with Fix…');
        const input = page.locator('.quick-input-widget .quick-input-box input');
        await input.waitFor();
        await page.keyboard.press('Enter'); // the proposed recipes are pre-selected
        const live = runs.locator('.monaco-list-row', { hasText: /aa4f87dd human.*(running|preflight|queued)/ }).first();
        await until(
          'the aa4f87dd run to be active',
          async () => /running|preflight|queued/.test((await runs.locator('.monaco-list-row', { hasText: 'aa4f87dd human' }).allTextContents()).join('|')),
          60000,
        );
        // The row re-renders at every phase of the run: a click can land on a row being replaced,
        // so the button is pressed again while the run is still active.
        const cancelled = async () => /cancelled/.test((await runs.locator('.monaco-list-row', { hasText: 'aa4f87dd human' }).allTextContents()).join('|'));
        for (let i = 0; i < 4 && !(await cancelled()) && (await live.count()); i++) {
          await inline(live, title('benchTriage.cancelRun')).catch(() => {});
          await until('cancelled', cancelled, 8000).catch(() => {});
        }
        await until('cancelled', cancelled, 30000);
      },
    );

    await step('Rerun with Fix… and Cancel Run from the context menus', [entry('view/item/context', 'benchTriage.cancelRun', '1_run@1')], async () => {
      // The Commits view re-renders when the previous step's runs end, which can close a menu
      // just opened: it is opened again until the recipes are offered.
      await menuUntil(row(commits, 'aa4f87dd'), 'Rerun with Fix…', page.locator('.quick-input-widget .quick-input-box input'));
      await page.keyboard.press('Enter');
      await until(
        'an aa4f87dd run queued behind the others',
        async () => (await runs.locator('.monaco-list-row', { hasText: /aa4f87dd .*queued/ }).count()) >= 1,
        60000,
      );
      // Rows re-order as runs change state, so the check counts cancelled runs rather than
      // following one row: one more aa4f87dd run must end cancelled.
      const cancelled = () => runs.locator('.monaco-list-row', { hasText: /aa4f87dd .*cancelled/ }).count();
      const before = await cancelled();
      // A queued run (the host takes one at a time): a running one of the fake image may finish
      // before the click lands.
      // Rows re-render at every phase: a right-click can land on a row being replaced (the menu
      // then closes), so the menu is opened again until one more run says cancelled.
      for (let i = 0; i < 4 && !((await cancelled()) > before); i++) {
        const queued = runs.locator('.monaco-list-row', { hasText: /aa4f87dd .*queued/ }).last();
        const active = (await queued.count()) ? queued : runs.locator('.monaco-list-row', { hasText: /aa4f87dd .*(running|preflight)/ }).first();
        if (!(await active.count())) break;
        await menu(active, 'Cancel Run').catch(() => {});
        await until('one more aa4f87dd run cancelled', async () => (await cancelled()) > before, 10000).catch(() => {});
      }
      await until('one more aa4f87dd run cancelled', async () => (await cancelled()) > before, 60000);
      // The others are cancelled too, so that nothing keeps running after the suite.
      for (let i = 0; i < 3; i++) {
        const more = runs.locator('.monaco-list-row', { hasText: /aa4f87dd .*(running|preflight|queued)/ }).first();
        if (!(await more.count())) break;
        await inline(more, title('benchTriage.cancelRun')).catch(() => {});
        await page.waitForTimeout(1500);
      }
    });

    await step('Open Live Log (context menu of a run)', [entry('view/item/context', 'benchTriage.openRunLog', '1_run@2')], async () => {
      await menu(row(runs, 'f6978a76 human'), 'Open Live Log');
      await page.locator('.tab', { hasText: 'run.vllm.log' }).first().waitFor();
      await page.locator('.monaco-editor .view-line', { hasText: 'f6978a76' }).first().waitFor();
      await closeEditors();
    });

    await step('Rerun on H100 (inline on an entry)', [], async () => {
      await expandTo('Partial (roles never ran)', '89ddb602');
      await inline(row(commits, '89ddb602'), title('benchTriage.rerun'));
      // The partial commit has no agent patch: the plan of all three roles is refused before anything runs, with the reason.
      await notification('no agent patch').waitFor();
      await clearNotifications();
    });

    await step(
      'Rerun and Rerun Group with a runEnv entry that names a variable of the runner: refused before anything runs or is proposed, naming the entry',
      [],
      async () => {
        const before = runFiles();
        const settings = readSettings();
        writeFileSync(
          settingsFile,
          JSON.stringify({ ...JSON.parse(settings), 'benchTriage.runEnv': ['BENCH_TRIAGE_FILES=3', 'FAKE_VLLM_DECODE_MS=20'] }, null, 1),
        );
        try {
          await page.waitForTimeout(500); // the settings file change reaches the extension
          await clearNotifications();
          await expandTo('No vLLM wheel', WHEEL);
          await expand(row(commits, WHEEL));
          await inline(await roleRow('baseline'), title('benchTriage.rerun'));
          const toast = notification('BENCH_TRIAGE_FILES is reserved');
          await toast.waitFor({ timeout: 30000 });
          const text = (await toast.textContent()) ?? '';
          assert(/benchTriage\.runEnv\[0\]: BENCH_TRIAGE_FILES is reserved: BENCH_TRIAGE_\* variables are the runner's own/.test(text), text);
          await clearNotifications();
          // A campaign of the group says it before its plan is proposed (each of its runs would fail on it).
          await menu(row(commits, 'No vLLM wheel'), title('benchTriage.runGroup'));
          await notification('BENCH_TRIAGE_FILES is reserved').waitFor({ timeout: 30000 });
          assert(!(await page.locator('.monaco-dialog-box').count()), 'no campaign plan is proposed');
          await clearNotifications();
        } finally {
          writeFileSync(settingsFile, settings);
        }
        await page.waitForTimeout(1000);
        assert(JSON.stringify(runFiles()) === JSON.stringify(before), 'no run file was written');
      },
    );

    // ---------- an unclassified failure: its last error lines, a rule made from one of them ----------
    await step(
      'Create Rule from Selection: an unclassified commit shows its last error lines; a rule made from one (editor context menu) moves it out of Unclassified on save',
      [entry('editor/context', 'benchTriage.createRuleFromSelection', 'benchTriage@1'), entry('commandPalette', 'benchTriage.createRuleFromSelection')],
      async () => {
        // The Unclassified group is the last one, below the fold: filter the view to the commit.
        await filterTo('fcf06dcb');
        try {
          await createRuleFlow();
        } finally {
          await clearFilterByPalette().catch(() => {});
          await closeEditors().catch(() => {});
        }
      },
    );
    async function createRuleFlow() {
      const commit = row(commits, 'fcf06dcb');
      await expand(row(commits, 'Unclassified'), commit);
      const human = commits.locator('.monaco-list-row[aria-label^="human,"]', { hasText: 'Unclassified' }).first();
      await expand(commit, human);
      await expand(human, row(commits, 'last error, line'));
      const last = row(commits, 'last error, line');
      await last.waitFor();
      assert(/stale layout hash/.test((await last.textContent()) ?? ''), 'the last error line is shown in the Commits view');
      await last.click();
      const line = page.locator('.monaco-editor .view-line', { hasText: 'stale layout hash' }).first();
      await line.waitFor();
      // The log itself marks the line: a lens offers a rule made from it.
      await page.locator('.monaco-editor .codelens-decoration', { hasText: 'Create Rule from This Line' }).first().waitFor();
      // Focus the log's editor (the click left focus in the tree); its selection stays. The palette
      // opens straight away: the Escape that palette() presses first would clear the selection.
      await page.keyboard.press('Control+1');
      await page.keyboard.press('F1');
      await quickPick(`>Bench Triage: ${title('benchTriage.createRuleFromSelection')}`, { enter: false });
      await page.waitForTimeout(400);
      assert(await paletteOffers(title('benchTriage.createRuleFromSelection')), 'the palette offers Create Rule from Selection while a line is selected');
      await page.keyboard.press('Escape');
      await line.click({ button: 'right' });
      await contextItem(title('benchTriage.createRuleFromSelection'));
      await quickPick('infra-transient');
      await quickPick('Anywhere');
      const rulesTab = page.locator('.tab', { hasText: 'rules.json' }).first();
      await rulesTab.waitFor();
      await page.locator('.monaco-editor .view-line', { hasText: 'stale layout hash' }).first().waitFor();
      await page.keyboard.press('Control+S');
      const rulesFile = path.join(folder, '.bench-triage', 'rules.json');
      await until(
        'the rule saved to .bench-triage/rules.json',
        () => existsSync(rulesFile) && /user\.infra-transient\.1/.test(readFileSync(rulesFile, 'utf8')),
      );
      const saved = JSON.parse(readFileSync(rulesFile, 'utf8')).rules.at(-1);
      assert(saved.category === 'infra-transient' && /stale layout hash/.test(saved.indications[0].pattern), JSON.stringify(saved));
      assert(!/pid=|INFO/.test(saved.indications[0].pattern), `volatile prefixes are left out: ${saved.indications[0].pattern}`);
      const e = classify(folder).find(x => x.commit.startsWith('fcf06dcb'));
      assert(e?.outcome === 'infra-transient', `the CLI agrees: ${e?.outcome}`);
      await until('the commit to leave Unclassified', async () => !(await row(commits, 'Unclassified').count()));
      await row(commits, 'Transient infrastructure error').waitFor();
    }

    // ---------- campaigns: a group → plan summary → start → progress in the Runs view → end ----------
    const campaignRow = re => runs.locator('.monaco-list-row', { hasText: re }).first();
    const startGroupCampaign = async group => {
      const dialog = page.locator('.monaco-dialog-box');
      await menuUntil(row(commits, group), title('benchTriage.runGroup'), dialog);
      const text = (await dialog.textContent()) ?? '';
      assert(new RegExp(`Run “${group}” on H100 as a campaign\\?`).test(text), text);
      // Three runs per commit of the group, each either planned or refused with its reason (the own
      // campaign's commits state no perf command); earlier steps may have completed more commits.
      const m = /(\d+) runs \((\d+) baseline, (\d+) human, (\d+) agent\) of (\d+) commits?, about .* from the durations in the data/.exec(text);
      const refused = Number(/Refused \((\d+) runs?\)/.exec(text)?.[1] ?? 0);
      assert(m && Number(m[1]) + refused === 3 * Number(m[5]) && m[2] === m[3] && m[3] === m[4] && Number(m[1]) > 0, text);
      assert(
        !refused || /c0ffee01 \(baseline, human, agent\): commit c0ffee01 has no perf command/.test(text),
        `a commit refused in every role for one reason is one line: ${text}`,
      );
      await dialog.locator('.monaco-button', { hasText: 'Start Campaign' }).click();
      return Number(m[1]);
    };
    await step(
      'Rerun Group on H100… (context menu of a group) shows the plan, runs the campaign, and the Runs view follows it to the end',
      [entry('view/item/context', 'benchTriage.runGroup', '1_run@0')],
      async () => {
        const n = await startGroupCampaign('Complete 3-way');
        await campaignRow(/campaign group=Complete 3-way/).waitFor({ timeout: 30000 });
        await until(
          'the status bar to show the campaign',
          async () => (await page.locator('.statusbar-item', { hasText: new RegExp(`campaign \\d+/${n}`) }).count()) > 0,
          30000,
        );
        await until(
          `the campaign to end with ${n} done`,
          async () => new RegExp(`${n} done · 0 running · 0 queued · 0 failed`).test((await campaignRow(/campaign group=Complete 3-way/).textContent()) ?? ''),
          400000,
        );
        await notification(`finished: ${n} succeeded, 0 failed of ${n}`).waitFor();
        await clearNotifications();
        const dir = path.join(folder, '.bench-triage', 'campaigns');
        const ids = readdirSync(dir);
        assert(ids.length === 1, `one campaign on disk: ${ids.join(', ')}`);
        const c = JSON.parse(readFileSync(path.join(dir, ids[0], 'campaign.json'), 'utf8'));
        assert(c.schema === 'bench-triage.campaign/v1' && c.items.length === n && c.select === 'group=Complete 3-way', JSON.stringify(c).slice(0, 300));
        const states = readdirSync(path.join(dir, ids[0], 'runs'))
          .filter(f => RECORD.test(f))
          .map(f => JSON.parse(readFileSync(path.join(dir, ids[0], 'runs', f), 'utf8')).state);
        assert(
          states.every(x => x === 'succeeded'),
          states.join(','),
        );
      },
    );

    // The Runs view re-renders at every phase of the campaign's runs, which can close a context
    // menu under the pointer: the entry is chosen again until the campaign says it is cancelled.
    // Returns false when the campaign ended on its own before the cancel reached it (a fast
    // machine): the caller starts another and tries again.
    const cancelLiveCampaign = async re => {
      const live = campaignRow(re);
      await live.waitFor({ timeout: 30000 });
      for (let i = 0; i < 4 && !(await notification('cancelled:').count()) && (await live.count()); i++) {
        await menu(live, title('benchTriage.cancelCampaign')).catch(() => {});
        await notification('cancelled:')
          .waitFor({ timeout: 10000 })
          .catch(() => {});
      }
      await until(
        'the campaign to end, cancelled or finished',
        async () => (await notification('cancelled:').count()) + (await notification('finished:').count()) > 0,
        60000,
      );
      const cancelled = (await notification('cancelled:').count()) > 0;
      await clearNotifications();
      return cancelled;
    };
    await step(
      'Cancel Campaign (context menu of a running campaign) stops its runs and cancels the rest',
      [entry('view/item/context', 'benchTriage.cancelCampaign', '1_run@0')],
      async () => {
        let cancelled = false;
        for (let attempt = 0; attempt < 3 && !cancelled; attempt++) {
          await startGroupCampaign('Complete 3-way');
          cancelled = await cancelLiveCampaign(/campaign group=Complete 3-way.*[1-9] (running|queued)/);
        }
        assert(cancelled, 'the campaign was cancelled from its context menu (three tries, each ended on its own first)');
        await until(
          'no campaign left running',
          async () => !(await runs.locator('.monaco-list-row', { hasText: /campaign .*[1-9] (running|queued)/ }).count()),
          60000,
        );
      },
    );

    await step(
      'Resume Campaign (context menu of a campaign a reloaded window left half done) completes it',
      [entry('view/item/context', 'benchTriage.resumeCampaign', '1_run@1')],
      async () => {
        const n = await startGroupCampaign('Complete 3-way');
        await campaignRow(/campaign group=Complete 3-way.*[1-9] running/).waitFor({ timeout: 60000 });
        await page.waitForTimeout(2000); // its records say running before the reload
        await page.reload();
        await showBenchTriage();
        const left = campaignRow(/campaign group=Complete 3-way.*not running here/);
        await left.waitFor({ timeout: 60000 });
        // The view redraws as the window's re-attached run changes phase, which can close the menu
        // under the click: pressed again until the campaign runs here (its row loses the suffix).
        const resumed = campaignRow(/campaign group=Complete 3-way(?!.*not running here)/);
        for (let i = 0; i < 4 && (await left.isVisible().catch(() => false)); i++) {
          await menu(left, title('benchTriage.resumeCampaign')).catch(() => {});
          await resumed.waitFor({ timeout: 8000 }).catch(() => {});
        }
        // The end is read from the campaign's own records, not from a toast (toasts hide after a
        // while, and one can hide before a poll sees it); the Runs view then says finished.
        const dir = path.join(folder, '.bench-triage', 'campaigns');
        const newest = readdirSync(dir).sort().at(-1);
        const itemsNow = () =>
          readdirSync(path.join(dir, newest, 'runs'))
            .filter(f => RECORD.test(f))
            .map(f => JSON.parse(readFileSync(path.join(dir, newest, 'runs', f), 'utf8')));
        const FINAL = ['succeeded', 'failed', 'cancelled', 'refused', 'interrupted', 'timeout'];
        await until(
          'every item of the resumed campaign to end',
          async () => itemsNow().length === n && itemsNow().every(i => FINAL.includes(i.state)),
          400000,
        ).catch(e => {
          throw new Error(`${e.message}: ${JSON.stringify(itemsNow().map(i => [i.n, i.state, i.runId, i.error]))}`);
        });
        await campaignRow(/campaign group=Complete 3-way.*finished|campaign group=Complete 3-way.*succeeded/)
          .waitFor({ timeout: 30000 })
          .catch(() => {});
        await clearNotifications();
        const items = itemsNow();
        // A failure names its run's own record and the end of its runner log (CI keeps no workspace).
        const why = i => {
          const base = path.join(folder, '.bench-triage', 'runs');
          const d =
            readdirSync(base)
              .flatMap(c => readdirSync(path.join(base, c)).map(r => path.join(base, c, r, String(i.runId))))
              .find(x => existsSync(x)) ?? base;
          const rec = existsSync(path.join(d, 'run.json')) ? JSON.parse(readFileSync(path.join(d, 'run.json'), 'utf8')) : {};
          const log = existsSync(path.join(d, 'logs', 'runner.log'))
            ? readFileSync(path.join(d, 'logs', 'runner.log'), 'utf8')
                .split('\n')
                .slice(-15)
                .join('\n')
            : '';
          return `${i.n} ${i.state} ${i.runId}: ${rec.status} ${rec.error}\n${log}`;
        };
        assert(
          items.every(i => i.state === 'succeeded'),
          items
            .filter(i => i.state !== 'succeeded')
            .map(why)
            .join('\n'),
        );
        const runIds = new Set(items.map(i => i.runId));
        assert(runIds.size === n && items.length === n, 'distinct runs, none twice');
      },
    );

    // ---------- campaigns from a multi-selection and from a dataset file ----------
    await step(
      'Run Selection as Campaign… (context menu of two commits selected with Ctrl-click) plans both, starts, and can be cancelled',
      [entry('view/item/context', 'benchTriage.runSelection', '1_run@0')],
      async () => {
        await clearNotifications();
        const a = await expandTo('Complete 3-way', '2e18d6d1');
        const b = await expandTo('Measured, not comparable', '39c27d6b');
        const dialog = page.locator('.monaco-dialog-box');
        // Escape clears a list's selection, so this menu is opened without the usual dismiss;
        // a re-render that closes it is answered by selecting and opening it again.
        for (let i = 0; i < 4 && !(await dialog.isVisible()); i++) {
          await a.click();
          await b.click({ modifiers: ['Control'] });
          assert((await commits.locator('.monaco-list-row.selected').count()) === 2, 'two commits selected');
          await b.click({ button: 'right' });
          await contextItem(title('benchTriage.runSelection')).catch(() => page.keyboard.press('Escape'));
          await dialog.waitFor({ timeout: 8000 }).catch(() => {});
        }
        const text = (await dialog.textContent()) ?? '';
        assert(/Run “2 selected commits” on H100 as a campaign\?/.test(text) && /6 runs \(2 baseline, 2 human, 2 agent\) of 2 commits/.test(text), text);
        await dialog.locator('.monaco-button', { hasText: 'Start Campaign' }).click();
        await cancelLiveCampaign(/campaign commit=(2e18d6d1\|39c27d6b|39c27d6b\|2e18d6d1)/);
        // Back to one selected row, and the two groups folded again (the rows below stay in view).
        await a.click();
        for (const g of ['Measured, not comparable', 'Complete 3-way'])
          if ((await row(commits, g).getAttribute('aria-expanded')) === 'true') await row(commits, g).click();
      },
    );

    await step('Run campaign (CodeLens at the top of the dataset file) plans every commit the file states a perf command for', [], async () => {
      await clearNotifications();
      await dismiss();
      await page.keyboard.press('F1');
      await quickPick('vllm_commits.jsonl', { enter: false }); // without ">": Go to File
      await page.locator('.quick-input-list .monaco-list-row', { hasText: 'vllm_commits.jsonl' }).first().waitFor();
      await page.keyboard.press('Enter');
      const lens = page.locator('.monaco-editor .codelens-decoration a', { hasText: /^Run campaign: \d+ commits of this dataset on H100…$/ }).first();
      await lens.waitFor({ timeout: 60000 });
      const n = Number(/(\d+) commits/.exec((await lens.textContent()) ?? '')?.[1]);
      assert(n >= 20, `the lens counts the dataset's commits: ${n}`);
      await lens.click();
      const dialog = page.locator('.monaco-dialog-box');
      await dialog.waitFor();
      const text = (await dialog.textContent()) ?? '';
      assert(/Run “vllm_commits\.jsonl” on H100 as a campaign\?/.test(text) && /Refused \(\d+ runs?\):/.test(text), text);
      // The plan is what was asked for; this one is not started (Cancel).
      await dialog.locator('.monaco-button', { hasText: 'Cancel' }).click();
      await closeEditors();
    });

    await step(
      'Words a newcomer can read: Explain (CodeLens of a perf command) opens a named plan with the host’s one GPU count, a commit’s hover spells out its B/H/A marks, a finished run shows how long it ran and waited apart',
      [],
      async () => {
        await clearNotifications();
        await dismiss();
        await page.keyboard.press('F1');
        await quickPick('vllm_commits.jsonl', { enter: false });
        await page.locator('.quick-input-list .monaco-list-row', { hasText: 'vllm_commits.jsonl' }).first().waitFor();
        await page.keyboard.press('Enter');
        const lens = page.locator('.monaco-editor .codelens-decoration a', { hasText: /^Explain$/ }).first();
        await lens.waitFor({ timeout: 60000 });
        await lens.click();
        // A read-only document named for the commit, not an Untitled buffer that asks to be saved.
        const tab = page.locator('.tab.active').first();
        await until('the plan opens in its own named tab', async () => /explain [0-9a-f]{8} \(\d+\)\.md/.test((await tab.textContent()) ?? ''), 30000);
        assert(!/Untitled/.test((await page.locator('.tabs-container').first().textContent()) ?? ''), 'no Untitled tab');
        const plan = ((await page.locator('.editor-instance .monaco-editor .view-lines').last().textContent()) ?? '').replace(/\u00a0/g, ' ');
        const host = JSON.parse(readSettings())['benchTriage.hosts'][0];
        assert(
          plan.includes(`Host: ${host.label} (`) && plan.includes(`${host.gpus} GPUs)`),
          `the plan names the settings' host and its ${host.gpus} GPUs: ${plan.slice(0, 300)}`,
        );
        assert(!/Refused: refused/i.test(plan), plan.slice(0, 600));
        await closeEditors();
        // The marks of a commit row, spelled out in its hover.
        const c = await expandTo('Complete 3-way', '2e18d6d1');
        await dismiss();
        await c.hover();
        const hover = page
          .locator('.workbench-hover')
          .filter({ hasText: /=\sbaseline\s\w+/ })
          .first();
        await hover.waitFor({ timeout: 15000 });
        const legend = ((await hover.textContent()) ?? '').replace(/\u00a0/g, ' ');
        assert(/B[✓✗⏱⊘·] H[✓✗⏱⊘·] A[✓✗⏱⊘·] = baseline (succeeded|failed|timed out|skipped|not run), human [a-z ]+, agent [a-z ]+/.test(legend), legend);
        await dismiss();
        // A finished run: "ran" and "waited" apart, never one sum of both.
        const done = runs.locator('.monaco-list-row', { hasText: /(succeeded|failed) · ran \d+(s|m \d\ds)/ }).first();
        await done.waitFor({ timeout: 30000 });
        const label = (await done.getAttribute('aria-label')) ?? '';
        assert(/run of commit [0-9a-f]{8} on .*: (succeeded|failed), ran \d+(s|m \d\ds)( · waited \d+(s|m \d\ds))?$/.test(label), label);
      },
    );

    /** The newest ablation campaign of the demo's complete commit (its folder name). */
    const newestAblation = () =>
      readdirSync(path.join(folder, '.bench-triage', 'campaigns'))
        .filter(d => d.startsWith('ablate-2e18d6d1'))
        .sort()
        .at(-1);
    /**
     * The demo's own run settings for an ablation (20 ms a token, as make-demo writes them), not the
     * suite's 8 s floor on every benchmark, which would hide a hunk's speed-up in the throughput.
     */
    const withDemoRunEnv = async fn => {
      const settings = readSettings();
      writeFileSync(settingsFile, JSON.stringify({ ...JSON.parse(settings), 'benchTriage.runEnv': ['FAKE_VLLM_DECODE_MS=20'] }, null, 1));
      try {
        await page.waitForTimeout(500); // the settings file change reaches the extension
        await fn();
      } finally {
        writeFileSync(settingsFile, settings);
      }
    };
    /** Ablate Agent Patch… from the context menu of the complete entry, to the plan's modal; returns the modal's text. */
    const ablateFromMenu = async (design, repeats) => {
      await clearNotifications();
      await menu(await expandTo('Complete 3-way', '2e18d6d1'), title('benchTriage.ablatePatch'));
      // The designs, each with its runs and GPU-hours before anything runs.
      const designs = page.locator('.quick-input-list .monaco-list-row');
      await designs.first().waitFor();
      const offered = (await designs.allTextContents()).join('|');
      assert(/leave-one-out.*runs at 3 repeats/.test(offered) && /minimise/.test(offered), offered);
      await quickPick(design);
      await quickPick(repeats);
      const dialog = page.locator('.monaco-dialog-box');
      await dialog.waitFor();
      const plan = (await dialog.textContent()) ?? '';
      await dialog.locator('.monaco-button', { hasText: 'Start' }).click();
      return plan;
    };
    /** The Ablation view of the campaign just started, once its runs have ended. */
    const ablationView = async () => {
      const w = webview();
      await w.locator('h1', { hasText: 'Patch ablation of 2e18d6d1' }).waitFor({ timeout: 420000 });
      await until('every run of the ablation ended', async () => !(await w.locator('.warning', { hasText: /still queued or running/ }).count()), 60000);
      return w;
    };
    /** What the newest ablation's runs say (for a failing assertion): each run's state and error, and the first failed run's runner log. */
    const ablationDiag = () => {
      const dir = path.join(folder, '.bench-triage', 'campaigns', newestAblation() ?? '-', 'runs');
      if (!existsSync(dir)) return 'no runs';
      const recs = readdirSync(dir).map(f => JSON.parse(readFileSync(path.join(dir, f), 'utf8')));
      const failed = recs.find(r => r.state !== 'succeeded' && r.resultDir);
      const log = failed ? path.join(folder, failed.resultDir, 'logs', 'runner.log') : '';
      return `${recs.map(r => `${r.n} ${r.state} ${r.error ?? ''}`).join('\n')}${log && existsSync(log) ? `\n${readFileSync(log, 'utf8').slice(-1500)}` : ''}`;
    };
    /** The text of a unit's cell in the Ablation view (`removal` or `alone`). */
    const unitCell = (w, unit, column) =>
      w
        .locator(`tr[data-unit="${unit}"] td`)
        .nth(column === 'removal' ? 1 : 2)
        .textContent();

    await step(
      'Ablate Agent Patch… (context menu of an entry), leave-one-out: the plan in a modal, the campaign runs, the Ablation view shows each hunk’s effect and a row opens its hunk in the patch, where its lens shows the same figures; Open as Markdown',
      [entry('view/item/context', 'benchTriage.ablatePatch', '1_run@4')],
      () =>
        withDemoRunEnv(async () => {
          const plan = await ablateFromMenu('leave-one-out', '1'); // one run of each variant: a hint, enough for effects of 10 % and more
          assert(
            /Ablate the agent patch of 2e18d6d1/.test(plan) &&
              /U1 .*vllm\/fake_kernels\.py/.test(plan) &&
              /U3 .*vllm\/logger\.py/.test(plan) &&
              /5 variants × 1 repeats = 5 runs/.test(plan),
            plan,
          );
          // The campaign shows in the Runs view; at its end the Ablation view opens.
          await runs
            .locator('.monaco-list-row', { hasText: /ablate leave-one-out commit=2e18d6d1/ })
            .first()
            .waitFor({ timeout: 60000 });
          const w = await ablationView();
          // The demo's patch (make-demo.mjs): U1 makes tokens 1.35× as fast, U2 0.9×, U3 nothing.
          const groups = (await w.locator('#units tr.file').allTextContents()).map(t => t.trim());
          assert(JSON.stringify(groups) === JSON.stringify(['vllm/fake_kernels.py', 'vllm/logger.py']), groups.join('|'));
          const full = (await w.locator('#ablation-full').textContent()) ?? '';
          assert(/The full patch against the parent: \+\d+\.\d % win\?/.test(full), `${full}\n${ablationDiag()}`);
          const u1 = (await unitCell(w, 'U1', 'removal')) ?? '';
          const u2 = (await unitCell(w, 'U2', 'removal')) ?? '';
          assert(/^-\d+\.\d % loss\?$/.test(u1.trim()), `U1 removed: ${u1}\n${full}\n${ablationDiag()}`);
          assert(/^\+\d+\.\d % win\?$/.test(u2.trim()), `U2 removed: ${u2}\n${full}\n${ablationDiag()}`);
          console.log(
            `[e2e]     leave-one-out: ${full.trim()}; removed: U1 ${u1.trim()}, U2 ${u2.trim()}, U3 ${((await unitCell(w, 'U3', 'removal')) ?? '').trim()}`,
          );
          await page.screenshot({ path: path.join(shots, 'ablation-view.png') });
          // A row opens its hunk in the agent's patch, beside the view; the lens above it gives the same figure.
          await w.locator('tr[data-unit="U2"]').click();
          await page.locator('.tab', { hasText: 'model_patch.diff' }).first().waitFor();
          await page.locator('.monaco-editor .view-line', { hasText: 'speedup=0.9' }).first().waitFor();
          const sel = await page.locator('.monaco-editor .selected-text').count();
          assert(sel > 0, 'the hunk is selected');
          const lens = page.locator('.monaco-editor .codelens-decoration', { hasText: /^U2: removed: / }).first();
          await lens.waitFor({ timeout: 60000 });
          const lensText = (await lens.textContent()) ?? '';
          assert(lensText.includes(u2.trim()), `lens "${lensText}" vs view "${u2}"`);
          await page
            .locator('.monaco-editor .codelens-decoration', { hasText: /^U1: removed: -\d+\.\d % loss\?/ })
            .first()
            .waitFor();
          await page
            .locator('.monaco-editor .codelens-decoration a', { hasText: /^Ablate…$/ })
            .first()
            .waitFor();
          // The same figures as Markdown, from the view's button.
          await w.locator('button', { hasText: 'Open as Markdown' }).click();
          await page
            .locator('.tab', { hasText: /ablation 2e18d6d1 \(\d+\)\.md/ })
            .first()
            .waitFor();
          // In the view's own group (the patch stays open beside it).
          const report = (
            (await page.locator('.editor-group-container.active .editor-instance .monaco-editor .view-lines').last().textContent()) ?? ''
          ).replace(/\u00a0/g, ' ');
          assert(/Patch ablation of 2e18d6d1/.test(report) && /Runs per variant/.test(report), report.slice(0, 600));
          await closeEditors();
          await clearNotifications();
        }),
    );

    await step(
      'Ablate Agent Patch…, minimise: delta debugging finds the hunk that carries the gain; Export minimal patch… writes it where asked; Show Ablation (context menu of the campaign) reopens the view',
      [entry('view/item/context', 'benchTriage.showAblation', '2_show@0')],
      () =>
        withDemoRunEnv(async () => {
          const plan = await ablateFromMenu('minimise', '1');
          assert(/minimise: 2 variants × 1 repeats = 2 runs, then up to \d+ subsets × 1/.test(plan), plan);
          const w = await ablationView();
          const minimal = w.locator('#minimal');
          await minimal.waitFor({ timeout: 420000 });
          const said = (await minimal.textContent()) ?? '';
          assert(/Minimal subset: U1 of 3 units keeps the full patch's effect \(\d+ subsets? measured\)/.test(said), `${said}\n${ablationDiag()}`);
          console.log(`[e2e]     minimise: ${said.trim()}`);
          assert((await w.locator('tr.in-minimal').count()) === 1 && (await w.locator('tr.in-minimal[data-unit="U1"]').count()) === 1, 'U1 marked');
          const target = path.join(folder, 'exported-minimal.diff');
          await w.locator('button', { hasText: 'Export minimal patch…' }).click();
          const input = page.locator('.quick-input-widget .quick-input-box input');
          await until('the save dialog with its proposed name', async () => /minimal-2e18d6d1\.diff/.test(await input.inputValue().catch(() => '')), 20000);
          await quickPick(target, { enter: false });
          await page.keyboard.press('Enter');
          await until('the exported patch', () => existsSync(target), 30000);
          await notification(`minimal patch (U1) written to ${target}`).waitFor();
          const text = readFileSync(target, 'utf8');
          assert(/\+ {4}# fake-vllm: speedup=1\.35/.test(text) && !/speedup=0\.9/.test(text) && !/logger\.py/.test(text), text);
          rmSync(target);
          await closeEditors();
          await clearNotifications();
          // The campaign of the Runs view: Show Ablation opens the same view again.
          const id = newestAblation();
          const camp = runs.locator('.monaco-list-row', { hasText: /ablate minimise commit=2e18d6d1/ }).first();
          await scrollTo(runs, camp);
          await menu(camp, title('benchTriage.showAblation'));
          const again = webview();
          await again.locator('h1', { hasText: 'Patch ablation of 2e18d6d1' }).waitFor();
          assert(((await again.locator('.meta').first().textContent()) ?? '').includes(`campaign ${id}`), `campaign ${id}`);
          await again.locator('#minimal', { hasText: 'U1 of 3 units' }).waitFor();
          await closeEditors();
        }),
    );

    // ---------- image builds: the "No vLLM wheel" commit's baseline image, built from the demo checkout ----------
    const buildRow = (re = /./) =>
      runs
        .locator('.monaco-list-row', { hasText: `${WHEEL} baseline image` })
        .filter({ hasText: re })
        .first();
    const buildDirs = () => {
      const d = path.join(folder, '.bench-triage', 'builds');
      return existsSync(d) ? readdirSync(d).flatMap(c => readdirSync(path.join(d, c)).map(id => path.join(d, c, id))) : [];
    };
    const buildRecord = dir => JSON.parse(readFileSync(path.join(dir, 'build.json'), 'utf8'));
    await step(
      'Build Images for Group… (context menu of the "No vLLM wheel" group) asks, then builds the image its commit needs; the Runs view shows the build',
      [entry('view/item/context', 'benchTriage.buildImagesForGroup', '1_run@1')],
      async () => {
        await clearNotifications();
        await expandTo('No vLLM wheel', WHEEL);
        const dialog = page.locator('.monaco-dialog-box');
        await menuUntil(row(commits, 'No vLLM wheel'), title('benchTriage.buildImagesForGroup'), dialog);
        const text = (await dialog.textContent()) ?? '';
        assert(
          /Build the images of “No vLLM wheel”\?/.test(text) &&
            /1 image, one at a time on fake-h100/.test(text) &&
            /bench-triage\/fake-vllm:baseline-[0-9a-f]{12}/.test(text),
          text,
        );
        await dialog.locator('.monaco-button', { hasText: 'Build Images' }).click();
        await buildRow().waitFor({ timeout: 60000 });
        const done = notification('1 of 1 images of “No vLLM wheel” ready');
        await done.waitFor({ timeout: 300000 });
        // Its next step: the group's rerun, planned (then declined here; the Rerun step below runs the commit).
        await done.locator('.monaco-button', { hasText: 'Rerun Group on H100…' }).click();
        const rerunPlan = page.locator('.monaco-dialog-box', { hasText: 'Run “No vLLM wheel” on H100 as a campaign?' });
        await rerunPlan.waitFor();
        await rerunPlan.locator('.monaco-button', { hasText: 'Cancel' }).click();
        await rerunPlan.waitFor({ state: 'hidden' });
        await clearNotifications();
        const recs = buildDirs().map(buildRecord);
        assert(recs.length === 1 && recs[0].status === 'succeeded' && recs[0].schema === 'bench-triage.build/v1', JSON.stringify(recs).slice(0, 400));
        await buildRow(/succeeded/).waitFor();
        // The group went through the durable campaign queue: a campaign of one build, done, shown in the Runs view.
        const cdir = path.join(folder, '.bench-triage', 'campaigns');
        const camp = readdirSync(cdir)
          .map(id => JSON.parse(readFileSync(path.join(cdir, id, 'campaign.json'), 'utf8')))
          .find(c => c.items.some(i => i.kind === 'build'));
        assert(
          camp && camp.items.length === 1 && camp.items[0].commit.startsWith(WHEEL) && camp.items[0].role === 'baseline',
          JSON.stringify(camp).slice(0, 400),
        );
        const item = JSON.parse(readFileSync(path.join(cdir, camp.id, 'runs', '1.json'), 'utf8'));
        assert(item.state === 'succeeded' && item.resultDir === path.relative(folder, buildDirs()[0]), JSON.stringify(item));
        await runs.locator('.monaco-list-row', { hasText: 'campaign images of “No vLLM wheel”' }).filter({ hasText: '1 done' }).first().waitFor();
      },
    );

    await step(
      'Open Build Log (inline on a build) shows the engine’s stream: its steps fold, the tag at the end',
      [entry('view/item/context', 'benchTriage.openBuildLog', 'inline@2')],
      async () => {
        await inlineUntil(buildRow(/succeeded/), title('benchTriage.openBuildLog'), page.locator('.tab', { hasText: 'build.log' }).first());
        await page.locator('.monaco-editor .view-line', { hasText: 'Successfully tagged bench-triage/fake-vllm:baseline-' }).first().waitFor();
        // Step headers are the log's regions (folding and outline): the breadcrumbs name the step at the caret.
        await page
          .locator('.breadcrumbs-control .monaco-breadcrumb-item', { hasText: /Step\s\d+\/\d+:/ })
          .first()
          .waitFor();
        await closeEditors();
      },
    );

    await step(
      'Cancel Build (inline on a running build) stops a Rebuild; the build says cancelled and nothing of it is left on the host',
      [entry('view/item/context', 'benchTriage.cancelBuild', 'inline@1')],
      async () => {
        const before = buildDirs().length;
        // The build waits for the test's signal, the Cancel itself: its Dockerfile holds at a step
        // that never ends on its own, so a busy machine cannot let it finish before the press.
        const settings = readSettings();
        writeFileSync(
          settingsFile,
          JSON.stringify(
            {
              ...JSON.parse(settings),
              'benchTriage.build.dockerfile': ['ARG BASE_IMAGE', 'FROM ${BASE_IMAGE}', '# e2e: holds until Cancel Build', 'RUN sleep 3600'],
            },
            null,
            1,
          ),
        );
        try {
          await menuUntil(await expandTo('No vLLM wheel', WHEEL), title('benchTriage.buildImage'), page.locator('.quick-input-widget .quick-input-box input'));
          await page.keyboard.press('ArrowDown'); // Rebuild, even if the host has the image
          await page.keyboard.press('Enter');
          const live = buildRow(/building/);
          await live.waitFor({ timeout: 60000 });
          await buildRow(/Step 3\/\d+/).waitFor({ timeout: 60000 }); // at the held step
          // The row re-renders at every step: the button is pressed again until the build says cancelled.
          const cancelled = async () =>
            buildDirs().length > before &&
            buildDirs()
              .map(buildRecord)
              .some(r => r.status === 'cancelled');
          for (let i = 0; i < 6 && !(await cancelled()); i++) {
            await inline(live, title('benchTriage.cancelBuild')).catch(() => {});
            await until('the build to be cancelled', cancelled, 8000).catch(() => {});
          }
          await until('the build to be cancelled', cancelled, 60000);
          await buildRow(/cancelled/).waitFor();
        } finally {
          writeFileSync(settingsFile, settings);
        }
        await closeEditors();
        await clearNotifications();
      },
    );

    await step(
      'Build Image on H100… (context menu of the "No vLLM wheel" commit): the live build log opens and follows; the notification offers Rerun, and Rerun inline on the finished build moves the commit out of the group',
      [entry('view/item/context', 'benchTriage.buildImage', '1_run@3'), entry('view/item/context', 'benchTriage.rerun', 'inline@0')],
      async () => {
        await clearNotifications();
        await menuUntil(await expandTo('No vLLM wheel', WHEEL), title('benchTriage.buildImage'), page.locator('.quick-input-widget .quick-input-box input'));
        const first = (await page.locator('.quick-input-list .monaco-list-row').first().textContent()) ?? '';
        assert(/Build bench-triage\/fake-vllm:baseline-[0-9a-f]{12}/.test(first), first);
        await page.keyboard.press('ArrowDown'); // Rebuild: the image is there from the group's build
        await page.keyboard.press('Enter');
        // The live log opens at once and follows the build to its last line.
        await page.locator('.tab', { hasText: 'build.log' }).first().waitFor({ timeout: 60000 });
        await page
          // (the editor renders spaces as no-break spaces: \s matches both)
          .locator('.monaco-editor .view-line', { hasText: /Step\s\d+\/\d+\s:/ })
          .first()
          .waitFor({ timeout: 60000 });
        await page
          .locator('.monaco-editor .view-line', { hasText: 'Successfully tagged bench-triage/fake-vllm:baseline-' })
          .first()
          .waitFor({ timeout: 300000 });
        const done = notification('built in');
        await done.waitFor({ timeout: 60000 });
        const rerun = done.locator('.monaco-button', { hasText: /^Rerun / });
        assert(/Rerun baseline/.test((await rerun.textContent()) ?? ''), 'the rerun covers the baseline');
        // The same action stays on the build's row in the Runs view (a toast vanishes): pressed there.
        await inline(runs.locator('.monaco-list-row', { hasText: `${WHEEL} baseline image` }).first(), title('benchTriage.rerun'));
        // The other roles came from the campaign's pipeline: asked, the baseline alone is rerun here.
        const ask = page.locator('.monaco-dialog-box', { hasText: 'could not be compared with the other roles' });
        await ask.waitFor();
        await ask.locator('.monaco-button', { hasText: 'Rerun baseline Only' }).click();
        await until(
          'the rerun to move the commit out of "No vLLM wheel"',
          async () => {
            const e = classify(folder).find(x => x.commit.startsWith(WHEEL));
            return e && e.outcome !== 'wheel-missing' && e.roles.baseline?.status === 'success' ? e : null;
          },
          300000,
        );
        await filterTo(WHEEL);
        try {
          await until(
            'the tree to show it outside "No vLLM wheel"',
            async () => (await rows(commits).count()) > 0 && !(await row(commits, 'No vLLM wheel').count()),
            60000,
          );
        } finally {
          await clearFilterByPalette().catch(() => {});
          await closeEditors().catch(() => {});
          await clearNotifications().catch(() => {});
        }
      },
    );

    await step(
      'Filter: Ever Failed With… (title bar overflow) → No vLLM wheel shows the commit the rerun moved out of that group, its earlier category on the row',
      [entry('view/title', 'benchTriage.filterEverFailed', '1_filter@0')],
      async () => {
        const expected = JSON.parse(
          execFileSync(process.execPath, [path.join(ROOT, 'dist/cli.js'), 'classify', folder, '--json', '--select', 'ever=wheel-missing'], {
            encoding: 'utf8',
            maxBuffer: 64 << 20,
          }),
        ).map(e => e.commit.slice(0, 8));
        assert(expected.includes(WHEEL.slice(0, 8)), `the CLI's ever=wheel-missing: ${expected.join(', ')}`);
        await row(commits, 'Complete 3-way').click();
        await overflow(commits, title('benchTriage.filterEverFailed'));
        // The pick lists each category with how many commits ever failed that way.
        await quickPick('No vLLM wheel', { enter: false }); // the list renders only what is in view: narrowed first
        const item = page.locator('.quick-input-list .monaco-list-row', { hasText: 'No vLLM wheel' }).first();
        await item.waitFor();
        assert(/wheel-missing/.test((await item.textContent()) ?? ''), await item.textContent());
        await item.click();
        try {
          await until(
            'the view to say its filter',
            async () => /filter: ever=wheel-missing/.test((await commits.locator('.pane-header .description').textContent()) ?? ''),
            15000,
          );
          // The groups the commits are in now: opened, so their commits show.
          // One at a time: a click re-renders the list, and a row found before it is gone.
          for (let i = 0; i < 12; i++) {
            const g = commits.locator('.monaco-list-row[aria-level="1"][aria-expanded="false"]').first();
            if (!(await g.count())) break;
            await g.click().catch(() => {});
            await page.waitForTimeout(300);
          }
          await until('the filter to show the commit', async () => (await rows(commits).allTextContents()).join('|').includes(WHEEL.slice(0, 8)));
          const texts = await rows(commits).allTextContents();
          const shown = expected.filter(c => texts.some(t => t.includes(c)));
          assert(shown.length === expected.length, `shown ${shown.join(', ')} of ${expected.join(', ')}`);
          // The rerun moved it out of "No vLLM wheel"; the filter still finds it, and its row says why.
          assert(!texts.some(t => /^No vLLM wheel/.test(t.trim())), texts.join('|'));
          const wheelRow = texts.find(t => t.includes(WHEEL.slice(0, 8))) ?? '';
          assert(/was: wheel-missing/.test(wheelRow), `the row says what it failed with before: ${wheelRow}`);
        } finally {
          await page.screenshot({ path: path.join(shots, 'ever-failed-filter.png') }).catch(() => {});
          await clearFilterByPalette().catch(() => {});
        }
      },
    );

    await step(
      'Narrow panes: at a 300 px sidebar a commit row shows its verdict and roles before the subject; in a narrow editor the Compare table shows the Verdict column',
      [],
      async () => {
        const sidebar = page.locator('.part.sidebar');
        const box0 = await sidebar.boundingBox();
        // Drag the sash between the sidebar and the editor to 300 px (VS Code's default width).
        const drag = async width => {
          const b = await sidebar.boundingBox();
          const y = b.y + b.height / 2;
          await page.mouse.move(b.x + b.width + 1, y);
          await page.mouse.down();
          await page.mouse.move(b.x + width, y, { steps: 8 });
          await page.mouse.up();
        };
        try {
          await drag(300);
          const r = await expandTo('Complete 3-way', '2e18d6d1');
          const rowBox = await r.boundingBox();
          const desc = r.locator('.label-description');
          const text = ((await desc.textContent()) ?? '').trim();
          assert(/^(win|tie|loss|unknown)\??( · |$)/.test(text), `the description starts with the verdict: "${text}"`);
          const descBox = await desc.boundingBox();
          assert(
            descBox && descBox.x + 60 < rowBox.x + rowBox.width,
            `the verdict is in view (description at ${descBox?.x}, row ends at ${rowBox.x + rowBox.width})`,
          );
          await page.screenshot({ path: path.join(shots, 'narrow-sidebar-tree.png') });
          // A narrow editor: the window at 900 px leaves the Compare view about 550 px.
          await page.setViewportSize({ width: 900, height: 1250 });
          await menu(r, 'Compare');
          const w = webview();
          const verdictHead = w.locator('#metrics th', { hasText: /^Verdict$/ });
          await verdictHead.waitFor();
          const editor = await page.locator('.part.editor').boundingBox();
          const vb = await verdictHead.boundingBox();
          assert(vb && vb.x + vb.width <= editor.x + editor.width, `Verdict column ends at ${vb && vb.x + vb.width}, the editor at ${editor.x + editor.width}`);
          await page.screenshot({ path: path.join(shots, 'narrow-compare.png') });
        } finally {
          await page.setViewportSize({ width: 1500, height: 1250 });
          if (box0) await drag(box0.width).catch(() => {});
          await closeEditors().catch(() => {});
        }
      },
    );

    await step('no file the tool wrote (.bench-triage/: campaigns, claims, runs, builds, labels, notes) is listed as could not be used', [], async () => {
      const scanned = JSON.parse(
        execFileSync(process.execPath, [path.join(ROOT, 'dist/cli.js'), 'scan', folder, '--json'], { encoding: 'utf8', maxBuffer: 64 << 20 }),
      );
      const own = [...scanned.files.unknown, ...scanned.files.corrupt].map(f => f.path).filter(p => p.startsWith('.bench-triage/'));
      assert(!own.length, `listed as unusable: ${own.join(', ')}`);
      assert(existsSync(path.join(folder, '.bench-triage/campaigns')), 'the campaigns of earlier steps are there to be read');
      const problems = row(commits, 'could not be used');
      if (await problems.count()) {
        await expand(problems);
        const texts = (await rows(commits).allTextContents()).join('|');
        assert(!/campaign\.json|\.bench-triage/.test(texts), texts);
      }
    });

    // ---------- the palette: what it hides ----------
    const hidden = pkg.contributes.menus.commandPalette.filter(e => e.when === 'false');
    for (const h of hidden)
      await step(`the palette does not offer ${title(h.command)} (it needs a tree item)`, [entry('commandPalette', h.command)], async () => {
        await palette(`Bench Triage: ${title(h.command)}`);
        const offered = await paletteOffers(title(h.command));
        await page.keyboard.press('Escape');
        assert(!offered, `the palette offers ${title(h.command)}`);
      });

    // ---------- after a reload: history from disk ----------
    await step('after a reload, the Runs view lists the finished runs from disk, and the category set by hand is still set', [], async () => {
      await page.reload();
      await showBenchTriage();
      await rows(runs).first().waitFor({ timeout: 60000 });
      // The category set by hand survives the reload.
      await expandTo('Transient infrastructure error', '1e7d810c');
      await expand(row(commits, '1e7d810c'));
      await scrollTo(commits, commits.locator('.monaco-list-row[aria-label^="agent,"]', { hasText: 'set by you' }).first());
      // The history is longer than the view after the campaigns: older runs are scrolled to.
      await scrollTo(runs, '2e18d6d1 agent');
      const t = (await runs.locator('.monaco-list-row', { hasText: '2e18d6d1' }).allTextContents()).join('|');
      assert(/succeeded/.test(t), t);
      await scrollTo(runs, 'c53eb0e4 agent');
    });

    // ---------- Cancel Scan: in the title bar and in the palette, while a long scan runs ----------
    await step(
      'Cancel Scan in the title bar (shown while a scan runs) and in the palette stop the scan; the tree keeps its results',
      [entry('view/title', 'benchTriage.cancelScan', 'navigation@0'), entry('commandPalette', 'benchTriage.cancelScan')],
      async () => {
        // The rescan holds at its listing while the gate file exists (the extension reads
        // BENCH_TRIAGE_E2E_SCAN_GATE): it is still running when the button is pressed, however
        // fast or busy the machine. The gate goes once the cancel is seen.
        await row(commits, 'Complete 3-way').click(); // the window's own scan is done
        writeFileSync(scanGate, '');
        try {
          await titleButton(commits, title('benchTriage.refresh'));
          const cancelButton = commits.locator(`.pane-header .actions .action-label[aria-label^="${title('benchTriage.cancelScan')}"]`);
          await cancelButton.click({ timeout: 20000 });
          await notification('scan cancelled').waitFor();
          await clearNotifications();
          await row(commits, 'Complete 3-way').waitFor();
          // The palette's entry is offered only while a scan runs: it is, held at the gate.
          await titleButton(commits, title('benchTriage.refresh'));
          await cancelButton.waitFor({ timeout: 20000 });
          await page.keyboard.press('F1');
          await quickPick(`>Bench Triage: ${title('benchTriage.cancelScan')}`);
          await notification('scan cancelled').waitFor({ timeout: 15000 });
          await row(commits, 'Complete 3-way').waitFor();
        } finally {
          rmSync(scanGate, { force: true });
        }
      },
    );
  } finally {
    await ctx.close().catch(() => {});
    await server.stop();
  }
  // Only with every step: a subset (E2E_ONLY) covers what it covers.
  const missing = process.env.E2E_ONLY ? [] : MENU_ENTRIES.filter(k => !covered.has(k));
  results.push(['every menu entry of package.json was pressed by a step', missing.length ? new Error(`not covered: ${missing.join(', ')}`) : null]);
  console.log(
    `[e2e]   ${missing.length ? '✗' : '✔'} every menu entry of package.json was pressed by a step${missing.length ? `: missing ${missing.join(', ')}` : ''}`,
  );
} catch (e) {
  results.push(['the e2e could not start', e]);
  console.log(
    `[e2e]   ✗ could not start: ${String(e?.stack ?? e)
      .split('\n')
      .slice(0, 12)
      .join('\n')}`,
  );
} finally {
  if (engineUp) stopTestEngine();
}
const failed = results.filter(([, e]) => e).length;
console.log(`e2e: ${results.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
