# Progress on a terminal (issue 15), tested under script(1): "N/M files, R images/s, ETA"
# rewritten in place with \r and cleared at the end; --progress / --no-progress force it;
# -q, one file and a stderr that is no terminal show none.  SIGINT / SIGTERM during a
# batch: "interrupted: N of M files done" (N the outputs in place), no partial or
# temporary output, status 130 / 143 (killed by the signal).  N counts the files reported;
# a few finished in flight may be in place beside them.
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 1
mkdir -p in
for i in $(seq 10 29); do "$MKIMAGE" $((150 + i)) $((90 + i)) 3 u8 random "in/p$i.png"; done
ok "reference" "$GVIS" --cpu gauss --sigma 3 in -o ref/ -j 1

if command -v script >/dev/null 2>&1 && script -qfec true /dev/null >/dev/null 2>&1; then
  tty() { script -qfec "$*" /dev/null >tty.log 2>&1 </dev/null; rc=$?; }
  line='gvis gauss: [0-9]+/20 files, [0-9.]+ images/s, ETA ([0-9]+:)?[0-9]+:[0-9][0-9]'
  for j in 1 2; do
    tty "'$GVIS' --cpu gauss --sigma 3 in -o t$j/ -j $j"
    check "terminal, -j $j: exit 0" [ "$rc" -eq 0 ]
    check "terminal, -j $j: the progress line" grep -aEq "$line" tty.log
    check "terminal, -j $j: rewritten in place (\\r)" grep -aq $'\rgvis gauss: ' tty.log
    check "terminal, -j $j: cleared at the end" grep -aq $'\r\033\\[K' tty.log
    check "terminal, -j $j: same outputs" diff -r ref "t$j"
  done
  tty "'$GVIS' --cpu gauss --sigma 3 in -o tn/ --no-progress"
  check "terminal, --no-progress: none" sh -c '! grep -aq "files, " tty.log'
  tty "'$GVIS' --cpu -q gauss --sigma 3 in -o tq/"
  check "terminal, -q: none" sh -c '! grep -aq "files, " tty.log'
  tty "'$GVIS' --cpu gauss --sigma 3 in/p10.png -o one.png"
  check "terminal, one file: none" sh -c '! grep -aq "files, " tty.log'
  tty "'$GVIS' --cpu gauss --sigma 3 in -o te/ 2>/dev/null"
  check "stderr not the terminal: none" sh -c '! grep -aq "files, " tty.log'
  # a message in the middle clears the line first
  cp -r in bad; echo garbage >bad/p15.png
  tty "'$GVIS' --cpu gauss --sigma 3 bad -o tb/ -j 1"
  check "terminal, a failing file: exit 1" [ "$rc" -eq 1 ]
  check "terminal, the error starts a clean line" grep -aq $'\r\033\\[Kgvis gauss: .bad/p15.png.: ' tty.log
else
  echo "progress: script(1) cannot make a terminal here: terminal cases not run" >&2
fi
ok "--progress without a terminal" "$GVIS" --cpu gauss --sigma 3 in -o f1/ --progress
check "--progress: the line on stderr" grep -aEq 'gvis gauss: [0-9]+/20 files, ' err
ok "no terminal: no progress" "$GVIS" --cpu gauss --sigma 3 in -o f2/
check "no terminal: stderr empty" [ ! -s err ]

# interrupt SIG STATUS: a batch of 120 files on two jobs, the signal once two outputs are there
mkdir -p many
"$GVIS" --cpu gauss --sigma 6 in -o ref6/ -j 1
for i in $(seq 100 219); do cp "in/p$((10 + i % 20)).png" "many/m$i.png"; done
interrupt() {
  local sig=$1 want=$2 dir=$3 pid n=0 k=0 status
  "$GVIS" --cpu gauss --sigma 6 many -o "$dir/" -j 2 2>sig.err &
  pid=$!
  while kill -0 "$pid" 2>/dev/null && [ "$(ls "$dir" 2>/dev/null | wc -l)" -lt 2 ] && [ $k -lt 3000 ]; do
    sleep 0.01; k=$((k + 1))
  done
  kill -s "$sig" "$pid" 2>/dev/null
  { wait "$pid"; } 2>/dev/null
  status=$?
  if [ "$status" -eq 0 ]; then echo "progress: $sig came after the batch ended (not counted)" >&2; return; fi
  check "$sig: status $want" [ "$status" -eq "$want" ]
  check "$sig: the interrupted line" grep -Eq "^gvis gauss: interrupted: [0-9]+ of 120 files done$" sig.err
  n=$(sed -n 's/.*interrupted: \([0-9]*\) of.*/\1/p' sig.err)
  local have=$(ls "$dir" | wc -l)
  check "$sig: the line counts the outputs in place ($n, $have on disk)" [ "${n:-x}" -le "$have" ] && [ "$have" -le $((n + 8)) ]
  check "$sig: stopped early" [ "$have" -lt 120 ]
  check "$sig: no temporary file" no_temp "$dir"
  local f bad=0
  for f in "$dir"/*; do
    f=${f##*/m}; f=${f%.png}
    cmp -s "$dir/m$f.png" "ref6/p$((10 + f % 20)).png" || bad=1
  done
  check "$sig: every output complete" [ "$bad" -eq 0 ]
}
interrupt INT 130 int
interrupt TERM 143 term
finish
