// The lanes extension: starts `lanes lsp`, passes the `lanes.*` settings to it,
// and adds the commands that show the server's results (vector IR, assembly,
// explanations, builds) and a status bar item for the SIMD target.

import { execFile } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import {
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  RevealOutputChannelOn,
  ServerOptions,
  State,
  TransportKind,
} from 'vscode-languageclient/node';
import {
  DEFAULT_TARGET,
  LanesOptions,
  SERVER_COMMANDS,
  ServerCommand,
  TARGETS,
  asBuildResult,
  asTextResult,
  buildOptions,
  commandTarget,
  expandPath,
  resultPath,
  tomlTarget,
} from './config';

const SCHEME = 'lanes';

const TITLES: Record<ServerCommand, string> = {
  'lanes.build': 'Build Object and Header',
  'lanes.showVectorIR': 'Show Vector IR',
  'lanes.showAsm': 'Show Assembly',
  'lanes.explain': 'Explain Kernel',
};

let client: LanguageClient | undefined;
let starting: Promise<LanguageClient | undefined> | undefined;
let clientDisposables: vscode.Disposable[] = [];
let output: vscode.OutputChannel;
let statusItem: vscode.StatusBarItem;
let serverProblem: string | undefined;

/** Read-only documents with the text the server returned, under the `lanes:` scheme. */
class ResultDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  set(uri: vscode.Uri, text: string): void {
    this.texts.set(uri.toString(), text);
    this.changed.fire(uri);
  }

  forget(uri: vscode.Uri): void {
    this.texts.delete(uri.toString());
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? '// This result is gone. Run the lanes command on the kernel again.\n';
  }

  dispose(): void {
    this.changed.dispose();
    this.texts.clear();
  }
}

const results = new ResultDocuments();

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel('lanes');
  statusItem = vscode.window.createStatusBarItem('lanes.target', vscode.StatusBarAlignment.Right, 100);
  statusItem.name = 'lanes target';
  statusItem.command = 'lanes.selectTarget';

  context.subscriptions.push(
    output,
    statusItem,
    results,
    vscode.workspace.registerTextDocumentContentProvider(SCHEME, results),
    vscode.workspace.onDidCloseTextDocument((doc) => {
      if (doc.uri.scheme === SCHEME) {
        results.forget(doc.uri);
      }
    }),
    vscode.commands.registerCommand('lanes.build', (...args: unknown[]) => build(args)),
    vscode.commands.registerCommand('lanes.showVectorIR', (...args: unknown[]) => showText('lanes.showVectorIR', args)),
    vscode.commands.registerCommand('lanes.showAsm', (...args: unknown[]) => showText('lanes.showAsm', args)),
    vscode.commands.registerCommand('lanes.explain', (...args: unknown[]) => showText('lanes.explain', args)),
    vscode.commands.registerCommand('lanes.selectTarget', () => selectTarget()),
    vscode.commands.registerCommand('lanes.restartServer', () => restartServer()),
    vscode.window.onDidChangeActiveTextEditor(() => updateStatus()),
    vscode.workspace.onDidChangeConfiguration((event) => onConfigurationChanged(event)),
  );

  const toml = vscode.workspace.createFileSystemWatcher('**/lanes.toml');
  context.subscriptions.push(toml, toml.onDidCreate(updateStatus), toml.onDidChange(updateStatus), toml.onDidDelete(updateStatus));

  updateStatus();
  await startClient();
}

export async function deactivate(): Promise<void> {
  await stopClient();
}

// ---------------------------------------------------------------------------
// The language client

function workspaceRoot(): string | undefined {
  const folder = vscode.workspace.workspaceFolders?.[0];
  return folder?.uri.scheme === 'file' ? folder.uri.fsPath : undefined;
}

