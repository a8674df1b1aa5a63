-- End-to-end test of editors/nvim/lanes.lua (LANES_NVIM_VARIANT=0.7) or
-- lanes-0.11.lua (=0.11) against the mock server mock-lanes-lsp.js, in a
-- headless Neovim. Run through editors/test/nvim-test.sh.

local variant = os.getenv('LANES_NVIM_VARIANT') or '0.7'
local editors = os.getenv('LANES_EDITORS_DIR')
local log_file = os.getenv('MOCK_LANES_LOG')
local dir = os.getenv('LANES_TEST_DIR')
local mock = editors .. '/test/mock-lanes-lsp.js'

local passed, failed = 0, 0
local function check(name, ok, detail)
  if ok then
    passed = passed + 1
  else
    failed = failed + 1
    io.stdout:write(('FAIL [%s] %s%s\n'):format(variant, name, detail and (': ' .. tostring(detail)) or ''))
  end
end

local notes = {}
vim.notify = function(msg)
  table.insert(notes, msg)
end

local function log_lines()
  local f = io.open(log_file, 'r')
  if not f then
    return {}
  end
  local out = {}
  for line in f:lines() do
    table.insert(out, line)
  end
  f:close()
  return out
end

local function messages(method)
  local out = {}
  for _, line in ipairs(log_lines()) do
    local msg = vim.json.decode(line)
    if msg.method == method then
      table.insert(out, { msg = msg, raw = line })
    end
  end
  return out
end

local function wait(ms, fn)
  return vim.wait(ms, fn, 20)
end

local function find_buffer(name)
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_get_name(b) == name then
      return b
    end
  end
end

local function lanes_clients(bufnr)
  if vim.lsp.get_clients then
    return vim.lsp.get_clients({ bufnr = bufnr, name = 'lanes' })
  end
  local out = {}
  for _, c in pairs(vim.lsp.buf_get_clients(bufnr)) do
    if c.name == 'lanes' then
      table.insert(out, c)
    end
  end
  return out
end

vim.cmd('filetype on')
vim.cmd('cd ' .. vim.fn.fnameescape(dir))
vim.opt.runtimepath:append(editors .. '/nvim')

-- Every key the server reads (docs/editors.md, section 2), two of them empty.
SETTINGS = {
  target = 'sse4-i32x4',
  width = 4,
  defines = { 'N=16' },
  includePaths = { 'include' },
  diagnostics = {},
  specialize = 'off',
  outDir = 'build',
  preconditions = {},
  launch = { globalSize = { 1024 } },
  catalogueUrl = 'https://example.org/diagnostics.html',
}

local lanes
if variant == '0.7' then
  lanes = dofile(editors .. '/nvim/lanes.lua')
  lanes.setup({ cmd = { mock, 'lsp' }, settings = vim.deepcopy(SETTINGS) })
else
  dofile(editors .. '/nvim/lanes-0.11.lua')
  vim.lsp.config('lanes', { cmd = { mock, 'lsp' }, settings = { lanes = vim.deepcopy(SETTINGS) } })
end

vim.cmd('edit ' .. vim.fn.fnameescape(dir .. '/k.cl'))
local bufnr = vim.api.nvim_get_current_buf()
check('filetype', vim.bo.filetype == 'opencl', vim.bo.filetype)

local attached = wait(5000, function()
  local c = lanes_clients(bufnr)[1]
  return c ~= nil and c.initialized ~= false and #messages('initialized') > 0
end)
check('client attached', attached)

local init = messages('initialize')[1]
check('initialize sent', init ~= nil)
if init then
  local options = init.msg.params.initializationOptions
  check('initializationOptions.target', options.target == 'sse4-i32x4', vim.inspect(options))
  check('initializationOptions.defines', vim.deep_equal(options.defines, { 'N=16' }), vim.inspect(options))
  check('empty diagnostics is a JSON object', init.raw:find('"diagnostics":{}', 1, true) ~= nil, init.raw)
  check('empty preconditions is a JSON object', init.raw:find('"preconditions":{}', 1, true) ~= nil, init.raw)
  for key, value in pairs(SETTINGS) do
    if next(type(value) == 'table' and value or { 1 }) ~= nil then
      check('initializationOptions.' .. key, vim.deep_equal(options[key], value), vim.inspect(options))
    end
  end
  check('root is the lanes.toml directory', init.msg.params.rootUri == vim.uri_from_fname(dir), init.msg.params.rootUri)
end

check('diagnostics', wait(3000, function()
  local d = vim.diagnostic.get(bufnr)
  return #d == 3
end), vim.inspect(vim.diagnostic.get(bufnr)))

