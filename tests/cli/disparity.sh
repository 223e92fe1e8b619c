# gvis disparity: outputs (KITTI PNG, PFM, cv16 NPY, preview, PLY), scoring, pairs, pipes, errors.
. "$(dirname "$0")/lib.sh"
S=$TESTDATA/stereo
L=$S/tsukuba_left.png
R=$S/tsukuba_right.png
G=$S/tsukuba_gt.pgm
PY=/usr/bin/python3
have_np() { [ -x $PY ] && $PY -c 'import numpy' 2>/dev/null; }

ok "kitti png" "$GVIS" disparity --cpu --max-disp 64 "$L" "$R" -o "$T/d.png"
check "png written" test -s "$T/d.png"
check "png is 16-bit gray 384x288" test "$("$GVIS" hist --json --bins 4 "$T/d.png" | grep -o '"width": 384, "height": 288, "channels": 1, "depth": 16')" != ""
ok "pfm" "$GVIS" disparity --cpu --max-disp 64 "$L" "$R" -o "$T/d.pfm"
ok "cv16 npy" "$GVIS" disparity --cpu --max-disp 64 "$L" "$R" -o "$T/d.npy"
if have_np; then
  check "the three formats agree" $PY -c '
import sys, numpy as np, zlib, struct
d16 = np.load(sys.argv[3]).astype(np.float64)
inv = d16 == -16
raw = open(sys.argv[2], "rb").read().split(b"\n", 3)
w, h = map(int, raw[1].split()); pfm = np.frombuffer(raw[3], "<f4").reshape(h, w)[::-1]
assert np.all(np.isinf(pfm) == inv), "pfm invalid"
assert np.allclose(pfm[~inv], d16[~inv] / 16), "pfm values"
import subprocess
' "$T/d.png" "$T/d.pfm" "$T/d.npy"
  if $PY -c 'import cv2' 2>/dev/null; then
    check "kitti png = disparity x 256, 0 invalid" $PY -c '
import sys, numpy as np, cv2
k = cv2.imread(sys.argv[1], cv2.IMREAD_UNCHANGED); d16 = np.load(sys.argv[2]).astype(np.int64)
assert k.dtype == np.uint16 and k.shape == d16.shape
want = np.where(d16 == -16, 0, np.clip(d16 * 16, 0, 65535))
assert np.array_equal(k, want)' "$T/d.png" "$T/d.npy"
  fi
fi

ok "score" "$GVIS" disparity --cpu --max-disp 64 "$L" "$R" --gt "$G" --gt-scale 16
check "score line" grep -Eq 'bad-1 [0-9.]+%  bad-2 [0-9.]+%  density [0-9.]+%  mae [0-9.]+ px' "$T/out"
check "bad-2 under 6.5% on tsukuba (libSGM: 7.0%)" awk '{for (i = 1; i < NF; i++) if ($i == "bad-2") { v = $(i + 1); sub("%", "", v); exit !(v + 0 < 6.5) }}' "$T/out"
ok "score json" "$GVIS" disparity --cpu --max-disp 64 "$L" "$R" --gt "$G" --gt-scale 16 --json --fill background
check "json keys" grep -q '"bad2": ' "$T/out"
if have_np; then
  check "json parses; fill gives full density" $PY -c '
import json, sys; d = json.loads(open(sys.argv[1]).read()); assert d["density"] > 99.9 and d["bad2"] < 6.0, d' "$T/out"
fi

ok "right view and preview" "$GVIS" disparity --cpu --max-disp 64 "$L" "$R" -o "$T/l.png" --right "$T/r.png" --preview "$T/p.png"
check "right written" test -s "$T/r.png"
check "preview is 8-bit RGB" test "$("$GVIS" hist --json "$T/p.png" | grep -o '"channels": 3, "depth": 8')" != ""

ok "ply" "$GVIS" disparity --cpu --max-disp 64 "$L" "$R" --ply "$T/c.ply" --focal 615 --baseline 0.1
check "ply header" test "$(head -c 3 "$T/c.ply")" = "ply"
check "ply vertex count" grep -aq '^element vertex [1-9][0-9]*$' "$T/c.ply"
printf '1 0 0 -191.5\n0 1 0 -143.5\n0 0 0 615\n0 0 10 0\n' >"$T/q.txt"
ok "ply from Q" "$GVIS" disparity --cpu --max-disp 64 "$L" "$R" --ply "$T/q.ply" --q "$T/q.txt"
check "Q and focal/baseline give the same cloud" cmp -s "$T/c.ply" "$T/q.ply"

