// Pure helpers of the extension: no `vscode` import here, so that
// test/run.js can load the compiled module in plain Node.

/** Targets in ISPC's spelling; the width is the number at the end of the name. */
export const TARGETS: ReadonlyArray<{ name: string; description: string }> = [
  { name: 'host', description: 'best target of this machine' },
  { name: 'sse4-i32x4', description: 'SSE4.2 · 4 lanes' },
  { name: 'sse4-i32x8', description: 'SSE4.2 · 8 lanes' },
  { name: 'avx2-i32x8', description: 'AVX2 · 8 lanes' },
  { name: 'avx2-i32x16', description: 'AVX2 · 16 lanes' },
  { name: 'avx512skx-x8', description: 'AVX-512 · 8 lanes' },
  { name: 'avx512skx-x16', description: 'AVX-512 · 16 lanes' },
  { name: 'neon-i32x4', description: 'NEON · 4 lanes' },
];

export const DEFAULT_TARGET = 'host';

/** Severities a diagnostic code can be given (`lanes.diagnostics`). */
export const SEVERITIES = ['warning', 'information', 'hint', 'off'] as const;

/** The commands the server executes (`workspace/executeCommand`). */
export const SERVER_COMMANDS = ['lanes.build', 'lanes.showVectorIR', 'lanes.showAsm', 'lanes.explain'] as const;
export type ServerCommand = (typeof SERVER_COMMANDS)[number];

/**
 * What the server receives as `initializationOptions` and as
 * `settings.lanes` of `workspace/didChangeConfiguration`. Every key is
 * optional: a key is absent when the user did not set it in VS Code, so that
 * the server falls back to `lanes.toml` and then to its defaults.
 */
export interface LanesOptions {
  target?: string;
  defines?: string[];
  includePaths?: string[];
  diagnostics?: Record<string, string>;
  launch?: { globalSize?: number[]; args?: Record<string, number> };
  preconditions?: { enabled?: boolean; targetBudget?: number; fileBudget?: number };
}

/**
 * Builds the options object from the explicitly set values of the `lanes.*`
 * settings. `explicit(key)` returns the value the user set (workspace folder,
 * workspace or user settings) or `undefined` when the default applies.
 * Values of the wrong shape are dropped rather than sent.
 */
export function buildOptions(explicit: (key: string) => unknown, expand: (s: string) => string = (s) => s): LanesOptions {
  const options: LanesOptions = {};
  const target = explicit('target');
  if (typeof target === 'string' && target.trim() !== '') {
    options.target = target.trim();
  }
  const defines = stringArray(explicit('defines'));
  if (defines) {
    options.defines = defines;
  }
  const includePaths = stringArray(explicit('includePaths'));
  if (includePaths) {
    options.includePaths = includePaths.map(expand);
  }
  const diagnostics = explicit('diagnostics');
  if (isPlainObject(diagnostics)) {
    const out: Record<string, string> = {};
    for (const [code, severity] of Object.entries(diagnostics)) {
      if (typeof severity === 'string' && (SEVERITIES as readonly string[]).includes(severity)) {
        out[code] = severity;
      }
    }
    options.diagnostics = out;
  }
  const launch = explicit('launch');
  if (isPlainObject(launch)) {
    const out: NonNullable<LanesOptions['launch']> = {};
    const globalSize = launch['globalSize'];
    if (Array.isArray(globalSize) && globalSize.every((n) => Number.isInteger(n) && n > 0)) {
      out.globalSize = globalSize as number[];
    }
    const args = launch['args'];
    if (isPlainObject(args)) {
      const numeric: Record<string, number> = {};
      for (const [name, value] of Object.entries(args)) {
        if (typeof value === 'number' && Number.isFinite(value)) {
          numeric[name] = value;
        }
      }
      out.args = numeric;
    }
    options.launch = out;
  }
  const preconditions = explicit('preconditions');
  if (isPlainObject(preconditions)) {
    const out: NonNullable<LanesOptions['preconditions']> = {};
    if (typeof preconditions['enabled'] === 'boolean') {
      out.enabled = preconditions['enabled'];
    }
    for (const key of ['targetBudget', 'fileBudget'] as const) {
      const budget = preconditions[key];
      if (typeof budget === 'number' && Number.isInteger(budget) && budget > 0) {
        out[key] = budget;
      }
    }
    options.preconditions = out;
  }
  return options;
}

