#!/usr/bin/env node
// A stand-in for `lanes lsp` with canned answers, for testing the editor
// clients without the real server. It speaks LSP over stdio, answers the
// requests the clients use (inlay hints, code lens, executeCommand, ...) with
// fixed data shaped like the real server's contract, and appends every
// message it receives, one JSON object a line, to $MOCK_LANES_LOG if set.
//
//   node mock-lanes-lsp.js lsp
'use strict';

const fs = require('fs');
const path = require('path');

if (process.argv[2] === '--version') {
  // What the editor clients ask before they start the server.
  process.stdout.write('lanes 0.0.0 (mock-lanes-lsp.js)\n');
  process.exit(0);
}
if (process.argv[2] !== 'lsp') {
  process.stderr.write('usage: mock-lanes-lsp.js lsp\n');
  process.exit(2);
}

const logFile = process.env.MOCK_LANES_LOG;
const log = (msg) => {
  if (logFile) {
    fs.appendFileSync(logFile, JSON.stringify(msg) + '\n');
  }
};

function send(msg) {
  const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', ...msg }), 'utf8');
  process.stdout.write(`Content-Length: ${body.length}\r\n\r\n`);
  process.stdout.write(body);
}

const COMMANDS = ['lanes.build', 'lanes.showVectorIR', 'lanes.showAsm', 'lanes.explain'];
const DOCS = 'https://example.invalid/docs/diagnostics.md';

let target = 'host';
const documents = new Map();

function fsPath(uri) {
  return decodeURIComponent(uri.replace(/^file:\/\//, ''));
}

function diagnostics(uri) {
  send({
    method: 'textDocument/publishDiagnostics',
    params: {
      uri,
      diagnostics: [
        // Information, a warning, then a hint on the same range: the
        // client's sign and virtual text must show the warning.
        {
          range: { start: { line: 0, character: 0 }, end: { line: 0, character: 3 } },
          severity: 3,
          code: 'L0301',
          source: 'lanes',
          message: 'fast path possible (mock)',
        },
        {
          range: { start: { line: 0, character: 0 }, end: { line: 0, character: 3 } },
          severity: 2,
          code: 'L0201',
          codeDescription: { href: `${DOCS}#l0201` },
          source: 'lanes',
          message: `divergent loop (mock, target ${target})`,
        },
        {
          range: { start: { line: 0, character: 0 }, end: { line: 0, character: 3 } },
          severity: 4,
          code: 'L0300',
          source: 'lanes',
          message: 'guard possible (mock)',
        },
      ],
    },
  });
}

function handle(msg) {
  log(msg);
  const { id, method, params } = msg;
  const reply = (result) => send({ id, result });
  switch (method) {
    case 'initialize':
      if (params && params.initializationOptions && params.initializationOptions.target) {
        target = params.initializationOptions.target;
      }
      return reply({
        capabilities: {
          textDocumentSync: 1,
          hoverProvider: true,
          inlayHintProvider: true,
          codeLensProvider: { resolveProvider: false },
          codeActionProvider: true,
          executeCommandProvider: { commands: COMMANDS },
          semanticTokensProvider: {
            legend: { tokenTypes: ['variable', 'parameter', 'function'], tokenModifiers: ['uniform', 'varying'] },
            full: true,
          },
        },
        serverInfo: { name: 'mock-lanes', version: '0' },
      });
    case 'initialized':
      return undefined;
    case 'shutdown':
      return reply(null);
    case 'exit':
      process.exit(0);
      return undefined;
    case 'textDocument/didOpen':
      documents.set(params.textDocument.uri, params.textDocument.text);
      return diagnostics(params.textDocument.uri);
    case 'textDocument/didChange':
      documents.set(params.textDocument.uri, params.contentChanges[params.contentChanges.length - 1].text);
      return diagnostics(params.textDocument.uri);
    case 'textDocument/didClose':
      documents.delete(params.textDocument.uri);
      return undefined;
    case 'workspace/didChangeConfiguration': {
      const lanes = params && params.settings && params.settings.lanes;
      if (lanes && typeof lanes.target === 'string') {
        target = lanes.target;
      }
      return undefined;
    }
    case 'textDocument/hover':
      return reply({ contents: { kind: 'markdown', value: '`x`: **contiguous** (mock)' } });
    case 'textDocument/inlayHint':
      return reply([
        { position: { line: 0, character: 5 }, label: ': contiguous', kind: 1, paddingLeft: false },
        { position: { line: 1, character: 2 }, label: 'gather', paddingLeft: true },
      ]);
    case 'textDocument/codeLens':
      return reply([
        {
          range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
          command: { title: `SIMD x16 ${target} · 2 divergent branches · Build`, command: 'lanes.build', arguments: [params.textDocument.uri, 'convolution'] },
        },
      ]);
    case 'textDocument/codeAction':
      return reply([]);
    case 'textDocument/semanticTokens/full':
      return reply({ data: [0, 4, 1, 0, 2] });
    case 'workspace/executeCommand': {
      const [uri, kernel] = params.arguments || [];
      const name = kernel ? ` ${kernel}` : '';
      switch (params.command) {
        case 'lanes.build': {
          const base = fsPath(uri).replace(/\.cl$/, '');
          return reply({ object: `${base}.o`, header: `${base}.h` });
        }
        case 'lanes.showVectorIR':
          return reply({ text: `; vector IR of ${path.basename(fsPath(uri))}${name} for ${target}\ndefine void @k() {\n  ret void\n}\n`, language: 'llvm' });
        case 'lanes.showAsm':
          return reply({ text: `# assembly${name} for ${target}\n\tvmovups (%rdi), %ymm0\n\tret\n`, language: 'asm' });
        case 'lanes.explain':
          return reply({ text: `kernel${name}: x contiguous, loop divergent (target ${target})\n`, language: 'plaintext' });
        default:
          return send({ id, error: { code: -32601, message: `unknown command ${params.command}` } });
      }
    }
    default:
      if (id !== undefined && method !== undefined) {
        return reply(null);
      }
      return undefined;
  }
}

let buffer = Buffer.alloc(0);
process.stdin.on('data', (chunk) => {
  buffer = Buffer.concat([buffer, chunk]);
  for (;;) {
    const headerEnd = buffer.indexOf('\r\n\r\n');
    if (headerEnd < 0) {
      return;
    }
    const header = buffer.slice(0, headerEnd).toString('ascii');
    const m = /Content-Length:\s*(\d+)/i.exec(header);
    if (!m) {
      process.exit(3);
    }
    const length = Number(m[1]);
    if (buffer.length < headerEnd + 4 + length) {
      return;
    }
    const body = buffer.slice(headerEnd + 4, headerEnd + 4 + length).toString('utf8');
    buffer = buffer.slice(headerEnd + 4 + length);
    handle(JSON.parse(body));
  }
});
process.stdin.on('end', () => process.exit(0));
