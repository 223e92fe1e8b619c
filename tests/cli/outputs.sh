# All-or-nothing outputs (issue 13 item 1, issue 12 item 7): when a second output or a
# late check fails, no output of the command is left, and a file already at an output
# path keeps its bytes.  A full filesystem is a small tmpfs where mount is permitted
# (root), else /dev/full; both are tried where they can be.
. "$(dirname "$0")/lib.sh"
S=$TESTDATA/stereo
L=$S/tsukuba_left.png
R=$S/tsukuba_right.png
"$MKIMAGE" 37 23 3 u8 smooth "$T/c.png"
"$MKIMAGE" 41 29 1 u8 random "$T/small_gt.png"
head -c 48 /dev/zero >"$T/t.raw"

# a folder that is full: a 64 KiB tmpfs filled up, where we may mount one
FULL=
if [ "$(id -u)" = 0 ] && mkdir -p "$T/full" && mount -t tmpfs -o size=64k gvis-test "$T/full" 2>/dev/null; then
  trap 'umount "$T/full" 2>/dev/null; rm -rf "$T"' EXIT
  head -c 1M /dev/zero >"$T/full/filler" 2>/dev/null
  FULL=$T/full
fi
mkdir -p "$T/ro"
chmod 555 "$T/ro"
ro_works() { ! touch "$T/ro/probe" 2>/dev/null; } # root writes anywhere: skip the read-only cases then

# nothing_new DIR NAME...: none of the names exists in DIR and no temporary is left there
nothing_new() {
  local d=$1; shift
  for f in "$@"; do [ ! -e "$d/$f" ] || return 1; done
  no_temp "$d"
}

# --- hist: CSV and --plot -------------------------------------------------------------
fails "hist --plot onto /dev/full: status 1" 1 "/dev/full" "$GVIS" hist "$T/c.png" -o "$T/h.csv" --plot /dev/full
check "hist --plot onto /dev/full leaves no CSV" nothing_new "$T" h.csv
fails "hist --plot onto the input" 1 "refusing to write the plot over input" "$GVIS" hist "$T/c.png" -o "$T/h2.csv" --plot "$T/c.png"
check "hist --plot onto the input leaves no CSV" nothing_new "$T" h2.csv
echo "old csv" >"$T/keep.csv"
fails "hist --plot onto /dev/full, CSV exists" 1 "/dev/full" "$GVIS" hist "$T/c.png" -o "$T/keep.csv" --plot /dev/full
check "the existing CSV keeps its bytes" test "$(cat "$T/keep.csv")" = "old csv"
fails "hist --plot of a size refused" 2 "plot size" "$GVIS" hist "$T/c.png" -o "$T/h3.csv" --plot "$T/p.png" --plot-size 60000x60000
check "hist --plot too large leaves nothing" nothing_new "$T" h3.csv p.png
run "$GVIS" hist "$T/c.png" --plot /dev/full
check "hist to stdout with a failing plot prints no CSV" test ! -s "$T/out"
if [ -n "$FULL" ]; then
  fails "hist --plot onto a full disk" 1 "no space left" "$GVIS" hist "$T/c.png" -o "$T/h4.csv" --plot "$FULL/p.png"
  check "hist --plot onto a full disk leaves no CSV" nothing_new "$T" h4.csv
  check "and no temporary on the full disk" nothing_new "$FULL" p.png
fi
if ro_works; then
  fails "hist --plot into a read-only folder" 1 "permission denied" "$GVIS" hist "$T/c.png" -o "$T/h5.csv" --plot "$T/ro/p.png"
  check "read-only plot folder leaves no CSV" nothing_new "$T" h5.csv
fi
fails "hist --equalize then a failing plot" 1 "/dev/full" "$GVIS" hist --equalize "$T/c.png" -o "$T/eq.png" --plot /dev/full
check "no equalized image left" nothing_new "$T" eq.png

