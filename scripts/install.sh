#!/usr/bin/env bash
# Installs lanes under a prefix (`make install PREFIX=...` runs this with the
# release binary):
#   PREFIX/bin/lanes
#   PREFIX/lib/cmake/Lanes/   the CMake module: find_package(Lanes) finds it
#                             with PREFIX on CMAKE_PREFIX_PATH (or in a
#                             system prefix), and it finds PREFIX/bin/lanes
#   PREFIX/share/doc/lanes/   the documentation; the language server links
#                             each diagnostic to diagnostics.md there
# Usage: scripts/install.sh PREFIX [LANES_BINARY]
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
prefix="${1:?usage: scripts/install.sh PREFIX [LANES_BINARY]}"
binary="${2:-$here/target/release/lanes}"
if [ ! -x "$binary" ]; then
    echo "install.sh: no lanes binary at $binary (cargo build --release --bin lanes)" >&2
    exit 1
fi
install -d "$prefix/bin" "$prefix/lib/cmake/Lanes" "$prefix/share/doc/lanes"
install -m 755 "$binary" "$prefix/bin/lanes"
install -m 644 "$here/cmake/LanesConfig.cmake" "$here/cmake/Lanes.cmake" "$prefix/lib/cmake/Lanes/"
install -m 644 "$here"/docs/*.md "$prefix/share/doc/lanes/"
echo "installed lanes in $prefix"
