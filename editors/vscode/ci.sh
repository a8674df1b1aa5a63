#!/usr/bin/env bash
# Builds, tests and packages the VS Code extension; called by `make test`.
# Quiet on success; on failure prints the output of the failed step.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

log="$(mktemp)"
trap 'rm -f "$log"' EXIT

step() {
  if ! "$@" >"$log" 2>&1; then
    echo "editors/vscode: '$*' failed:" >&2
    cat "$log" >&2
    exit 1
  fi
}

step npm ci --no-audit --no-fund --prefer-offline
step npm run compile
step npm test
step npm run package
