# --device lists (issue 15): cuda:all and cuda:0,1 / cuda:0,0 spread a batch's files over
# device workers, the summary gives each device's count, malformed lists are usage
# errors, a listed device that is not there a run-time error.  With a GPU: cuda:0,0 gives
# the CPU's bytes (gauss is exact on u8), and a device that faults mid-batch
# (GVIS_TEST_FAIL_DEVICE=ENTRY[:AFTER]) has its files finished on the other entry, or
# each one failed by name where there is none, never lost.
. "$(dirname "$0")/lib.sh"
mkdir -p "$T/in"
for i in $(seq 1 14); do "$MKIMAGE" $((17 + 3 * i)) $((11 + 2 * i)) $((i % 3 == 0 ? 1 : 3)) u8 random "$T/in/p$i.png"; done

for bad in cuda: cuda:x cuda:1a cuda:0,,1 cuda:0, cuda:,0 cuda:-1 cuda:all,0 gpu:0 cuda:1024; do
  fails "--device $bad" 2 "bad device '$bad'" "$GVIS" --device "$bad" gauss --sigma 2 "$T/in" -o "$T/z/"
done
check "no output for a bad list" [ ! -e "$T/z" ]

ok "cpu batch" "$GVIS" --cpu gauss --sigma 2 "$T/in" -o "$T/cpu/" -j 2

# --fail-fast: files finished in flight are counted as done (the count was short)
mkdir -p "$T/ff"
for i in $(seq 10 39); do cp "$T/in/p1.png" "$T/ff/m$i.png"; done
echo garbage >"$T/ff/m12.png"
fails "--fail-fast with jobs" 1 "m12.png'" "$GVIS" --cpu gauss --sigma 2 "$T/ff" -o "$T/ffo/" -j 3 --fail-fast
written=$(ls "$T/ffo" | wc -l)
check "--fail-fast: the summary counts every file written ($written)" grep -q "^gvis gauss: $written of 30 files done, 1 failed" "$T/err"
# --timing in a batch: the readers' load and the writers' save times are counted
ok "--timing=json, 2 jobs" "$GVIS" --cpu --timing=json gauss --sigma 2 "$T/in" -o "$T/tj/" -j 2
check "--timing: load and save summed over the threads" grep -Eq '"load_ms": [0-9]*[1-9][0-9]*\.[0-9]+|"load_ms": 0\.[0-9]*[1-9]' "$T/err"
check "--timing: save summed" grep -Eq '"save_ms": ([0-9]*[1-9][0-9]*\.[0-9]+|0\.[0-9]*[1-9])' "$T/err"
gpus=$("$GVIS" info 2>/dev/null | grep -c '^cuda:[0-9]')
if [ "$gpus" -eq 0 ]; then
  # DESIGN 2: cuda with no usable device is an error that says why; cuda:all and lists too
  for d in cuda:all cuda:0,0 cuda:0,1 cuda:3; do
    fails "--device $d without a GPU" 1 "no usable CUDA device" "$GVIS" --device $d gauss --sigma 2 "$T/in" -o "$T/n/"
  done
  check "nothing written without a GPU" [ ! -e "$T/n" ]
  ok "auto without a GPU: the CPU" "$GVIS" -v gauss --sigma 2 "$T/in" -o "$T/auto/" -j 2
  check "auto: the CPU's bytes" diff -r "$T/cpu" "$T/auto"
  check "auto: no per-device counts on the CPU" [ "$(grep -c '; cuda:' "$T/err")" -eq 0 ]
  finish
  exit
fi

fails "a listed device not there" 1 "no CUDA device $gpus \\($gpus found\\)" \
  "$GVIS" --device "cuda:0,$gpus" gauss --sigma 2 "$T/in" -o "$T/n/"
ok "cuda:0,0 (one GPU twice)" "$GVIS" -v --device cuda:0,0 gauss --sigma 2 "$T/in" -o "$T/g00/" -j 2
check "cuda:0,0: the CPU's bytes" diff -r "$T/cpu" "$T/g00"
check "cuda:0,0: the summary counts cuda:0" grep -q '14 of 14 files done, 0 failed, .* on cuda:0,0; cuda:0 14$' "$T/err"
ok "cuda:all" "$GVIS" -v --device cuda:all gauss --sigma 2 "$T/in" -o "$T/gall/" -j 3
check "cuda:all: the CPU's bytes" diff -r "$T/cpu" "$T/gall"
check "cuda:all: the counts add up" [ "$(sed -n 's/.*files done.*; //p' "$T/err" | tr ',' '\n' | awk '{s += $2} END {print s}')" -eq 14 ]
ok "--jobs 1 with a list: still both entries" "$GVIS" -v --device cuda:0,0 gauss --sigma 2 "$T/in" -o "$T/j1/" -j 1
check "--jobs 1 with a list: the CPU's bytes, counted" sh -c "diff -r '$T/cpu' '$T/j1' && grep -q 'on cuda:0,0; cuda:0 14\$' '$T/err'"
ok "one file with a list: its first device" "$GVIS" -v --device cuda:0,0 gauss --sigma 2 "$T/in/p1.png" -o "$T/one.png"
check "one file: same bytes" cmp -s "$T/one.png" "$T/cpu/p1.png"

# a fault on entry 1 after 2 files: retried on entry 0, all written, a warning names it
GVIS_TEST_FAIL_DEVICE=1:2 ok "fault on entry 1: retried" "$GVIS" -v --device cuda:0,0 gauss --sigma 2 "$T/in" -o "$T/f1/" -j 2
check "fault: retried files have the CPU's bytes" diff -r "$T/cpu" "$T/f1"
check "fault: the warning names the retry" grep -q 'injected device fault.*retrying on another device' "$T/err"
check "fault: all 14 done" grep -q '14 of 14 files done, 0 failed' "$T/err"
# the only entry faults: every file fails by name, exit 1, nothing written
GVIS_TEST_FAIL_DEVICE=0 fails "fault, no other device" 1 "14 failed" "$GVIS" --device cuda:0 gauss --sigma 2 "$T/in" -o "$T/f0/" -j 2
check "fault, no other device: each file named" [ "$(grep -c "injected device fault" "$T/err")" -eq 14 ]
check "fault, no other device: nothing written" [ "$(ls "$T/f0" 2>/dev/null | wc -l)" -eq 0 ]
# entry 0 faults from its first file: its files go to entry 1
GVIS_TEST_FAIL_DEVICE=0 ok "fault on entry 0 of 0,0" "$GVIS" --device cuda:0,0 gauss --sigma 2 "$T/in" -o "$T/f2/" -j 2
check "fault on entry 0: none lost, same bytes" diff -r "$T/cpu" "$T/f2"
finish