/** The settings as the server sees them (see config.ts: only explicitly set keys). */
function currentOptions(): LanesOptions {
  const cfg = vscode.workspace.getConfiguration('lanes');
  return buildOptions(
    (key) => {
      const value = cfg.inspect(key);
      return value?.workspaceFolderValue ?? value?.workspaceValue ?? value?.globalValue;
    },
    (s) => expandPath(s, os.homedir(), workspaceRoot()),
  );
}

function isExecutableFile(file: string): boolean {
  try {
    const stat = fs.statSync(file);
    if (!stat.isFile()) {
      return false;
    }
    if (process.platform !== 'win32') {
      fs.accessSync(file, fs.constants.X_OK);
    }
    return true;
  } catch {
    return false;
  }
}

function findOnPath(name: string): string | undefined {
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter((d) => d !== '');
  const exts = process.platform === 'win32' ? ['', ...(process.env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';')] : [''];
  for (const dir of dirs) {
    for (const ext of exts) {
      const candidate = path.join(dir, name + ext);
      if (isExecutableFile(candidate)) {
        return candidate;
      }
    }
  }
  return undefined;
}

/** The `lanes` binary to run, or why there is none. */
function serverExecutable(): { path?: string; problem?: string } {
  const setting = vscode.workspace.getConfiguration('lanes').get<string>('server.path') || 'lanes';
  const root = workspaceRoot();
  let file = expandPath(setting, os.homedir(), root);
  if (!file.includes('/') && !file.includes('\\')) {
    const found = findOnPath(file);
    return found ? { path: found } : { problem: `\`${file}\` was not found on PATH` };
  }
  if (!path.isAbsolute(file)) {
    if (root === undefined) {
      return { problem: `the relative path \`${file}\` needs an open folder` };
    }
    file = path.resolve(root, file);
  }
  return isExecutableFile(file) ? { path: file } : { problem: `\`${file}\` does not exist or is not executable` };
}

/**
 * Runs `<exe> --version`: undefined when it answers as lanes, otherwise
 * what went wrong. A binary that cannot start (a shared library missing, the
 * wrong architecture) would otherwise only show as "write EPIPE" from
 * vscode-languageclient; this shows the loader's own message.
 */
function checkServer(exe: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(exe, ['--version'], { timeout: 20000 }, (err, stdout, stderr) => {
      if (err) {
        const lines = String(stderr).trim().split('\n').filter((l) => l.trim() !== '');
        const why = lines.slice(-3).join(' ') || err.message;
        const code = (err as { code?: unknown }).code;
        const how = err.killed ? 'no answer in 20 s' : typeof code === 'number' ? `exit status ${code}` : String(code ?? 'failed');
        resolve(`\`${exe} --version\` failed (${how}): ${why}`);
      } else if (!String(stdout).startsWith('lanes ')) {
        resolve(`\`${exe}\` is not lanes: \`--version\` printed "${String(stdout).trim().slice(0, 80)}"`);
      } else {
        resolve(undefined);
      }
    });
  });
}

/**
 * vscode-languageclient registers a VS Code command for every command the
 * server lists in `executeCommandProvider`. The four lanes commands are
 * registered by this extension instead (they show the results), so the
 * client must not register them a second time: VS Code rejects a duplicate
 * command id and the client would fail to start.
 */
function leaveCommandsToExtension(languageClient: LanguageClient): void {
  type Registration = { id: string; registerOptions: { commands?: string[] } };
  const getFeature = (languageClient as unknown as { getFeature(method: string): unknown }).getFeature;
  const feature = getFeature.call(languageClient, ExecuteCommandRequest.method) as
    | { register(data: Registration): void }
    | undefined;
  if (feature === undefined || typeof feature.register !== 'function') {
    return;
  }
  const register = feature.register.bind(feature);
  feature.register = (data: Registration) => {
    const ours = new Set<string>(SERVER_COMMANDS);
    const commands = (data.registerOptions.commands ?? []).filter((command) => !ours.has(command));
    register({ ...data, registerOptions: { ...data.registerOptions, commands } });
  };
}

