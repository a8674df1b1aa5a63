// Runs the packaged extension (editors/vscode/lanes-<version>.vsix) in a real
// VS Code: code-server serves the workbench, Debian's Chromium shows it
// (driven by playwright-core), and the extension starts the real `lanes lsp`.
// A user's session on examples/convolution.cl, step by step: the Problems
// panel, a hover, inlay hints, the *Guard with any()* quick fix and the
// Build command. Every step leaves a screenshot in target/vscode-e2e/.
//
//   node editors/vscode/e2e/e2e.js [path/to/lanes]   (default target/debug/lanes, or $LANES)
'use strict';

const assert = require('assert');
const { spawn, execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');
const { chromium } = require('playwright-core');

const repo = path.resolve(__dirname, '..', '..', '..');
const extensionDir = path.join(repo, 'editors', 'vscode');
const out = path.join(repo, 'target', 'vscode-e2e');
const work = path.join(out, 'work');
const codeServer = path.join(__dirname, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
const lanes = path.resolve(process.argv[2] || process.env.LANES || path.join(repo, 'target', 'debug', 'lanes'));
const version = require(path.join(extensionDir, 'package.json')).version;
const vsix = path.join(extensionDir, `lanes-${version}.vsix`);
const example = path.join(repo, 'examples', 'convolution.cl');

// Generous: the machine may be building other things on both cores.
const STARTUP_TIMEOUT = 180_000;
const STEP_TIMEOUT = 90_000;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `probe` until it returns a truthy value; fails with `what` after `ms`. */
async function waitFor(what, probe, ms = STEP_TIMEOUT) {
  const end = Date.now() + ms;
  let last;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > end) {
      throw new Error(`timed out after ${ms / 1000} s waiting for ${what}${last ? ` (last error: ${last.message})` : ''}`);
    }
    await sleep(250);
  }
}

function writeJson(file, value) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(value, null, 2) + '\n');
}

function checkInputs() {
  for (const [file, hint] of [
    [codeServer, 'run scripts/setup.sh'],
    [lanes, 'run cargo build -p lanes'],
    [vsix, 'run editors/vscode/ci.sh'],
  ]) {
    if (!fs.existsSync(file)) throw new Error(`${file} is missing: ${hint}`);
  }
}

/**
 * A fresh workspace with a copy of the example, a user profile for
 * code-server, and a home directory. VS Code takes PATH from the user's login
 * shell, so `lanesOnPath` puts the binary's directory on PATH in the home's
 * .profile; otherwise the workspace setting lanes.server.path names it.
 */
function prepare(name, { lanesOnPath, serverPath }) {
  const root = path.join(work, name);
  const dirs = {
    root,
    workspace: path.join(root, 'workspace'),
    userData: path.join(root, 'user-data'),
    extensions: path.join(root, 'extensions'),
    home: path.join(root, 'home'),
  };
  for (const dir of Object.values(dirs)) fs.mkdirSync(dir, { recursive: true });
  const kernel = path.join(dirs.workspace, 'convolution.cl');
  fs.copyFileSync(example, kernel);
  writeJson(path.join(dirs.workspace, '.vscode', 'settings.json'), lanesOnPath ? {} : { 'lanes.server.path': serverPath ?? lanes });
  fs.writeFileSync(path.join(dirs.home, '.profile'), lanesOnPath ? `PATH="${path.dirname(lanes)}:$PATH"\n` : '');
  writeJson(path.join(dirs.userData, 'User', 'settings.json'), {
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'workbench.enableExperiments': false,
    'security.workspace.trust.enabled': false,
    'telemetry.telemetryLevel': 'off',
    'update.mode': 'none',
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    'extensions.ignoreRecommendations': true,
    'chat.commandCenter.enabled': false,
    'editor.inlayHints.enabled': 'on',
    'editor.hover.delay': 300,
    'editor.minimap.enabled': false,
    'files.autoSave': 'off',
  });
  return { ...dirs, kernel };
}

/** code-server's command line with every piece of its state inside the session's directory. */
function codeServerArgs(dirs) {
  const config = path.join(dirs.root, 'config.yaml');
  fs.writeFileSync(config, 'auth: none\ncert: false\n');
  return [
    codeServer,
    '--config', config,
    '--user-data-dir', dirs.userData,
    '--extensions-dir', dirs.extensions,
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    '--disable-getting-started-override',
    '--ignore-last-opened',
  ];
}

