#!/usr/bin/env bash
# Installs what lanes needs to build and test: LLVM 19, Z3, clang-19 (the
# second opinion on OpenCL C validity), PoCL (the second opinion on results),
# oclgrind (the second opinion on data races and barrier divergence),
# Neovim (editor smoke tests) and a Python venv with the LSP test tools.
# Idempotent, and silent when everything is already present.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
packages=(llvm-19-dev libpolly-19-dev libzstd-dev libz3-dev clang-19 pocl-opencl-icd
          ocl-icd-opencl-dev oclgrind neovim python3-venv)

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