# --- disparity: map, --preview, --ply, --right-out, late --gt check ------------------
D="$GVIS disparity --cpu --max-disp 16"
fails "disparity --preview onto /dev/full" 1 "/dev/full" $D "$L" "$R" -o "$T/d.png" --preview /dev/full
check "disparity --preview failing leaves no map" nothing_new "$T" d.png
fails "disparity --ply onto /dev/full" 1 "/dev/full" $D "$L" "$R" -o "$T/d2.png" --ply /dev/full --focal 500 --baseline 0.1
check "disparity --ply failing leaves no map" nothing_new "$T" d2.png
fails "disparity --gt of the wrong size" 1 "small_gt.png': ground truth is 41x29 but the images are 384x288" $D "$L" "$R" -o "$T/d3.png" --preview "$T/pv3.png" --gt "$T/small_gt.png"
check "disparity --gt of the wrong size leaves no map, no preview" nothing_new "$T" d3.png pv3.png
if [ -n "$FULL" ]; then
  fails "disparity --ply onto a full disk" 1 "no space left" $D "$L" "$R" -o "$T/d4.png" --ply "$FULL/c.ply" --focal 500 --baseline 0.1
  check "disparity --ply onto a full disk leaves no map" nothing_new "$T" d4.png
fi
ok "disparity, all outputs succeed" $D "$L" "$R" -o "$T/d5.png" --preview "$T/pv5.png"
check "both outputs in place" test -s "$T/d5.png" -a -s "$T/pv5.png"
check "and no temporaries" no_temp "$T"

# --- warpaffine: image and --save-matrix --------------------------------------------
fails "warpaffine --save-matrix onto /dev/full" 1 "/dev/full" "$GVIS" warpaffine "$T/c.png" --letterbox 16x16 -o "$T/w.png" --save-matrix /dev/full
check "warpaffine failing matrix leaves no image" nothing_new "$T" w.png
if [ -n "$FULL" ]; then
  fails "warpaffine --save-matrix onto a full disk" 1 "no space left" "$GVIS" warpaffine "$T/c.png" --letterbox 16x16 -o "$T/w2.png" --save-matrix "$FULL/m.txt"
  check "warpaffine matrix on a full disk leaves no image" nothing_new "$T" w2.png
fi

# --- several inputs: each input's outputs are one set, the others go on --------------
"$MKIMAGE" 9 9 1 u8 random "$T/a1.png"
: >"$T/a2.png"
fails "batch with a bad input" 1 "a2.png" "$GVIS" hist "$T/a1.png" "$T/a2.png" -o "$T/hd/"
check "the good input's CSV is written" test -s "$T/hd/a1.csv"
check "the bad input's is not" nothing_new "$T/hd" a2.csv

# --- issue 12 item 7: -o DIR/ creates missing parents -------------------------------
ok "-o x/y/z/ makes the parents" "$GVIS" gauss --sigma 1 "$T/c.png" "$T/a1.png" -o "$T/x/y/z/"
check "outputs in x/y/z" test -s "$T/x/y/z/c.png" -a -s "$T/x/y/z/a1.png"
echo file >"$T/notadir"
fails "-o under a file still fails" 1 "cannot create directory" "$GVIS" gauss --sigma 1 "$T/c.png" "$T/a1.png" -o "$T/notadir/sub/"
ok "--plot x/y/ makes the parents" "$GVIS" hist "$T/c.png" "$T/a1.png" --plot "$T/px/py/"
check "plots in px/py" test -s "$T/px/py/c.png"

# --- info -o FILE (item 5) ----------------------------------------------------------
ok "info -o FILE" "$GVIS" info -o "$T/info.txt"
check "info -o writes the file" grep -q "gvis" "$T/info.txt"
fails "info -o /dev/full" 1 "/dev/full" "$GVIS" info -o /dev/full

# --- issue 13 item 5: a tiny number is a number ---------------------------------------
ok "--focal 1e-308 is taken" "$GVIS" disparity --cpu --max-disp 16 "$L" "$R" --ply "$T/tiny.ply" --focal 1e-308 --baseline 1
check "and its cloud written" test -s "$T/tiny.ply"

# --- the audit of issues 12 and 13: the main output failing after the secondary ones
# were made, each secondary kind of each subcommand failing, the input's own path, and a
# read-only folder that holds for root too (a tmpfs mounted read-only) ----------------
fails "hist -o /dev/full with --plot" 1 "/dev/full" "$GVIS" hist "$T/c.png" -o /dev/full --plot "$T/rv1.png"
check "hist: no plot left" nothing_new "$T" rv1.png
fails "disparity -o /dev/full with every secondary output" 1 "/dev/full" $D "$L" "$R" -o /dev/full \
  --preview "$T/rv2.png" --right "$T/rv2r.png" --ply "$T/rv2.ply" --focal 100 --baseline 1
