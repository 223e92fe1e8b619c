# The CUDA context's start on a thread of its own (issue 14): the first context of a
# command with --device auto or cuda starts the device while the first file is read and
# is joined before the first computation.  Without a usable GPU every message and exit
# status is what it was (GVIS_CUDA_START=serial keeps the start in series, to compare);
# --device cpu never loads the CUDA driver.  With a GPU: -v says how long the start took
# and how much of it was waited for, and the bytes are the CPU's.
. "$(dirname "$0")/lib.sh"
"$MKIMAGE" 61 43 3 u8 random "$T/a.png"
printf 'not an image' >"$T/bad.png"
ok "cpu reference" "$GVIS" --cpu gauss --sigma 2 "$T/a.png" -o "$T/cpu.png"
gpus=$("$GVIS" info 2>/dev/null | grep -c '^cuda:[0-9]')

# the same stderr and status whether the start runs on a thread or in series
same() {
  local desc=$1; shift
  run env GVIS_CUDA_START=serial "$@"
  local rc_serial=$rc err_serial
  # times and rates apart, and the start's own -v line, which says where it ran
  err_serial=$(grep -v 'context started' "$T/err" | sed -E 's/[0-9]+\.[0-9]+/N/g')
  run env GVIS_CUDA_START=thread "$@"
  check "$desc: same status on a thread ($rc) as in series ($rc_serial)" [ "$rc" -eq "$rc_serial" ]
  check "$desc: same messages on a thread as in series" [ "$(grep -v 'context started' "$T/err" | sed -E 's/[0-9]+\.[0-9]+/N/g')" = "$err_serial" ]
}
same "auto" "$GVIS" -v gauss --sigma 2 "$T/a.png" -o "$T/auto.png"
same "auto, bad input" "$GVIS" -v gauss --sigma 2 "$T/bad.png" -o "$T/x.png"
same "cuda, bad input" "$GVIS" --device cuda gauss --sigma 2 "$T/bad.png" -o "$T/x.png"
same "cuda, missing input" "$GVIS" --device cuda gauss --sigma 2 "$T/none.png" -o "$T/x.png"
same "auto, a batch" "$GVIS" -v gauss --sigma 2 "$T/a.png" "$T/a.png" -o "$T/b/{index}.png" -j 2

if [ "$gpus" -eq 0 ]; then
  ok "auto without a GPU" "$GVIS" -v gauss --sigma 2 "$T/a.png" -o "$T/auto.png"
  check "auto: the CPU, said once" [ "$(grep -c 'running on the CPU: ' "$T/err")" -eq 1 ]
  check "auto: no device start without a device" [ "$(grep -c 'context started' "$T/err")" -eq 0 ]
  check "auto: the CPU's bytes" cmp -s "$T/cpu.png" "$T/auto.png"
  fails "cuda without a GPU: why, before the input" 1 "no usable CUDA device" \
    "$GVIS" --device cuda gauss --sigma 2 "$T/none.png" -o "$T/x.png"
  check "cuda without a GPU: not a word of the input" [ "$(grep -c 'none.png' "$T/err")" -eq 0 ]
  fails "cuda:0 without a GPU" 1 "no usable CUDA device" "$GVIS" --device cuda:0 gauss --sigma 2 "$T/a.png" -o "$T/x.png"
  check "nothing written" [ ! -e "$T/x.png" ]
fi

# --device cpu: the CUDA driver is never looked for (a CUDA build looks for it under auto)
if "$GVIS" --version | grep -q '(CUDA)' && strace -f -o /dev/null true 2>/dev/null; then
  strace -f -e trace=open,openat -o "$T/trace" "$GVIS" --device cpu gauss --sigma 2 "$T/a.png" -o "$T/c2.png"
  check "--device cpu: no libcuda opened" [ "$(grep -c 'libcuda' "$T/trace")" -eq 0 ]
  strace -f -e trace=open,openat -o "$T/trace" "$GVIS" --cpu hist "$T/a.png" >/dev/null
  check "--cpu hist: no libcuda opened" [ "$(grep -c 'libcuda' "$T/trace")" -eq 0 ]
  strace -f -e trace=open,openat -o "$T/trace" "$GVIS" gauss --sigma 2 "$T/a.png" -o "$T/c3.png"
  check "auto: the driver looked for (the check above can fail)" [ "$(grep -c 'libcuda' "$T/trace")" -gt 0 ]
fi

if [ "$gpus" -gt 0 ]; then
  ok "cuda, one image" "$GVIS" -v --device cuda gauss --sigma 2 "$T/a.png" -o "$T/g.png"
  check "cuda: the start on a thread, timed" grep -Eq 'cuda:0: context started on a thread of its own in [0-9.]+ ms, [0-9.]+ ms of it waited for' "$T/err"
  check "cuda: the CPU's bytes" cmp -s "$T/cpu.png" "$T/g.png"
  GVIS_CUDA_START=serial ok "cuda, in series" "$GVIS" -v --device cuda gauss --sigma 2 "$T/a.png" -o "$T/s.png"
  check "serial: timed" grep -Eq 'cuda:0: context started in [0-9.]+ ms' "$T/err"
  check "serial: same bytes" cmp -s "$T/cpu.png" "$T/s.png"
  ok "auto, a batch on the GPU" "$GVIS" gauss --sigma 2 "$T/a.png" "$T/a.png" -o "$T/gb/{index}.png" -j 2
  check "batch: the CPU's bytes" sh -c "cmp -s '$T/cpu.png' '$T/gb/1.png' && cmp -s '$T/cpu.png' '$T/gb/2.png'"
fi
finish
