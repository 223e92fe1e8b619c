# gvis disparity --method phase: structured-light phase maps (PFM, 16-bit PNG with
# --phase-scale, NPY), every option, the outputs, --gt scoring on synthetic pairs of known
# disparity (tests/mkphase), pipes, and the errors (exit 2 options, 1 data; nothing written).
. "$(dirname "$0")/lib.sh"
P=$TESTDATA/phase
L=$P/planes-left.pfm
R=$P/planes-right.pfm
G=$P/planes-gt.pfm
PY=/usr/bin/python3
have_np() { [ -x $PY ] && $PY -c 'import numpy' 2>/dev/null; }
ph() { "$GVIS" disparity --cpu --method phase --max-disp 32 "$@"; }
# field NAME: the number after NAME in $T/out ("mae 0.123 px", "density 99.5%")
field() { awk -v k="$1" '{for (i = 1; i < NF; i++) if ($i == k) { v = $(i + 1); sub("%", "", v); print v; exit }}' "$T/out"; }
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 <= b + 0) }'; }

ok "phase pfm" ph "$L" "$R" -o "$T/d.pfm"
check "pfm written" test -s "$T/d.pfm"
ok "ordered = full (phases rise strictly)" ph --search full "$L" "$R" -o "$T/full.pfm"
check "ordered and full maps identical" cmp -s "$T/d.pfm" "$T/full.pfm"

ok "noise-free score" ph "$L" "$R" --gt "$G" --gt-border 0
check "mae <= 0.05 px" lt "$(field mae)" 0.05
check "density >= 99%" lt 99 "$(field density)"
ok "16-bit png with --phase-scale" ph --phase-scale 0.001 "$P/planes-left-u16.png" "$P/planes-right-u16.png" --gt "$G" --gt-border 0
check "u16 mae <= 0.05 px" lt "$(field mae)" 0.05
ok "16-bit png without the scale (phases x1000, tolerance scaled)" ph --phase-tol 500 --valid-min 1 "$P/planes-left-u16.png" "$P/planes-right-u16.png" --gt "$G" --gt-border 0
check "unscaled mae <= 0.05 px" lt "$(field mae)" 0.05

if [ -n "${MKPHASE:-}" ]; then
  "$MKPHASE" --size 320x240 --scene slant --holes 3 --noise 0.005 --seed 7 "$T/n"
  ok "noise 0.5% of the period" ph --max-disp 64 "$T/n-left.pfm" "$T/n-right.pfm" --gt "$T/n-gt.pfm" --gt-border 0
  check "noisy mae <= 0.2 px" lt "$(field mae)" 0.2
  check "noisy density >= 99%" lt 99 "$(field density)"
  "$MKPHASE" --size 320x240 --scene planes --holes 4 --wraps 50 --seed 8 "$T/w"
  ok "wrap artefacts" ph --max-disp 64 "$T/w-left.pfm" "$T/w-right.pfm" --gt "$T/w-gt.pfm" --gt-border 0
  check "wrapped pairs mae <= 0.05 px" lt "$(field mae)" 0.05
  "$MKPHASE" --size 200x50 --scene slant --seed 9 "$T/s"
  ok "slanted plane" ph --max-disp 64 "$T/s-left.pfm" "$T/s-right.pfm" --gt "$T/s-gt.pfm" --gt-border 0 -o "$T/s.pfm"
  check "slant mae <= 0.05 px" lt "$(field mae)" 0.05
  if have_np; then
    check "a slanted plane has fractional disparities" $PY -c '
import sys, numpy as np
raw = open(sys.argv[1], "rb").read().split(b"\n", 3); w, h = map(int, raw[1].split())
s = np.frombuffer(raw[3], "<f4"); s = s[np.isfinite(s)]
assert s.size > 5000 and np.mean(s != np.round(s)) > 0.9' "$T/s.pfm"
  fi
fi

# every option
ok "no-subpixel" ph --no-subpixel "$L" "$R" -o "$T/int.pfm"
ok "window 5, tolerance 0.3, valid-min 0.5" ph --window 5 --phase-tol 0.3 --valid-min 0.5 "$L" "$R" -o "$T/w5.pfm"
ok "window 1" ph --window 1 "$L" "$R" -o "$T/w1.pfm"
ok "lr-check off" ph --lr-check off "$L" "$R" -o "$T/nolr.pfm"
ok "lr-check 2" ph --lr-check 2 "$L" "$R" -o "$T/lr2.pfm"
ok "min-disp 4, range 20" "$GVIS" disparity --cpu --method phase --min-disp 4 --max-disp 20 "$L" "$R" -o "$T/m4.pfm"
ok "roi" ph --roi 10,5,70,40 "$L" "$R" -o "$T/roi.pfm" --gt "$G" --gt-border 0
check "roi map is 60x35" test "$(head -c 20 "$T/roi.pfm" | sed -n 2p)" = "60 35"
check "roi scored 60x35 at most" test "$(grep -o '[0-9]* pixels scored' "$T/out" | cut -d' ' -f1)" -le 2100
ok "kitti png, right view, preview, ply" ph "$L" "$R" -o "$T/d.png" --right "$T/r.png" --preview "$T/v.png" --ply "$T/c.ply" --focal 100 --baseline 0.1
for f in d.png r.png v.png c.ply; do check "$f written" test -s "$T/$f"; done
check "ply has points" grep -aq 'element vertex [1-9]' "$T/c.ply"
ok "cv16" ph "$L" "$R" -o "$T/d.npy"
ok "json score" ph "$L" "$R" --gt "$G" --json
check "json keys" grep -q '"mae": ' "$T/out"
ok "pfm to a pipe" ph "$L" "$R" -o - --format pfm
check "pipe carries a PFM" test "$(head -c 2 "$T/out")" = "Pf"
run sh -c "cat '$L' | '$GVIS' disparity --cpu --method phase --max-disp 32 - '$R' -o - --format pfm | cmp -s - '$T/d.pfm'"
check "phase map from stdin, map to stdout, same map" test "$rc" -eq 0
printf '%s %s %s\n%s %s %s\n' "$L" "$R" "$G" "$P/planes-left-u16.png" "$P/planes-right-u16.png" "$G" >"$T/pairs.txt"
ok "pairs" ph --pairs "$T/pairs.txt" --phase-tol 500 --valid-min 1 -o "$T/dir/" --format pfm
check "two maps in the directory" test "$(ls "$T/dir" | wc -l)" -eq 2

