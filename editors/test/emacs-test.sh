#!/usr/bin/env bash
# Runs editors/emacs/lanes.el in batch Emacs (with eglot) against the mock server.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
printf 'int x = 0;\n  y[x] = 1;\n' >"$dir/k.cl"
LANES_EDITORS_DIR="$(dirname "$here")" LANES_TEST_DIR="$dir" MOCK_LANES_LOG="$dir/server.log" \
  timeout 120 "${EMACS:-emacs}" --batch -l "$here/emacs_test.el" </dev/null
