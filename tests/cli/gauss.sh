# gvis gauss: OpenCV goldens, types and channels, sizes and sigmas, borders, pipes, errors.
. "$(dirname "$0")/lib.sh"
G=$TESTDATA/gauss
"$MKIMAGE" 41 27 1 u8 smooth "$T/g.png"
"$MKIMAGE" 41 27 3 u8 random "$T/c.png"
"$MKIMAGE" 41 27 4 u8 smooth "$T/a.png"
"$MKIMAGE" 41 27 1 u16 smooth "$T/w.png"
"$MKIMAGE" 19 13 3 f32 smooth "$T/f.pfm"

# same pixels: both decoded by gvis itself (--ksize 1 is an exact copy) into one format
same() { # same A B
  "$GVIS" gauss --ksize 1 "$1" -o "$T/same1.npy" 2>/dev/null && "$GVIS" gauss --ksize 1 "$2" -o "$T/same2.npy" 2>/dev/null &&
    cmp -s "$T/same1.npy" "$T/same2.npy"
}
differs() { ! same "$@"; }

# OpenCV goldens (testdata/gauss/cases.tsv, scripts/gen_gauss_golden.py): exact for 8 and 16 bits
while IFS="$(printf '\t')" read -r in want kx ky sx sy border; do
  case $in in '#'*|*.npy) continue ;; esac
  ok "golden $want" "$GVIS" gauss "$G/$in" -o "$T/gold.png" --ksize "${kx}x$ky" --sigma "$sx" --sigma-y "$sy" --border "$border"
  check "golden $want equals cv2.GaussianBlur" same "$T/gold.png" "$G/$want"
done <"$G/cases.tsv"
ok "golden f32" "$GVIS" gauss "$G/rand_f32.npy" -o "$T/gold.npy" --ksize 5
check "f32 output is npy" test -s "$T/gold.npy"

# types and channels are kept
for f in g.png c.png a.png w.png; do
  ok "blur $f" "$GVIS" gauss --sigma 1.5 "$T/$f" -o "$T/b_$f"
  check "$f keeps its header" test "$(head -c 26 "$T/$f" | tail -c 10 | od -An -tx1)" = "$(head -c 26 "$T/b_$f" | tail -c 10 | od -An -tx1)"
done
ok "blur f32 pfm" "$GVIS" gauss --ksize 3 "$T/f.pfm" -o "$T/b.pfm"
check "pfm keeps its header" test "$(head -2 "$T/f.pfm" | od -An -c)" = "$(head -2 "$T/b.pfm" | od -An -c)"
ok "ksize 1 is a copy" "$GVIS" gauss --ksize 1 "$T/c.png" -o "$T/copy.png"
check "ksize 1 output equals the input" same "$T/copy.png" "$T/c.png"
ok "blur changes the image" "$GVIS" gauss --ksize 7 "$T/c.png" -o "$T/k7.png"
check "blurred differs from the input" differs "$T/k7.png" "$T/c.png"

# sizes and sigmas: ksize from sigma (8-bit: 6s+1), sigma from ksize, sigma-y
ok "sigma 2 (13 taps for 8-bit)" "$GVIS" gauss --sigma 2 "$T/g.png" -o "$T/s2.png"
ok "explicit 13 taps" "$GVIS" gauss --sigma 2 --ksize 13 "$T/g.png" -o "$T/s2k.png"
check "sigma 2 means 13 taps on 8-bit" same "$T/s2.png" "$T/s2k.png"
ok "sigma 2 on 16-bit (17 taps)" "$GVIS" gauss --sigma 2 "$T/w.png" -o "$T/s2w.png"
ok "explicit 17 taps on 16-bit" "$GVIS" gauss --sigma 2 --ksize 17 "$T/w.png" -o "$T/s2wk.png"
check "sigma 2 means 17 taps on 16-bit" same "$T/s2w.png" "$T/s2wk.png"
ok "sigma-y" "$GVIS" gauss --sigma 2 --sigma-y 0.5 "$T/g.png" -o "$T/sy.png"
check "sigma-y changes the result" differs "$T/sy.png" "$T/s2.png"
ok "KXxKY" "$GVIS" gauss --ksize 9x1 "$T/g.png" -o "$T/h9.png"
ok "255 taps" "$GVIS" gauss --ksize 255 "$T/c.png" -o "$T/k255.png"
ok "ksize 0 with sigma" "$GVIS" gauss --ksize 0 --sigma 1 "$T/g.png" -o "$T/k0.png"

