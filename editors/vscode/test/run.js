// Tests of the extension that need no VS Code: the TextMate grammar (with the
// same tokenizer VS Code uses), the manifest against the source, the language
// configuration and the pure helpers of src/config.ts (compiled to out/).
// Run with `npm test` (which compiles first).
'use strict';

const assert = require('assert');
const fs = require('fs');
const path = require('path');
const vsctm = require('vscode-textmate');
const oniguruma = require('vscode-oniguruma');

const root = path.join(__dirname, '..');
const read = (p) => fs.readFileSync(path.join(root, p), 'utf8');
const pkg = JSON.parse(read('package.json'));

const tests = [];
const test = (name, fn) => tests.push({ name, fn });

// ---------------------------------------------------------------------------
// Grammar

let grammarPromise;
function loadGrammar() {
  if (!grammarPromise) {
    const wasm = fs.readFileSync(path.join(path.dirname(require.resolve('vscode-oniguruma')), 'onig.wasm'));
    const onigLib = oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength)).then(() => ({
      createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
      createOnigString: (s) => new oniguruma.OnigString(s),
    }));
    const grammarPath = pkg.contributes.grammars[0].path;
    const registry = new vsctm.Registry({
      onigLib,
      loadGrammar: async (scopeName) =>
        scopeName === 'source.opencl' ? vsctm.parseRawGrammar(read(grammarPath), path.join(root, grammarPath)) : null,
    });
    grammarPromise = registry.loadGrammar('source.opencl');
  }
  return grammarPromise;
}

/** Tokenizes `text` (several lines) and returns [{text, scopes}] for every token. */
async function tokenize(text) {
  const grammar = await loadGrammar();
  let state = vsctm.INITIAL;
  const tokens = [];
  for (const line of text.split('\n')) {
    const r = grammar.tokenizeLine(line, state);
    for (const t of r.tokens) {
      tokens.push({ text: line.slice(t.startIndex, t.endIndex), scopes: t.scopes });
    }
    state = r.ruleStack;
  }
  return tokens;
}

/** Asserts that the token spelled `word` (the n-th such token) carries a scope starting with `scope`. */
function expectScope(tokens, word, scope, n = 0) {
  const matching = tokens.filter((t) => t.text === word || t.text.trim() === word);
  assert.ok(matching.length > n, `no token ${JSON.stringify(word)} in ${JSON.stringify(tokens.map((t) => t.text))}`);
  const scopes = matching[n].scopes;
  assert.ok(
    scopes.some((s) => s === scope || s.startsWith(scope + '.')),
    `${JSON.stringify(word)} has scopes ${scopes.join(' ')}, expected ${scope}`,
  );
}

function expectNoScope(tokens, word, prefix) {
  for (const t of tokens.filter((t) => t.text.trim() === word)) {
    assert.ok(!t.scopes.some((s) => s.startsWith(prefix)), `${JSON.stringify(word)} should not be ${prefix}: ${t.scopes.join(' ')}`);
  }
}

const KERNEL = `#define N 16
__kernel void convolution(__global const float *input, global float4 *out, int width)
{
    int x = get_global_id(0);
    if (sub_group_any(x >= width)) return;
    float4 v = vload4(x, input) * 1.5f + (float4)(0x1Fu, 2.0e-3, .5h, 7UL);
    out[x].xy = v.s01 + convert_float2_sat_rte(v.lo);
    local int scratch[N];
    char *s = "a \\"quoted\\" string\\n";
    /* block
       comment */ int length = 3; // a variable named like a builtin
}`;

test('grammar: address spaces, kernel qualifier, types and builtins', async () => {
  const t = await tokenize(KERNEL);
  expectScope(t, '__kernel', 'storage.modifier.kernel.opencl');
  expectScope(t, '__global', 'storage.modifier.address-space.opencl');
  expectScope(t, 'global', 'storage.modifier.address-space.opencl');
  expectScope(t, 'local', 'storage.modifier.address-space.opencl');
  expectScope(t, 'const', 'storage.modifier.opencl');
  expectScope(t, 'void', 'storage.type.built-in.opencl');
  expectScope(t, 'float', 'storage.type.built-in.opencl');
  expectScope(t, 'float4', 'storage.type.built-in.vector.opencl');
  expectScope(t, 'float4', 'storage.type.built-in.vector.opencl', 2);
  expectScope(t, 'get_global_id', 'support.function.work-item.opencl');
  expectScope(t, 'sub_group_any', 'support.function.sub-group.opencl');
  expectScope(t, 'vload4', 'support.function.vector-data.opencl');
  expectScope(t, 'convert_float2_sat_rte', 'support.function.conversion.opencl');
  expectScope(t, 'convolution', 'entity.name.function.opencl');
  expectScope(t, 'if', 'keyword.control.opencl');
  expectScope(t, 'return', 'keyword.control.opencl');
  expectScope(t, 'xy', 'variable.other.member.swizzle.opencl');
  expectScope(t, 's01', 'variable.other.member.swizzle.opencl');
  expectScope(t, 'lo', 'variable.other.member.swizzle.opencl');
  // a variable spelled like a builtin is not a builtin
  expectNoScope(t, 'length', 'support.function');
});

