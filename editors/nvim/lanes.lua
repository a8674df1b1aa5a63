-- lanes.lua: the lanes language server (`lanes lsp`) in Neovim 0.7 and later.
--
-- Neovim 0.11 and later: prefer lanes-0.11.lua (vim.lsp.config, native inlay hints).
--
-- Install: copy this file to ~/.config/nvim/lua/lanes.lua and call, in init.lua,
--
--   require('lanes').setup({
--     cmd = { '/path/to/lanes/target/release/lanes', 'lsp' },  -- default: `lanes lsp` from PATH
--     settings = { target = 'avx2-i32x8', defines = { 'N=16' } },
--   })
--
-- or load it in place: dofile('/path/to/lanes/editors/nvim/lanes.lua').setup({ ... }).
--
-- What it does:
--   * `*.cl` files get the filetype `opencl` (Neovim's default is lisp);
--   * on FileType opencl it starts one `lanes lsp` per project root (the nearest
--     directory with lanes.toml, else with .git, else the file's directory)
--     and attaches the buffer;
--   * `settings` (every key of docs/editors.md section 2) go to the server as
--     initializationOptions and answer `workspace/configuration`; :LanesTarget
--     changes the target at run time (workspace/didChangeConfiguration);
--   * inlay hints (shapes, access kinds) are requested with textDocument/inlayHint
--     and shown as virtual text at the end of the line (Neovim 0.10+: natively);
--   * code lenses (`SIMD x16 avx512 · ... · Build`) are shown and refreshed; run
--     the one on the cursor line with :LanesCodeLens or vim.lsp.codelens.run();
--   * :LanesBuild, :LanesVectorIR, :LanesAsm, :LanesExplain [kernel] run the
--     server's commands on the current file and show the text in a scratch split
--     (q closes it); :LanesRestart restarts the server.
--   * K shows the hover (shape and why) unless K is already mapped in the buffer.

local M = {}

local api = vim.api

local TARGETS = {
  'host', 'sse4-i32x4', 'sse4-i32x8', 'avx2-i32x8', 'avx2-i32x16', 'avx512skx-x8', 'avx512skx-x16', 'neon-i32x4',
}
M.targets = TARGETS
-- Every key the server reads (lsp/src/config.rs; docs/editors.md, section 2).
local SETTINGS = {
  'target', 'width', 'defines', 'includePaths', 'diagnostics', 'specialize', 'outDir', 'preconditions', 'launch',
  'catalogueUrl',
}

local defaults = {
  -- the server command; a string is taken as the path of the lanes binary
  cmd = { 'lanes', 'lsp' },
  -- initializationOptions: target, width, defines, includePaths, diagnostics, specialize,
  -- outDir, preconditions, launch, catalogueUrl (docs/editors.md, section 2)
  settings = {},
  root_markers = { 'lanes.toml', '.git' },
  inlay_hints = true,
  codelens = true,
  keymaps = true,
  -- function(client, bufnr) called after the lanes setup of a buffer
  on_attach = nil,
}

M.config = vim.deepcopy(defaults)

local clients = {} -- root directory -> client id
local hint_ns = api.nvim_create_namespace('lanes_inlay_hints')
local has_011 = vim.fn.has('nvim-0.11') == 1

local function notify(msg, level)
  vim.notify('lanes: ' .. msg, level or vim.log.levels.INFO)
end

-- Client methods are called with `.` up to 0.10 and with `:` from 0.11 on.
local function request(client, method, params, handler, bufnr)
  if has_011 then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

local function client_notify(client, method, params)
  if has_011 then
    return client:notify(method, params)
  end
  return client.notify(method, params)
end

local function is_stopped(client)
  if has_011 then
    return client:is_stopped()
  end
  return client.is_stopped()
end

local function lanes_clients(bufnr)
  local out = {}
  if vim.lsp.get_clients then
    return vim.lsp.get_clients({ bufnr = bufnr, name = 'lanes' })
  end
  for _, client in pairs(vim.lsp.buf_get_clients(bufnr)) do
    if client.name == 'lanes' then
      table.insert(out, client)
    end
  end
  return out
end

-- Empty Lua tables encode as JSON arrays; the server expects objects.
local function object(t)
  if t == nil or next(t) == nil then
    return vim.empty_dict()
  end
  return t
end

--- The settings as sent to the server (initializationOptions, settings.lanes).
function M.options()
  local s = M.config.settings or {}
  local out = {}
  for _, key in ipairs(SETTINGS) do
    if s[key] ~= nil then
      out[key] = vim.deepcopy(s[key])
    end
  end
  for _, key in ipairs({ 'diagnostics', 'preconditions' }) do
    if out[key] ~= nil then
      out[key] = object(out[key])
    end
  end
  if out.launch ~= nil then
    if out.launch.args ~= nil then
      out.launch.args = object(out.launch.args)
    end
    out.launch = object(out.launch)
  end
  return object(out)
end

local function exists(path)
  return vim.loop.fs_stat(path) ~= nil
end

--- The project root of a directory: nearest lanes.toml, else nearest .git, else the directory.
function M.find_root(dir)
  for _, marker in ipairs(M.config.root_markers) do
    local d = dir
    while d and d ~= '' do
      if exists(d .. '/' .. marker) then
        return d
      end
      local parent = vim.fn.fnamemodify(d, ':h')
      if parent == d then
        break
      end
      d = parent
    end
  end
  return dir
end

-- ---------------------------------------------------------------------------
-- Showing results

local EXT = { llvm = 'll', asm = 's', plaintext = 'txt' }
local FILETYPE = { llvm = 'llvm', asm = 'asm', plaintext = 'text' }
local KIND = { ['lanes.showVectorIR'] = 'vector-ir', ['lanes.showAsm'] = 'asm', ['lanes.explain'] = 'explain' }
local TITLE = {
  ['lanes.build'] = 'Build Object and Header',
  ['lanes.showVectorIR'] = 'Show Vector IR',
  ['lanes.showAsm'] = 'Show Assembly',
  ['lanes.explain'] = 'Explain Kernel',
}

local function find_buffer(name)
  for _, b in ipairs(api.nvim_list_bufs()) do
    if api.nvim_buf_is_valid(b) and api.nvim_buf_get_name(b) == name then
      return b
    end
  end
  return nil
end

-- A read-only scratch buffer `lanes://<file>[.<kernel>].<kind>.<ext>` in a split.
local function show_text(uri, command, kernel, result)
  local language = type(result.language) == 'string' and result.language or 'plaintext'
  local base = vim.fn.fnamemodify(vim.uri_to_fname(uri), ':t:r')
  if base == '' then
    base = 'kernel'
  end
  local parts = { base }
  if kernel then
    table.insert(parts, kernel)
  end
  table.insert(parts, KIND[command] or command)
  table.insert(parts, EXT[language] or 'txt')
  local name = 'lanes://' .. table.concat(parts, '.')

  local buf = find_buffer(name)
  if not buf then
    buf = api.nvim_create_buf(false, true)
    api.nvim_buf_set_name(buf, name)
    api.nvim_buf_set_option(buf, 'bufhidden', 'hide')
    api.nvim_buf_set_option(buf, 'swapfile', false)
    vim.keymap.set('n', 'q', '<cmd>close<cr>', { buffer = buf, silent = true, desc = 'close the lanes result' })
  end
  local lines = vim.split(result.text, '\n', { plain = true })
  if lines[#lines] == '' then
    table.remove(lines)
  end
  api.nvim_buf_set_option(buf, 'modifiable', true)
  api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  api.nvim_buf_set_option(buf, 'modifiable', false)
  api.nvim_buf_set_option(buf, 'modified', false)
  api.nvim_buf_set_option(buf, 'filetype', FILETYPE[language] or language)

  local win = vim.fn.bufwinid(buf)
  if win == -1 then
    vim.cmd('botright vsplit')
    win = api.nvim_get_current_win()
    api.nvim_win_set_buf(win, buf)
  else
    api.nvim_set_current_win(win)
  end
  return buf
end

local function show_build(result)
  if type(result) ~= 'table' or type(result.object) ~= 'string' then
    notify('the server did not say which files it wrote', vim.log.levels.ERROR)
    return
  end
  local files = vim.fn.fnamemodify(result.object, ':~:.')
  if type(result.header) == 'string' then
    files = files .. ' and ' .. vim.fn.fnamemodify(result.header, ':~:.')
  end
  notify('built ' .. files)
  -- what `lanes build` would print about the source (L0103), one line each
  for _, w in ipairs(type(result.warnings) == 'table' and result.warnings or {}) do
    if type(w) == 'string' then
      notify(w, vim.log.levels.WARN)
    end
  end
end

--- Runs a server command with `arguments` ({uri} or {uri, kernel}) and shows the result.
function M.execute(command, arguments, bufnr)
  bufnr = bufnr or api.nvim_get_current_buf()
  local client = lanes_clients(bufnr)[1]
  if not client then
    notify('no lanes server for this buffer (is it an OpenCL C file?)', vim.log.levels.WARN)
    return
  end
  local uri, kernel = arguments[1], arguments[2]
  request(client, 'workspace/executeCommand', { command = command, arguments = arguments }, function(err, result)
    if err then
      notify(TITLE[command] .. ' failed: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    if command == 'lanes.build' then
      show_build(result)
    elseif type(result) == 'table' and type(result.text) == 'string' then
      show_text(uri, command, kernel, result)
    else
      notify(TITLE[command] .. ': the server sent no text', vim.log.levels.ERROR)
    end
  end, bufnr)
end

-- Commands the server puts in code lenses and code actions are run here, so
-- that their results are shown.
local client_commands = {}
for command in pairs(TITLE) do
  client_commands[command] = function(cmd, ctx)
    M.execute(cmd.command, cmd.arguments or { vim.uri_from_bufnr(ctx.bufnr) }, ctx.bufnr)
  end
end

local function run_on_current(command, kernel)
  local bufnr = api.nvim_get_current_buf()
  local arguments = { vim.uri_from_bufnr(bufnr) }
  if kernel and kernel ~= '' then
    table.insert(arguments, kernel)
  end
  M.execute(command, arguments, bufnr)
end

-- ---------------------------------------------------------------------------
-- Inlay hints as virtual text (Neovim before 0.10 has none of its own)

local function hint_label(hint)
  if type(hint.label) == 'string' then
    return hint.label
  end
  local parts = {}
  for _, part in ipairs(hint.label or {}) do
    table.insert(parts, part.value or '')
  end
  return table.concat(parts)
end

-- A hint like `: contiguous` right after a name reads `x: contiguous` at the end of the line.
local function hint_text(line_text, hint)
  local label = hint_label(hint)
  if label:sub(1, 1) == ':' then
    local col = hint.position.character
    local ok, byte = pcall(vim.str_byteindex, line_text, col, true)
    local before = line_text:sub(1, ok and byte or col)
    local name = before:match('([%w_]+)%s*$')
    if name then
      label = name .. label
    end
  end
  return label
end

function M.render_hints(bufnr, hints)
  api.nvim_buf_clear_namespace(bufnr, hint_ns, 0, -1)
  local count = api.nvim_buf_line_count(bufnr)
  local by_line, order = {}, {}
  for _, hint in ipairs(hints or {}) do
    local line = hint.position and hint.position.line
    if line and line < count then
      if not by_line[line] then
        by_line[line] = {}
        table.insert(order, line)
      end
      local text = api.nvim_buf_get_lines(bufnr, line, line + 1, false)[1] or ''
      table.insert(by_line[line], { col = hint.position.character, text = hint_text(text, hint) })
    end
  end
  for _, line in ipairs(order) do
    table.sort(by_line[line], function(a, b)
      return a.col < b.col
    end)
    local labels = {}
    for _, h in ipairs(by_line[line]) do
      table.insert(labels, h.text)
    end
    api.nvim_buf_set_extmark(bufnr, hint_ns, line, 0, {
      virt_text = { { '  ' .. table.concat(labels, ', '), 'LanesInlayHint' } },
      virt_text_pos = 'eol',
      hl_mode = 'combine',
    })
  end
end

function M.refresh_hints(bufnr)
  bufnr = bufnr or api.nvim_get_current_buf()
  if not api.nvim_buf_is_loaded(bufnr) then
    return
  end
  for _, client in ipairs(lanes_clients(bufnr)) do
    local params = {
      textDocument = { uri = vim.uri_from_bufnr(bufnr) },
      range = {
        start = { line = 0, character = 0 },
        ['end'] = { line = api.nvim_buf_line_count(bufnr), character = 0 },
      },
    }
    request(client, 'textDocument/inlayHint', params, function(err, result)
      if err or not api.nvim_buf_is_loaded(bufnr) then
        return
      end
      M.render_hints(bufnr, result)
    end, bufnr)
  end
end

local hint_generation = {}
local function schedule_hints(bufnr, delay)
  hint_generation[bufnr] = (hint_generation[bufnr] or 0) + 1
  local generation = hint_generation[bufnr]
  vim.defer_fn(function()
    if hint_generation[bufnr] == generation and api.nvim_buf_is_loaded(bufnr) then
      M.refresh_hints(bufnr)
    end
  end, delay or 250)
end

local function native_inlay_hints(bufnr)
  local ih = vim.lsp.inlay_hint
  if type(ih) == 'table' and type(ih.enable) == 'function' then
    return pcall(ih.enable, true, { bufnr = bufnr })
  end
  return false
end

-- ---------------------------------------------------------------------------
-- Starting and attaching

local function on_attach(client, bufnr)
  local group = api.nvim_create_augroup('lanes_buffer_' .. bufnr, { clear = true })
  if M.config.keymaps and vim.fn.maparg('K', 'n', false, true).buffer ~= 1 then
    vim.keymap.set('n', 'K', vim.lsp.buf.hover, { buffer = bufnr, desc = 'lanes: hover' })
  end
  if M.config.inlay_hints and not native_inlay_hints(bufnr) then
    schedule_hints(bufnr, 0)
    api.nvim_create_autocmd({ 'BufEnter', 'InsertLeave', 'TextChanged' }, {
      group = group,
      buffer = bufnr,
      callback = function()
        schedule_hints(bufnr)
      end,
    })
  end
  if M.config.codelens and client.server_capabilities and client.server_capabilities.codeLensProvider then
    vim.lsp.codelens.refresh()
    api.nvim_create_autocmd({ 'BufEnter', 'InsertLeave', 'TextChanged' }, {
      group = group,
      buffer = bufnr,
      callback = function()
        vim.lsp.codelens.refresh()
      end,
    })
  end
  if M.config.on_attach then
    M.config.on_attach(client, bufnr)
  end
end

local function capabilities()
  local caps = vim.lsp.protocol.make_client_capabilities()
  caps.textDocument = caps.textDocument or {}
  caps.textDocument.inlayHint = caps.textDocument.inlayHint or { dynamicRegistration = false }
  caps.workspace = caps.workspace or {}
  caps.workspace.inlayHint = caps.workspace.inlayHint or { refreshSupport = true }
  return caps
end

local handlers = {
  ['workspace/inlayHint/refresh'] = function(_, _, ctx)
    for _, bufnr in ipairs(api.nvim_list_bufs()) do
      if api.nvim_buf_is_loaded(bufnr) and vim.lsp.buf_is_attached(bufnr, ctx.client_id) then
        schedule_hints(bufnr, 0)
      end
    end
    return vim.NIL
  end,
  ['workspace/codeLens/refresh'] = function()
    vim.lsp.codelens.refresh()
    return vim.NIL
  end,
  ['workspace/semanticTokens/refresh'] = function()
    return vim.NIL
  end,
}

--- Starts (or reuses) the server for the buffer's project and attaches the buffer.
function M.start(bufnr)
  bufnr = bufnr or api.nvim_get_current_buf()
  if api.nvim_buf_get_option(bufnr, 'buftype') ~= '' then
    return nil
  end
  local name = api.nvim_buf_get_name(bufnr)
  local dir = name ~= '' and vim.fn.fnamemodify(name, ':p:h') or vim.fn.getcwd()
  local root = M.find_root(dir)
  local id = clients[root]
  local client = id and vim.lsp.get_client_by_id(id)
  if not client or is_stopped(client) then
    local cmd = M.config.cmd
    if type(cmd) == 'string' then
      cmd = { cmd, 'lsp' }
    end
    if vim.fn.executable(cmd[1]) ~= 1 then
      notify(
        ('`%s` is not executable: build lanes with `cargo build --release` and set cmd to target/release/lanes'):format(cmd[1]),
        vim.log.levels.ERROR
      )
      return nil
    end
    id = vim.lsp.start_client({
      name = 'lanes',
      cmd = cmd,
      root_dir = root,
      workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
      init_options = M.options(),
      settings = { lanes = M.options() },
      capabilities = capabilities(),
      commands = client_commands,
      handlers = handlers,
      on_attach = on_attach,
      on_init = function(client)
        -- The most severe diagnostic of a line gives its sign and virtual
        -- text (lanes publishes e.g. L0301 before L0201 on the same range).
        vim.diagnostic.config({ severity_sort = true }, vim.lsp.diagnostic.get_namespace(client.id))
      end,
      on_exit = function(_, _, client_id)
        if clients[root] == client_id then
          clients[root] = nil
        end
      end,
    })
    if not id then
      notify('could not start ' .. table.concat(cmd, ' '), vim.log.levels.ERROR)
      return nil
    end
    clients[root] = id
  end
  vim.lsp.buf_attach_client(bufnr, id)
  return id
end

--- Sends the current settings to every running lanes server.
function M.push_settings()
  for _, id in pairs(clients) do
    local client = vim.lsp.get_client_by_id(id)
    if client and not is_stopped(client) then
      client.config.settings = { lanes = M.options() }
      client_notify(client, 'workspace/didChangeConfiguration', { settings = { lanes = M.options() } })
    end
  end
  for _, bufnr in ipairs(api.nvim_list_bufs()) do
    if api.nvim_buf_is_loaded(bufnr) and #lanes_clients(bufnr) > 0 then
      schedule_hints(bufnr, 100)
    end
  end
end

--- Sets the SIMD target (one of M.targets) for all lanes servers.
function M.set_target(target)
  if not vim.tbl_contains(TARGETS, target) then
    notify('unknown target ' .. tostring(target) .. '; one of ' .. table.concat(TARGETS, ', '), vim.log.levels.ERROR)
    return
  end
  M.config.settings = M.config.settings or {}
  M.config.settings.target = target
  M.push_settings()
  notify('target ' .. target)
end

--- For the status line: `lanes: <target>` in OpenCL buffers, '' elsewhere.
function M.statusline()
  if vim.bo.filetype ~= 'opencl' then
    return ''
  end
  return 'lanes: ' .. ((M.config.settings or {}).target or 'host')
end

function M.restart()
  local buffers = {}
  for _, bufnr in ipairs(api.nvim_list_bufs()) do
    if api.nvim_buf_is_loaded(bufnr) and #lanes_clients(bufnr) > 0 then
      table.insert(buffers, bufnr)
    end
  end
  for root, id in pairs(clients) do
    local client = vim.lsp.get_client_by_id(id)
    if client then
      vim.lsp.stop_client(id)
    end
    clients[root] = nil
  end
  -- wait for the old servers to exit, then start anew
  vim.defer_fn(function()
    for _, bufnr in ipairs(buffers) do
      if api.nvim_buf_is_loaded(bufnr) then
        M.start(bufnr)
      end
    end
  end, 500)
end

local function complete_targets(lead)
  return vim.tbl_filter(function(t)
    return t:sub(1, #lead) == lead
  end, TARGETS)
end

function M.setup(opts)
  opts = opts or {}
  local config = vim.tbl_deep_extend('force', vim.deepcopy(defaults), opts)
  -- lists replace, they do not merge
  config.cmd = opts.cmd or defaults.cmd
  config.root_markers = opts.root_markers or defaults.root_markers
  M.config = config

  vim.cmd('highlight default link LanesInlayHint Comment')

  local group = api.nvim_create_augroup('lanes', { clear = true })
  api.nvim_create_autocmd({ 'BufRead', 'BufNewFile' }, {
    group = group,
    pattern = '*.cl',
    command = 'set filetype=opencl',
  })
  api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = 'opencl',
    callback = function(args)
      M.start(args.buf)
    end,
  })

  local commands = {
    LanesBuild = 'lanes.build',
    LanesVectorIR = 'lanes.showVectorIR',
    LanesAsm = 'lanes.showAsm',
    LanesExplain = 'lanes.explain',
  }
  for name, command in pairs(commands) do
    api.nvim_create_user_command(name, function(args)
      run_on_current(command, args.args)
    end, { nargs = '?', desc = 'lanes: ' .. TITLE[command] .. ' [kernel]' })
  end
  api.nvim_create_user_command('LanesTarget', function(args)
    if args.args ~= '' then
      M.set_target(args.args)
    else
      vim.ui.select(TARGETS, { prompt = 'lanes target' }, function(choice)
        if choice then
          M.set_target(choice)
        end
      end)
    end
  end, { nargs = '?', complete = complete_targets, desc = 'lanes: set the SIMD target' })
  api.nvim_create_user_command('LanesRestart', M.restart, { desc = 'lanes: restart the language server' })
  api.nvim_create_user_command('LanesCodeLens', function()
    vim.lsp.codelens.run()
  end, { desc = 'lanes: run the code lens of the cursor line' })
  api.nvim_create_user_command('LanesInlayHints', function()
    M.refresh_hints()
  end, { desc = 'lanes: refresh the inlay hints' })

  -- buffers that were opened before setup()
  for _, bufnr in ipairs(api.nvim_list_bufs()) do
    if api.nvim_buf_is_loaded(bufnr) then
      local name = api.nvim_buf_get_name(bufnr)
      if name:match('%.cl$') and vim.bo[bufnr].filetype ~= 'opencl' then
        api.nvim_buf_set_option(bufnr, 'filetype', 'opencl') -- starts it through FileType
      elseif vim.bo[bufnr].filetype == 'opencl' then
        M.start(bufnr)
      end
    end
  end
  return M
end

return M
