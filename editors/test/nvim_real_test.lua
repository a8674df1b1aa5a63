-- End-to-end test of editors/nvim/lanes.lua against the real server
-- (`$LANES lsp`) in a headless Neovim (0.7 or later): the server accepts
-- every setting lanes.lua sends, and the buffer gets the server's
-- diagnostics, a hover and the inlay hints (through vim.lsp.buf_request_sync).
-- Run through editors/test/nvim-test.sh.

local editors = os.getenv('LANES_EDITORS_DIR')
local dir = os.getenv('LANES_TEST_DIR')
local lanes_bin = os.getenv('LANES')

local passed, failed = 0, 0
local function check(name, ok, detail)
  if ok then
    passed = passed + 1
  else
    failed = failed + 1
    io.stdout:write(('FAIL [real server] %s%s\n'):format(name, detail and (': ' .. tostring(detail)) or ''))
  end
end

vim.notify = function() end

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
local lanes = dofile(editors .. '/nvim/lanes.lua')
-- Every key of docs/editors.md section 2: the server must accept them all
-- (a key it does not know is logged as a warning).
local logged = {}
vim.lsp.handlers['window/logMessage'] = function(_, result)
  table.insert(logged, result.message)
end
lanes.setup({
  cmd = { lanes_bin, 'lsp' },
  settings = {
    target = 'avx512skx-x16',
    width = 16,
    defines = { 'N=16' },
    includePaths = { 'include' },
    diagnostics = { L0202 = 'information' },
    specialize = 'auto',
    outDir = 'build',
    preconditions = { enabled = false },
    launch = { globalSize = { 1920, 1080 } },
    catalogueUrl = 'https://example.org/diagnostics.html',
  },
})

vim.cmd('edit ' .. vim.fn.fnameescape(dir .. '/convolution.cl'))
local bufnr = vim.api.nvim_get_current_buf()
check('filetype', vim.bo.filetype == 'opencl', vim.bo.filetype)
check('client attached', vim.wait(10000, function()
  local c = lanes_clients(bufnr)[1]
  return c ~= nil and c.initialized ~= false
end, 20))

-- diagnostics: the divergent loop at line 55 with its reason chain
local function loop_diag()
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if d.code == 'L0201' then
      return d
    end
  end
end
check('diagnostics pushed', vim.wait(20000, function()
  return loop_diag() ~= nil
end, 20), vim.inspect(vim.diagnostic.get(bufnr)))
local d = loop_diag()
if d then
  check('L0201 on the for loop', d.lnum == 54, d.lnum)
  check('L0201 is a warning', d.severity == vim.diagnostic.severity.WARN, d.severity)
  local lsp = d.user_data and d.user_data.lsp
  check('relatedInformation', lsp and lsp.relatedInformation and #lsp.relatedInformation > 0, vim.inspect(lsp))
end

check('every setting accepted', #logged == 0, vim.inspect(logged))
check('catalogueUrl forwarded', d and d.user_data.lsp.codeDescription
  and d.user_data.lsp.codeDescription.href == 'https://example.org/diagnostics.html#l0201', d and vim.inspect(d.user_data.lsp))

-- hover on `x` in `int x = get_global_id(0);` (line 39)
local params = {
  textDocument = { uri = vim.uri_from_bufnr(bufnr) },
  position = { line = 38, character = 8 },
}
local replies = vim.lsp.buf_request_sync(bufnr, 'textDocument/hover', params, 10000) or {}
local hover
for _, r in pairs(replies) do
  if r.result then
    hover = r.result.contents.value
  end
end
check('hover says contiguous', hover and hover:find('contiguous', 1, true) ~= nil, hover)

-- inlay hints of the whole file
local hint_params = {
  textDocument = { uri = vim.uri_from_bufnr(bufnr) },
  range = { start = { line = 0, character = 0 }, ['end'] = { line = vim.api.nvim_buf_line_count(bufnr), character = 0 } },
}
replies = vim.lsp.buf_request_sync(bufnr, 'textDocument/inlayHint', hint_params, 10000) or {}
local labels = {}
for _, r in pairs(replies) do
  for _, h in ipairs(r.result or {}) do
    labels[h.position.line .. ':' .. h.label] = true
  end
end
check('inlay hint x: contiguous', labels['38:: contiguous'], vim.inspect(labels))
check('inlay hint divergent loop', labels['54:divergent loop'], vim.inspect(labels))

-- and lanes.lua draws them as virtual text (before Neovim 0.10)
if vim.lsp.inlay_hint == nil then
  local ns = vim.api.nvim_create_namespace('lanes_inlay_hints')
  check('inlay hints as virtual text', vim.wait(10000, function()
    for _, m in ipairs(vim.api.nvim_buf_get_extmarks(bufnr, ns, 0, -1, { details = true })) do
      if m[2] == 38 and m[4].virt_text[1][1]:find('x: contiguous', 1, true) then
        return true
      end
    end
    return false
  end, 20))
end

-- :LanesBuild on a file with a loop whose unroll pragma LLVM cannot honour:
-- the object is written and lanes build's warning (L0103) is notified
local notes = {}
vim.notify = function(msg, level)
  table.insert(notes, { msg = msg, level = level })
end
vim.fn.writefile({
  '__kernel void walk(__global float *a, __global const int *next)',
  '{',
  '    int i = get_global_id(0);',
  '    float s = 0.0f;',
  '    int j = i;',
  '    #pragma unroll 4',
  '    while (j >= 0) {',
  '        s += a[j];',
  '        j = next[j];',
  '    }',
  '    a[i] = s;',
  '}',
}, dir .. '/walk.cl')
vim.cmd('edit ' .. vim.fn.fnameescape(dir .. '/walk.cl'))
local walk = vim.api.nvim_get_current_buf()
check('client attached to walk.cl', vim.wait(10000, function()
  return lanes_clients(walk)[1] ~= nil
end, 20))
vim.cmd('LanesBuild')
local function warned()
  for _, n in ipairs(notes) do
    if n.level == vim.log.levels.WARN and n.msg:find('walk.cl:7:5: warning[L0103]', 1, true) then
      return true
    end
  end
  return false
end
check('build warns L0103 at the while', vim.wait(60000, warned, 50), vim.inspect(notes))
check('build wrote the object', vim.fn.filereadable(dir .. '/build/walk.o') == 1, dir)

for _, c in ipairs(lanes_clients(bufnr)) do
  vim.lsp.stop_client(c.id)
end
check('server exits', vim.wait(5000, function()
  return #lanes_clients(bufnr) == 0
end, 20))

io.stdout:write(('nvim real server: %d passed, %d failed\n'):format(passed, failed))
if failed > 0 then
  vim.cmd('cquit 1')
else
  vim.cmd('qall!')
end
