-- lanes-0.11.lua: the lanes language server (`lanes lsp`) in Neovim 0.11 and later,
-- with vim.lsp.config / vim.lsp.enable and Neovim's own inlay hints, code lenses and
-- semantic tokens. (Neovim 0.7 to 0.10: use lanes.lua.)
--
-- Install: copy this file to ~/.config/nvim/plugin/lanes.lua (it runs at startup),
-- or load it from init.lua with dofile('/path/to/lanes/editors/nvim/lanes-0.11.lua').
-- Change the defaults afterwards with your own vim.lsp.config call, e.g.
--
--   vim.lsp.config('lanes', {
--     cmd = { vim.fn.expand('~/src/lanes/target/release/lanes'), 'lsp' },
--     settings = { lanes = { target = 'avx2-i32x8', defines = { 'N=16' } } },
--   })
--
-- `settings.lanes` is also sent as initializationOptions. Commands:
--   :LanesBuild, :LanesVectorIR, :LanesAsm, :LanesExplain [kernel]  run the server's
--       command on the current file; text results open in a scratch split (q closes);
--   :LanesTarget [target]  changes the SIMD target (workspace/didChangeConfiguration);
--   :LanesCodeLens  runs the code lens of the cursor line (e.g. Build).
-- Hover is on K (Neovim's default), code actions on gra, inlay hints are on.

if vim.fn.has('nvim-0.11') ~= 1 then
  vim.notify('lanes-0.11.lua needs Neovim 0.11 or later; use lanes.lua', vim.log.levels.WARN)
  return
end

local api = vim.api

local TARGETS = {
  'host', 'sse4-i32x4', 'sse4-i32x8', 'avx2-i32x8', 'avx2-i32x16', 'avx512skx-x8', 'avx512skx-x16', 'neon-i32x4',
}
local TITLE = {
  ['lanes.build'] = 'Build Object and Header',
  ['lanes.showVectorIR'] = 'Show Vector IR',
  ['lanes.showAsm'] = 'Show Assembly',
  ['lanes.explain'] = 'Explain Kernel',
}
local KIND = { ['lanes.showVectorIR'] = 'vector-ir', ['lanes.showAsm'] = 'asm', ['lanes.explain'] = 'explain' }
local EXT = { llvm = 'll', asm = 's', plaintext = 'txt' }
local FILETYPE = { llvm = 'llvm', asm = 'asm', plaintext = 'text' }

-- *.cl is OpenCL C, not Common Lisp
vim.filetype.add({ extension = { cl = 'opencl' } })

local function notify(msg, level)
  vim.notify('lanes: ' .. msg, level or vim.log.levels.INFO)
end

-- Empty Lua tables encode as JSON arrays; the server expects objects.
local function object(t)
  if t == nil or next(t) == nil then
    return vim.empty_dict()
  end
  return t
end

local function options(settings)
  -- Every key is sent as it is (docs/editors.md, section 2).
  local s = vim.deepcopy((settings or {}).lanes or {})
  for _, key in ipairs({ 'diagnostics', 'preconditions' }) do
    if s[key] ~= nil then
      s[key] = object(s[key])
    end
  end
  if s.launch ~= nil then
    if s.launch.args ~= nil then
      s.launch.args = object(s.launch.args)
    end
    s.launch = object(s.launch)
  end
  return object(s)
end

local function show_text(uri, command, kernel, result)
  local language = type(result.language) == 'string' and result.language or 'plaintext'
  local base = vim.fn.fnamemodify(vim.uri_to_fname(uri), ':t:r')
  local parts = { base ~= '' and base or 'kernel' }
  if kernel then
    table.insert(parts, kernel)
  end
  table.insert(parts, KIND[command] or command)
  table.insert(parts, EXT[language] or 'txt')
  local name = 'lanes://' .. table.concat(parts, '.')

  local buf
  for _, b in ipairs(api.nvim_list_bufs()) do
    if api.nvim_buf_get_name(b) == name then
      buf = b
    end
  end
  if not buf then
    buf = api.nvim_create_buf(false, true)
    api.nvim_buf_set_name(buf, name)
    vim.bo[buf].bufhidden = 'hide'
    vim.keymap.set('n', 'q', '<cmd>close<cr>', { buffer = buf, silent = true, desc = 'close the lanes result' })
  end
  local lines = vim.split(result.text, '\n', { plain = true })
  if lines[#lines] == '' then
    table.remove(lines)
  end
  vim.bo[buf].modifiable = true
  api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].modified = false
  vim.bo[buf].filetype = FILETYPE[language] or language

  local win = vim.fn.bufwinid(buf)
  if win == -1 then
    vim.cmd('botright vsplit')
    api.nvim_win_set_buf(0, buf)
  else
    api.nvim_set_current_win(win)
  end
end

local function execute(command, arguments, bufnr)
  bufnr = bufnr or api.nvim_get_current_buf()
  local client = vim.lsp.get_clients({ bufnr = bufnr, name = 'lanes' })[1]
  if not client then
    notify('no lanes server for this buffer (is it an OpenCL C file?)', vim.log.levels.WARN)
    return
  end
  client:request('workspace/executeCommand', { command = command, arguments = arguments }, function(err, result)
    if err then
      notify(TITLE[command] .. ' failed: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
    elseif command == 'lanes.build' then
      if type(result) == 'table' and type(result.object) == 'string' then
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
      else
        notify('the server did not say which files it wrote', vim.log.levels.ERROR)
      end
    elseif type(result) == 'table' and type(result.text) == 'string' then
      show_text(arguments[1], command, arguments[2], result)
    else
      notify(TITLE[command] .. ': the server sent no text', vim.log.levels.ERROR)
    end
  end, bufnr)
end

-- Code lenses and code actions that name these commands are run here, so that
-- their results are shown.
local commands = {}
for command in pairs(TITLE) do
  commands[command] = function(cmd, ctx)
    execute(cmd.command, cmd.arguments or { vim.uri_from_bufnr(ctx.bufnr) }, ctx.bufnr)
  end
end

vim.lsp.config('lanes', {
  cmd = { 'lanes', 'lsp' },
  filetypes = { 'opencl' },
  -- lanes.toml first: a kernel directory inside a bigger git repository is its own project
  root_markers = { 'lanes.toml', '.git' },
  before_init = function(params, config)
    params.initializationOptions = options(config.settings)
    -- Neovim also sends `settings` in a didChangeConfiguration right after
    -- initialize: make its empty tables JSON objects too (same table as client.settings)
    if config.settings and config.settings.lanes then
      config.settings.lanes = options(config.settings)
    end
  end,
  commands = commands,
  on_init = function(client)
    -- The most severe diagnostic of a line gives its sign and virtual text
    -- (lanes publishes e.g. L0301 before L0201 on the same range).
    vim.diagnostic.config({ severity_sort = true }, vim.lsp.diagnostic.get_namespace(client.id, false))
  end,
  on_attach = function(client, bufnr)
    vim.lsp.inlay_hint.enable(true, { bufnr = bufnr })
    if client:supports_method('textDocument/codeLens') then
      vim.lsp.codelens.refresh({ bufnr = bufnr })
      api.nvim_create_autocmd({ 'BufEnter', 'InsertLeave', 'TextChanged' }, {
        group = api.nvim_create_augroup('lanes_codelens_' .. bufnr, { clear = true }),
        buffer = bufnr,
        callback = function()
          vim.lsp.codelens.refresh({ bufnr = bufnr })
        end,
      })
    end
  end,
})
vim.lsp.enable('lanes')

-- uniform values in the constant colour, varying ones as plain variables
-- (override with your own :highlight for these groups)
api.nvim_set_hl(0, '@lsp.mod.uniform', { link = '@constant', default = true })
api.nvim_set_hl(0, '@lsp.mod.varying', { link = '@variable', default = true })

local function run_on_current(command, kernel)
  local bufnr = api.nvim_get_current_buf()
  local arguments = { vim.uri_from_bufnr(bufnr) }
  if kernel and kernel ~= '' then
    table.insert(arguments, kernel)
  end
  execute(command, arguments, bufnr)
end

for name, command in pairs({
  LanesBuild = 'lanes.build',
  LanesVectorIR = 'lanes.showVectorIR',
  LanesAsm = 'lanes.showAsm',
  LanesExplain = 'lanes.explain',
}) do
  api.nvim_create_user_command(name, function(args)
    run_on_current(command, args.args)
  end, { nargs = '?', desc = 'lanes: ' .. TITLE[command] .. ' [kernel]' })
end

local function set_target(target)
  if not vim.tbl_contains(TARGETS, target) then
    notify('unknown target ' .. target .. '; one of ' .. table.concat(TARGETS, ', '), vim.log.levels.ERROR)
    return
  end
  -- for servers started later
  local settings = vim.deepcopy(vim.lsp.config.lanes.settings or {})
  settings.lanes = settings.lanes or {}
  settings.lanes.target = target
  vim.lsp.config('lanes', { settings = settings })
  -- and the running ones
  for _, client in ipairs(vim.lsp.get_clients({ name = 'lanes' })) do
    client.settings = vim.tbl_deep_extend('force', client.settings or {}, settings)
    client.settings.lanes = options(client.settings)
    client:notify('workspace/didChangeConfiguration', { settings = { lanes = client.settings.lanes } })
  end
  notify('target ' .. target)
end

api.nvim_create_user_command('LanesTarget', function(args)
  if args.args ~= '' then
    set_target(args.args)
  else
    vim.ui.select(TARGETS, { prompt = 'lanes target' }, function(choice)
      if choice then
        set_target(choice)
      end
    end)
  end
end, {
  nargs = '?',
  complete = function(lead)
    return vim.tbl_filter(function(t)
      return t:sub(1, #lead) == lead
    end, TARGETS)
  end,
  desc = 'lanes: set the SIMD target',
})

api.nvim_create_user_command('LanesCodeLens', function()
  vim.lsp.codelens.run()
end, { desc = 'lanes: run the code lens of the cursor line' })