check "disparity: no preview, right map or cloud left" nothing_new "$T" rv2.png rv2r.png rv2.ply
fails "disparity --right onto /dev/full" 1 "/dev/full" $D "$L" "$R" -o "$T/rv3.png" --right /dev/full --preview "$T/rv3p.png"
check "disparity --right failing: no map, no preview" nothing_new "$T" rv3.png rv3p.png
fails "disparity --preview onto an input" 1 "refusing to write" $D "$L" "$R" -o "$T/rv6.png" --preview "$R"
check "disparity --preview onto an input: no map" nothing_new "$T" rv6.png
fails "warpaffine -o /dev/full with --save-matrix" 1 "/dev/full" "$GVIS" warpaffine "$T/c.png" --letterbox 8x8 -o /dev/full --save-matrix "$T/rv4.txt"
check "warpaffine: no matrix left" nothing_new "$T" rv4.txt
fails "warpaffine --save-matrix onto the input" 1 "refusing to write the matrix over input" "$GVIS" warpaffine "$T/c.png" --letterbox 8x8 -o "$T/rv5.png" --save-matrix "$T/c.png"
check "warpaffine --save-matrix onto the input: no image" nothing_new "$T" rv5.png
cp "$T/c.png" "$T/keep.png"
fails "warpaffine over an existing image, failing matrix" 1 "/dev/full" "$GVIS" warpaffine "$T/a1.png" --letterbox 8x8 -o "$T/keep.png" --save-matrix /dev/full
check "the existing image keeps its bytes" cmp -s "$T/keep.png" "$T/c.png"
if [ "$(id -u)" = 0 ] && mkdir -p "$T/rom" && mount -t tmpfs -o size=64k,ro gvis-test-ro "$T/rom" 2>/dev/null; then
  trap 'umount "$T/full" "$T/rom" 2>/dev/null; rm -rf "$T"' EXIT
  fails "ro: hist --plot" 1 "read-only file system" "$GVIS" hist "$T/c.png" -o "$T/ro1.csv" --plot "$T/rom/p.png"
  check "ro: hist --plot leaves no CSV" nothing_new "$T" ro1.csv
  fails "ro: hist --equalize -o, --plot fine" 1 "read-only file system" "$GVIS" hist --equalize "$T/c.png" -o "$T/rom/e.png" --plot "$T/ro2.png"
  check "ro: no plot left" nothing_new "$T" ro2.png
  for opt in --preview --right --ply; do
    fails "ro: disparity $opt" 1 "read-only file system" $D "$L" "$R" -o "$T/ro3$opt.png" $opt "$T/rom/x" --focal 100 --baseline 1
    check "ro: disparity $opt leaves no map" nothing_new "$T" "ro3$opt.png"
  done
  fails "ro: warpaffine --save-matrix" 1 "read-only file system" "$GVIS" warpaffine "$T/c.png" --letterbox 8x8 -o "$T/ro4.png" --save-matrix "$T/rom/m.txt"
  check "ro: warpaffine leaves no image" nothing_new "$T" ro4.png
  fails "ro: gauss" 1 "read-only file system" "$GVIS" gauss --sigma 1 "$T/c.png" -o "$T/rom/g.png"
  fails "ro: yolo-decode" 1 "read-only file system" "$GVIS" yolo-decode --shape 2x6 "$T/t.raw" -o "$T/rom/d.json"
  fails "ro: info -o" 1 "read-only file system" "$GVIS" info -o "$T/rom/i.txt"
else
  echo "outputs: no read-only tmpfs here; those cases are left out" >&2
fi

# /dev/shm is a folder of ordinary files (tmpfs), not a device: outputs there are staged,
# renamed and kept like anywhere else (they failed with "no such file" before)
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
  SHM=$(mktemp -d /dev/shm/gvis-test.XXXXXX)
  check "gauss into a /dev/shm folder" "$GVIS" gauss --sigma 1 "$T/c.png" -o "$SHM/"
  check "hist --plot into /dev/shm" "$GVIS" hist "$T/c.png" -o "$SHM/h.csv" --plot "$SHM/h.png"
  check "the /dev/shm outputs are there, no temporary left" sh -c 'test -s "$1/c.png" && test -s "$1/h.csv" && test -s "$1/h.png" && ! ls -A "$1" | grep -q gvis-' sh "$SHM"
  rm -rf "$SHM"
fi

chmod 755 "$T/ro"
finish
