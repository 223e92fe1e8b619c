# Interrupts at random moments of a threaded batch (issue 15): whatever the moment (a
# reader decoding, a writer mid-write, a rename), SIGINT or SIGTERM leaves no temporary
# file and every output in place is complete (equal to an uninterrupted run's).  The
# staged pipeline (gauss, disparity pairs) and the whole-chain one (hist -o DIR/) at -j 3.
# The moments come from $RANDOM (the seed is printed, GVIS_TEST_SEED repeats a run).
# GVIS_TEST_ROUNDS sets the rounds of each kind (default 10).  A failure names its
# round, its seed, what gvis said and which files were left, so that it can be repeated.
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 1
seed=${GVIS_TEST_SEED:-$$}
RANDOM=$seed
echo "interrupts: seed $seed" >&2
mkdir -p in
n=24
for i in $(seq -w 1 $n); do "$MKIMAGE" $((300 + RANDOM % 300)) $((200 + RANDOM % 200)) 3 u8 random "in/i$i.png"; done
for i in $(seq -w 1 8); do
  "$MKIMAGE" 160 90 1 u8 random "in/l$i.png"
  "$MKIMAGE" 160 90 1 u8 random "in/r$i.png"
  printf 'in/l%s.png in/r%s.png\n' "$i" "$i"
done >pairs.txt

# the arguments of each kind of batch into the folder $1 (gvis itself is signalled, not a shell)
args_gauss() { A=(--cpu -j 3 gauss --sigma 1.5 in/i*.png -o "$1/"); }
args_hist() { A=(--cpu -j 3 hist --json in/i*.png -o "$1/"); }
args_disp() { A=(--cpu -j 3 disparity --max-disp 16 --pairs pairs.txt -o "$1/" --preview "$1/p/"); }

# the reference of each, and how long it takes (the interrupts fall within it)
for k in gauss hist disp; do
  t0=$(date +%s%N)
  "args_$k" "ref-$k"
  ok "$k: reference" "$GVIS" "${A[@]}"
  ms=$((($(date +%s%N) - t0) / 1000000))
  eval "ms_$k=\$((ms > 50 ? ms : 50))"
done

rounds=${GVIS_TEST_ROUNDS:-10}
for k in gauss hist disp; do
  eval "span=\$ms_$k"
  stopped=0
  for r in $(seq 1 "$rounds"); do
    sig=INT
    [ $((r % 2)) -eq 0 ] && sig=TERM
    d="out-$k-$r"
    mkdir -p "$d"
    wait_ms=$((RANDOM % span))
    "args_$k" "$d"
    # made first: a signal that reaches the forked shell before it opens the redirection
    # (a loaded machine, a few ms) kills it with no file (a CI run saw grep find none)
    : >"$d.err"
    "$GVIS" "${A[@]}" 2>"$d.err" &
    pid=$!
    sleep "$((wait_ms / 1000)).$(printf %03d $((wait_ms % 1000)))"
    kill -s "$sig" "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    st=$?
    desc="$k: SIG$sig after $wait_ms ms (round $r)"
    if [ "$st" -eq 0 ]; then
      echo "interrupts: $desc: the batch had finished" >&2
    else
      stopped=$((stopped + 1))
      check "$desc: ended by the signal (status $st; said: $(head -c 300 "$d.err"))" test "$st" -eq $((128 + $(kill -l "$sig")))
    fi
    temps=$(find "$d" -name '.*.gvis-*')
    check "$desc: no temporary file${temps:+ (left: $temps)}" test -z "$temps"
    complete=1
    while IFS= read -r f; do
      cmp -s "$f" "ref-$k/${f#"$d"/}" || { complete=0; echo "interrupts: $desc: partial or wrong $f" >&2; }
    done < <(find "$d" -type f)
    check "$desc: every output in place is complete" test "$complete" -eq 1
    check "$desc: nothing said but the interrupted line (said: $(head -c 300 "$d.err"))" \
      test "$(grep -cv '^gvis [a-z]*: interrupted: [0-9]* of [0-9]* files done$' "$d.err")" -eq 0
  done
  echo "interrupts: $k: $stopped of $rounds batches stopped by the signal" >&2
done
[ "$fail" -eq 0 ] || echo "interrupts: failed with seed $seed (GVIS_TEST_SEED=$seed repeats the moments)" >&2
check "the inputs untouched" no_temp in
finish