-- L0301 (information), L0201 (warning) and L0300 (hint) on the same range:
-- the warning gives the sign and the virtual text.
local client = lanes_clients(bufnr)[1]
local ns = client and vim.lsp.diagnostic.get_namespace(client.id, false)
check('severity_sort', ns and vim.diagnostic.config(nil, ns).severity_sort == true)
if vim.fn.has('nvim-0.10') == 0 then
  local top
  for _, sign in ipairs((vim.fn.sign_getplaced(bufnr, { group = '*', lnum = 1 })[1] or {}).signs or {}) do
    if top == nil or sign.priority > top.priority then
      top = sign
    end
  end
  check('sign of the warning', top and top.name == 'DiagnosticSignWarn', vim.inspect(top))
  local shown
  local virt_ns = ns and vim.diagnostic.get_namespace(ns).user_data.virt_text_ns
  for _, m in ipairs(virt_ns and vim.api.nvim_buf_get_extmarks(bufnr, virt_ns, 0, -1, { details = true }) or {}) do
    local chunks = m[4].virt_text
    if m[2] == 0 and chunks then
      shown = chunks[#chunks]
    end
  end
  check('virtual text of the warning', shown and shown[1]:find('divergent loop', 1, true) and shown[2] == 'DiagnosticVirtualTextWarn', vim.inspect(shown))
end

-- inlay hints (lanes.lua draws them itself before Neovim 0.10, which has its own)
if variant == '0.7' and vim.lsp.inlay_hint == nil then
  local ns = vim.api.nvim_create_namespace('lanes_inlay_hints')
  local ok = wait(3000, function()
    return #vim.api.nvim_buf_get_extmarks(bufnr, ns, 0, -1, {}) == 2
  end)
  check('inlay hints as virtual text', ok)
  local marks = vim.api.nvim_buf_get_extmarks(bufnr, ns, 0, -1, { details = true })
  local first = marks[1] and marks[1][4].virt_text[1][1] or ''
  check('hint text x: contiguous', first == '  x: contiguous', first)
  local second = marks[2] and marks[2][4].virt_text[1][1] or ''
  check('hint text gather', second == '  gather', second)
else
  local ok = wait(3000, function()
    return #vim.lsp.inlay_hint.get({ bufnr = bufnr }) == 2
  end)
  check('native inlay hints', ok)
  check('native inlay hints enabled', vim.lsp.inlay_hint.is_enabled({ bufnr = bufnr }))
end

-- :LanesVectorIR opens the text in a split
local source_win = vim.api.nvim_get_current_win()
vim.cmd('LanesVectorIR')
local ir
check('vector IR buffer', wait(3000, function()
  ir = find_buffer('lanes://k.vector-ir.ll')
  return ir ~= nil
end))
if ir then
  local lines = vim.api.nvim_buf_get_lines(ir, 0, -1, false)
  check('vector IR text', lines[1] == '; vector IR of k.cl for sse4-i32x4', lines[1])
  check('vector IR read-only', vim.bo[ir].modifiable == false)
  check('vector IR filetype', vim.bo[ir].filetype == 'llvm', vim.bo[ir].filetype)
  check('vector IR in a split', vim.fn.bufwinid(ir) ~= -1 and #vim.api.nvim_list_wins() == 2)
end
vim.api.nvim_set_current_win(source_win)

vim.cmd('LanesAsm k')
check('asm buffer for kernel k', wait(3000, function()
  return find_buffer('lanes://k.k.asm.s') ~= nil
end))
local exec = messages('workspace/executeCommand')
local last = exec[#exec] and exec[#exec].msg.params
check('asm arguments', last and last.command == 'lanes.showAsm' and last.arguments[2] == 'k', vim.inspect(last))
vim.api.nvim_set_current_win(source_win)

-- :LanesBuild notifies
notes = {}
vim.cmd('LanesBuild')
check('build notification', wait(3000, function()
  return vim.tbl_contains(notes, 'lanes: built k.o and k.h')
end), vim.inspect(notes))

-- :LanesTarget sends didChangeConfiguration
vim.cmd('LanesTarget avx2-i32x8')
check('didChangeConfiguration', wait(3000, function()
  for _, m in ipairs(messages('workspace/didChangeConfiguration')) do
    local s = m.msg.params.settings
    if s and s.lanes and s.lanes.target == 'avx2-i32x8' then
      return true
    end
  end
  return false
end), vim.inspect(messages('workspace/didChangeConfiguration')))

-- the code lens runs lanes.build through the client-side command
check('code lens received', wait(3000, function()
  return #vim.lsp.codelens.get(bufnr) > 0
end))
notes = {}
vim.api.nvim_win_set_cursor(0, { 1, 0 })
vim.lsp.codelens.run()
check('code lens Build runs', wait(3000, function()
  return vim.tbl_contains(notes, 'lanes: built k.o and k.h')
end), vim.inspect(notes))
exec = messages('workspace/executeCommand')
last = exec[#exec] and exec[#exec].msg.params
check('code lens arguments', last and last.command == 'lanes.build' and last.arguments[2] == 'convolution', vim.inspect(last))

for _, c in ipairs(lanes_clients(bufnr)) do
  vim.lsp.stop_client(c.id)
end
wait(2000, function()
  return #messages('exit') > 0
end)
check('server shut down', #messages('exit') > 0)

io.stdout:write(('nvim %s: %d passed, %d failed\n'):format(variant, passed, failed))
if failed > 0 then
  vim.cmd('cquit 1')
else
  vim.cmd('qall!')
end
