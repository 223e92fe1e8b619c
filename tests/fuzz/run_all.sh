#!/usr/bin/env bash
# Runs every fuzz target of a -Dfuzz=true build side by side, one core each, for SECONDS,
# in libFuzzer's fork mode (a crash is saved and fuzzing goes on), from the seeds in
# testdata/fuzz/ and a corpus directory that grows; crashes and logs go to OUTDIR.
#   tests/fuzz/run_all.sh BUILD SECONDS CORPUS OUTDIR [TARGET...]
# for example: tests/fuzz/run_all.sh build-fuzz 600 /tmp/corpus /tmp/fuzz-out
# Mind the machine: one core per target (12 by default).  Ends with one line per target.
set -u
cd "$(dirname "$0")/../.."
repo=$PWD
build=$(cd "$1" && pwd) secs=$2 corpus=$3 out=$4
shift 4
targets=${*:-png jpeg bmp tga pnm pfm npy matrix tensor pairs cli ops}
mkdir -p "$corpus" "$out"
corpus=$(cd "$corpus" && pwd) out=$(cd "$out" && pwd)
start=$(date +%s)
one() {
  local t=$1 dict=""
  [ -f "$repo/testdata/fuzz/$t.dict" ] && dict=-dict=$repo/testdata/fuzz/$t.dict
  mkdir -p "$corpus/$t" "$out/$t" "$out/cwd-$t"
  cd "$out/cwd-$t" || return
  GVIS_THREADS=${GVIS_THREADS:-1} ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:detect_leaks=1} \
  UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1:suppressions=$repo/tests/fuzz/ubsan.supp} \
    timeout $((secs + 60)) "$build/tests/fuzz/fuzz_$t" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 \
      -ignore_ooms=1 -max_total_time="$secs" -timeout=20 -rss_limit_mb=4096 -malloc_limit_mb=2048 \
      -print_final_stats=1 $dict -artifact_prefix="$out/$t/" "$corpus/$t" "$repo/testdata/fuzz/$t" \
      >"$out/fuzz-$t.log" 2>&1
  local rc=$?
  echo "fuzz_$t: exit $rc after $(($(date +%s) - start)) s, $(ls "$out/$t" | wc -l) artifacts;" \
    "$(grep -E '^#[0-9]+' "$out/fuzz-$t.log" | tail -1 | cut -c1-110)" >>"$out/status.txt"
}
for t in $targets; do one "$t" & done
wait
cat "$out/status.txt"
! grep -q ' [1-9][0-9]* artifacts' "$out/status.txt"
