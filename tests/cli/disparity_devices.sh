# disparity over many pairs on device lists (issue 20): the summary line of a batch
# ("N of M pairs done, F failed, S s, R pairs/s, J jobs on DEV; cuda:0 n, ...") and a GPU
# that fails mid-batch (GVIS_TEST_FAIL_DEVICE=ENTRY[:AFTER], lib/core/ctx.c): its pairs
# are matched on another entry of the list, a warning naming the pair and the device,
# the outputs those of a clean run; with no entry left each pair fails by name, nothing
# is lost silently.  The CPU rows run anywhere; the fault rows need a GPU (skipped with a
# note without one).
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 1
mkdir -p L R
n=9
for i in $(seq 1 $n); do
  w=$((37 + 7 * i)) h=$((19 + 3 * i))
  "$MKIMAGE" $w $h $((i % 3 == 0 ? 3 : 1)) u8 random "L/p$i.png"
  "$MKIMAGE" $w $h $((i % 3 == 0 ? 3 : 1)) u8 random "R/p$i.png"
  printf 'L/p%d.png R/p%d.png\n' "$i" "$i" >>pairs.txt
done
D="disparity --max-disp 16 --pairs pairs.txt"
# every output kind of a pair: map, right map, preview
outs() { echo "-o $1/m/ --right $1/r/ --preview $1/p/"; }
sumline() { grep -E "^gvis disparity: [0-9]+ of $n pairs done" "$1"; }
# the per-device counts of the summary line in $1, added up
counted() { sumline "$1" | sed -n 's/.*jobs on [^;]*; //p' | tr ',' '\n' | awk '{s += $2} END {print s + 0}'; }

# ---- the CPU: the summary line, -j 1 / 3 / 7 byte-identical ----
for j in 1 3 7; do
  ok "cpu -v -j $j" "$GVIS" -v --cpu $D $(outs cpu$j) -j $j
  cp err "cpu$j.err"
  check "cpu -j $j: the summary line" grep -Eq "^gvis disparity: $n of $n pairs done, 0 failed, [0-9.]+ s, [0-9.]+ pairs/s, $j jobs on cpu\$" err
  check "cpu -j $j: every pair written" [ "$(ls cpu$j/m | wc -l)" -eq $n ] && [ "$(ls cpu$j/p | wc -l)" -eq $n ]
done
for j in 3 7; do
  check "cpu: -j $j = -j 1 (maps, right maps, previews)" diff -r cpu1 "cpu$j"
done
check "cpu: no per-device counts" [ "$(grep -c '; cuda:' cpu3.err)" -eq 0 ]
ok "cpu without -v: no summary" "$GVIS" --cpu $D -o quiet/ -j 3
check "cpu without -v: nothing said" [ ! -s err ]
ok "-q -v: no summary" "$GVIS" -q -v --cpu $D -o q2/ -j 3
check "-q: nothing said" [ ! -s err ]
ok "one pair, -v: no batch summary" "$GVIS" -v --cpu disparity --max-disp 16 L/p1.png R/p1.png -o one.png
check "one pair: no summary line" [ "$(grep -c 'pairs done' err)" -eq 0 ]
check "one pair: the batch's bytes" cmp -s one.png cpu1/m/p1.png
# a failed pair: the summary without -v, counts adding up, the other pairs done
cp pairs.txt bad.txt
printf 'not a png' >corrupt.png
sed -i '4s/.*/corrupt.png R\/p4.png/' bad.txt
for j in 1 3; do
  fails "a corrupt pair, -j $j" 1 "'corrupt.png'" "$GVIS" --cpu disparity --max-disp 16 --pairs bad.txt -o "bad$j/" -j $j
  check "a corrupt pair, -j $j: summary" grep -Eq "^gvis disparity: $((n - 1)) of $n pairs done, 1 failed, .* $j jobs on cpu\$" err
  check "a corrupt pair, -j $j: the others written" [ "$(ls bad$j | wc -l)" -eq $((n - 1)) ]
done
check "a corrupt pair: -j 3 = -j 1" diff -r bad1 bad3
# --fail-fast: the summary counts what was written
fails "--fail-fast" 1 "'corrupt.png'" "$GVIS" --cpu disparity --max-disp 16 --pairs bad.txt -o ff/ -j 2 --fail-fast
check "--fail-fast: the summary counts the maps written" grep -q "^gvis disparity: $(ls ff | wc -l) of $n pairs done, 1 failed" err
# a fault injected for the GPU changes nothing on the CPU
GVIS_TEST_FAIL_DEVICE=0 ok "cpu with GVIS_TEST_FAIL_DEVICE" "$GVIS" --cpu $D $(outs cpuf) -j 3
check "cpu with GVIS_TEST_FAIL_DEVICE: the same outputs" diff -r cpu1 cpuf