function codeServerEnv(dirs) {
  const env = {
    ...process.env,
    HOME: dirs.home,
    XDG_DATA_HOME: path.join(dirs.root, 'xdg-data'),
    XDG_CONFIG_HOME: path.join(dirs.root, 'xdg-config'),
  };
  delete env.PASSWORD;
  delete env.HASHED_PASSWORD;
  delete env.PORT;
  delete env.VSCODE_IPC_HOOK_CLI;
  return env;
}

/** Starts code-server on a free loopback port; resolves with its URL. */
function startCodeServer(dirs, log) {
  const child = spawn(process.execPath, [...codeServerArgs(dirs), '--bind-addr', '127.0.0.1:0', dirs.workspace], {
    env: codeServerEnv(dirs),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk) => {
      fs.appendFileSync(log, chunk);
      text += chunk.toString();
      const m = /HTTP server listening on (http:\/\/[^\s]+)/.exec(text);
      if (m) resolve(m[1].replace(/\/?$/, '/'));
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`code-server exited with ${code} before listening; see ${log}`)));
  });
  return { child, url };
}

function stopProcessGroup(child) {
  if (child && child.exitCode === null) {
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
}

/** The "lanes" output channel and the extension host log, for failure reports. */
function extensionLogs(userData) {
  const found = [];
  const walk = (dir) => {
    for (const entry of fs.existsSync(dir) ? fs.readdirSync(dir, { withFileTypes: true }) : []) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (/lanes|exthost|remoteexthost/i.test(entry.name) && entry.name.endsWith('.log')) found.push(file);
    }
  };
  walk(path.join(userData, 'logs'));
  return found
    .map((file) => {
      const lines = fs.readFileSync(file, 'utf8').trimEnd().split('\n');
      return `--- ${path.relative(repo, file)} (last ${Math.min(40, lines.length)} lines)\n${lines.slice(-40).join('\n')}`;
    })
    .join('\n');
}

// ---------------------------------------------------------------------------
// The workbench

/** The rendered text (innerText) of every element matching `selector`, joined by newlines. */
async function textOf(page, selector) {
  return page.evaluate((sel) => [...document.querySelectorAll(sel)].map((el) => el.innerText).join('\n'), selector);
}

/** The rendered text of the editor's visible lines, one string per line, in order. */
async function editorLines(page) {
  return page.evaluate(() => {
    const lines = [...document.querySelectorAll('.editor-instance .monaco-editor .view-lines .view-line')];
    lines.sort((a, b) => parseFloat(a.style.top) - parseFloat(b.style.top));
    return lines.map((l) => l.textContent.replace(/\u00a0/g, ' '));
  });
}

/** Runs a command through the command palette (F1), as a user would. */
async function runCommand(page, title) {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input.input');
  await input.waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
  await input.fill(`>${title}`);
  const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: title }).first();
  await row.waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
  await row.click();
}

/** Moves the cursor to a 1-based line and column with Go to Line (Ctrl+G). */
async function goTo(page, line, column) {
  await page.keyboard.press('Control+G');
  const input = page.locator('.quick-input-widget input.input');
  await input.waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
  await input.fill(`:${line}:${column}`);
  await page.keyboard.press('Enter');
  await input.waitFor({ state: 'hidden', timeout: STEP_TIMEOUT });
}

/**
 * The screen position of the middle of `word` on the first rendered line that
 * contains `context` (a piece of source text with `word` in it).
 */
async function wordPosition(page, context, word) {
  return page.evaluate(
    ({ context, word }) => {
      for (const line of document.querySelectorAll('.editor-instance .monaco-editor .view-lines .view-line')) {
        const text = line.textContent.replace(/\u00a0/g, ' ');
        const contextAt = text.indexOf(context);
        if (contextAt < 0) continue;
        const wordAt = contextAt + context.indexOf(word);
        const walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
        let seen = 0;
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          const length = node.textContent.length;
          if (wordAt < seen + length) {
            const range = document.createRange();
            range.setStart(node, wordAt - seen);
            range.setEnd(node, wordAt - seen + word.length);
            const r = range.getBoundingClientRect();
            return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
          }
          seen += length;
        }
      }
      return null;
    },
    { context, word },
  );
}

/**
 * Moves the mouse onto `word` (in `context`, on source line `line`) and
 * returns the text of the hover that opens.
 */
