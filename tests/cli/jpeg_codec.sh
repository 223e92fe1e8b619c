# --jpeg-codec auto|cpu|nvjpeg (global): parsing, the usage and run-time errors, and that
# auto and cpu give libjpeg-turbo's bytes wherever nvJPEG is not used (a CPU device, or
# GVIS_NVJPEG_LIBRARY=none).  The GPU side: tests/test_cuda_jpeg_codec.c.
. "$(dirname "$0")/lib.sh"

"$MKIMAGE" 321 123 3 u8 smooth "$T/a.png"
"$GVIS" gauss --ksize 1 "$T/a.png" -o "$T/a.jpg" || say_fail "making a.jpg"
gpu=0
"$GVIS" info 2>/dev/null | grep -q '^cuda:' && gpu=1

fails "bad value" 2 "^gvis: --jpeg-codec: bad JPEG codec 'turbo' \(auto, cpu or nvjpeg\)$" \
  "$GVIS" --jpeg-codec turbo gauss --sigma 1 "$T/a.jpg" -o "$T/x.jpg"
fails "bad value after the subcommand" 2 "bad JPEG codec 'NVJPEG'" \
  "$GVIS" gauss --sigma 1 --jpeg-codec NVJPEG "$T/a.jpg" -o "$T/x.jpg"
fails "empty value" 2 "bad JPEG codec ''" "$GVIS" gauss --jpeg-codec= --sigma 1 "$T/a.jpg" -o "$T/x.jpg"
fails "missing value" 2 "needs a value" "$GVIS" gauss --sigma 1 "$T/a.jpg" -o "$T/x.jpg" --jpeg-codec
fails "misspelt" 2 "did you mean '--jpeg-codec'\?" "$GVIS" --jpeg-codek cpu hist "$T/a.jpg"
fails "nvjpeg with --device cpu" 2 "^gvis gauss: --jpeg-codec nvjpeg runs on a CUDA device: it cannot go with --device cpu$" \
  "$GVIS" --device cpu --jpeg-codec nvjpeg gauss --sigma 1 "$T/a.jpg" -o "$T/x.jpg"
fails "nvjpeg with --cpu, after the subcommand" 2 "cannot go with --device cpu" \
  "$GVIS" hist --jpeg-codec nvjpeg --cpu "$T/a.jpg"
check "no output after a usage error" test ! -e "$T/x.jpg"
run "$GVIS" gauss --help
check "--help lists --jpeg-codec" grep -q -- '--jpeg-codec C' "$T/out"

# nvJPEG missing: an error under nvjpeg (1: a run-time failure, as --device cuda without
# a device), libjpeg-turbo in silence under auto
if [ "$gpu" = 0 ]; then
  # (a build without CUDA says so instead: scripts/test's cpu build, a -Dcuda=disabled build dir)
  fails "nvjpeg without a GPU" 1 "^gvis gauss: --jpeg-codec nvjpeg( needs a CUDA device, and this run has none \(|: this gvis was built without CUDA)" \
    "$GVIS" --jpeg-codec nvjpeg gauss --sigma 1 "$T/a.jpg" -o "$T/x.jpg"
  fails "gpu (the same) without a GPU" 1 "needs a CUDA device|built without CUDA" \
    "$GVIS" --jpeg-codec gpu gauss --sigma 1 "$T/a.jpg" -o "$T/x.jpg"
  fails "nvjpeg without a GPU, PNG in and out" 1 "needs a CUDA device|built without CUDA" \
    "$GVIS" --jpeg-codec nvjpeg gauss --sigma 1 "$T/a.png" -o "$T/x.png"
else
  GVIS_NVJPEG_LIBRARY=none fails "nvjpeg without the library" 1 \
    "^gvis gauss: --jpeg-codec nvjpeg: nvJPEG is unavailable: " \
    "$GVIS" --device cuda --jpeg-codec nvjpeg gauss --sigma 1 "$T/a.jpg" -o "$T/x.jpg"
fi
check "no output after a failed start" test ! -e "$T/x.jpg" -a ! -e "$T/x.png"
check "no temporary files" no_temp "$T"

# GVIS_JPEG_CODEC: the default of --jpeg-codec; the option wins, --device cpu wins over
# its nvjpeg, and a value that is no codec is warned about (once, however many workers)
GVIS_JPEG_CODEC=nvjpeg ok "GVIS_JPEG_CODEC=nvjpeg with --cpu: the CPU codec" \
  "$GVIS" --cpu gauss --sigma 1 "$T/a.jpg" -o "$T/e1.jpg"