async function startClient(): Promise<LanguageClient | undefined> {
  if (client !== undefined) {
    return client;
  }
  if (starting !== undefined) {
    return starting;
  }
  starting = (async () => {
    const exe = serverExecutable();
    if (exe.path === undefined) {
      serverProblem = `cannot start the lanes language server: ${exe.problem}`;
      output.appendLine(serverProblem);
      updateStatus();
      void vscode.window
        .showErrorMessage(
          `lanes: ${exe.problem}. Build lanes with \`cargo build --release\` and set \`lanes.server.path\` to target/release/lanes.`,
          'Open Settings',
        )
        .then((choice) => {
          if (choice === 'Open Settings') {
            void vscode.commands.executeCommand('workbench.action.openSettings', 'lanes.server.path');
          }
        });
      return undefined;
    }
    const broken = await checkServer(exe.path);
    if (broken !== undefined) {
      serverProblem = `cannot start the lanes language server: ${broken}`;
      output.appendLine(serverProblem);
      updateStatus();
      void vscode.window.showErrorMessage(`lanes: ${broken}`, 'Show Output', 'Open Settings').then((choice) => {
        if (choice === 'Show Output') {
          output.show(true);
        } else if (choice === 'Open Settings') {
          void vscode.commands.executeCommand('workbench.action.openSettings', 'lanes.server.path');
        }
      });
      return undefined;
    }
    const root = workspaceRoot();
    const serverOptions: ServerOptions = {
      command: exe.path,
      args: ['lsp'],
      transport: TransportKind.stdio,
      options: root !== undefined ? { cwd: root } : {},
    };
    const watcher = vscode.workspace.createFileSystemWatcher('**/lanes.toml');
    const clientOptions: LanguageClientOptions = {
      documentSelector: [
        { scheme: 'file', language: 'opencl' },
        { scheme: 'untitled', language: 'opencl' },
      ],
      initializationOptions: currentOptions(),
      outputChannel: output,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      synchronize: { fileEvents: watcher },
      middleware: {
        workspace: {
          // A server that pulls `workspace/configuration` for section
          // `lanes` gets the same object as initializationOptions.
          configuration: async (params, token, next) => {
            const answer = await next(params, token);
            if (!Array.isArray(answer)) {
              return answer;
            }
            return params.items.map((item, i) => (item.section === 'lanes' ? currentOptions() : answer[i]));
          },
        },
      },
    };
    const languageClient = new LanguageClient('lanes', 'lanes', serverOptions, clientOptions);
    leaveCommandsToExtension(languageClient);
    clientDisposables = [
      watcher,
      languageClient.onDidChangeState((event) => {
        if (event.newState === State.Running) {
          serverProblem = undefined;
        } else if (event.newState === State.Stopped) {
          serverProblem = 'the lanes language server is not running (see the "lanes" output)';
        }
        updateStatus();
      }),
    ];
    output.appendLine(`starting ${exe.path} lsp`);
    try {
      await languageClient.start();
      client = languageClient;
      serverProblem = undefined;
      return languageClient;
    } catch (err) {
      serverProblem = `the lanes language server failed to start: ${errorText(err)}`;
      output.appendLine(serverProblem);
      disposeAll(clientDisposables);
      clientDisposables = [];
      void languageClient.dispose().catch(() => undefined);
      void vscode.window.showErrorMessage(`lanes: ${serverProblem}`, 'Show Output').then((choice) => {
        if (choice === 'Show Output') {
          output.show(true);
        }
      });
      return undefined;
    } finally {
      updateStatus();
    }
  })();
  try {
    return await starting;
  } finally {
    starting = undefined;
  }
}

async function stopClient(): Promise<void> {
  if (starting !== undefined) {
    await starting;
  }
  const old = client;
  client = undefined;
  disposeAll(clientDisposables);
  clientDisposables = [];
  if (old !== undefined) {
    try {
      await old.dispose(2000);
    } catch (err) {
      output.appendLine(`stopping the server: ${errorText(err)}`);
    }
  }
}

