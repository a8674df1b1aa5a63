#!/usr/bin/env bash
# Installs Intel's OpenCL CPU runtime (PyPI `opencl-rt` 2021.2, with the TBB
# it runs on) into target/intel-opencl, for the Intel column of the
# generated-code benchmark, and writes target/intel-opencl/vendors/: an .icd
# file naming its libintelocl.so next to copies of the system's .icd files
# (PoCL), the directory OCL_ICD_VENDORS points the ICD loader at (lanes-bench
# does so when it exists). It runs on AMD CPUs too. Idempotent, and quiet
# when everything is present. `make bench` runs it.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="$here/target/intel-opencl"
lib="$dir/venv/lib/libintelocl.so"
if [ ! -e "$lib" ]; then
    echo "intel-opencl: installing opencl-rt 2021.2 into $dir"
    python3 -m venv "$dir/venv"
    "$dir/venv/bin/pip" install -q --disable-pip-version-check "opencl-rt==2021.2.0"
fi
mkdir -p "$dir/vendors"
if [ "$(cat "$dir/vendors/intel.icd" 2>/dev/null)" != "$lib" ]; then
    echo "$lib" > "$dir/vendors/intel.icd"
fi
for icd in /etc/OpenCL/vendors/*.icd; do
    [ -e "$icd" ] || continue
    cmp -s "$icd" "$dir/vendors/$(basename "$icd")" || cp "$icd" "$dir/vendors/"
done