# borders
for b in reflect101 replicate constant reflect wrap; do
  ok "border $b" "$GVIS" gauss --ksize 9 --border "$b" "$T/c.png" -o "$T/b_$b.png"
done
ok "no --border" "$GVIS" gauss --ksize 9 "$T/c.png" -o "$T/k9d.png"
check "reflect101 is the default" same "$T/b_reflect101.png" "$T/k9d.png"
check "borders differ" differs "$T/b_replicate.png" "$T/b_constant.png"
ok "border value" "$GVIS" gauss --ksize 9 --border constant --border-value 200 "$T/c.png" -o "$T/bv.png"
check "border value changes the result" differs "$T/bv.png" "$T/b_constant.png"

# pipes and batches
ok "stdin to stdout" sh -c "cat '$T/c.png' | '$GVIS' gauss --ksize 5 - -o - --format ppm >'$T/pipe.ppm'"
ok "file to file" "$GVIS" gauss --ksize 5 "$T/c.png" -o "$T/file.ppm"
check "pipe equals file" cmp -s "$T/pipe.ppm" "$T/file.ppm"
ok "several inputs -o DIR/" "$GVIS" gauss --ksize 3 "$T/g.png" "$T/c.png" -o "$T/dir/"
check "DIR/g.png and DIR/c.png" test -s "$T/dir/g.png" -a -s "$T/dir/c.png"
ok "--format into a dir" "$GVIS" gauss --ksize 3 "$T/g.png" -o "$T/dir2/" --format pgm
check "--format names the extension" test -s "$T/dir2/g.pgm"
fails "several inputs -o FILE" 2 "2 inputs need -o DIR/" "$GVIS" gauss --ksize 3 "$T/g.png" "$T/c.png" -o "$T/one.png"
check "no file for a usage error" test ! -e "$T/one.png"