async function restartServer(): Promise<void> {
  await stopClient();
  await startClient();
}

function disposeAll(disposables: vscode.Disposable[]): void {
  for (const d of disposables) {
    d.dispose();
  }
}

async function onConfigurationChanged(event: vscode.ConfigurationChangeEvent): Promise<void> {
  if (!event.affectsConfiguration('lanes')) {
    return;
  }
  updateStatus();
  if (event.affectsConfiguration('lanes.server.path')) {
    await restartServer();
    return;
  }
  if (client?.isRunning()) {
    await client.sendNotification(DidChangeConfigurationNotification.type, { settings: { lanes: currentOptions() } });
  }
}

// ---------------------------------------------------------------------------
// Commands

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Sends `workspace/executeCommand` for the file (and kernel) the command is about. */
async function execute(command: ServerCommand, args: unknown[]): Promise<{ uri: string; kernel?: string; result: unknown } | undefined> {
  const target = commandTarget(args);
  let uri = target.uri;
  if (uri === undefined) {
    const editor = vscode.window.activeTextEditor;
    if (editor === undefined || editor.document.languageId !== 'opencl') {
      void vscode.window.showWarningMessage(`lanes: ${TITLES[command]} needs an OpenCL C (.cl) file in the active editor.`);
      return undefined;
    }
    uri = editor.document.uri.toString();
  }
  if (client !== undefined && client.state === State.Stopped) {
    // the server died (and the client gave up restarting it): try once more
    await restartServer();
  }
  const languageClient = await startClient();
  if (languageClient === undefined) {
    void vscode.window.showErrorMessage(`lanes: ${serverProblem ?? 'the language server is not running'}.`);
    return undefined;
  }
  const commandArguments = target.kernel !== undefined ? [uri, target.kernel] : [uri];
  try {
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: `lanes: ${TITLES[command]}` },
      () => languageClient.sendRequest(ExecuteCommandRequest.type, { command, arguments: commandArguments }),
    );
    return { uri, kernel: target.kernel, result };
  } catch (err) {
    void vscode.window.showErrorMessage(`lanes: ${TITLES[command]} failed: ${errorText(err)}`);
    return undefined;
  }
}

/** showVectorIR, showAsm, explain: the returned text in a read-only document beside the editor. */
async function showText(command: ServerCommand, args: unknown[]): Promise<void> {
  const reply = await execute(command, args);
  if (reply === undefined) {
    return;
  }
  const result = asTextResult(reply.result);
  if (result === undefined) {
    void vscode.window.showErrorMessage(`lanes: ${TITLES[command]}: the server sent no text.`);
    return;
  }
  const source = vscode.Uri.parse(reply.uri);
  const uri = vscode.Uri.from({
    scheme: SCHEME,
    path: resultPath(source.path, command, result.language, reply.kernel),
    query: source.toString(),
  });
  results.set(uri, result.text);
  let doc = await vscode.workspace.openTextDocument(uri);
  if (doc.languageId !== result.language && (await vscode.languages.getLanguages()).includes(result.language)) {
    doc = await vscode.languages.setTextDocumentLanguage(doc, result.language);
  }
  await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, preview: true, preserveFocus: true });
}