gpus=$("$GVIS" info 2>/dev/null | grep -c '^cuda:[0-9]')
if [ "$gpus" -eq 0 ]; then
  for d in cuda:all cuda:0,0; do
    fails "--device $d without a GPU" 1 "no usable CUDA device" "$GVIS" --device $d $D -o "n/"
  done
  check "nothing written without a GPU" [ ! -e n ]
  echo "disparity_devices: no GPU here: the retry and per-GPU count rows skipped" >&2
  finish
  exit
fi

# ---- a GPU: clean runs on lists, then faults ----
ok "cuda:0,0 clean" "$GVIS" -v --device cuda:0,0 $D $(outs g00) -j 3
check "cuda:0,0: the CPU's outputs" diff -r cpu1 g00
check "cuda:0,0: the summary counts cuda:0" grep -Eq "^gvis disparity: $n of $n pairs done, 0 failed, .* 3 jobs on cuda:0,0; cuda:0 $n\$" err
ok "cuda:all clean" "$GVIS" -v --device cuda:all $D $(outs gall) -j 3
check "cuda:all: the clean run's outputs" diff -r g00 gall
check "cuda:all: the counts add up to $n ($(counted err))" [ "$(counted err)" -eq $n ]

for j in 1 3 7; do
  # entry 1 fails from its first pair: those pairs go to entry 0
  GVIS_TEST_FAIL_DEVICE=1 ok "fault on entry 1, -j $j" "$GVIS" -v --device cuda:0,0 $D $(outs f1j$j) -j $j
  check "fault on entry 1, -j $j: the clean run's outputs" diff -r g00 "f1j$j"
  check "fault on entry 1, -j $j: the warning names the pair and the device" \
    grep -Eq "^gvis disparity: warning: 'L/p[0-9]+\.png' failed on cuda:0.*injected device fault.*retrying on another device of the list\$" err
  check "fault on entry 1, -j $j: all $n done, counted ($(counted err))" \
    bash -c "grep -q '$n of $n pairs done, 0 failed' '$T/err' && [ $(counted err) -eq $n ]"
done
# mid-batch: entry 1 fails from its second pair (which worker gets a second pair varies:
# the outputs and counts must hold whatever the schedule)
GVIS_TEST_FAIL_DEVICE=1:1 ok "fault on entry 1 after a pair" "$GVIS" -v --device cuda:0,0 $D $(outs f11) -j 3
check "fault after a pair: the clean run's outputs" diff -r g00 f11
check "fault after a pair: all $n done, counted ($(counted err))" \
  bash -c "grep -q '$n of $n pairs done, 0 failed' '$T/err' && [ $(counted err) -eq $n ]"
# entry 0 fails from its first pair: every pair on entry 1
GVIS_TEST_FAIL_DEVICE=0 ok "fault on entry 0" "$GVIS" -v --device cuda:0,0 $D $(outs f0) -j 3
check "fault on entry 0: the clean run's outputs" diff -r g00 f0
check "fault on entry 0: all done" grep -q "$n of $n pairs done, 0 failed" err
# the only entry fails: each pair named, exit 1, nothing written, the summary counts them
for j in 1 3; do
  GVIS_TEST_FAIL_DEVICE=0 fails "fault, no other device, -j $j" 1 "0 of $n pairs done, $n failed" \
    "$GVIS" --device cuda:0 $D -o "fn$j/" -j $j
  check "fault, no other device, -j $j: each pair named" [ "$(grep -c "^gvis disparity: 'L/p[0-9]*\.png': .*injected device fault" err)" -eq $n ]
  check "fault, no other device, -j $j: nothing written" [ "$(ls "fn$j" 2>/dev/null | wc -l)" -eq 0 ]
done
if [ "$gpus" -ge 2 ]; then
  GVIS_TEST_FAIL_DEVICE=1 ok "cuda:0,1, entry 1 fails" "$GVIS" -v --device cuda:0,1 $D $(outs f01) -j 3
  check "cuda:0,1 fault: the clean run's outputs" diff -r g00 f01
  check "cuda:0,1 fault: the warning names cuda:1" grep -q "failed on cuda:1.*retrying on another device" err
  check "cuda:0,1 fault: the counts add up to $n, all on cuda:0" grep -q "on cuda:0,1; cuda:0 $n\$" err
  ok "cuda:0,1 clean, -j 7" "$GVIS" -v --device cuda:0,1 $D $(outs g01) -j 7
  check "cuda:0,1 clean: the outputs of cuda:0,0" diff -r g00 g01
  check "cuda:0,1 clean: the counts add up to $n ($(counted err))" [ "$(counted err)" -eq $n ]
else
  echo "disparity_devices: one GPU: the cuda:0,1 rows skipped" >&2
fi
finish