# any sigma (issue 12): sigma 50 takes 301 taps on 8 bits, 401 on 16; a kernel wider than
# the image folds back through the border
ok "sigma 50" "$GVIS" gauss --sigma 50 "$T/g.png" -o "$T/s50.png"
ok "sigma 50, 16-bit" "$GVIS" gauss --sigma 50 "$T/w.png" -o "$T/s50w.png"
ok "sigma 40 x 7, float, constant border" "$GVIS" gauss --sigma 40 --sigma-y 7 --border constant --border-value 0.5 "$T/f.pfm" -o "$T/s40.pfm"
ok "ksize 1023 on a 41x27 image" "$GVIS" gauss --ksize 1023x5 --border wrap "$T/c.png" -o "$T/k1023.png"
# live against the OpenCV the goldens came from (Debian's 4.6); other versions round
# wide kernels differently (seen on a GPU machine's pip OpenCV)
if [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import cv2, sys; sys.exit(not cv2.__version__.startswith("4.6."))' 2>/dev/null; then
  check "sigma 50 equals cv2.GaussianBlur" /usr/bin/python3 -c '
import cv2, numpy as np, sys
a = cv2.imread(sys.argv[1], cv2.IMREAD_UNCHANGED); b = cv2.imread(sys.argv[2], cv2.IMREAD_UNCHANGED)
assert np.array_equal(cv2.GaussianBlur(a, (0, 0), 50), b)' "$T/g.png" "$T/s50.png"
  check "sigma 50, 16-bit, equals cv2.GaussianBlur" /usr/bin/python3 -c '
import cv2, numpy as np, sys
a = cv2.imread(sys.argv[1], cv2.IMREAD_UNCHANGED); b = cv2.imread(sys.argv[2], cv2.IMREAD_UNCHANGED)
assert a.dtype == np.uint16 and np.array_equal(cv2.GaussianBlur(a, (0, 0), 50), b)' "$T/w.png" "$T/s50w.png"
fi

# usage errors (exit 2)
fails "even ksize" 2 "kernel sizes are odd" "$GVIS" gauss --ksize 4 "$T/g.png" -o "$T/x.png"
fails "ksize beyond any image" 2 "kernel sizes are odd numbers from 1 to 1048575" "$GVIS" gauss --ksize 1048577 "$T/g.png" -o "$T/x.png"
fails "negative ksize" 2 "kernel sizes are odd" "$GVIS" gauss --ksize -3 "$T/g.png" -o "$T/x.png"
fails "malformed ksize" 2 "kernel size" "$GVIS" gauss --ksize 5x "$T/g.png" -o "$T/x.png"
fails "malformed ksize 2" 2 "not a kernel size" "$GVIS" gauss --ksize 5y5 "$T/g.png" -o "$T/x.png"
fails "negative sigma" 2 "--sigma must be 0 or more" "$GVIS" gauss --sigma -1 "$T/g.png" -o "$T/x.png"
fails "negative sigma-y" 2 "--sigma-y must be 0 or more" "$GVIS" gauss --sigma 1 --sigma-y -2 "$T/g.png" -o "$T/x.png"
fails "nothing given" 2 "give a sigma or a kernel size" "$GVIS" gauss "$T/g.png" -o "$T/x.png"
fails "sigma beyond any image" 2 "sigma 1e\+06 needs a kernel of more than 1048575 taps" "$GVIS" gauss --sigma 1e6 "$T/g.png" -o "$T/x.png"
fails "sigma too large for this image" 2 "'$T/w.png': sigma 200 needs a kernel of 1601 taps, at most max\(1023, 8 x [0-9]+ \+ 1\) = 1023 for a [0-9]+x[0-9]+ image" "$GVIS" gauss --sigma 200 "$T/w.png" -o "$T/x.png"
fails "ksize too large for this image" 2 "kernel width 1025: at most max\(1023" "$GVIS" gauss --ksize 1025 "$T/g.png" -o "$T/x.png"
fails "unknown border" 2 "'bogus' is not a border mode" "$GVIS" gauss --ksize 3 --border bogus "$T/g.png" -o "$T/x.png"
fails "no output" 2 "no output: give -o" "$GVIS" gauss --ksize 3 "$T/g.png"
ok "stdout with no --format: the input's" "$GVIS" gauss --ksize 3 "$T/g.png" -o -
check "stdout with no --format is a PNG" test "$(head -c 4 "$T/out" | tail -c 3)" = PNG
fails "not a number" 2 "--sigma" "$GVIS" gauss --sigma abc "$T/g.png" -o "$T/x.png"
check "no output after usage errors" test ! -e "$T/x.png"

# run-time errors (exit 1): the message names the file; no output, no temporary file
fails "missing file" 1 "^gvis gauss: '$T/missing.png': cannot open" "$GVIS" gauss --ksize 3 "$T/missing.png" -o "$T/m.png"
check "no output for a missing file" test ! -e "$T/m.png"
printf 'not an image' >"$T/bad.png"
fails "corrupt file" 1 "'$T/bad.png': not a readable image" "$GVIS" gauss --ksize 3 "$T/bad.png" -o "$T/bad2.png"
fails "16-bit to jpeg" 1 "jpg|JPEG|jpeg" "$GVIS" gauss --ksize 3 "$T/w.png" -o "$T/w.jpg"
check "no jpeg written" test ! -e "$T/w.jpg"
cp "$T/g.png" "$T/same.png"; cp "$T/same.png" "$T/same.orig"
fails "output over the input" 1 "refusing to write over input file" "$GVIS" gauss --ksize 3 "$T/same.png" -o "$T/same.png"
check "input unchanged" cmp -s "$T/same.png" "$T/same.orig"
fails "unwritable output" 1 "cannot write '$T/nodir/x.png'" "$GVIS" gauss --ksize 3 "$T/g.png" -o "$T/nodir/x.png"
run "$GVIS" gauss --ksize 3 "$T/g.png" "$T/missing.png" "$T/c.png" -o "$T/b2/"
check "batch: exit 1" test "$rc" -eq 1
check "batch: good files written" test -s "$T/b2/g.png" -a -s "$T/b2/c.png"
check "no temporary files left" no_temp "$T"

# devices and timing
ok "--cpu" "$GVIS" --cpu gauss --ksize 5 "$T/c.png" -o "$T/cpu.png"
if "$GVIS" info 2>/dev/null | grep -q '^cuda:'; then
  ok "--device cuda" "$GVIS" --device cuda gauss --ksize 5 "$T/c.png" -o "$T/gpu.png"
  check "GPU equals CPU" same "$T/cpu.png" "$T/gpu.png"
fi
ok "--timing=json" "$GVIS" --timing=json --repeat 3 gauss --ksize 5 "$T/c.png" -o "$T/t.png"
check "timing has compute_ms" grep -q '"compute_ms"' "$T/err"
finish