/** lanes.build: a notification naming the object and header, with "Reveal in Explorer". */
async function build(args: unknown[]): Promise<void> {
  const reply = await execute('lanes.build', args);
  if (reply === undefined) {
    return;
  }
  const result = asBuildResult(reply.result);
  if (result === undefined) {
    void vscode.window.showErrorMessage('lanes: Build: the server did not say which files it wrote.');
    return;
  }
  const source = vscode.Uri.parse(reply.uri);
  const sourceDir = source.scheme === 'file' ? path.dirname(source.fsPath) : (workspaceRoot() ?? process.cwd());
  const absolute = (p: string) => (path.isAbsolute(p) ? p : path.resolve(sourceDir, p));
  const object = vscode.Uri.file(absolute(result.object));
  const header = result.header !== undefined ? vscode.Uri.file(absolute(result.header)) : undefined;
  const names = [object, header].filter((u): u is vscode.Uri => u !== undefined).map((u) => vscode.workspace.asRelativePath(u));
  output.appendLine(`built ${names.join(', ')}`);
  for (const w of result.warnings) {
    output.appendLine(w);
  }
  if (result.warnings.length > 0) {
    // not awaited, as below
    const more = result.warnings.length > 1 ? ` (and ${result.warnings.length - 1} more in the lanes output)` : '';
    void vscode.window.showWarningMessage(`lanes: ${result.warnings[0]}${more}`);
  }
  const actions = header !== undefined ? ['Reveal in Explorer', 'Open Header'] : ['Reveal in Explorer'];
  // not awaited: the command is done when the files are written, not when the notification closes
  void vscode.window.showInformationMessage(`lanes: built ${names.join(' and ')}`, ...actions).then(async (choice) => {
    if (choice === 'Reveal in Explorer') {
      const inWorkspace = vscode.workspace.getWorkspaceFolder(object) !== undefined;
      await vscode.commands.executeCommand(inWorkspace ? 'revealInExplorer' : 'revealFileInOS', object);
    } else if (choice === 'Open Header' && header !== undefined) {
      await vscode.window.showTextDocument(header, { viewColumn: vscode.ViewColumn.Beside, preview: true });
    }
  });
}

// ---------------------------------------------------------------------------
// Target: status bar item and quick pick

/** The target in effect and where it comes from. */
function effectiveTarget(): { name: string; source: string } {
  const inspected = vscode.workspace.getConfiguration('lanes').inspect<string>('target');
  const explicit = inspected?.workspaceFolderValue ?? inspected?.workspaceValue ?? inspected?.globalValue;
  if (explicit) {
    return { name: explicit, source: 'setting lanes.target' };
  }
  const root = workspaceRoot();
  if (root !== undefined) {
    try {
      const fromToml = tomlTarget(fs.readFileSync(path.join(root, 'lanes.toml'), 'utf8'));
      if (fromToml) {
        return { name: fromToml, source: 'lanes.toml' };
      }
    } catch {
      // no lanes.toml
    }
  }
  return { name: DEFAULT_TARGET, source: 'default' };
}

function updateStatus(): void {
  if (statusItem === undefined) {
    return;
  }
  const target = effectiveTarget();
  statusItem.text = `lanes: ${target.name}`;
  const tooltip = new vscode.MarkdownString(`SIMD target **${target.name}** (from ${target.source}). Click to change.`);
  if (serverProblem !== undefined) {
    tooltip.appendMarkdown(`\n\n$(warning) ${serverProblem}`);
    tooltip.supportThemeIcons = true;
    statusItem.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
  } else {
    statusItem.backgroundColor = undefined;
  }
  statusItem.tooltip = tooltip;
  if (vscode.window.activeTextEditor?.document.languageId === 'opencl') {
    statusItem.show();
  } else {
    statusItem.hide();
  }
}

async function selectTarget(): Promise<void> {
  const current = effectiveTarget();
  const items: vscode.QuickPickItem[] = TARGETS.map((t) => ({
    label: t.name,
    description: t.name === current.name ? `${t.description} · current` : t.description,
  }));
  const picked = await vscode.window.showQuickPick(items, {
    title: 'lanes: SIMD target',
    placeHolder: `Current target: ${current.name} (from ${current.source})`,
  });
  if (picked === undefined) {
    return;
  }
  const where = vscode.workspace.workspaceFolders?.length
    ? vscode.ConfigurationTarget.Workspace
    : vscode.ConfigurationTarget.Global;
  // the configuration listener sends the change to the server and updates the status bar
  await vscode.workspace.getConfiguration('lanes').update('target', picked.label, where);
}
