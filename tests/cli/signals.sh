# Signals: SIGINT, SIGTERM and SIGHUP during a batch stop it with no partial or temporary
# output (every output left is complete); a closed standard output (SIGPIPE ignored,
# writes fail with EPIPE) ends the run quietly with status 1.
. "$(dirname "$0")/lib.sh"
: "${MKIMAGE:?MKIMAGE is not set}"
D=$T/in
mkdir -p "$D"
n=6
for i in $(seq 1 $n); do "$MKIMAGE" 1600 1200 3 u8 random "$D/img$i.png"; done
"$MKIMAGE" 24 12 1 u8 random "$D/small.png"

# Reference outputs from an uninterrupted run.
ok "reference batch" "$GVIS" --cpu gauss --sigma 1.5 "$D"/img*.png -o "$T/ref/"
check "reference batch wrote $n files" test "$(ls "$T/ref" | wc -l)" -eq "$n"

# interrupt SIG DIR MODE: starts the batch into DIR, sends SIG once MODE holds (temp: a
# temporary output exists, so the signal lands while a file is being written; first: the
# first output is complete), and checks what is left.
interrupt() {
  local sig=$1 dir=$2 mode=$3 pid i=0 status
  mkdir -p "$dir"
  "$GVIS" --cpu gauss --sigma 1.5 "$D"/img*.png -o "$dir/" 2>"$T/sigerr" &
  pid=$!
  shopt -s nullglob dotglob
  while kill -0 "$pid" 2>/dev/null; do
    local files=("$dir"/*)
    if [ "$mode" = temp ]; then
      local temps=("$dir"/.*.gvis-*)
      [ ${#temps[@]} -gt 0 ] && break
    elif [ ${#files[@]} -gt 0 ]; then
      break
    fi
    i=$((i + 1))
  done
  shopt -u nullglob dotglob
  kill -s "$sig" "$pid" 2>/dev/null
  { wait "$pid"; } 2>/dev/null # (bash would report "Hangup" on its stderr)
  status=$?
  local desc="$sig during a batch ($mode)"
  if [ "$status" -eq 0 ]; then
    # the batch ended before the signal came: nothing was tested
    echo "signals: $desc: the batch finished before the signal (not counted)" >&2
    return
  fi
  check "$desc: killed by the signal (status $status)" test "$status" -eq $((128 + $(kill -l "$sig")))
  check "$desc: no temporary file left" no_temp "$dir"
  check "$desc: the batch stopped (fewer than $n outputs)" test "$(ls "$dir" | wc -l)" -lt "$n"
  local f complete=1
  for f in "$dir"/*; do
    [ -e "$f" ] || continue
    cmp -s "$f" "$T/ref/${f##*/}" || { complete=0; echo "signals: $desc: partial output $f" >&2; }
  done
  check "$desc: every output left is complete" test "$complete" -eq 1
  # the one line a batch says (issue 15): how many of its files are in place
  check "$desc: no message but the interrupted line" \
    test "$(grep -cv "^gvis gauss: interrupted: [0-9]* of $n files done\$" "$T/sigerr")" -eq 0
  check "$desc: the interrupted line" grep -q "interrupted: [0-9]* of $n files done" "$T/sigerr"
  check "$desc: the inputs are untouched" no_temp "$D"
}

interrupt INT "$T/int1" temp
interrupt TERM "$T/term1" temp
interrupt HUP "$T/hup1" temp
interrupt INT "$T/int2" first
interrupt TERM "$T/term2" first

# A closed pipe: `gvis ... | head -c 1`.  The output is far larger than a pipe's buffer,
# so gvis writes after head has gone; it must stop at once, quietly, with status 1.
"$GVIS" --cpu gauss --sigma 1 "$D/img1.png" -o - --format ppm 2>"$T/err" | head -c 1 >/dev/null
rc=${PIPESTATUS[0]}
check "closed pipe: status 1 (got $rc)" test "$rc" -eq 1
check "closed pipe: nothing on stderr" test ! -s "$T/err"
"$GVIS" --cpu gauss --sigma 1 "$D"/img*.png -o - --format ppm 2>"$T/err" | head -c 1 >/dev/null
rc=${PIPESTATUS[0]}
check "closed pipe in a batch: status 1 (got $rc)" test "$rc" -eq 1
check "closed pipe in a batch: nothing on stderr" test ! -s "$T/err"
for i in $(seq 1 40); do printf '%s\n' "$D/small.png"; done >"$T/list"
"$GVIS" --cpu hist $(cat "$T/list") 2>"$T/err" | head -c 1 >/dev/null
rc=${PIPESTATUS[0]}
check "closed pipe, text output: status 1 (got $rc)" test "$rc" -eq 1
check "closed pipe, text output: nothing on stderr" test ! -s "$T/err"
"$GVIS" --cpu hist --json $(cat "$T/list") $(cat "$T/list") 2>"$T/err" | head -c 1 >/dev/null
rc=${PIPESTATUS[0]}
check "closed pipe, json lines: status 1 (got $rc)" test "$rc" -eq 1
check "closed pipe, json lines: nothing on stderr" test ! -s "$T/err"
# known ISSUE DESC TEST...: a check that fails today through a bug in a file this suite's
# author may not edit yet (docs/notes-hardening.md); strict: once it holds, it fails and
# asks to become a plain check.
known() {
  local issue=$1 desc=$2; shift 2
  if "$@"; then
    say_fail "$desc: known issue '$issue' is fixed: turn this 'known' line into a 'check'"
  else
    pass=$((pass + 1))
    echo "KNOWN $name: $desc ($issue)" >&2
  fi
}
if [ -d "$TESTDATA/yolo" ] && ls "$TESTDATA"/yolo/*.npy >/dev/null 2>&1; then
  t=$(ls "$TESTDATA"/yolo/*.npy | head -1)
  for i in $(seq 1 200); do printf '%s\n' "$t"; done >"$T/tlist"
  "$GVIS" --cpu yolo-decode --conf 0 $(cat "$T/tlist") 2>"$T/err" | head -c 1 >/dev/null
  rc=${PIPESTATUS[0]}
  check "closed pipe, detections: status 1 (got $rc)" test "$rc" -eq 1
  check "closed pipe, detections: nothing on stderr" test ! -s "$T/err"
  "$GVIS" --cpu yolo-decode --json --conf 0 $(cat "$T/tlist") 2>"$T/err" | head -c 1 >/dev/null
  rc=${PIPESTATUS[0]}
  check "closed pipe, one JSON document: status 1 (got $rc)" test "$rc" -eq 1
  check "closed pipe, one JSON document: nothing on stderr" test ! -s "$T/err"
fi

# A write error that is not a closed pipe is still reported.
run sh -c '"$0" --cpu gauss --sigma 1 "$1" -o - --format pgm >/dev/full' "$GVIS" "$D/small.png"
check "full stdout: status 1" test "$rc" -eq 1
check "full stdout: says so" grep -q "cannot write to standard output: no space left on device" "$T/err"
finish
