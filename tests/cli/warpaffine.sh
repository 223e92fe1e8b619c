# gvis warpaffine: OpenCV goldens through the CLI, letterbox, tensors, the matrix file,
# several inputs, pipes, exit statuses and messages, no partial outputs.
. "$(dirname "$0")/lib.sh"
W=$TESTDATA/warp
ID="1 0 0 0 1 0"

# Decoded pixels of an image as a binary PPM/PGM (an identity warp copies them exactly).
pix() { "$GVIS" warpaffine --cpu --matrix "$ID" "$1" -o "$2"; }

# every 8- and 16-bit golden of testdata/warp/cases.txt (cv2.warpAffine), on the default device
while read -r src exp interp border inverse w h f0 f1 f2 f3 m0 m1 m2 m3 m4 m5; do
  case $exp in *.npy) continue ;; esac
  case $src in gray*|col*) ext=pgm fill=$f0 ;; rgba*) ext=png fill=$f0,$f1,$f2,$f3 ;; *) ext=ppm fill=$f0,$f1,$f2 ;; esac
  if [ "$interp" = 0 ]; then mode=nearest; else mode=bilinear; fi
  if [ "$border" = 0 ]; then bmode=constant; else bmode=replicate; fi
  inv=; [ "$inverse" = 1 ] && inv=--inverse
  ok "golden $exp" "$GVIS" warpaffine "$W/$src" --matrix "$m0 $m1 $m2 $m3 $m4 $m5" $inv --size "${w}x$h" \
    --interp $mode --border $bmode --fill "$fill" -o "$T/got.$ext"
  [ "$ext" = png ] && { pix "$T/got.png" "$T/got.pam.png"; mv "$T/got.pam.png" "$T/got.png"; }
  if [ "$ext" = png ]; then
    # RGBA: compare through a tensor of the pixels (exact for 8-bit values)
    "$GVIS" warpaffine --cpu --matrix "$ID" "$T/got.png" --layout hwc --scale 1 -o "$T/a.npy"
    "$GVIS" warpaffine --cpu --matrix "$ID" "$W/$exp" --layout hwc --scale 1 -o "$T/b.npy"
    check "golden $exp equals OpenCV's" cmp -s "$T/a.npy" "$T/b.npy"
  else
    pix "$W/$exp" "$T/exp.$ext"
    check "golden $exp equals OpenCV's" cmp -s "$T/got.$ext" "$T/exp.$ext"
  fi
done <"$W/cases.txt"

# float32 golden: an f32 NPY image in, its HWC tensor out (scale 1) is the warped image
read -r src exp interp border inverse w h f0 f1 f2 f3 m0 m1 m2 m3 m4 m5 <<EOF2
$(grep '^rgbf.npy' "$W/cases.txt")
EOF2
ok "f32 golden" "$GVIS" warpaffine "$W/$src" --matrix "$m0 $m1 $m2 $m3 $m4 $m5" --size "${w}x$h" \
  --fill "$f0,$f1,$f2" --layout hwc -o "$T/f.npy"
n=$((w * h * 3 * 4))
check "f32 golden equals OpenCV's" test "$(tail -c $n "$T/f.npy" | md5sum)" = "$(tail -c $n "$W/$exp" | md5sum)"

# letterbox and the fused tensor (letterbox_chw.npy: OpenCV's warp, then numpy float32)
ok "letterbox image" "$GVIS" warpaffine "$W/rgb.png" --letterbox 64x64 -o "$T/lb.ppm" --save-matrix "$T/lb.txt"
pix "$W/exp_letterbox.png" "$T/lbexp.ppm"
check "letterbox equals OpenCV's" cmp -s "$T/lb.ppm" "$T/lbexp.ppm"
ok "letterbox tensor" "$GVIS" warpaffine "$W/rgb.png" --letterbox 64x64 --bgr --scale 1/255 \
  --mean 0.485,0.456,0.406 --std 0.229,0.224,0.225 -o "$T/lb.npy"
n=$((3 * 64 * 64 * 4))
check "tensor payload equals the golden" test "$(tail -c $n "$T/lb.npy" | md5sum)" = "$(tail -c $n "$W/letterbox_chw.npy" | md5sum)"
check "tensor header: float32, shape (3, 64, 64)" sh -c "head -c 128 '$T/lb.npy' | grep -q \"'descr': '<f4'.*'shape': (3, 64, 64)\""
ok "hwc tensor" "$GVIS" warpaffine "$W/rgb.png" --letterbox 64x48 --layout hwc -o "$T/hwc.npy"
check "hwc header: shape (48, 64, 3)" sh -c "head -c 128 '$T/hwc.npy' | grep -q \"'shape': (48, 64, 3)\""
ok "gray tensor" "$GVIS" warpaffine "$W/gray.png" --letterbox 32x32 -o "$T/g.npy"
check "gray tensor shape (1, 32, 32)" sh -c "head -c 128 '$T/g.npy' | grep -q \"'shape': (1, 32, 32)\""