printf '# pairs\n%s %s %s\n\n%s %s\n' "$L" "$R" "$G" "$L" "$R" >"$T/pairs.txt"
ok "pairs" "$GVIS" disparity --cpu --max-disp 64 --pairs "$T/pairs.txt" -o "$T/many/"
check "pairs: one output per left name" test -s "$T/many/tsukuba_left.png"
check "pairs: the scored line" test "$(grep -c 'bad-2' "$T/out")" -eq 1
# the ground truth's scale from the files, for --pairs as for --gt (issue 12): tsukuba's
# truth is disparity x 16; scored at scale 1 every pixel was bad
check "pairs: gt scale 16 from the files" grep -q 'gt scale 16)' "$T/out"
check "pairs: bad-2 under 6.5% without --gt-scale" awk '{for (i = 1; i < NF; i++) if ($i == "bad-2") { v = $(i + 1); sub("%", "", v); exit !(v + 0 < 6.5) }}' "$T/out"
ok "gt without --gt-scale" "$GVIS" disparity --cpu --max-disp 64 "$L" "$R" --gt "$G" --json -v
check "gt: scale 16 in the json" grep -q '"gt_scale": 16}' "$T/out"
check "gt: -v says which scale and why" grep -q "ground-truth scale 16 (its values are 1[5-6].* times the disparities found; --gt-scale sets it)" "$T/err"
ok "gt with a --gt-scale the files contradict" "$GVIS" disparity --cpu --max-disp 64 "$L" "$R" --gt "$G" --gt-scale 1
check "the contradiction is warned" grep -q "warning: '$G': --gt-scale 1, but its values are 1[5-6].* times the disparities found (scale 16?)" "$T/err"
check "the given scale is kept" grep -q 'gt scale 1)' "$T/out"
if have_np; then
  # a truth of disparity x 3: near no usual scale, so said, not guessed
  # (numpy alone: the truth is an 8-bit PGM; OpenCV need not be installed)
  $PY -c '