test('grammar: numbers with suffixes', async () => {
  const t = await tokenize(KERNEL);
  expectScope(t, '1.5', 'constant.numeric.float.opencl');
  expectScope(t, 'f', 'keyword.other.unit.suffix.floating-point.opencl');
  expectScope(t, '0x1F', 'constant.numeric.integer.hexadecimal.opencl');
  expectScope(t, 'u', 'keyword.other.unit.suffix.integer.opencl');
  expectScope(t, '2.0e-3', 'constant.numeric.float.opencl');
  expectScope(t, '.5', 'constant.numeric.float.opencl');
  expectScope(t, 'h', 'keyword.other.unit.suffix.floating-point.opencl');
  expectScope(t, '7', 'constant.numeric.integer.opencl');
  expectScope(t, 'UL', 'keyword.other.unit.suffix.integer.opencl');
  expectScope(t, '0', 'constant.numeric.integer.opencl');
  const bad = await tokenize('int n = 12abc;');
  expectScope(bad, '12abc', 'invalid.illegal.constant.numeric.opencl');
});

test('grammar: strings and comments', async () => {
  const t = await tokenize(KERNEL);
  expectScope(t, '\\"', 'constant.character.escape.opencl');
  expectScope(t, 'quoted', 'string.quoted.double.opencl');
  expectScope(t, '\\n', 'constant.character.escape.opencl');
  const block = t.find((x) => x.text.includes('comment */') || x.text.trim() === 'comment');
  assert.ok(block && block.scopes.includes('comment.block.opencl'), 'second line of the block comment');
  expectScope(t, ' a variable named like a builtin', 'comment.line.double-slash.opencl');
  const cont = await tokenize('// a comment \\\ncontinued\nint x;');
  expectScope(cont, 'continued', 'comment.line.double-slash.opencl');
  expectScope(cont, 'int', 'storage.type.built-in.opencl');
});

test('grammar: preprocessor', async () => {
  const t = await tokenize(
    [
      '#include "common.h"',
      '#include <lanes.h>',
      '#define SQUARE(a, b) ((a) * (b))',
      '#if defined(__LANES__) && __LANES_WIDTH__ >= 8',
      '#pragma lanes ignore(L0203)',
      '#pragma OPENCL EXTENSION cl_khr_fp64 : enable',
      '  #  endif',
      '#define LONG_MACRO(x) \\',
      '    (x + get_local_id(0))',
      'int after;',
    ].join('\n'),
  );
  expectScope(t, '#', 'punctuation.definition.directive.opencl');
  expectScope(t, '#', 'keyword.control.directive.include.opencl');
  expectScope(t, 'include', 'keyword.control.directive.include.opencl');
  expectScope(t, '"common.h"', 'string.quoted.double.include.opencl');
  expectScope(t, '<lanes.h>', 'string.quoted.other.lt-gt.include.opencl');
  expectScope(t, 'define', 'keyword.control.directive.define.opencl');
  expectScope(t, 'SQUARE', 'entity.name.function.preprocessor.opencl');
  expectScope(t, 'a', 'variable.parameter.preprocessor.opencl');
  expectScope(t, 'if', 'keyword.control.directive.conditional.opencl');
  expectScope(t, 'defined', 'keyword.control.directive.conditional.defined.opencl');
  expectScope(t, '__LANES__', 'support.constant.opencl');
  expectScope(t, '8', 'constant.numeric.integer.opencl');
  expectScope(t, 'pragma', 'keyword.control.directive.pragma.opencl');
  expectScope(t, 'L0203', 'constant.other.diagnostic-code.opencl');
  expectScope(t, 'enable', 'constant.language.pragma.opencl');
  expectScope(t, 'endif', 'keyword.control.directive.conditional.opencl');
  // a continued #define line is still part of the macro
  const local = t.find((x) => x.text === 'get_local_id');
  assert.ok(local.scopes.includes('meta.preprocessor.macro.opencl'), 'continued macro line: ' + local.scopes.join(' '));
  expectScope(t, 'get_local_id', 'support.function.work-item.opencl');
  const after = t.find((x) => x.text.trim() === 'after');
  assert.ok(!after.scopes.some((s) => s.startsWith('meta.preprocessor')), 'line after the macro is code again');
});

