// Activates the bundled extension (dist/extension.js) against test/fake-vscode.js
// and the mock server editors/test/mock-lanes-lsp.js, and checks what the
// server receives and what the user would see.
'use strict';

const assert = require('assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const Module = require('module');

const root = path.join(__dirname, '..');
const mockServer = path.join(root, '..', 'test', 'mock-lanes-lsp.js');

function loadWithFakeVscode() {
  const fake = require('./fake-vscode');
  const resolve = Module._resolveFilename;
  Module._resolveFilename = function (request, ...rest) {
    if (request === 'vscode') {
      return require.resolve('./fake-vscode');
    }
    return resolve.call(this, request, ...rest);
  };
  const bundle = path.join(root, 'dist', 'extension.js');
  delete require.cache[bundle];
  const extension = require(bundle);
  return { vscode: fake, extension };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function readLog(file) {
  if (!fs.existsSync(file)) return [];
  return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

async function waitFor(what, predicate, ms = 5000) {
  const end = Date.now() + ms;
  for (;;) {
    const value = predicate();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

module.exports = async function extensionTest() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lanes-vscode-'));
  const logFile = path.join(dir, 'server.log');
  process.env.MOCK_LANES_LOG = logFile;
  fs.chmodSync(mockServer, 0o755);
  const clFile = path.join(dir, 'k.cl');
  fs.writeFileSync(clFile, '__kernel void k(__global float *a) { a[get_global_id(0)] = 0.0f; }\n');

  const { vscode, extension } = loadWithFakeVscode();
  const state = vscode.__state;
  vscode.workspace.workspaceFolders = [{ uri: vscode.Uri.file(dir), name: 'ws', index: 0 }];
  state.settings['lanes.server.path'] = mockServer;
  state.settings['lanes.target'] = 'avx512skx-x16';
  state.settings['lanes.defines'] = ['N=16'];
  state.settings['lanes.preconditions'] = { targetBudget: 500000, enabled: true, budget: 'x' };
  const doc = vscode.__makeDocument(vscode.Uri.file(clFile), fs.readFileSync(clFile, 'utf8'), 'opencl');
  vscode.__openDocument(doc);
  vscode.window.activeTextEditor = { document: doc, viewColumn: 1 };

  const context = { subscriptions: [], extensionPath: root, extensionUri: vscode.Uri.file(root) };
  try {
    await extension.activate(context);
    const errors = () => state.messages.filter((m) => m.kind === 'error');
    assert.deepStrictEqual(errors(), [], 'no error messages after activation');

    // initialize carries exactly the explicitly set settings
    const init = await waitFor('initialize', () => readLog(logFile).find((m) => m.method === 'initialize'));
    assert.deepStrictEqual(init.params.initializationOptions, {
      target: 'avx512skx-x16',
      defines: ['N=16'],
      preconditions: { enabled: true, targetBudget: 500000 },
    });
    await waitFor('didOpen of k.cl', () => readLog(logFile).find((m) => m.method === 'textDocument/didOpen'));
    await waitFor('diagnostics', () => state.diagnostics.get(String(doc.uri)));

    // the four server commands are registered once, by the extension
    for (const id of ['lanes.build', 'lanes.showVectorIR', 'lanes.showAsm', 'lanes.explain', 'lanes.restartServer', 'lanes.selectTarget']) {
      assert.ok(state.commands.has(id), id);
    }
    const status = state.statusItems[0];
    assert.strictEqual(status.text, 'lanes: avx512skx-x16');

    // Show Vector IR from the palette: the active editor's file, shown beside it
    await vscode.commands.executeCommand('lanes.showVectorIR');
    const request = readLog(logFile).filter((m) => m.method === 'workspace/executeCommand').pop();
    assert.deepStrictEqual(request.params, { command: 'lanes.showVectorIR', arguments: [String(doc.uri)] });
    const shown = state.shown.pop();
    assert.strictEqual(shown.doc.uri.scheme, 'lanes');
    assert.strictEqual(shown.doc.uri.path, '/k.vector-ir.ll');
    assert.match(shown.doc.getText(), /vector IR of k\.cl for avx512skx-x16/);
    assert.strictEqual(shown.options.viewColumn, vscode.ViewColumn.Beside);

    // Build from a code lens: [uri, kernel]; a notification names both files
    await vscode.commands.executeCommand('lanes.build', String(doc.uri), 'k');
    const build = readLog(logFile).filter((m) => m.method === 'workspace/executeCommand').pop();
    assert.deepStrictEqual(build.params.arguments, [String(doc.uri), 'k']);
    const note = state.messages.filter((m) => m.kind === 'information').pop();
    assert.strictEqual(note.text, 'lanes: built k.o and k.h');
    assert.deepStrictEqual(note.items, ['Reveal in Explorer', 'Open Header']);

    // Assembly for one kernel: the tab name has the kernel
    await vscode.commands.executeCommand('lanes.showAsm', String(doc.uri), 'k');
    assert.strictEqual(state.shown.pop().doc.uri.path, '/k.k.asm.s');

    // the target quick pick writes the setting; the server is told
    state.quickPickChoice = 'avx2-i32x8';
    await vscode.commands.executeCommand('lanes.selectTarget');
    const change = await waitFor('didChangeConfiguration', () =>
      readLog(logFile).find((m) => m.method === 'workspace/didChangeConfiguration'),
    );
    assert.deepStrictEqual(change.params.settings, {
      lanes: { target: 'avx2-i32x8', defines: ['N=16'], preconditions: { enabled: true, targetBudget: 500000 } },
    });
    assert.strictEqual(status.text, 'lanes: avx2-i32x8');

    // restart: a second initialize with the new settings
    await vscode.commands.executeCommand('lanes.restartServer');
    const inits = await waitFor('second initialize', () => {
      const all = readLog(logFile).filter((m) => m.method === 'initialize');
      return all.length >= 2 && all;
    });
    assert.strictEqual(inits[1].params.initializationOptions.target, 'avx2-i32x8');
    assert.deepStrictEqual(errors(), [], 'no error messages');

    // a missing binary is reported with a way to fix it
    await extension.deactivate();
    await waitFor('shutdown', () => readLog(logFile).some((m) => m.method === 'exit'));
    state.settings['lanes.server.path'] = path.join(dir, 'no-such-lanes');
    await vscode.commands.executeCommand('lanes.restartServer');
    const missing = errors().pop();
    assert.ok(missing && /does not exist/.test(missing.text) && missing.items.includes('Open Settings'), JSON.stringify(missing));
  } finally {
    try {
      await extension.deactivate();
    } catch {
      // already stopped
    }
    for (const d of context.subscriptions) {
      try {
        d.dispose();
      } catch {
        // ignore
      }
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }
};