async function hoverOn(page, line, context, word) {
  await page.mouse.move(5, 5);
  await page.keyboard.press('Escape');
  await goTo(page, line, 1);
  // the position is looked up again on every try: the editor may still be scrolling
  return waitFor(`a hover on ${word} that says uniform, varying or contiguous`, async () => {
    const at = await wordPosition(page, context, word);
    if (!at) return '';
    await page.mouse.move(at.x - 1, at.y);
    await page.mouse.move(at.x, at.y);
    await sleep(1000);
    const text = await textOf(page, '.monaco-editor .monaco-hover');
    return /uniform|varying|contiguous/i.test(text) ? text : '';
  });
}

/** The HTML of the first rendered editor line containing `text`, for failure messages. */
async function lineHtml(page, text) {
  return page.evaluate((text) => {
    const line = [...document.querySelectorAll('.editor-instance .monaco-editor .view-lines .view-line')].find((l) =>
      l.textContent.replace(/\u00a0/g, ' ').includes(text),
    );
    return line ? line.outerHTML : `(no rendered line contains ${text})`;
  }, text);
}

// ---------------------------------------------------------------------------

const kernelText = fs.readFileSync(example, 'utf8');

/** The 1-based line of examples/convolution.cl that contains `needle`. */
function lineOf(needle) {
  const i = kernelText.split('\n').findIndex((l) => l.includes(needle));
  assert.ok(i >= 0, `examples/convolution.cl has no line with ${needle}`);
  return i + 1;
}

/** Every step of every session, in order, for the summary. */
const steps = [];

/**
 * One VS Code session: installs the .vsix into a fresh code-server profile,
 * opens convolution.cl in Chromium, and runs `body(page, step, dirs)`, whose
 * steps stop at the first failure. A failure leaves failure-<name>.png and
 * the session's logs on the console.
 */
async function session(name, options, body) {
  const dirs = prepare(name, options);
  const serverLog = path.join(dirs.root, 'code-server.log');
  let failed = false;
  let browser;
  let page;
  let server;
  const step = async (title, screenshot, fn) => {
    const label = `[${name}] ${title}`;
    if (failed) {
      steps.push({ name: label, status: 'skipped' });
      return;
    }
    try {
      await fn();
      if (screenshot) await page.screenshot({ path: path.join(out, screenshot) });
      steps.push({ name: label, status: 'passed', screenshot });
    } catch (err) {
      failed = true;
      steps.push({ name: label, status: 'failed', error: err });
    }
  };

  try {
    execFileSync(process.execPath, [...codeServerArgs(dirs), '--install-extension', vsix], { env: codeServerEnv(dirs), stdio: 'pipe' });
    const installed = fs.readdirSync(dirs.extensions).filter((d) => d.startsWith('lanes.lanes-'));
    assert.deepStrictEqual(installed, [`lanes.lanes-${version}`], `code-server --install-extension ${path.relative(repo, vsix)}`);
    server = startCodeServer(dirs, serverLog);
    const url = await Promise.race([
      server.url,
      sleep(STARTUP_TIMEOUT).then(() => {
        throw new Error(`code-server did not start listening; see ${path.relative(repo, serverLog)}`);
      }),
    ]);
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.setDefaultTimeout(STEP_TIMEOUT);

    await step('open convolution.cl in the workbench', name === 'setting' ? '00-editor.png' : undefined, async () => {
      await page.goto(`${url}?folder=${encodeURIComponent(dirs.workspace)}`, { timeout: STARTUP_TIMEOUT });
      await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: STARTUP_TIMEOUT });
      await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'convolution.cl' }).first().waitFor({ timeout: STARTUP_TIMEOUT });
      await page.keyboard.press('Control+P');
      const input = page.locator('.quick-input-widget input.input');
      await input.waitFor({ state: 'visible' });
      await input.fill('convolution.cl');
      await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'convolution.cl' }).first().waitFor();
      await page.keyboard.press('Enter');
      await waitFor('the editor to show convolution.cl', async () => (await editorLines(page)).some((l) => l.includes('__kernel void convolution')));
      await waitFor('the language mode OpenCL C in the status bar', async () => (await textOf(page, '.statusbar')).includes('OpenCL C'));
    });
    await body(page, step, dirs);
  } catch (err) {
    failed = true;
    steps.push({ name: `[${name}] start code-server and Chromium`, status: 'failed', error: err });
  } finally {
    if (failed && page) {
      const shot = path.join(out, `failure-${name}.png`);
      await page.screenshot({ path: shot }).catch(() => undefined);
      const toasts = await textOf(page, '.notifications-toasts').catch(() => '');
      console.log(`[${name}] failed: screenshot ${path.relative(repo, shot)}; code-server log ${path.relative(repo, serverLog)}`);
      if (toasts) console.log(`[${name}] notifications on screen: ${toasts.replace(/\s+/g, ' ')}`);
      console.log(extensionLogs(dirs.userData));
    }
    if (browser) await browser.close().catch(() => undefined);
    if (server) stopProcessGroup(server.child);
  }
}