# the matrix file: text, forward then inverse; read back by --matrix-file
check "matrix file: a comment and two lines of six" test "$(grep -v '^#' "$T/lb.txt" | awk 'NF == 6' | wc -l)" -eq 2
check "forward is the letterbox scale" test "$(grep -v '^#' "$T/lb.txt" | head -1 | cut -d' ' -f1)" = "1.7297297297297298"
ok "warp by the saved matrix" "$GVIS" warpaffine "$W/rgb.png" --matrix-file "$T/lb.txt" --size 64x64 --fill 114 -o "$T/mf.ppm"
check "saved matrix reproduces the letterbox" cmp -s "$T/mf.ppm" "$T/lb.ppm"
ok "matrix only, no image output" "$GVIS" warpaffine "$W/rgb.png" --letterbox 640x640 --save-matrix "$T/only.txt"
check "matrix only: file written" test -s "$T/only.txt"
ok "matrix to stdout" "$GVIS" warpaffine "$W/rgb.png" --letterbox 640x640 --save-matrix -
check "matrix to stdout: two matrices" test "$(grep -vc '^#' "$T/out")" -eq 2
printf '1 0 5\n0 1 -3\n' >"$T/np.txt"
ok "numpy.savetxt matrix" "$GVIS" warpaffine "$W/rgb.png" --matrix-file "$T/np.txt" -o "$T/np.ppm"
ok "same as --matrix" "$GVIS" warpaffine "$W/rgb.png" --matrix "1 0 5 0 1 -3" -o "$T/np2.ppm"
check "matrix file equals --matrix" cmp -s "$T/np.ppm" "$T/np2.ppm"

# several inputs, directories, pipes
ok "several inputs to DIR/" "$GVIS" warpaffine "$W/rgb.png" "$W/gray.png" --letterbox 32x32 -o "$T/d/" --save-matrix "$T/m/"
check "one output and one matrix per input" test -s "$T/d/rgb.png" -a -s "$T/d/gray.png" -a -s "$T/m/rgb.txt" -a -s "$T/m/gray.txt"
ok "tensors to DIR/" "$GVIS" warpaffine "$W/rgb.png" "$W/gray.png" --letterbox 32x32 --scale 1/255 -o "$T/tdir/"
check "tensor options give .npy in DIR/" test -s "$T/tdir/rgb.npy" -a -s "$T/tdir/gray.npy"
ok "pipe" sh -c "cat '$W/rgb.png' | '$GVIS' warpaffine - --letterbox 64x64 -o - --format ppm >'$T/pipe.ppm'"
check "pipe equals file" cmp -s "$T/pipe.ppm" "$T/lb.ppm"
ok "tensor to stdout" sh -c "'$GVIS' warpaffine '$W/rgb.png' --letterbox 64x64 --bgr --scale 1/255 --mean 0.485,0.456,0.406 --std 0.229,0.224,0.225 -o - --format npy >'$T/pipe.npy'"
check "tensor pipe equals file" cmp -s "$T/pipe.npy" "$T/lb.npy"
ok "16-bit PNG out" "$GVIS" warpaffine "$W/rgb16.png" --letterbox 40x30 -o "$T/w16.png"
check "16-bit PNG is 16-bit" sh -c "od -A n -t u1 -j 24 -N 1 '$T/w16.png' | grep -qw 16"
ok "timing json" "$GVIS" warpaffine "$W/rgb.png" --letterbox 64x64 -o "$T/t.ppm" --timing=json --repeat 3
check "timing json has compute_ms" grep -q '"compute_ms"' "$T/err"

