// A small stand-in for the `vscode` module, enough to activate the bundled
// extension in plain Node and drive it against a mock server: a real command
// registry (rejecting duplicate ids, as VS Code does), settings with
// inspect/update and change events, documents, content providers, messages.
// Everything else is a permissive placeholder.
'use strict';

const path = require('path');

// -- placeholders -----------------------------------------------------------

function anything() {
  const cache = new Map();
  const target = function () {};
  return new Proxy(target, {
    get(_t, prop) {
      if (prop === 'then') return undefined; // never a promise
      if (prop === Symbol.iterator) return function* () {};
      if (prop === Symbol.toPrimitive) return () => '';
      if (prop === 'dispose') return () => undefined;
      if (!cache.has(prop)) cache.set(prop, anything());
      return cache.get(prop);
    },
    apply() {
      return anything();
    },
    construct() {
      return anything();
    },
  });
}

const classes = new Map();
function genericClass(name) {
  if (!classes.has(name)) {
    const C = class {
      constructor(...args) {
        this.args = args;
      }
    };
    Object.defineProperty(C, 'name', { value: name });
    classes.set(name, C);
  }
  return classes.get(name);
}

/** Real members first; unknown capitalized names become classes, others placeholders. */
function permissive(real) {
  return new Proxy(real, {
    get(t, prop) {
      if (prop in t) return t[prop];
      if (typeof prop === 'string' && /^[A-Z]/.test(prop)) return genericClass(prop);
      if (typeof prop === 'string' && prop.startsWith('onDid')) return () => new Disposable(() => undefined);
      if (typeof prop === 'string' && prop.startsWith('onWill')) return () => new Disposable(() => undefined);
      return anything();
    },
  });
}

// -- basic types ------------------------------------------------------------

class Disposable {
  constructor(fn) {
    this.fn = fn;
  }
  static from(...items) {
    return new Disposable(() => items.forEach((d) => d && d.dispose && d.dispose()));
  }
  dispose() {
    if (this.fn) this.fn();
    this.fn = undefined;
  }
}

class EventEmitter {
  constructor() {
    this.listeners = new Set();
    this.event = (listener, thisArg) => {
      const fn = thisArg ? listener.bind(thisArg) : listener;
      this.listeners.add(fn);
      return new Disposable(() => this.listeners.delete(fn));
    };
  }
  fire(value) {
    for (const l of [...this.listeners]) l(value);
  }
  dispose() {
    this.listeners.clear();
  }
}

