#!/usr/bin/env bash
# Runs editors/nvim/lanes.lua and lanes-0.11.lua in headless Neovim against
# the mock server (editors/test/mock-lanes-lsp.js; needs node), then
# lanes.lua against the real server (`$LANES lsp`: diagnostics, hover, inlay
# hints).
#   LANES=...        the lanes binary (default: target/debug/lanes of this
#                    repository; it must exist)
#   NVIM=nvim        the Neovim for lanes.lua (0.7 or later)
#   NVIM_011=...     a Neovim 0.11+ for lanes-0.11.lua; if unset, `$NVIM` is
#                    used when it is 0.11 or later, else that variant is skipped
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
editors="$(dirname "$here")"
repo="$(dirname "$editors")"
LANES="${LANES:-$repo/target/debug/lanes}"
NVIM="${NVIM:-nvim}"

run() { # variant nvim
  local variant="$1" nvim="$2" dir
  dir="$(mktemp -d)"
  printf 'target = "sse4-i32x4"\n' >"$dir/lanes.toml"
  printf 'int x = 0;\n  y[x] = 1;\n' >"$dir/k.cl"
  LANES_NVIM_VARIANT="$variant" LANES_EDITORS_DIR="$editors" LANES_TEST_DIR="$dir" \
    MOCK_LANES_LOG="$dir/server.log" \
    timeout 60 "$nvim" --headless -u NONE -i NONE -n -c "luafile $here/nvim_test.lua" </dev/null
  local rc=$?
  rm -rf "$dir"
  return $rc
}

version_ge_011() { "$1" --headless -u NONE -c 'lua io.stdout:write(vim.fn.has("nvim-0.11"))' -c 'qa!' 2>/dev/null | grep -q 1; }

run_real() { # nvim
  local dir rc=0
  dir="$(mktemp -d)"
  cp "$repo/examples/convolution.cl" "$dir/"
  LANES="$LANES" LANES_EDITORS_DIR="$editors" LANES_TEST_DIR="$dir" \
    timeout 120 "$1" --headless -u NONE -i NONE -n -c "luafile $here/nvim_real_test.lua" </dev/null || rc=$?
  rm -rf "$dir"
  return $rc
}

status=0
run 0.7 "$NVIM" || status=1
if [ -x "$LANES" ]; then
  LANES="$(cd "$(dirname "$LANES")" && pwd)/$(basename "$LANES")"
  run_real "$NVIM" || status=1
else
  echo "FAIL: no lanes binary at $LANES (cargo build --bin lanes, or set LANES)"
  status=1
fi
if [ -n "${NVIM_011:-}" ]; then
  run 0.11 "$NVIM_011" || status=1
elif version_ge_011 "$NVIM"; then
  run 0.11 "$NVIM" || status=1
else
  echo "nvim 0.11: skipped (set NVIM_011 to a Neovim 0.11+ binary)"
fi
exit $status