GVIS_JPEG_CODEC=nvjpeg ok "--jpeg-codec cpu over GVIS_JPEG_CODEC=nvjpeg" \
  "$GVIS" --jpeg-codec cpu gauss --sigma 1 "$T/a.jpg" -o "$T/e2.jpg"
GVIS_JPEG_CODEC=turbo ok "GVIS_JPEG_CODEC=turbo still runs" "$GVIS" -j 3 gauss --sigma 1 "$T/a.jpg" "$T/a.png" -o "$T/e3/"
check "GVIS_JPEG_CODEC=turbo: warned once" \
  test "$(grep -c "warning: GVIS_JPEG_CODEC='turbo' is not auto, cpu or nvjpeg; using cpu" "$T/err")" -eq 1
GVIS_JPEG_CODEC=turbo ok "GVIS_JPEG_CODEC=turbo, -q" "$GVIS" -q --cpu gauss --sigma 1 "$T/a.jpg" -o "$T/e4.jpg"
check "-q silences the GVIS_JPEG_CODEC warning" test ! -s "$T/err"
GVIS_JPEG_CODEC= ok "GVIS_JPEG_CODEC empty" "$GVIS" --cpu gauss --sigma 1 "$T/a.jpg" -o "$T/e5.jpg"
check "GVIS_JPEG_CODEC empty: no warning" test ! -s "$T/err"
if [ "$gpu" = 0 ]; then
  GVIS_JPEG_CODEC=nvjpeg fails "GVIS_JPEG_CODEC=nvjpeg without a GPU" 1 "needs a CUDA device" \
    "$GVIS" gauss --sigma 1 "$T/a.jpg" -o "$T/e6.jpg"
  check "GVIS_JPEG_CODEC=nvjpeg without a GPU: no output" test ! -e "$T/e6.jpg"
fi
for f in e1 e2 e4 e5; do check "GVIS_JPEG_CODEC: $f.jpg is libjpeg-turbo's" cmp -s "$T/$f.jpg" "$T/e1.jpg"; done

# auto and cpu: libjpeg-turbo's bytes where nvJPEG is not in use
ok "default" "$GVIS" --cpu gauss --sigma 1.5 "$T/a.jpg" -o "$T/ref.jpg"
for c in auto cpu; do
  ok "--jpeg-codec $c on the CPU" "$GVIS" --cpu --jpeg-codec "$c" gauss --sigma 1.5 "$T/a.jpg" -o "$T/$c.jpg"
  check "--jpeg-codec $c on the CPU: the same bytes" cmp -s "$T/ref.jpg" "$T/$c.jpg"
  GVIS_NVJPEG_LIBRARY=none ok "--jpeg-codec $c, no nvJPEG" "$GVIS" --jpeg-codec "$c" -v gauss --sigma 1.5 "$T/a.jpg" -o "$T/n$c.jpg"
  check "--jpeg-codec $c, no nvJPEG: the same bytes" cmp -s "$T/ref.jpg" "$T/n$c.jpg"
  check "--jpeg-codec $c, no nvJPEG: no nvJPEG line" test "$(grep -c 'through nvJPEG' "$T/err")" -eq 0
done
if [ "$gpu" = 1 ]; then
  GVIS_NVJPEG_LIBRARY=none ok "auto on cuda, no nvJPEG" "$GVIS" -v --device cuda --jpeg-codec auto gauss --sigma 1.5 "$T/a.jpg" -o "$T/g.jpg"
  check "auto on cuda, no nvJPEG: says why" grep -q 'JPEG through libjpeg-turbo: nvJPEG is unavailable' "$T/err"
  ok "cpu codec on cuda" "$GVIS" --device cuda --jpeg-codec cpu gauss --sigma 1.5 "$T/a.jpg" -o "$T/gc.jpg"
fi

# a batch with the option, on several workers
mkdir -p "$T/in" "$T/o1" "$T/o2"
for i in 1 2 3 4 5; do "$MKIMAGE" $((50 + 37 * i)) $((40 + 11 * i)) 3 u8 smooth "$T/in/p$i.png"; done
for i in 1 2 3; do "$GVIS" gauss --ksize 1 "$T/in/p$i.png" -o "$T/in/j$i.jpg"; done
ok "batch, cpu codec" "$GVIS" --jpeg-codec cpu -j 2 gauss --sigma 1 "$T/in" -o "$T/o1/"
ok "batch, auto, one job" "$GVIS" --cpu -j 1 gauss --sigma 1 "$T/in" -o "$T/o2/"
check "batch: 8 outputs" test "$(ls "$T/o1" | wc -l)" -eq 8
if [ "$gpu" = 0 ]; then
  for f in "$T"/o1/*; do check "batch: $(basename "$f") as one job gives it" cmp -s "$f" "$T/o2/$(basename "$f")"; done
fi
finish
