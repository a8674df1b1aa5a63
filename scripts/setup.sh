#!/usr/bin/env bash
# Installs what lanes needs to build and test: LLVM 19, Z3, clang-19 (the
# second opinion on OpenCL C validity), PoCL (the second opinion on results),
# oclgrind (the second opinion on data races and barrier divergence),
# Neovim (editor smoke tests), clangd-19 (the language-server benchmark's
# reference), CMake (the CMake example project, examples/cmake), qemu-user
# (multi-target objects run on CPU models this machine is not), a Python
# venv with the LSP test tools, and
# code-server with playwright-core and Chromium (the VS Code extension's
# end-to-end test, editors/vscode/e2e).
# Idempotent, and silent when everything is already present.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
packages=(llvm-19-dev libpolly-19-dev libzstd-dev libz3-dev clang-19 pocl-opencl-icd
          ocl-icd-opencl-dev oclgrind neovim python3-venv chromium libkrb5-dev ripgrep
          clangd-19 cmake qemu-user)

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
    echo "setup: installing ${missing[*]}"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

venv="$here/.venv"
requirements="$here/tests/requirements.txt"
stamp="$venv/.requirements"
if [ ! -x "$venv/bin/python" ] || ! cmp -s "$requirements" "$stamp"; then
    echo "setup: creating Python environment in .venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check -r "$requirements"
    cp "$requirements" "$stamp"
fi

# code-server and playwright-core, locked by editors/vscode/e2e/package-lock.json.
# code-server's postinstall builds native modules against the system's Node
# headers (kerberos needs libkrb5-dev) and installs VS Code's dependencies
# (locked by its npm-shrinkwrap.json), among them @vscode/ripgrep, whose
# postinstall downloads rg from GitHub unless the archive is already in its
# cache: Debian's rg is put there. The cache name and archive name are those
# of @vscode/ripgrep 1.15.11 as locked by code-server 4.99.4.
e2e="$here/editors/vscode/e2e"
stamp="$e2e/node_modules/.package-lock.setup"
if ! cmp -s "$e2e/package-lock.json" "$stamp" ||
   [ ! -x "$e2e/node_modules/code-server/lib/vscode/node_modules/@vscode/ripgrep/bin/rg" ]; then
    echo "setup: installing code-server and playwright-core in editors/vscode/e2e"
    tmp="$(mktemp -d)"
    mkdir -p "$tmp/vscode-ripgrep-cache-1.15.11" "$tmp/rg"
    cp /usr/bin/rg "$tmp/rg/rg"
    tar czf "$tmp/vscode-ripgrep-cache-1.15.11/ripgrep-v13.0.0-10-$(uname -m)-unknown-linux-musl.tar.gz" -C "$tmp/rg" rg
    if ! (cd "$e2e" && TMPDIR="$tmp" npm_config_yes=true npm_config_unsafe_perm=true npm_config_nodedir=/usr \
          npm ci --no-audit --no-fund) >"$tmp/npm.log" 2>&1; then
        cat "$tmp/npm.log" >&2
        rm -rf "$tmp"
        exit 1
    fi
    cp "$e2e/package-lock.json" "$stamp"
    rm -rf "$tmp"
fi