function stringArray(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) {
    return undefined;
  }
  return value.filter((v): v is string => typeof v === 'string' && v.trim() !== '').map((v) => v.trim());
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The `target = "..."` of a `lanes.toml` (top level, before any table), or
 * undefined. Only used to label the status bar item; the server reads the
 * file itself.
 */
export function tomlTarget(text: string): string | undefined {
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line.startsWith('[')) {
      return undefined;
    }
    const m = /^target\s*=\s*(?:"([^"]*)"|'([^']*)')\s*(?:#.*)?$/.exec(line);
    if (m) {
      return m[1] ?? m[2];
    }
  }
  return undefined;
}

/** Expands `~` and `${workspaceFolder}` in a path setting. */
export function expandPath(value: string, home: string, workspaceFolder: string | undefined): string {
  let out = value.trim();
  if (out === '~' || out.startsWith('~/')) {
    out = home + out.slice(1);
  }
  if (workspaceFolder !== undefined) {
    out = out.split('${workspaceFolder}').join(workspaceFolder);
  }
  return out;
}

/** Arguments of a client command: from a code lens `[uri, kernel]`, a menu (a Uri object) or nothing. */
export interface CommandTarget {
  uri?: string;
  kernel?: string;
}

export function commandTarget(args: unknown[]): CommandTarget {
  const target: CommandTarget = {};
  const [first, second] = args;
  if (typeof first === 'string') {
    target.uri = first;
  } else if (typeof first === 'object' && first !== null && typeof (first as { scheme?: unknown }).scheme === 'string') {
    // a vscode.Uri, passed by the editor context menu
    target.uri = String(first);
  }
  if (typeof second === 'string' && second !== '') {
    target.kernel = second;
  }
  return target;
}

/** Language of a result document and the file extension that gives it that language. */
const EXTENSIONS: Record<string, string> = { llvm: 'll', asm: 's', plaintext: 'txt' };

const KINDS: Record<string, string> = {
  'lanes.showVectorIR': 'vector-ir',
  'lanes.showAsm': 'asm',
  'lanes.explain': 'explain',
};

/**
 * Path of the read-only document that shows the result of `command` on the
 * file `sourcePath`, e.g. `/convolution.vector-ir.ll` or
 * `/convolution.convolution.asm.s` for one kernel. The tab shows its base name.
 */
export function resultPath(sourcePath: string, command: string, language: string | undefined, kernel?: string): string {
  const base = sourcePath.replace(/^.*[\\/]/, '').replace(/\.cl$/i, '') || 'kernel';
  const kind = KINDS[command] ?? command.replace(/^lanes\./, '');
  const ext = EXTENSIONS[language ?? 'plaintext'] ?? 'txt';
  const parts = [base];
  if (kernel) {
    parts.push(kernel);
  }
  parts.push(kind, ext);
  return '/' + parts.join('.');
}

/** `{text, language}` as returned by showVectorIR, showAsm and explain. */
export interface TextResult {
  text: string;
  language: string;
}

export function asTextResult(value: unknown): TextResult | undefined {
  if (typeof value === 'object' && value !== null && typeof (value as TextResult).text === 'string') {
    const language = (value as { language?: unknown }).language;
    return { text: (value as TextResult).text, language: typeof language === 'string' ? language : 'plaintext' };
  }
  if (typeof value === 'string') {
    return { text: value, language: 'plaintext' };
  }
  return undefined;
}

/** `{object, header, warnings}` as returned by `lanes.build`; each warning one line, `FILE:LINE:COL: warning[L0103]: ...`. */
export interface BuildResult {
  object: string;
  header?: string;
  warnings: string[];
}

export function asBuildResult(value: unknown): BuildResult | undefined {
  if (typeof value === 'object' && value !== null && typeof (value as BuildResult).object === 'string') {
    const header = (value as { header?: unknown }).header;
    const warnings = (value as { warnings?: unknown }).warnings;
    return {
      object: (value as BuildResult).object,
      header: typeof header === 'string' ? header : undefined,
      warnings: Array.isArray(warnings) ? warnings.filter((w): w is string => typeof w === 'string') : [],
    };
  }
  return undefined;
}