import re, sys, numpy as np
raw = open(sys.argv[1], "rb").read()
m = re.match(rb"P5\s+(\d+)\s+(\d+)\s+255\s", raw)
w, h = int(m.group(1)), int(m.group(2))
g = np.frombuffer(raw, np.uint8, w * h, m.end()).astype(np.int32)
open(sys.argv[2], "wb").write(b"P5\n%d %d\n255\n" % (w, h) + (g * 3 // 16).astype(np.uint8).tobytes())' "$G" "$T/gt3.pgm"
  printf '%s %s %s\n' "$L" "$R" "$T/gt3.pgm" >"$T/pairs3.txt"
  fails "a truth of an odd scale is named" 1 "'$T/gt3.pgm': ground truth values are [23].* times the disparities found, near no usual scale .* give --gt-scale" "$GVIS" disparity --cpu --max-disp 64 --pairs "$T/pairs3.txt" -o "$T/many3/"
  ok "an odd scale given is taken" "$GVIS" disparity --cpu --max-disp 64 "$L" "$R" --gt "$T/gt3.pgm" --gt-scale 3
  check "odd scale: bad-2 under 6.5%" awk '{for (i = 1; i < NF; i++) if ($i == "bad-2") { v = $(i + 1); sub("%", "", v); exit !(v + 0 < 6.5) }}' "$T/out"
fi

ok "stdin and stdout" sh -c "cat '$L' | '$GVIS' disparity --cpu --max-disp 64 - '$R' -o - --format cv16 >'$T/pipe.npy'"
check "pipe output equals the file output" cmp -s "$T/pipe.npy" "$T/d.npy"

ok "options" "$GVIS" disparity --cpu --max-disp 32 --min-disp -8 --paths 4 --census 9x7 --p1 20 --p2 150 \
  --p2-adapt 0 --uniqueness 0.9 --no-subpixel --lr-check off --no-median --fill background "$L" "$R" -o "$T/o.npy"
if have_np; then
  check "no subpixel: whole disparities; fill: no invalid" $PY -c '
import sys, numpy as np; d = np.load(sys.argv[1]); assert np.all(d % 16 == 0) and np.all(d != -9 * 16)' "$T/o.npy"
fi

fails "bad max-disp" 2 "max-disp 100 is not a multiple of 16" "$GVIS" disparity --max-disp 100 "$L" "$R" -o "$T/x.png"
fails "max-disp too large" 2 "max-disp 528" "$GVIS" disparity --max-disp 528 "$L" "$R" -o "$T/x.png"
fails "range wider than the image" 2 "wider than the image" "$GVIS" disparity --cpu --max-disp 512 "$L" "$R" -o "$T/x.png"
check "no output after an error" test ! -e "$T/x.png"
fails "bad census" 2 "not 9x7 or sym" "$GVIS" disparity --census 5x5 "$L" "$R" -o "$T/x.png"
fails "bad cost" 2 "'ad' is not census or ad-census" "$GVIS" disparity --cost ad "$L" "$R" -o "$T/x.png"
fails "p2 over the ad-census 9x7 limit" 2 "p2 186 is outside 0..185 .8-bit path costs with ad-census cost, census 9x7" \
  "$GVIS" disparity --census 9x7 --p2 186 "$L" "$R" -o "$T/x.png"
ok "census cost" "$GVIS" disparity --cpu --max-disp 64 --cost census "$L" "$R" -o "$T/census.npy"
ok "ad-census cost named" "$GVIS" disparity --cpu --max-disp 64 --cost ad-census "$L" "$R" -o "$T/adc.npy"
ok "default cost" "$GVIS" disparity --cpu --max-disp 64 "$L" "$R" -o "$T/default.npy"
check "the default is ad-census" cmp -s "$T/adc.npy" "$T/default.npy"
check "census and ad-census differ" sh -c "! cmp -s '$T/adc.npy' '$T/census.npy'"
fails "bad preset" 2 "'best' is not fast, default or quality" "$GVIS" disparity --preset best "$L" "$R" -o "$T/x.png"
fails "bad aggregate" 2 "'box' is not none or cross" "$GVIS" disparity --aggregate box "$L" "$R" -o "$T/x.png"
ok "preset fast" "$GVIS" disparity --cpu --max-disp 64 --preset fast "$L" "$R" -o "$T/fast.npy"
ok "census, 4 paths" "$GVIS" disparity --cpu --max-disp 64 --paths 4 --cost census "$L" "$R" -o "$T/c4.npy"
check "fast is census with 4 paths" cmp -s "$T/fast.npy" "$T/c4.npy"
ok "an option given wins over the preset, before or after it" "$GVIS" disparity --cpu --max-disp 64 --paths 8 --preset fast --cost ad-census "$L" "$R" -o "$T/fast8.npy"
check "fast with 8 paths and ad-census is the default" cmp -s "$T/fast8.npy" "$T/default.npy"
ok "preset quality" "$GVIS" disparity --cpu --max-disp 64 --preset quality "$L" "$R" --gt "$G" --gt-scale 16
check "quality: dense, bad-2 under 4%" awk '{for (i = 1; i < NF; i++) if ($i == "bad-2") { v = $(i + 1); sub("%", "", v); exit !(v + 0 < 4 && index($0, "density 100.00%")) }}' "$T/out"
ok "quality without cross aggregation" "$GVIS" disparity --cpu --max-disp 64 --preset quality --aggregate none "$L" "$R" -o "$T/qn.npy"
ok "refine alone" "$GVIS" disparity --cpu --max-disp 64 --refine "$L" "$R" -o "$T/r.npy"
check "quality less cross aggregation is --refine" cmp -s "$T/qn.npy" "$T/r.npy"
fails "bad fill" 2 "not none or background" "$GVIS" disparity --fill zero "$L" "$R" -o "$T/x.png"
fails "bad lr-check" 2 "tolerance" "$GVIS" disparity --lr-check -1 "$L" "$R" -o "$T/x.png"
fails "p2 over the 8-bit limit" 2 "p2 300 is outside" "$GVIS" disparity --p2 300 "$L" "$R" -o "$T/x.png"
fails "one image" 2 "needs LEFT and RIGHT" "$GVIS" disparity "$L" -o "$T/x.png"
fails "nothing to write" 2 "nothing to write" "$GVIS" disparity "$L" "$R"
fails "ply without camera" 2 "--ply needs --focal" "$GVIS" disparity "$L" "$R" --ply "$T/x.ply"
fails "an image extension a map cannot take" 2 "disparity maps are written as" "$GVIS" disparity "$L" "$R" -o "$T/x.jpg"
"$MKIMAGE" 300 200 1 u8 smooth "$T/small.png"
fails "mismatched sizes" 1 "left is 384x288 but right is 300x200" "$GVIS" disparity --cpu --max-disp 64 "$L" "$T/small.png" -o "$T/x.png"
fails "missing file" 1 "'$T/none.png'" "$GVIS" disparity --cpu "$L" "$T/none.png" -o "$T/x.png"
fails "over an input" 1 "refusing to write over input" "$GVIS" disparity --cpu --max-disp 64 "$L" "$R" -o "$T/in.png" --right "$R"
check "no temporary files" no_temp "$T"
finish