class Uri {
  constructor(scheme, authority, p, query, fragment) {
    this.scheme = scheme;
    this.authority = authority || '';
    this.path = p || '/';
    this.query = query || '';
    this.fragment = fragment || '';
  }
  static file(p) {
    return new Uri('file', '', p);
  }
  static parse(s) {
    const m = /^([a-zA-Z][\w+.-]*):(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/.exec(s);
    if (!m) throw new Error('bad uri ' + s);
    return new Uri(m[1], m[2], decodeURIComponent(m[3]), m[4] ? decodeURIComponent(m[4]) : '', m[5] || '');
  }
  static from(c) {
    return new Uri(c.scheme, c.authority, c.path, c.query, c.fragment);
  }
  get fsPath() {
    return this.path;
  }
  with(change) {
    return new Uri(change.scheme ?? this.scheme, change.authority ?? this.authority, change.path ?? this.path, change.query ?? this.query, change.fragment ?? this.fragment);
  }
  toString() {
    const auth = this.scheme === 'file' || this.authority ? '//' + this.authority : '';
    const q = this.query ? '?' + encodeURIComponent(this.query) : '';
    return `${this.scheme}:${auth}${encodeURI(this.path)}${q}`;
  }
  toJSON() {
    return this.toString();
  }
}

class Position {
  constructor(line, character) {
    this.line = line;
    this.character = character;
  }
}
class Range {
  constructor(a, b, c, d) {
    if (typeof a === 'number') {
      this.start = new Position(a, b);
      this.end = new Position(c, d);
    } else {
      this.start = a;
      this.end = b;
    }
  }
}
class MarkdownString {
  constructor(value = '') {
    this.value = value;
  }
  appendMarkdown(s) {
    this.value += s;
    return this;
  }
  appendText(s) {
    this.value += s;
    return this;
  }
}
class ThemeColor {
  constructor(id) {
    this.id = id;
  }
}
class Diagnostic {
  constructor(range, message, severity) {
    this.range = range;
    this.message = message;
    this.severity = severity;
  }
}

class CancellationTokenSource {
  constructor() {
    const emitter = new EventEmitter();
    this.emitter = emitter;
    this.token = { isCancellationRequested: false, onCancellationRequested: emitter.event };
  }
  cancel() {
    this.token.isCancellationRequested = true;
    this.emitter.fire();
  }
  dispose() {
    this.emitter.dispose();
  }
}

// -- the fake workbench -------------------------------------------------------

const state = {
  commands: new Map(),
  executed: [],
  messages: [],
  shown: [],
  output: [],
  diagnostics: new Map(),
  contentProviders: new Map(),
  documents: [],
  settings: {},
  quickPickChoice: undefined,
  statusItems: [],
};

const configEmitter = new EventEmitter();
const openEmitter = new EventEmitter();
const closeEmitter = new EventEmitter();

function makeDocument(uri, text, languageId) {
  return {
    uri,
    fileName: uri.fsPath,
    languageId,
    version: 1,
    isClosed: false,
    isDirty: false,
    isUntitled: false,
    lineCount: text.split('\n').length,
    getText: () => text,
    eol: 1,
  };
}

function languageOf(p) {
  const ext = path.extname(p);
  return { '.cl': 'opencl', '.ll': 'llvm', '.s': 'asm', '.txt': 'plaintext' }[ext] || 'plaintext';
}

function configuration(section) {
  const full = (key) => (section ? `${section}.${key}` : key);
  return {
    get(key, dflt) {
      const v = state.settings[full(key)];
      return v === undefined ? dflt : v;
    },
    has(key) {
      return state.settings[full(key)] !== undefined;
    },
    inspect(key) {
      return { key: full(key), globalValue: undefined, workspaceValue: state.settings[full(key)], workspaceFolderValue: undefined };
    },
    async update(key, value) {
      state.settings[full(key)] = value;
      const changed = full(key);
      configEmitter.fire({ affectsConfiguration: (s) => changed === s || changed.startsWith(s + '.') });
    },
  };
}

const commands = permissive({
  registerCommand(id, fn) {
    if (state.commands.has(id)) throw new Error(`command '${id}' already exists`);
    state.commands.set(id, fn);
    return new Disposable(() => state.commands.delete(id));
  },
  async executeCommand(id, ...args) {
    state.executed.push({ id, args });
    const fn = state.commands.get(id);
    return fn ? fn(...args) : undefined;
  },
  async getCommands() {
    return [...state.commands.keys()];
  },
});

function message(kind) {
  return async (text, ...items) => {
    state.messages.push({ kind, text, items: items.filter((i) => typeof i === 'string') });
    return undefined;
  };
}

const window = permissive({
  activeTextEditor: undefined,
  visibleTextEditors: [],
  tabGroups: permissive({ all: [] }),
  createOutputChannel(name) {
    return permissive({
      name,
      append: (s) => state.output.push(s),
      appendLine: (s) => state.output.push(s),
      show() {},
      hide() {},
      clear() {},
      replace() {},
      dispose() {},
    });
  },
  createStatusBarItem() {
    const item = { text: '', visible: false, show() { this.visible = true; }, hide() { this.visible = false; }, dispose() {} };
    state.statusItems.push(item);
    return item;
  },
  showErrorMessage: message('error'),
  showWarningMessage: message('warning'),
  showInformationMessage: message('information'),
  async withProgress(_options, task) {
    return task({ report() {} }, { isCancellationRequested: false, onCancellationRequested: () => new Disposable() });
  },
  async showTextDocument(docOrUri, options) {
    state.shown.push({ doc: docOrUri, options });
    return { document: docOrUri };
  },
  async showQuickPick(items) {
    return items.find((i) => i.label === state.quickPickChoice);
  },
  onDidChangeActiveTextEditor: () => new Disposable(),
});

const workspace = permissive({
  workspaceFolders: undefined,
  get textDocuments() {
    return state.documents;
  },
  getConfiguration: configuration,
  onDidChangeConfiguration: configEmitter.event,
  onDidOpenTextDocument: openEmitter.event,
  onDidCloseTextDocument: closeEmitter.event,
  registerTextDocumentContentProvider(scheme, provider) {
    state.contentProviders.set(scheme, provider);
    return new Disposable(() => state.contentProviders.delete(scheme));
  },
  async openTextDocument(uri) {
    const provider = state.contentProviders.get(uri.scheme);
    const text = provider ? provider.provideTextDocumentContent(uri) : '';
    const doc = makeDocument(uri, text, languageOf(uri.path));
    return doc;
  },
  createFileSystemWatcher() {
    return permissive({ onDidCreate: () => new Disposable(), onDidChange: () => new Disposable(), onDidDelete: () => new Disposable(), dispose() {} });
  },
  asRelativePath(u) {
    const p = typeof u === 'string' ? u : u.fsPath;
    const root = workspace.workspaceFolders && workspace.workspaceFolders[0].uri.fsPath;
    return root && p.startsWith(root + '/') ? p.slice(root.length + 1) : p;
  },
  getWorkspaceFolder(u) {
    const root = workspace.workspaceFolders && workspace.workspaceFolders[0];
    return root && u.fsPath.startsWith(root.uri.fsPath + '/') ? root : undefined;
  },
  isTrusted: true,
});

const languages = permissive({
  match(selector, doc) {
    const list = Array.isArray(selector) ? selector : [selector];
    return list.some((s) => (typeof s === 'string' ? s === doc.languageId : (!s.language || s.language === doc.languageId) && (!s.scheme || s.scheme === doc.uri.scheme))) ? 10 : 0;
  },
  createDiagnosticCollection(name) {
    return permissive({
      name,
      set(uri, diags) {
        state.diagnostics.set(String(uri), diags);
      },
      delete(uri) {
        state.diagnostics.delete(String(uri));
      },
      clear() {
        state.diagnostics.clear();
      },
      dispose() {},
      forEach() {},
    });
  },
  async getLanguages() {
    return ['plaintext', 'opencl', 'c'];
  },
  async setTextDocumentLanguage(doc, languageId) {
    return { ...doc, languageId };
  },
});

module.exports = permissive({
  version: '1.85.0',
  env: permissive({ language: 'en', appName: 'fake', machineId: 'x', sessionId: 'y', uriScheme: 'vscode' }),
  commands,
  window,
  workspace,
  languages,
  Uri,
  Disposable,
  EventEmitter,
  Position,
  Range,
  MarkdownString,
  ThemeColor,
  Diagnostic,
  CancellationTokenSource,
  DiagnosticSeverity: { Error: 0, Warning: 1, Information: 2, Hint: 3 },
  StatusBarAlignment: { Left: 1, Right: 2 },
  ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
  ViewColumn: { Active: -1, Beside: -2, One: 1, Two: 2 },
  ConfigurationTarget: { Global: 1, Workspace: 2, WorkspaceFolder: 3 },
  // for the test
  __state: state,
  __makeDocument: makeDocument,
  __openDocument(doc) {
    state.documents.push(doc);
    openEmitter.fire(doc);
  },
});
