#!/bin/bash
# Builds and checks every file of the buildtime corpora three times: with the
# findings cache off, filling a fresh cache, and warm; prints every output
# (object, header, stderr, exit status, `lanes check --format json`) that
# differs from the cold one. Usage: scripts/cache-determinism.sh [LANES]
# (default target/release/lanes). Scratch files in $TMPDIR/lanes-cache-det.
set -u
cd "$(dirname "$0")/.."
L=${1:-target/release/lanes}
T=${TMPDIR:-/tmp}/lanes-cache-det
export LANES_CACHE_DIR=$T/cache
rm -rf "$T"; mkdir -p "$T"/{off,fill,warm}
bad=0
for f in bench/kernels/paper/*.cl tests/kernels/precond/*.cl bench/kernels/*.cl tests/kernels/valid/*.cl; do
  for m in off fill warm; do
    if [ $m = off ]; then e=off; else e=on; fi
    LANES_CACHE=$e $L build --target avx2-i32x8 -o "$T/$m/out.o" --header "$T/$m/out.h" "$f" 2>"$T/$m/err"
    echo $? > "$T/$m/rc"
    LANES_CACHE=$e $L check --format json --target avx2-i32x8 "$f" > "$T/$m/check.json" 2>/dev/null
  done
  for m in fill warm; do
    for x in out.o out.h err rc check.json; do
      [ -e "$T/off/$x" ] || [ -e "$T/$m/$x" ] || continue
      cmp -s "$T/off/$x" "$T/$m/$x" || { echo "differs: $f ($m) $x"; bad=1; }
    done
  done
  rm -f "$T"/*/out.*
done
echo "$(find "$LANES_CACHE_DIR" -type f | wc -l) entries; $([ $bad = 0 ] && echo 'all the same' || echo 'DIFFERENCES')"
exit $bad