test('grammar: attributes and the running example', async () => {
  const t = await tokenize('__kernel __attribute__((reqd_work_group_size(16, 1, 1))) void k(__constant float *c) { barrier(CLK_LOCAL_MEM_FENCE); }');
  expectScope(t, '__attribute__', 'storage.modifier.attribute.opencl');
  expectScope(t, 'reqd_work_group_size', 'entity.other.attribute-name.opencl');
  expectScope(t, 'void', 'storage.type.built-in.opencl');
  expectScope(t, '__constant', 'storage.modifier.address-space.opencl');
  expectScope(t, 'barrier', 'support.function.synchronization.opencl');
  expectScope(t, 'CLK_LOCAL_MEM_FENCE', 'support.constant.opencl');
  const example = path.join(root, '..', '..', 'examples', 'convolution.cl');
  if (fs.existsSync(example)) {
    const e = await tokenize(fs.readFileSync(example, 'utf8'));
    expectScope(e, 'get_global_id', 'support.function.work-item.opencl');
    expectScope(e, 'max', 'support.function.integer.opencl');
    expectScope(e, '__kernel', 'storage.modifier.kernel.opencl');
  }
});

// ---------------------------------------------------------------------------
// Manifest, source and configuration

test('manifest: contributed commands are the ones extension.ts registers', () => {
  const contributed = pkg.contributes.commands.map((c) => c.command).sort();
  const source = read('src/extension.ts');
  const registered = [...source.matchAll(/registerCommand\(\s*'([\w.]+)'/g)].map((m) => m[1]).sort();
  assert.deepStrictEqual(registered, contributed);
  const config = require(path.join(root, 'out', 'config.js'));
  for (const command of config.SERVER_COMMANDS) {
    assert.ok(contributed.includes(command), command);
  }
  for (const expected of ['lanes.build', 'lanes.showVectorIR', 'lanes.showAsm', 'lanes.explain', 'lanes.restartServer']) {
    assert.ok(contributed.includes(expected), expected);
  }
  const titles = Object.fromEntries(pkg.contributes.commands.map((c) => [c.command, `${c.category}: ${c.title}`]));
  assert.strictEqual(titles['lanes.build'], 'Lanes: Build Object and Header');
  assert.strictEqual(titles['lanes.showVectorIR'], 'Lanes: Show Vector IR');
  assert.strictEqual(titles['lanes.showAsm'], 'Lanes: Show Assembly');
  assert.strictEqual(titles['lanes.explain'], 'Lanes: Explain Kernel');
  for (const item of Object.values(pkg.contributes.menus).flat()) {
    assert.ok(contributed.includes(item.command), `menu entry for unknown command ${item.command}`);
  }
});

test('manifest: language, grammar, settings and targets', () => {
  assert.strictEqual(pkg.publisher, 'lanes');
  assert.strictEqual(pkg.name, 'lanes');
  assert.ok(pkg.activationEvents.includes('onLanguage:opencl'));
  const lang = pkg.contributes.languages.find((l) => l.id === 'opencl');
  assert.deepStrictEqual(lang.extensions, ['.cl']);
  assert.ok(fs.existsSync(path.join(root, lang.configuration)));
  const grammar = JSON.parse(read(pkg.contributes.grammars[0].path));
  assert.strictEqual(grammar.scopeName, pkg.contributes.grammars[0].scopeName);
  const props = pkg.contributes.configuration.properties;
  for (const key of ['lanes.server.path', 'lanes.target', 'lanes.defines', 'lanes.includePaths', 'lanes.diagnostics', 'lanes.trace.server']) {
    assert.ok(props[key], key);
  }
  const config = require(path.join(root, 'out', 'config.js'));
  assert.deepStrictEqual(props['lanes.target'].enum, config.TARGETS.map((t) => t.name));
  assert.deepStrictEqual(props['lanes.target'].enum, [
    'host', 'sse4-i32x4', 'sse4-i32x8', 'avx2-i32x8', 'avx2-i32x16', 'avx512skx-x8', 'avx512skx-x16', 'neon-i32x4',
  ]);
  assert.deepStrictEqual(pkg.contributes.semanticTokenModifiers.map((m) => m.id).sort(), ['uniform', 'varying']);
  assert.ok(fs.existsSync(path.join(root, pkg.main.replace(/^\.\//, ''))), `${pkg.main} (run npm run compile)`);
  // the client id 'lanes' is what makes lanes.trace.server work
  assert.match(read('src/extension.ts'), /new LanguageClient\('lanes',/);
});

test('language configuration: folding markers for #if/#endif', () => {
  const conf = JSON.parse(read('language-configuration.json'));
  const start = new RegExp(conf.folding.markers.start);
  const end = new RegExp(conf.folding.markers.end);
  for (const line of ['#if N > 4', '  #ifdef DEBUG', '# ifndef X', '#pragma region kernels']) {
    assert.ok(start.test(line), line);
  }
  for (const line of ['#endif', '  # endif // X', '#pragma endregion']) {
    assert.ok(end.test(line), line);
  }
  for (const line of ['#include "a.h"', '#else', 'int iff;']) {
    assert.ok(!start.test(line) && !end.test(line), line);
  }
  assert.deepStrictEqual(conf.comments, { lineComment: '//', blockComment: ['/*', '*/'] });
});

// ---------------------------------------------------------------------------
// Helpers of src/config.ts

test('config: options sent to the server', () => {
  const { buildOptions } = require(path.join(root, 'out', 'config.js'));
  assert.deepStrictEqual(buildOptions(() => undefined), {});
  const settings = {
    target: 'avx2-i32x8',
    defines: ['N=16', ' DEBUG ', '', 3],
    includePaths: ['${workspaceFolder}/include'],
    diagnostics: { L0202: 'information', L0300: 'off', L0201: 'loud' },
    launch: { globalSize: [1920, 1080], args: { width: 1920, bad: 'x' } },
  };
  const options = buildOptions((k) => settings[k], (s) => s.replace('${workspaceFolder}', '/ws'));
  assert.deepStrictEqual(options, {
    target: 'avx2-i32x8',
    defines: ['N=16', 'DEBUG'],
    includePaths: ['/ws/include'],
    diagnostics: { L0202: 'information', L0300: 'off' },
    launch: { globalSize: [1920, 1080], args: { width: 1920 } },
  });
});

test('config: lanes.toml target, paths, command arguments, result documents', () => {
  const c = require(path.join(root, 'out', 'config.js'));
  assert.strictEqual(c.tomlTarget('# lanes\ntarget = "neon-i32x4"  # phone\ndefines = ["N=4"]\n'), 'neon-i32x4');
  assert.strictEqual(c.tomlTarget("target='sse4-i32x4'"), 'sse4-i32x4');
  assert.strictEqual(c.tomlTarget('[diagnostics]\ntarget = "x"\n'), undefined);
  assert.strictEqual(c.expandPath('~/bin/lanes', '/home/u', undefined), '/home/u/bin/lanes');
  assert.strictEqual(c.expandPath('${workspaceFolder}/target/release/lanes', '/h', '/ws'), '/ws/target/release/lanes');
  assert.deepStrictEqual(c.commandTarget([]), {});
  assert.deepStrictEqual(c.commandTarget(['file:///a/k.cl', 'convolution']), { uri: 'file:///a/k.cl', kernel: 'convolution' });
  const fakeUri = { scheme: 'file', toString: () => 'file:///a/k.cl' };
  assert.deepStrictEqual(c.commandTarget([fakeUri, [fakeUri]]), { uri: 'file:///a/k.cl' });
  assert.strictEqual(c.resultPath('/src/convolution.cl', 'lanes.showVectorIR', 'llvm'), '/convolution.vector-ir.ll');
  assert.strictEqual(c.resultPath('/src/convolution.cl', 'lanes.showAsm', 'asm', 'convolution'), '/convolution.convolution.asm.s');
  assert.strictEqual(c.resultPath('C:\\k\\saxpy.cl', 'lanes.explain', 'plaintext'), '/saxpy.explain.txt');
  assert.deepStrictEqual(c.asTextResult({ text: 'x', language: 'asm' }), { text: 'x', language: 'asm' });
  assert.deepStrictEqual(c.asTextResult({ text: 'x' }), { text: 'x', language: 'plaintext' });
  assert.strictEqual(c.asTextResult(null), undefined);
  assert.deepStrictEqual(c.asBuildResult({ object: '/a/k.o', header: '/a/k.h' }), { object: '/a/k.o', header: '/a/k.h', warnings: [] });
  // lanes.build's warnings (L0103), one line each; anything else in the list is dropped
  const w = 'k.cl:7:5: warning[L0103]: loop not unrolled';
  assert.deepStrictEqual(c.asBuildResult({ object: 'k.o', warnings: [w, 3, null] }), { object: 'k.o', header: undefined, warnings: [w] });
  assert.strictEqual(c.asBuildResult({ header: 'k.h' }), undefined);
});

// ---------------------------------------------------------------------------
// The bundled extension in a fake VS Code, against a mock server

test('extension: activation, commands, settings and restart (fake VS Code, mock server)', require('./extension.test'));

// ---------------------------------------------------------------------------

(async () => {
  let passed = 0;
  let failed = 0;
  for (const { name, fn } of tests) {
    try {
      await fn();
      passed++;
    } catch (err) {
      failed++;
      console.error(`FAIL ${name}\n  ${String(err && err.stack ? err.stack : err).split('\n').slice(0, 4).join('\n  ')}`);
    }
  }
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed > 0 ? 1 : 0);
})();