# usage errors (2) and run-time failures (1), with no partial output
fails "no matrix" 2 "give --matrix, --matrix-file or --letterbox" "$GVIS" warpaffine "$W/rgb.png" -o "$T/x.png"
fails "two matrix sources" 2 "only one of" "$GVIS" warpaffine "$W/rgb.png" --matrix "$ID" --letterbox 9x9 -o "$T/x.png"
fails "singular matrix" 2 "singular" "$GVIS" warpaffine "$W/rgb.png" --matrix "1 2 0 2 4 0" -o "$T/x.png"
fails "nearly singular" 2 "singular" "$GVIS" warpaffine "$W/rgb.png" --matrix "1e-12 0 0 0 1e-12 0" -o "$T/x.png"
fails "non-finite matrix" 2 "finite" "$GVIS" warpaffine "$W/rgb.png" --matrix "1 0 nan 0 1 0" -o "$T/x.png"
fails "five numbers" 2 "list of 6" "$GVIS" warpaffine "$W/rgb.png" --matrix "1 0 0 0 1" -o "$T/x.png"
fails "zero size" 2 "not a size" "$GVIS" warpaffine "$W/rgb.png" --matrix "$ID" --size 0x5 -o "$T/x.png"
fails "absurd size" 2 "at most 65536" "$GVIS" warpaffine "$W/rgb.png" --matrix "$ID" --size 100000x10 -o "$T/x.png"
fails "over max pixels" 2 "over the limit" "$GVIS" warpaffine "$W/rgb.png" --matrix "$ID" --size 60000x60000 -o "$T/x.png"
fails "bad interp" 2 "nearest or bilinear" "$GVIS" warpaffine "$W/rgb.png" --matrix "$ID" --interp cubic -o "$T/x.png"
fails "bad border" 2 "constant or replicate" "$GVIS" warpaffine "$W/rgb.png" --matrix "$ID" --border wrap -o "$T/x.png"
fails "bad fill" 2 "1, 3 or 4" "$GVIS" warpaffine "$W/rgb.png" --matrix "$ID" --fill 1,2 -o "$T/x.png"
fails "fill of 3 on gray" 2 "3 values for an image of 1 channel" "$GVIS" warpaffine "$W/gray.png" --matrix "$ID" --fill 1,2,3 -o "$T/x.png"
fails "letterbox with size" 2 "no --size" "$GVIS" warpaffine "$W/rgb.png" --letterbox 9x9 --size 3x3 -o "$T/x.png"
fails "tensor options on an image" 2 "tensor output" "$GVIS" warpaffine "$W/rgb.png" --letterbox 9x9 --scale 2 -o "$T/x.png"
fails "bad scale" 2 "fraction" "$GVIS" warpaffine "$W/rgb.png" --letterbox 9x9 --scale 1/0 -o "$T/x.npy"
fails "zero std" 2 "zero" "$GVIS" warpaffine "$W/rgb.png" --letterbox 9x9 --std 1,0,1 -o "$T/x.npy"
fails "mean count" 2 "--mean has 3 values" "$GVIS" warpaffine "$W/gray.png" --letterbox 9x9 --mean 1,2,3 -o "$T/x.npy"
fails "bad layout" 2 "chw or hwc" "$GVIS" warpaffine "$W/rgb.png" --letterbox 9x9 --layout nchw -o "$T/x.npy"
fails "no output" 2 "no output" "$GVIS" warpaffine "$W/rgb.png" --letterbox 9x9
ok "stdout with no --format: the input's" "$GVIS" warpaffine "$W/rgb.png" --letterbox 9x9 -o -
check "stdout with no --format is a PNG" test "$(head -c 4 "$T/out" | tail -c 3)" = PNG
fails "several inputs, one matrix file" 2 "needs a directory" "$GVIS" warpaffine "$W/rgb.png" "$W/gray.png" --letterbox 9x9 -o "$T/dd/" --save-matrix "$T/one.txt"
fails "matrix file and input both stdin" 2 "cannot share" sh -c "cat '$W/rgb.png' | '$GVIS' warpaffine - --matrix-file - -o '$T/x.png'"
fails "matrix and image both to stdout" 2 "mix on standard output" "$GVIS" warpaffine "$W/rgb.png" --letterbox 9x9 -o - --format ppm --save-matrix -
check "no output after usage errors" test ! -e "$T/x.png" -a ! -e "$T/x.npy"
fails "missing input" 1 "warpaffine: '$T/none.png'" "$GVIS" warpaffine "$T/none.png" --letterbox 9x9 -o "$T/y.png"
fails "missing matrix file" 1 "'$T/none.txt'" "$GVIS" warpaffine "$W/rgb.png" --matrix-file "$T/none.txt" -o "$T/y.png"
printf '1 0 0\n0 1\n' >"$T/bad.txt"
fails "malformed matrix file" 1 "'$T/bad.txt': expected 6 numbers" "$GVIS" warpaffine "$W/rgb.png" --matrix-file "$T/bad.txt" -o "$T/y.png"
fails "float image to PNG" 1 "'$W/rgbf.npy'" "$GVIS" warpaffine "$W/rgbf.npy" --matrix "$ID" -o "$T/y.png"
check "no output after failures" test ! -e "$T/y.png"
check "no temporary files" no_temp "$T"
cp "$W/rgb.png" "$T/self.png"
fails "output over its input" 1 "input" "$GVIS" warpaffine "$T/self.png" --letterbox 9x9 -o "$T/self.png"
check "input untouched" cmp -s "$T/self.png" "$W/rgb.png"
finish
