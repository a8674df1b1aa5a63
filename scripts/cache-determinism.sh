#!/bin/bash
# Builds and checks every file of the buildtime corpora three times: with the
# findings cache off, filling a fresh cache, and warm; prints every output
# (object, header, stderr, exit status, `lanes check --format json`) that
# differs from the cold one. Then the file with a function and a global
# above its items (every function and global id moves; no kernel names
# them, so every key stays), cold against warm from the original's entries. Usage: scripts/cache-determinism.sh [LANES]
# (default target/release/lanes). Scratch files in $TMPDIR/lanes-cache-det.
set -u
cd "$(dirname "$0")/.."
L=${1:-target/release/lanes}
T=${TMPDIR:-/tmp}/lanes-cache-det
export LANES_CACHE_DIR=$T/cache
rm -rf "$T"; mkdir -p "$T"/{off,fill,warm,moved-off,moved-warm}
bad=0
for f in bench/kernels/paper/*.cl tests/kernels/precond/*.cl bench/kernels/*.cl tests/kernels/valid/*.cl; do
  # In the file's own directory: its #includes must resolve.
  moved=$(dirname "$f")/.lanes-cache-det-$(basename "$f")
  { printf '__constant int lanes_det_table[2] = {1, 2};\nint lanes_det_unrelated(int x) { return lanes_det_table[x & 1]; }\n'; cat "$f"; } > "$moved"
  for m in off fill warm moved-off moved-warm; do
    case $m in *off) e=off;; *) e=on;; esac
    case $m in moved-*) src=$moved;; *) src=$f;; esac
    LANES_CACHE=$e $L build --target avx2-i32x8 -o "$T/$m/out.o" --header "$T/$m/out.h" "$src" 2>"$T/$m/err"
    echo $? > "$T/$m/rc"
    LANES_CACHE=$e LANES_CACHE_DEBUG=1 $L check --format json --target avx2-i32x8 "$src" > "$T/$m/check.json" 2>"$T/$m/check.err"
  done
  rm -f "$moved"
  grep -c '^cache: hit' "$T/moved-warm/check.err" >> "$T/moved-hits"
  grep -c '^cache: ' "$T/moved-warm/check.err" >> "$T/moved-kernels"
  for m in fill warm moved-warm; do
    case $m in moved-*) ref=moved-off;; *) ref=off;; esac
    for x in out.o out.h err rc check.json; do
      [ -e "$T/$ref/$x" ] || [ -e "$T/$m/$x" ] || continue
      cmp -s "$T/$ref/$x" "$T/$m/$x" || { echo "differs: $f ($m) $x"; bad=1; }
    done
  done
  rm -f "$T"/*/out.*
done
echo "$(find "$LANES_CACHE_DIR" -type f | wc -l) entries; $(paste -sd+ "$T/moved-hits" | bc) of $(paste -sd+ "$T/moved-kernels" | bc) kernels of the moved files from the cache; $([ $bad = 0 ] && echo 'all the same' || echo 'DIFFERENCES')"
exit $bad