if have_np; then
  check "sub-pixel off gives whole disparities; lr off keeps more; the range bounds the values" $PY -c '
import sys, numpy as np
def rd(p):
    raw = open(p, "rb").read().split(b"\n", 3); w, h = map(int, raw[1].split())
    return np.frombuffer(raw[3], "<f4").reshape(h, w)[::-1]
i, s, n = rd(sys.argv[1]), rd(sys.argv[2]), rd(sys.argv[3])
v = np.isfinite(i); assert v.sum() > 1000 and np.all(i[v] == np.round(i[v]))
assert np.isfinite(n).sum() >= np.isfinite(s).sum()
m = rd(sys.argv[4]); mv = m[np.isfinite(m)]; assert mv.min() >= 3 and mv.max() <= 24
' "$T/int.pfm" "$T/d.pfm" "$T/nolr.pfm" "$T/m4.pfm"
  $PY -c 'import sys, numpy as np
def rd(p):
    raw = open(p, "rb").read().split(b"\n", 3); w, h = map(int, raw[1].split())
    return np.frombuffer(raw[3], "<f4").reshape(h, w)[::-1]
np.save(sys.argv[2], np.ascontiguousarray(rd(sys.argv[1])))
a = rd(sys.argv[1]).copy(); a[3, 4] = np.nan; np.save(sys.argv[3], a)' "$L" "$T/l.npy" "$T/nan.npy"
  ok "npy phase map" ph "$T/l.npy" "$R" -o "$T/npy.pfm"
  check "npy gives the same map" cmp -s "$T/npy.pfm" "$T/d.pfm"
  fails "NaN phase" 1 "'$T/nan.npy': phase at 4,3 is not a finite number" ph "$T/nan.npy" "$R" -o "$T/bad.pfm"
  check "nothing written after NaN" test ! -e "$T/bad.pfm"
fi

# errors
fails "unknown method" 2 "'bogus' is not sgm or phase" "$GVIS" disparity --method bogus "$L" "$R" -o "$T/x.pfm"
fails "phase option under sgm" 2 "--phase-tol is an option of --method phase" "$GVIS" disparity --phase-tol 1 "$L" "$R" -o "$T/x.pfm"
fails "even window" 2 "'4' is not an odd number" ph --window 4 "$L" "$R" -o "$T/x.pfm"
fails "window wider than the row" 2 "window 101 is wider than the rows \(96 pixels\)" ph --window 101 "$L" "$R" -o "$T/x.pfm"
fails "negative tolerance" 2 "'-1' is not a number >= 0" ph --phase-tol -1 "$L" "$R" -o "$T/x.pfm"
fails "zero scale" 2 "'0' is not a positive number" ph --phase-scale 0 "$L" "$R" -o "$T/x.pfm"
fails "bad search" 2 "'fast' is not ordered or full" ph --search fast "$L" "$R" -o "$T/x.pfm"
fails "empty roi" 2 "empty region" ph --roi 5,5,5,9 "$L" "$R" -o "$T/x.pfm"
fails "malformed roi" 2 "is not x0,y0,x1,y1" ph --roi 1,2,3 "$L" "$R" -o "$T/x.pfm"
fails "roi outside the image" 2 "region 0,0,200,10 lies outside the 96x64 image" ph --roi 0,0,200,10 "$L" "$R" -o "$T/x.pfm"
fails "range wider than the image" 2 "disparity range of 200 is wider than the image" "$GVIS" disparity --method phase --max-disp 200 "$L" "$R" -o "$T/x.pfm"
fails "zero range" 2 "at least 1 disparity" "$GVIS" disparity --method phase --max-disp 0 "$L" "$R" -o "$T/x.pfm"
fails "mismatched sizes" 1 "left is 96x64 but right is" ph "$L" "$TESTDATA/stereo/tsukuba_left.png" -o "$T/x.pfm"
fails "colour image as phase" 1 "a phase map has one channel" ph "$TESTDATA/stereo/tsukuba_left.png" "$TESTDATA/stereo/tsukuba_left.png" -o "$T/x.pfm"
fails "gt of another size with roi" 1 "neither the image" ph --roi 0,0,10,10 "$L" "$R" --gt "$TESTDATA/stereo/tsukuba_gt.pgm" -o "$T/x.pfm"
check "nothing written on errors" test ! -e "$T/x.pfm"
check "no temporary files" no_temp "$T"
finish