async function main() {
  checkInputs();
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });

  // A user who set lanes.server.path: every feature, step by step.
  await session('setting', { lanesOnPath: false }, async (page, step, dirs) => {
    await step('Problems panel lists L0201 (divergent loop)', '01-problems.png', async () => {
      await page.keyboard.press('Control+Shift+M');
      const problems = await waitFor(
        'L0201 in the Problems panel (the server started and published diagnostics)',
        async () => {
          const text = await textOf(page, '.markers-panel');
          return text.includes('L0201') ? text : '';
        },
        STARTUP_TIMEOUT,
      );
      assert.match(problems, /L0202/, 'the gathers of convolution.cl (L0202) are listed too');
      observed.problems = await page.evaluate(() =>
        [...document.querySelectorAll('.markers-panel .monaco-list-row')]
          .map((row) => row.innerText.replace(/\s+/g, ' ').trim())
          .filter((text) => /L0\d{3}/.test(text)),
      );
    });

    await step('hover on x: contiguous, and why', '02-hover-x.png', async () => {
      const hover = await hoverOn(page, lineOf('int x = get_global_id(0);'), 'int x', 'x');
      assert.match(hover, /\bint x\b/, `the hover is about x: ${hover}`);
      assert.match(hover, /contiguous/, `x = get_global_id(0) is contiguous across the lanes: ${hover}`);
      assert.match(hover, /get_global_id\(0\)/, `the hover says why (get_global_id(0)): ${hover}`);
      observed.hoverX = hover;
    });

    await step('hover on vstep: uniform', '03-hover-vstep.png', async () => {
      const hover = await hoverOn(page, lineOf('int vstep ='), 'int vstep', 'vstep');
      assert.match(hover, /\bint vstep\b/, `the hover is about vstep: ${hover}`);
      assert.match(hover, /uniform/, `vstep depends only on the argument stencilWidth: ${hover}`);
      observed.hoverVstep = hover;
    });

    await step('inlay hints show shapes after declarations and parameters', '04-inlay-hints.png', async () => {
      await page.mouse.move(5, 5);
      await page.keyboard.press('Escape');
      await goTo(page, lineOf('int x = get_global_id(0);'), 1);
      // inlay hints are rendered inside the line, between the source tokens
      const expected = ['int x: contiguous', '*input: uniform', 'int width: uniform'];
      const shown = await waitFor(`inlay hints: ${expected.join(', ')}`, async () => {
        const lines = await editorLines(page);
        const found = expected.map((hint) => lines.find((l) => l.includes(hint)));
        return found.every(Boolean) ? found : null;
      }).catch(async (err) => {
        throw new Error(`${err.message}; the line of x is rendered as ${await lineHtml(page, 'get_global_id(0)')}`);
      });
      for (const hint of expected) {
        assert.ok(!kernelText.includes(hint), `"${hint}" is a hint, not text of the file`);
      }
      observed.inlayHints = shown.map((l) => l.trim());
    });

    await step('quick fix "Guard with any()" rewrites the divergent if', '06-guard-with-any.png', async () => {
      const line = lineOf('if (x >= width)');
      await goTo(page, line, 9);
      await page.keyboard.press('Control+.');
      await page.locator('.action-widget .monaco-list-row', { hasText: 'Guard with any()' }).first().waitFor({ state: 'visible' });
      // the list is re-rendered while code actions arrive, so pick the entry with the keyboard
      await waitFor('"Guard with any()" focused in the quick fix menu', async () => {
        const focused = await page.getAttribute('.action-widget .monaco-list-row.focused', 'aria-label', { timeout: 5000 });
        if (focused && focused.startsWith('Guard with any()')) return true;
        await page.keyboard.press('ArrowDown');
        return false;
      });
      await page.screenshot({ path: path.join(out, '05-quick-fix-menu.png') });
      await page.keyboard.press('Enter');
      await waitFor('sub_group_any in the editor', async () => (await editorLines(page)).some((l) => l.includes('sub_group_any(')));
      await page.keyboard.press('Control+S');
      await waitFor('the guarded if saved to disk', () => {
        const now = fs.readFileSync(dirs.kernel, 'utf8');
        return now !== kernelText && /if \(sub_group_any\(x >= width\)\)/.test(now);
      });
      const before = new Set(kernelText.split('\n'));
      observed.guardedLines = fs.readFileSync(dirs.kernel, 'utf8').split('\n').filter((l) => !before.has(l));
    });

    await step('command "Lanes: Build Object and Header" writes the object file', '07-build.png', async () => {
      const object = path.join(dirs.workspace, 'convolution.o');
      await runCommand(page, 'Lanes: Build Object and Header');
      await waitFor(`${path.relative(repo, object)} on disk`, () => fs.existsSync(object) && fs.statSync(object).size > 0);
      const magic = fs.readFileSync(object).subarray(0, 4);
      assert.deepStrictEqual([...magic], [0x7f, 0x45, 0x4c, 0x46], 'convolution.o is an ELF object');
      observed.build = await waitFor('the "built" notification', async () => {
        const toast = await textOf(page, '.notifications-toasts');
        const built = /lanes: built [^\n]*/.exec(toast);
        return built ? built[0] : '';
      });
      observed.objectBytes = fs.statSync(object).size;
    });
  });

  // A user with `lanes` on PATH and no setting (the default, lanes.server.path = "lanes").
  await session('path', { lanesOnPath: true }, async (page, step, dirs) => {
    await step('lanes found on PATH: the Problems panel lists L0201', '08-lanes-on-path.png', async () => {
      await page.keyboard.press('Control+Shift+M');
      await waitFor('L0201 in the Problems panel', async () => (await textOf(page, '.markers-panel')).includes('L0201'), STARTUP_TIMEOUT);
      // The output channel's log file is written when VS Code gets to it,
      // which under load can be after the Problems panel shows: wait for it.
      await waitFor('the lanes output channel to name the binary found on PATH', () =>
        extensionLogs(dirs.userData).includes(`starting ${lanes} lsp`));
    });
  });

  // A binary that cannot start (here: a shared library missing): the user
  // sees the loader's message, not vscode-languageclient's "write EPIPE".
  const broken = path.join(work, 'broken-lanes');
  fs.mkdirSync(work, { recursive: true });
  fs.writeFileSync(
    broken,
    '#!/bin/sh\necho "broken-lanes: error while loading shared libraries: libz3.so.4: cannot open shared object file: No such file or directory" >&2\nexit 127\n',
    { mode: 0o755 },
  );
  await session('broken', { lanesOnPath: false, serverPath: broken }, async (page, step, dirs) => {
    await step('a server that cannot start: the error names the missing library', '09-broken-server.png', async () => {
      await waitFor('an error notification naming libz3.so.4', async () => (await textOf(page, '.notifications-toasts')).includes('libz3.so.4'), STARTUP_TIMEOUT);
      const toasts = await textOf(page, '.notifications-toasts');
      observed.brokenServer = toasts.replace(/\s+/g, ' ').trim();
      assert.ok(toasts.includes('exit status 127'), toasts);
      assert.ok(!toasts.includes('EPIPE'), toasts);
      // VS Code writes the output channel's log file after the toast is
      // shown, when it gets to it: wait for the line, do not race it.
      await waitFor('the output channel to log the failure', () =>
        extensionLogs(dirs.userData).includes('cannot start the lanes language server'));
    });
  });

  fs.writeFileSync(path.join(out, 'observed.txt'), JSON.stringify(observed, null, 2) + '\n');
  for (const s of steps) {
    const shot = s.screenshot ? `  (${path.relative(repo, path.join(out, s.screenshot))})` : '';
    console.log(`${s.status === 'passed' ? 'ok  ' : s.status === 'failed' ? 'FAIL' : 'skip'} ${s.name}${shot}`);
    if (s.error) console.log(`     ${String(s.error.stack || s.error).split('\n').slice(0, 6).join('\n     ')}`);
  }
  const count = (status) => steps.filter((s) => s.status === status).length;
  console.log(`vscode-e2e: ${count('passed')} passed, ${count('failed')} failed, ${count('skipped')} skipped`);
  process.exit(count('failed') ? 1 : 0);
}

/** What the user saw, written to target/vscode-e2e/observed.txt. */
const observed = {};

main().catch((err) => {
  console.error(`vscode-e2e: ${err.stack || err}`);
  process.exit(1);
});
