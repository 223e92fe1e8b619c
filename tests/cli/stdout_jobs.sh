# One stream of several inputs on --jobs threads (issue 15): hist's CSV and JSON Lines
# and yolo-decode's JSON, CSV and JSON Lines written to standard output are the same
# bytes at -j 1, 3 and 7 (-j 1 runs one file after another, the others on threads that
# really ran: the -v summary says so), over generated images of awkward sizes, with a
# corrupt file in the middle (named, status 1, its text left out, the header with the
# next good file) and a list that names files twice.
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 1
mkdir -p in y
i=0
for spec in "23 11 3 u8" "40 17 1 u8" "9 31 4 u8" "64 48 3 u8" "17 17 1 u16" "33 5 3 u8" "12 40 1 u8" \
            "50 21 3 u16" "7 7 3 u8" "1 1 1 u8" "31 2 4 u16" "19 23 1 u8" "45 9 3 u8" "8 60 1 u16"; do
  i=$((i + 1))
  set -- $spec
  "$MKIMAGE" "$1" "$2" "$3" "$4" random "$(printf 'in/f%02d.png' $i)"
done
printf 'not an image at all' >in/f07b.png   # corrupt, in the middle of the sorted list
n=$(ls in | wc -l)
jobs_used() { grep -Eq "of $2 files done, [0-9]+ failed, .* $3 jobs on" "$1"; }

# hist: the long CSV (one header), JSON Lines; a folder, then a list with duplicates
ls in/* | sed -n '1,5p;3p;12,15p;1p' >list.txt
nl=$(wc -l <list.txt)
for form in "" "--json" "--bins 7 --channel 0"; do
  tag=$(echo "h$form" | tr -d ' -')
  "$GVIS" --cpu hist $form in -j 1 >"$tag.1" 2>"$tag.err1"; rc1=$?
  check "hist $form -j 1: status 1 (the corrupt file)" test "$rc1" -eq 1
  check "hist $form -j 1: the corrupt file named" grep -q "'in/f07b.png'" "$tag.err1"
  for j in 3 7; do
    "$GVIS" --cpu -v hist $form in -j $j >"$tag.$j" 2>"$T/err"; rc=$?
    check "hist $form -j $j: status 1" test "$rc" -eq 1
    check "hist $form -j $j: $j jobs ran" jobs_used "$T/err" "$n" "$((j < n ? j : n))"
    check "hist $form -j $j: the corrupt file named" grep -q "'in/f07b.png'" "$T/err"
    check "hist $form -j $j = -j 1" cmp -s "$tag.1" "$tag.$j"
  done
  "$GVIS" --cpu hist $form --list list.txt -j 1 >"$tag.l1" 2>/dev/null
  "$GVIS" --cpu hist $form --list list.txt -j 3 >"$tag.l3" 2>/dev/null
  check "hist $form --list with duplicates: -j 3 = -j 1" cmp -s "$tag.l1" "$tag.l3"
done
check "hist CSV: one header" test "$(grep -c '^file,channel,bin,count$' h.1)" -eq 1
check "hist CSV: the header first" test "$(head -1 h.1)" = "file,channel,bin,count"
check "hist CSV: files in input order, the corrupt one left out" \
  diff <(tail -n +2 h.1 | cut -d, -f1 | uniq) <(ls in/* | grep -v f07b)
check "hist JSON: one line per good file" test "$(wc -l <hjson.1)" -eq $((n - 1))
check "hist --list: duplicates each time, in list order" \
  diff <(tail -n +2 h.l1 | cut -d, -f1 | uniq) <(uniq list.txt)
check "hist --list: the repeated file's rows twice" \
  test "$(grep -c "^in/f03.png,r,0," h.l1)" -eq 2
# a corrupt first file: the header comes with the first good one
printf 'in/f07b.png\nin/f01.png\nin/f02.png\nin/f07b.png\nin/f03.png\n' >bad-first.txt
"$GVIS" --cpu hist --list bad-first.txt -j 1 >bf.1 2>/dev/null
"$GVIS" --cpu hist --list bad-first.txt -j 3 >bf.3 2>/dev/null
check "hist: a corrupt first file, -j 3 = -j 1" cmp -s bf.1 bf.3
check "hist: a corrupt first file, the header first and once" \
  test "$(head -1 bf.1)" = "file,channel,bin,count" -a "$(grep -c '^file,' bf.1)" -eq 1
# --fail-fast: what -j 1 wrote before the corrupt file, and nothing finished in flight after it
"$GVIS" --cpu hist --fail-fast in -j 1 >ff.1 2>/dev/null; rc1=$?
"$GVIS" --cpu hist --fail-fast in -j 3 >ff.3 2>ff.err; rc3=$?
check "hist --fail-fast: status 1 at -j 1 and -j 3" test "$rc1" -eq 1 -a "$rc3" -eq 1
check "hist --fail-fast: -j 3 = -j 1" cmp -s ff.1 ff.3
check "hist --fail-fast: the files before the corrupt one" \
  diff <(tail -n +2 ff.3 | cut -d, -f1 | uniq) <(ls in/* | sed '/f07b/,$d')
# standard output as -o -
"$GVIS" --cpu hist in -o - -j 3 >dash.3 2>/dev/null
check "hist -o - -j 3 = -j 1" cmp -s h.1 dash.3
# a reader that goes away: quiet, status 1, no hang
run timeout 60 bash -c 'set -o pipefail; "$0" --cpu hist in -j 3 | head -c 10 >/dev/null' "$GVIS"
check "hist | head: ends (no hang)" test "$rc" -ne 124
check "hist | head: nothing said on stderr" bash -c "! grep -v 'in/f07b.png' '$T/err' | grep -q ."

# yolo-decode: tensors of random boxes (numpy) or copies of the tiny one, a corrupt one
if /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
  /usr/bin/python3 - <<'EOF'
import numpy as np
r = np.random.default_rng(1515)
for k in range(12):
    n = int(r.integers(9, 70))  # not 8: an 8x8 tensor is ambiguous (v5 or v8)
    t = np.zeros((1, n, 8), np.float32)
    t[0, :, 0:2] = r.uniform(0, 640, (n, 2))
    t[0, :, 2:4] = r.uniform(5, 120, (n, 2))
    t[0, :, 4:] = r.uniform(0, 1, (n, 4))
    if k == 4:
        t[0, :, 4] = 0  # no detection: an empty document
    np.save("y/t%02d.npy" % k, t)
EOF
else
  for k in 00 01 02 03 04 05 06 07; do cp "$TESTDATA/yolo/tiny_v5.npy" "y/t$k.npy"; done
fi
printf '\x93NUMPY broken' >y/t05b.npy
ny=$(ls y | wc -l)
ls y/* | sed -n '1,4p;2p;9,$p;1p' >ylist.txt
for form in "--json" "--format csv" "" "--format json"; do
  tag=$(echo "y$form" | tr -d ' -')
  "$GVIS" --cpu yolo-decode $form y -j 1 >"$tag.1" 2>"$tag.err1"; rc1=$?
  check "yolo-decode $form -j 1: status 1 (the corrupt tensor)" test "$rc1" -eq 1
  check "yolo-decode $form -j 1: the corrupt tensor named" grep -q "'y/t05b.npy'" "$tag.err1"
  for j in 3 7; do
    "$GVIS" --cpu -v yolo-decode $form y -j $j >"$tag.$j" 2>"$T/err"; rc=$?
    check "yolo-decode $form -j $j: status 1" test "$rc" -eq 1
    check "yolo-decode $form -j $j: $j jobs ran" jobs_used "$T/err" "$ny" "$j"
    check "yolo-decode $form -j $j = -j 1" cmp -s "$tag.1" "$tag.$j"
  done
  "$GVIS" --cpu yolo-decode $form --list ylist.txt -j 1 >"$tag.l1" 2>/dev/null
  "$GVIS" --cpu yolo-decode $form --list ylist.txt -j 3 >"$tag.l3" 2>/dev/null
  check "yolo-decode $form --list with duplicates: -j 3 = -j 1" cmp -s "$tag.l1" "$tag.l3"
done
if /usr/bin/python3 -c 'import json' 2>/dev/null; then
  check "yolo-decode --json: one valid array, one document per good tensor" /usr/bin/python3 -c '
import json, sys
d = json.load(open("yjson.7"))
sys.exit(0 if len(d) == int(sys.argv[1]) - 1 else 1)' "$ny"
  check "yolo-decode --json --list: duplicates each time" /usr/bin/python3 -c '
import json, sys
d = json.load(open("yjson.l3"))
want = [l.strip() for l in open("ylist.txt")]
sys.exit(0 if [x["file"] for x in d] == want else 1)'
fi
check "yolo-decode CSV: one header" test "$(grep -c '^file,class,name' yformatcsv.3)" -eq 1
finish
