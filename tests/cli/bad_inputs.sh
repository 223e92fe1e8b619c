# Bad input, across every subcommand: truncated and corrupt files of each format, zero
# and huge sizes in headers, wrong sample types and channel counts, mismatched stereo
# pairs, NaN and infinity in tensors, singular matrices, empty lists, unreadable and
# unwritable paths, output equal to input, a full disk.
#
# Each row of the table is one case: `bad DESC STATUS REGEX CMD...`.  A case passes when
#   - gvis exits with STATUS (1 or 2) and its stderr matches REGEX (the file and the problem),
#   - stderr holds no sanitizer report,
#   - the output directory $O is empty afterwards: no output, no temporary file,
#   - no file under the input directory $D changed, appeared or went away.
# Rows `known ISSUE DESC ...` are cases that fail today through a bug in a file not the
# suite author's to edit (docs/notes-hardening.md); they fail once the bug is fixed, to be
# turned into `bad` rows.  The suite ends by checking that at least 60 cases ran.
. "$(dirname "$0")/lib.sh"
: "${MKIMAGE:?MKIMAGE is not set}"
D=$T/in
O=$T/outdir
mkdir -p "$D" "$O"
cases=0

# ---- the inputs --------------------------------------------------------------------

mk() { "$MKIMAGE" "$@" >/dev/null || { echo "mkimage $* failed" >&2; exit 1; }; }
# patch FILE OFFSET HEXBYTES: overwrites bytes in place
patch() { printf "$(printf '%s' "$3" | sed 's/../\\x&/g')" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none; }

mk 24 12 1 u8 random "$D/l.png"
mk 24 12 1 u8 random "$D/r.png"
mk 25 12 1 u8 random "$D/r25.png"
mk 24 12 1 u16 random "$D/l16.png"
mk 24 12 3 u8 random "$D/rgb.png"
mk 24 12 4 u8 random "$D/rgba.png"
mk 24 12 1 u8 smooth "$D/g.jpg"
mk 24 12 3 u8 random "$D/c.bmp"
mk 24 12 3 u8 random "$D/c.tga"
mk 24 12 1 u8 random "$D/g.pgm"
mk 24 12 3 u16 random "$D/c16.ppm"
mk 24 12 1 f32 smooth "$D/f.pfm"
mk 24 12 3 f32 smooth "$D/f3.npy"
mk 200 200 3 u8 random "$D/big.png"
# phase maps (disparity --method phase): 3x1 float, one with a NaN, one with +infinity
printf 'Pf\n3 1\n-1.0\n\x00\x00\x80\x3f\x00\x00\x00\x40\x00\x00\x40\x40' >"$D/ph.pfm"
printf 'Pf\n3 1\n-1.0\n\x00\x00\x80\x3f\x00\x00\xc0\x7f\x00\x00\x40\x40' >"$D/ph-nan.pfm"
printf 'Pf\n3 1\n-1.0\n\x00\x00\x80\x7f\x00\x00\x00\x40\x00\x00\x40\x40' >"$D/ph-inf.pfm"
mk 1000 1000 3 u8 random "$D/3mb.ppm"

# PNG: cut short, a chunk length past the end, zero and huge sizes in IHDR, a bad IDAT
head -c 60 "$D/rgb.png" >"$D/trunc.png"
cp "$D/rgb.png" "$D/chunklen.png"; patch "$D/chunklen.png" 33 7ffffff0
cp "$D/rgb.png" "$D/zero.png"; patch "$D/zero.png" 16 00000000
# 20000x20000 gray: under stb_image's own limit (2^30 bytes), over gvis's (2^28 pixels)
cp "$D/l.png" "$D/huge.png"; patch "$D/huge.png" 16 00004e2000004e20
cp "$D/rgb.png" "$D/idat.png"; patch "$D/idat.png" 45 ffffffffffffffffffffffff
# JPEG: cut short, garbage after SOI, zero height, a Huffman table of more than 256 codes
# (testdata/fuzz/jpeg: found by fuzzing, overflowed stb_image's tables)
head -c 200 "$D/g.jpg" >"$D/trunc.jpg"
printf '\377\330\377garbage garbage garbage' >"$D/garbage.jpg"
cp "$D/g.jpg" "$D/zero.jpg"
off=$(LC_ALL=C grep -obUaP '\xff\xc0' "$D/zero.jpg" | head -1 | cut -d: -f1)
[ -n "$off" ] && patch "$D/zero.jpg" $((off + 5)) 0000
cp "$TESTDATA/fuzz/jpeg/regress-dht-over-256-codes.jpg" "$D/dht.jpg"
cp "$TESTDATA/fuzz/jpeg/regress-undefined-huffman-table.jpg" "$D/undef.jpg"
# TIFF and WebP (where this build has libtiff / libwebp): cut short, garbage after the
# signature, a 100000x100000 header, an unsupported sample format
codecs=$("$GVIS" info)
has_tiff=0; printf '%s\n' "$codecs" | grep -q '^  tif  *libtiff' && has_tiff=1
has_webp=0; printf '%s\n' "$codecs" | grep -q '^  webp  *libwebp' && has_webp=1
if [ $has_tiff = 1 ]; then
  "$GVIS" gauss --ksize 1 "$D/rgb.png" -o "$D/c.tif" 2>/dev/null
  head -c 100 "$D/c.tif" >"$D/trunc.tif"
  printf 'II*\000\010\000\000\000garbage garbage garbage garbage' >"$D/garbage.tif"
  # a minimal IFD: 100000x100000 8-bit gray, one strip
  printf "II*\x00\x08\x00\x00\x00\x09\x00\
\x00\x01\x04\x00\x01\x00\x00\x00\xa0\x86\x01\x00\x01\x01\x04\x00\x01\x00\x00\x00\xa0\x86\x01\x00\
\x02\x01\x03\x00\x01\x00\x00\x00\x08\x00\x00\x00\x03\x01\x03\x00\x01\x00\x00\x00\x01\x00\x00\x00\
\x06\x01\x03\x00\x01\x00\x00\x00\x01\x00\x00\x00\x11\x01\x04\x00\x01\x00\x00\x00\x08\x00\x00\x00\
\x15\x01\x03\x00\x01\x00\x00\x00\x01\x00\x00\x00\x16\x01\x04\x00\x01\x00\x00\x00\xa0\x86\x01\x00\
\x17\x01\x04\x00\x01\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00" >"$D/huge.tif"
  # the same header for a 4x4 image of 32-bit unsigned samples, one strip of zeros after it
  cp "$D/huge.tif" "$D/int32.tif"
  patch "$D/int32.tif" 18 04000000; patch "$D/int32.tif" 30 04000000; patch "$D/int32.tif" 42 2000
  patch "$D/int32.tif" 102 04000000; patch "$D/int32.tif" 114 40000000; patch "$D/int32.tif" 78 7a000000
  head -c 64 /dev/zero >>"$D/int32.tif"
fi
if [ $has_webp = 1 ]; then
  "$GVIS" gauss --ksize 1 --quality 70 "$D/rgb.png" -o "$D/c.webp" 2>/dev/null
  head -c 40 "$D/c.webp" >"$D/trunc.webp"
  printf 'RIFF\040\000\000\000WEBPVP8 \024\000\000\000garbage garbage garbage' >"$D/garbage.webp"
fi
# BMP: cut short, zero and huge sizes
head -c 300 "$D/c.bmp" >"$D/trunc.bmp"
cp "$D/c.bmp" "$D/zero.bmp"; patch "$D/zero.bmp" 18 00000000
cp "$D/c.bmp" "$D/huge.bmp"; patch "$D/huge.bmp" 18 ffff0000ffff0000
# a compression of 2^31 or more (stb reads it as a negative int: uncompressed, unchecked) and
# a height that the 100-odd bytes cannot hold (fuzz_sniff, the audit of issue 13)
head -c 100 "$D/c.bmp" >"$D/negcomp.bmp"; patch "$D/negcomp.bmp" 22 05000400; patch "$D/negcomp.bmp" 30 00ffffff
# TGA: uncompressed and RLE data cut short, zero size
head -c 100 "$D/c.tga" >"$D/trunc.tga"
printf '\000\000\012\000\000\000\000\000\000\000\000\000\100\000\100\000\030\000\203\001\002\003' >"$D/rle.tga"
cp "$D/c.tga" "$D/zero.tga"; patch "$D/zero.tga" 12 00000000
# PGM / PPM: cut short, no data, bad maximum values, zero and huge sizes
head -c 100 "$D/g.pgm" >"$D/trunc.pgm"
printf 'P5\n24 12\n255\n' >"$D/nodata.pgm"
printf 'P5\n2 2\n0\n\001\002\003\004' >"$D/max0.pgm"
printf 'P5\n2 2\n70000\n\001\002\003\004\005\006\007\010' >"$D/max70k.pgm"
printf 'P5\n0 5\n255\n' >"$D/zero.pgm"
printf 'P6\n100000 100000\n255\n' >"$D/huge.ppm"
head -c 500 "$D/c16.ppm" >"$D/trunc16.ppm"
printf 'P5 x y\n' >"$D/header.pgm"
# PFM: cut short, scale 0, zero width, huge, no number
head -c 200 "$D/f.pfm" >"$D/trunc.pfm"
printf 'Pf\n2 2\n0\n0123456789abcdef' >"$D/scale0.pfm"
printf 'Pf\n0 2\n-1\n' >"$D/zero.pfm"
printf 'PF\n70000 70000\n-1\n' >"$D/huge.pfm"
printf 'Pf\nwide 2\n-1\n' >"$D/word.pfm"
# NPY: cut short, unknown dtype, Fortran order, 4-D, a shape that overflows, not an image
head -c 150 "$D/f3.npy" >"$D/trunc.npy"
npy() { # npy FILE HEADER-DICT [DATA-BYTES]: a version 1 NPY file
  local h=$2 pad
  pad=$(( (64 - (10 + ${#h} + 1) % 64) % 64 ))
  h="$h$(printf '%*s' "$pad" '')"
  { printf '\223NUMPY\001\000'; printf "\\$(printf '%03o' $(( (${#h} + 1) % 256 )))\\$(printf '%03o' $(( (${#h} + 1) / 256 )))"
    printf '%s\n' "$h"; [ -n "${3:-}" ] && head -c "$3" /dev/zero; } >"$1"
}
npy "$D/cplx.npy" "{'descr': '<c8', 'fortran_order': False, 'shape': (2, 2), }" 32
npy "$D/fortran.npy" "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }" 16
npy "$D/4d.npy" "{'descr': '|u1', 'fortran_order': False, 'shape': (2, 2, 2, 2), }" 16
npy "$D/overflow.npy" "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 16), }"
npy "$D/5ch.npy" "{'descr': '|u1', 'fortran_order': False, 'shape': (2, 2, 5), }" 20
npy "$D/noshape.npy" "{'descr': '<f4', 'fortran_order': False, }"
printf '0 0 0 0\n0 0 0 0\n0 0 0 0\n0 0 0 0\n' >"$D/q0.txt"
printf '1 0 0 0\n0 1 0 0\n0 0 0 1e30\n0 0 1e-30 0\n' >"$D/qbig.txt"
npy "$D/trail.npy" "{'descr': '|u1', 'fortran_order': False, 'shape': (2, 2), }" 8
npy "$D/huge-hdr.npy" "{'descr': '<f4', 'fortran_order': False, 'shape': (100000, 100000), }"
printf 'GIF89a\001\000\001\000\000\000\000;' >"$D/anim.gif"
# a PNM header without the whitespace gvis's reader needs went to stb_image's own PNM
# reader, whose integers overflow (testdata/fuzz/pnm: found by fuzzing)
printf 'P699999999999999999999#' >"$D/p6.ppm"
: >"$D/empty.png"
mkdir -p "$D/adir.png"

# YOLO tensors: NaN and infinity, wrong rank, wrong dtype, raw data of the wrong size
f32() { # f32 FILE HEXWORD...: raw little-endian float32
  local w; for w in "${@:2}"; do printf "$(printf '%s' "$w" | sed 's/\(..\)\(..\)\(..\)\(..\)/\\x\4\\x\3\\x\2\\x\1/')"; done >"$1"
}
one=3f800000 half=3f000000 ten=41200000
f32 "$D/nan.raw" $ten $ten $ten $ten $half 7fc00000 $ten $ten $ten $ten $half $half
f32 "$D/inf.raw" $ten $ten $ten $ten $half $one $ten $ten 7f800000 $ten $half $half
f32 "$D/ninf.raw" $ten $ten $ten $ten $half $one $ten $ten $ten $ten ff800000 $half
f32 "$D/good.raw" $ten $ten $ten $ten $half $one $ten $ten $ten $ten $half $half
npy "$D/nan.npy" "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 6), }"
cat "$D/nan.raw" >>"$D/nan.npy"
npy "$D/t4d.npy" "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 2, 6), }" 48
npy "$D/ti32.npy" "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 6), }" 48
npy "$D/tempty.npy" "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 6), }"

# matrices: singular, not finite, too few numbers, not inverses of each other, empty
printf '0 0 0\n0 0 0\n' >"$D/singular.txt"
printf '1 2 3\n2 4 6\n' >"$D/rank1.txt"
printf '1 0 nan\n0 1 0\n' >"$D/nan.txt"
printf '1 0 1e999\n0 1 0\n' >"$D/inf.txt"
printf '1 0 0\n0 1\n' >"$D/five.txt"
printf '1 0 5 0 1 0\n1 0 5 0 1 0\n' >"$D/notinv.txt"
printf '# nothing\n\n' >"$D/nomatrix.txt"
printf '1 0 0 0 1 0 x\n' >"$D/word.txt"
# pair lists: empty, comments only, one field, four fields, naming missing files
: >"$D/pairs-empty.txt"
printf '# left right\n\n# none\n' >"$D/pairs-comments.txt"
printf '%s\n' "$D/l.png" >"$D/pairs-one.txt"
printf '%s %s %s %s\n' "$D/l.png" "$D/r.png" "$D/r.png" "$D/r.png" >"$D/pairs-four.txt"
printf '%s %s\n' "$D/l.png" "$D/missing.png" >"$D/pairs-missing.txt"
printf '%s %s\n' "$D/l.png" "$D/r25.png" >"$D/pairs-mismatch.txt"
# other lists: empty class names, a reprojection matrix of 15 numbers
: >"$D/names-empty.txt"
printf '1 0 0 -12\n0 1 0 -6\n0 0 0 100\n0 0 0.1\n' >"$D/q15.txt"
# two inputs of one base name, in two folders
mkdir -p "$D/s1" "$D/s2"
mk 24 12 1 u8 random "$D/s1/v.png"
mk 24 12 1 u8 smooth "$D/s2/v.png"
cp "$D/good.raw" "$D/s1/t.raw"; cp "$D/inf.raw" "$D/s2/t.raw"
printf '%s %s\n%s %s\n' "$D/s1/v.png" "$D/r.png" "$D/s2/v.png" "$D/r.png" >"$D/pairs-same-name.txt"
# other names of an input: a symbolic and a hard link
ln -s l.png "$D/sym.png"
ln "$D/r.png" "$D/hard.png"
# unreadable (see as_other below)
cp "$D/l.png" "$D/secret.png"; chmod 000 "$D/secret.png"

snapshot() { (cd "$D" && find . -printf '%p %s %m\n' | sort && find . -type f -perm -u+r -exec md5sum {} + 2>/dev/null | sort); }
before=$(snapshot)

# ---- the case runner -----------------------------------------------------------------

# try_case DESC STATUS REGEX CMD...: runs one case; $why says what went wrong ("" when none).
# STATUS may list several ("1|2") where either is right.
try_case() {
  local desc=$1 want=$2 re=$3; shift 3
  cases=$((cases + 1))
  rm -rf "$O"; mkdir -p "$O"; chmod 777 "$O"
  run "$@"
  why=""
  case "|$want|" in *"|$rc|"*) ;; *) why="exit $rc, wanted $want" ;; esac
  grep -Eq -- "$re" "$T/err" || why="${why:+$why; }stderr does not match /$re/"
  grep -Eq 'Sanitizer|runtime error:|LEFTOVER' "$T/err" && why="${why:+$why; }sanitizer report or leftover"
  [ -z "$(ls -A "$O" 2>/dev/null)" ] || why="${why:+$why; }left in the output directory: $(ls -A "$O" | head -5 | tr '\n' ' ')"
  if [ "$(snapshot)" != "$before" ]; then
    why="${why:+$why; }the input directory changed"
    before=$(snapshot) # one broken case must not fail all that follow
  fi
}

bad() {
  try_case "$@"
  if [ -z "$why" ]; then pass=$((pass + 1)); else say_fail "$1: $why; stderr: $(head -c 300 "$T/err")"; fi
}

# known ISSUE DESC STATUS REGEX CMD...: a case that fails today through a bug in a file this
# suite's author may not edit yet (listed in docs/notes-hardening.md).  It is strict: while
# the bug is there the case counts as passed and prints KNOWN; once it is fixed the case
# fails, asking to be turned into a `bad` row.
known() {
  local issue=$1; shift
  try_case "$@"
  if [ -n "$why" ]; then
    pass=$((pass + 1))
    printf 'KNOWN %s: %s (%s): %s\n' "$name" "$1" "$issue" "$why" >&2
  else
    say_fail "$1: known issue '$issue' is fixed: turn this 'known' row into a 'bad' row"
  fi
}

# Runs a command as another user where the test runs as root (root reads and writes
# anything, so permissions would not be tested); empty when not root.
as_other=
if [ "$(id -u)" -eq 0 ]; then
  if command -v setpriv >/dev/null 2>&1; then
    as_other="setpriv --reuid=65534 --regid=65534 --clear-groups --"
    chmod 755 "$T" "$D"
  else
    as_other=skip
  fi
fi

# ---- the table ----------------------------------------------------------------------

# image formats, through hist, gauss and warpaffine
bad "png cut short" 1 "'$D/trunc.png': truncated PNG" "$GVIS" hist "$D/trunc.png"
bad "png chunk length past the end" 1 "'$D/chunklen.png': (corrupt|truncated) PNG" "$GVIS" gauss --sigma 1 "$D/chunklen.png" -o "$O/x.png"
bad "png zero width" 1 "'$D/zero.png': .*(zero|corrupt|not a readable)" "$GVIS" hist "$D/zero.png"
bad "png 20000x20000 header" 1 "'$D/huge.png': .*larger than the limit" "$GVIS" gauss --sigma 1 "$D/huge.png" -o "$O/x.png"
bad "png corrupt IDAT" 1 "'$D/idat.png': corrupt or truncated (image|PNG)" "$GVIS" warpaffine --letterbox 32x32 "$D/idat.png" -o "$O/x.png"
bad "jpeg cut short" 1 "'$D/trunc.jpg': .*(corrupt|truncated)" "$GVIS" hist "$D/trunc.jpg"
bad "jpeg garbage after SOI" 1 "'$D/garbage.jpg': .*(corrupt|not a readable)" "$GVIS" hist "$D/garbage.jpg"
bad "jpeg zero height" 1 "'$D/zero.jpg': .*(zero|corrupt|not a readable)" "$GVIS" gauss --sigma 1 "$D/zero.jpg" -o "$O/x.png"
bad "jpeg Huffman table over 256 codes" 1 "'$D/dht.jpg': corrupt (JPEG: Huffman table|or truncated JPEG \\(Bogus Huffman)" "$GVIS" hist "$D/dht.jpg"
bad "jpeg scan with an undefined Huffman table" 1 "'$D/undef.jpg': corrupt (JPEG: a scan uses a Huffman table never defined|or truncated JPEG \\(Huffman table 0x00 was not defined)" "$GVIS" gauss --sigma 1 "$D/undef.jpg" -o "$O/x.png"
if [ $has_tiff = 1 ]; then
bad "tiff cut short" 1 "'$D/trunc.tif': .*(corrupt|truncated|not a readable) TIFF" "$GVIS" hist "$D/trunc.tif"
bad "tiff garbage after the signature" 1 "'$D/garbage.tif': .*(corrupt|not a readable) TIFF" "$GVIS" gauss --sigma 1 "$D/garbage.tif" -o "$O/x.png"
bad "tiff 100000x100000 header" 1 "'$D/huge.tif': .*larger than the limit" "$GVIS" gauss --sigma 1 "$D/huge.tif" -o "$O/x.png"
bad "tiff 32-bit unsigned samples" 1 "'$D/int32.tif': unsupported TIFF \\(32-bit unsigned" "$GVIS" hist "$D/int32.tif"
bad "tiff page past the last" 2 "'$D/c.tif': no page 3 in this TIFF" "$GVIS" hist --page 3 "$D/c.tif"
fi
if [ $has_webp = 1 ]; then
bad "webp cut short" 1 "'$D/trunc.webp': corrupt or truncated WebP" "$GVIS" hist "$D/trunc.webp"
bad "webp garbage after the header" 1 "'$D/garbage.webp': corrupt or truncated WebP" "$GVIS" warpaffine --letterbox 32x32 "$D/garbage.webp" -o "$O/x.png"
bad "16-bit image to webp" 1 "WebP holds 8-bit images" "$GVIS" gauss --sigma 1 "$D/l16.png" -o "$O/x.webp"
bad "float image to tiff is fine, to webp not" 1 "WebP holds 8-bit images" "$GVIS" gauss --sigma 1 "$D/f.pfm" -o "$O/x.webp"
fi
bad "bmp cut short" 1 "'$D/trunc.bmp': truncated BMP" "$GVIS" hist "$D/trunc.bmp"
bad "bmp of a negative compression, 100 bytes for 24x262149 (read as zeros)" 1 "'$D/negcomp.bmp': unsupported BMP \(compression 4294967040\)" "$GVIS" hist "$D/negcomp.bmp"
bad "bmp zero size" 1 "'$D/zero.bmp': .*(zero|corrupt|not a readable)" "$GVIS" hist "$D/zero.bmp"
bad "bmp 65535x65535 header" 1 "'$D/huge.bmp': (.*larger than the limit|truncated BMP data)" "$GVIS" gauss --sigma 1 "$D/huge.bmp" -o "$O/x.png"
bad "tga cut short" 1 "'$D/trunc.tga': truncated TGA" "$GVIS" hist "$D/trunc.tga"
bad "tga RLE data cut short" 1 "'$D/rle.tga': truncated TGA" "$GVIS" hist "$D/rle.tga"
bad "tga zero size" 1 "'$D/zero.tga': .*(zero|not a readable)" "$GVIS" hist "$D/zero.tga"
bad "pgm cut short" 1 "'$D/trunc.pgm': truncated PGM data" "$GVIS" hist "$D/trunc.pgm"
bad "pgm header without data" 1 "'$D/nodata.pgm': truncated PGM" "$GVIS" gauss --sigma 1 "$D/nodata.pgm" -o "$O/x.pgm"
bad "pgm maximum value 0" 1 "'$D/max0.pgm': bad maximum value 0" "$GVIS" hist "$D/max0.pgm"
bad "pgm maximum value 70000" 1 "'$D/max70k.pgm': bad maximum value 70000" "$GVIS" hist "$D/max70k.pgm"
bad "pgm zero width" 1 "'$D/zero.pgm': image has zero size" "$GVIS" hist "$D/zero.pgm"
bad "ppm 100000x100000 header" 1 "'$D/huge.ppm': .*larger than the limit" "$GVIS" warpaffine --letterbox 32x32 "$D/huge.ppm" -o "$O/x.png"
bad "ppm 16-bit cut short" 1 "'$D/trunc16.ppm': truncated PPM data" "$GVIS" hist "$D/trunc16.ppm"
bad "pgm header not numbers" 1 "'$D/header.pgm': bad or truncated PGM header" "$GVIS" hist "$D/header.pgm"
bad "pfm cut short" 1 "'$D/trunc.pfm': truncated PFM data" "$GVIS" gauss --sigma 1 "$D/trunc.pfm" -o "$O/x.pfm"
bad "pfm scale 0" 1 "'$D/scale0.pfm': bad PFM scale" "$GVIS" gauss --sigma 1 "$D/scale0.pfm" -o "$O/x.pfm"
bad "pfm zero width" 1 "'$D/zero.pfm': bad PFM width" "$GVIS" gauss --sigma 1 "$D/zero.pfm" -o "$O/x.pfm"
bad "pfm 70000x70000 header" 1 "'$D/huge.pfm': .*larger than the limit" "$GVIS" gauss --sigma 1 "$D/huge.pfm" -o "$O/x.pfm"
bad "pfm width not a number" 1 "'$D/word.pfm': bad PFM width 'wide'" "$GVIS" gauss --sigma 1 "$D/word.pfm" -o "$O/x.pfm"
bad "npy cut short" 1 "'$D/trunc.npy': truncated NPY" "$GVIS" gauss --sigma 1 "$D/trunc.npy" -o "$O/x.npy"
bad "npy complex dtype" 1 "'$D/cplx.npy': unsupported NPY dtype '<c8'" "$GVIS" gauss --sigma 1 "$D/cplx.npy" -o "$O/x.npy"
bad "npy Fortran order" 1 "'$D/fortran.npy': NPY array is not in C order" "$GVIS" gauss --sigma 1 "$D/fortran.npy" -o "$O/x.npy"
bad "npy 4-D as an image" 1 "'$D/4d.npy': NPY array is not an image" "$GVIS" hist "$D/4d.npy"
bad "npy shape overflows" 1 "'$D/overflow.npy': NPY shape overflows" "$GVIS" hist "$D/overflow.npy"
bad "npy 5 channels" 1 "'$D/5ch.npy': NPY array is not an image" "$GVIS" gauss --sigma 1 "$D/5ch.npy" -o "$O/x.npy"
bad "npy without a shape" 1 "'$D/noshape.npy': NPY header has no shape" "$GVIS" hist "$D/noshape.npy"
bad "PNM header stb would read" 1 "'$D/p6.ppm': not a readable image \(unknown format" "$GVIS" hist "$D/p6.ppm"
bad "gif (not a gvis format)" 1 "'$D/anim.gif': not a readable image \(unknown format" "$GVIS" hist "$D/anim.gif"
bad "empty file" 1 "'$D/empty.png': empty file" "$GVIS" gauss --sigma 1 "$D/empty.png" -o "$O/x.png"
bad "a directory as input" 1 "'$D/adir.png': is a directory" "$GVIS" warpaffine --letterbox 32x32 "$D/adir.png" -o "$O/x.png"
bad "missing input" 1 "'$D/missing.png': cannot open: no such file" "$GVIS" gauss --sigma 1 "$D/missing.png" -o "$O/x.png"
bad "over --max-pixels" 1 "'$D/big.png': .*larger than the limit of 1000 pixels" "$GVIS" --max-pixels 1000 gauss --sigma 1 "$D/big.png" -o "$O/x.png"
bad "endless input (/dev/zero)" 1 "'/dev/zero': not a readable image \(unknown format" "$GVIS" --max-pixels 1 hist /dev/zero
bad "file larger than any image under the limit" 1 "'$D/3mb.ppm': file of 30000[0-9]+ bytes is larger than the limit of 2097168 bytes" "$GVIS" --max-pixels 1 gauss --sigma 1 "$D/3mb.ppm" -o "$O/x.png"
bad "input path through a file" 1 "'$D/l.png/x.png': cannot open: not a directory" "$GVIS" hist "$D/l.png/x.png"

# sample types and channels an operation cannot take
bad "hist --equalize on 16-bit" 1 "'$D/l16.png': .*needs an 8-bit image" "$GVIS" hist --equalize "$D/l16.png" -o "$O/x.png"
bad "hist on float" 1 "'$D/f.pfm': histograms need an 8- or 16-bit image" "$GVIS" hist "$D/f.pfm"
bad "16-bit to JPEG" 1 "'$D/l16.png': JPEG holds 8-bit images" "$GVIS" gauss --sigma 1 "$D/l16.png" -o "$O/x.jpg"
bad "float to PNG" 1 "'$D/f.pfm': .*(PNG|8- or 16-bit|f32)" "$GVIS" gauss --sigma 1 "$D/f.pfm" -o "$O/x.png"
bad "4 channels to PPM" 1 "'$D/rgba.png': .*(PPM|channel)" "$GVIS" gauss --sigma 1 "$D/rgba.png" -o "$O/x.ppm"
bad "disparity of float images" 1 "'$D/f.pfm': disparity takes 8- or 16-bit images" "$GVIS" disparity --max-disp 16 "$D/f.pfm" "$D/f.pfm" -o "$O/d.png"
bad "hist --channel 2 of a gray image" 2 "channel 2 does not exist" "$GVIS" hist --channel 2 "$D/l.png"
bad "warpaffine --mean of 3 on gray" 2 "(mean|channel)" "$GVIS" warpaffine --letterbox 32x32 --mean 0.5,0.5,0.5 "$D/l.png" -o "$O/x.npy"

# stereo pairs
bad "stereo pair of different sizes" 1 "'$D/l.png': left is 24x12 but right is 25x12" "$GVIS" disparity --max-disp 16 "$D/l.png" "$D/r25.png" -o "$O/d.png"
bad "phase map with a NaN" 1 "'$D/ph-nan.pfm': phase at 1,0 is not a finite number" "$GVIS" disparity --method phase --max-disp 2 "$D/ph-nan.pfm" "$D/ph.pfm" -o "$O/d.pfm"
bad "right phase map with infinity" 1 "'$D/ph.pfm': right map: phase at 0,0 is not a finite number" "$GVIS" disparity --method phase --max-disp 2 "$D/ph.pfm" "$D/ph-inf.pfm" -o "$O/d.pfm"
bad "phase maps of different sizes" 1 "'$D/f.pfm': left is 24x12 but right is 3x1" "$GVIS" disparity --method phase --max-disp 2 "$D/f.pfm" "$D/ph.pfm" -o "$O/d.pfm"
bad "colour phase map" 1 "'$D/rgb.png': a phase map has one channel, this one has 3" "$GVIS" disparity --method phase --max-disp 2 "$D/rgb.png" "$D/rgb.png" -o "$O/d.pfm"
bad "phase window wider than the row" 2 "window 5 is wider than the rows \(3 pixels\)" "$GVIS" disparity --method phase --max-disp 2 --window 5 "$D/ph.pfm" "$D/ph.pfm" -o "$O/d.pfm"
bad "phase region outside the image" 2 "region 0,0,4,1 lies outside the 3x1 image" "$GVIS" disparity --method phase --max-disp 2 --roi 0,0,4,1 "$D/ph.pfm" "$D/ph.pfm" -o "$O/d.pfm"
bad "empty phase region" 2 "'2,0,2,1' is an empty region" "$GVIS" disparity --method phase --roi 2,0,2,1 "$D/ph.pfm" "$D/ph.pfm" -o "$O/d.pfm"
bad "truncated phase map" 1 "'$D/trunc.pfm'" "$GVIS" disparity --method phase --max-disp 2 "$D/trunc.pfm" "$D/ph.pfm" -o "$O/d.pfm"
bad "stereo pair of different depths" 1 "'$D/l.png': left is u8 but right is u16" "$GVIS" disparity --max-disp 16 "$D/l.png" "$D/l16.png" -o "$O/d.png"
bad "stereo pair narrower than the disparities" 2 "'$D/l.png': disparity range of 128 is wider than the image" "$GVIS" disparity "$D/l.png" "$D/r.png" -o "$O/d.png"
bad "ground truth of another size" 1 "'$D/r25.png'|'$D/l.png'.*(size|25x12)" "$GVIS" disparity --max-disp 16 "$D/l.png" "$D/r.png" --gt "$D/r25.png"
bad "reprojection matrix of 15 numbers" 1 "'$D/q15.txt'.*16 numbers" "$GVIS" disparity --max-disp 16 "$D/l.png" "$D/r.png" --ply "$O/x.ply" --q "$D/q15.txt"
bad "empty pair list" 1 "'$D/pairs-empty.txt': no pairs in the file" "$GVIS" disparity --max-disp 16 --pairs "$D/pairs-empty.txt" -o "$O/"
bad "pair list of comments only" 1 "'$D/pairs-comments.txt': no pairs in the file" "$GVIS" disparity --max-disp 16 --pairs "$D/pairs-comments.txt" -o "$O/"
bad "pair list line of one field" 1 "'$D/pairs-one.txt': line 1: expected LEFT RIGHT \[GT\], found 1 field" "$GVIS" disparity --max-disp 16 --pairs "$D/pairs-one.txt" -o "$O/"
bad "pair list line of four fields" 1 "'$D/pairs-four.txt': line 1: expected LEFT RIGHT \[GT\], found 4 fields" "$GVIS" disparity --max-disp 16 --pairs "$D/pairs-four.txt" -o "$O/"
bad "missing pair list" 1 "'$D/nopairs.txt': cannot open" "$GVIS" disparity --max-disp 16 --pairs "$D/nopairs.txt" -o "$O/"
bad "pair list naming a missing file" 1 "'$D/missing.png': cannot open" "$GVIS" disparity --max-disp 16 --pairs "$D/pairs-missing.txt" -o "$O/"

# tensors: NaN and infinity, shapes, dtypes
bad "tensor with NaN" 1 "'$D/nan.raw': nan value at element \[0,5\]" "$GVIS" yolo-decode --shape 2x6 "$D/nan.raw" -o "$O/d.json"
bad "tensor with +inf" 1 "'$D/inf.raw': .*(inf|not finite)" "$GVIS" yolo-decode --shape 2x6 "$D/inf.raw" -o "$O/d.json"
bad "tensor with -inf" 1 "'$D/ninf.raw': .*(inf|not finite)" "$GVIS" yolo-decode --shape 2x6 "$D/ninf.raw" -o "$O/d.json"
bad "npy tensor with NaN" 1 "'$D/nan.npy': nan value at element \[0,5\]" "$GVIS" yolo-decode --layout v5 "$D/nan.npy" -o "$O/d.json"
bad "raw tensor of the wrong size" 1 "'$D/good.raw': file has 48 bytes; --shape 3x6 of float32 needs 72" "$GVIS" yolo-decode --shape 3x6 "$D/good.raw" -o "$O/d.json"
bad "raw tensor without --shape" 1 "'$D/good.raw': not an NPY file" "$GVIS" yolo-decode "$D/good.raw" -o "$O/d.json"
bad "tensor of rank 4" 1 "'$D/t4d.npy': tensor shape \[1,1,2,6\] is neither" "$GVIS" yolo-decode "$D/t4d.npy" -o "$O/d.json"
bad "tensor of int32" 1 "'$D/ti32.npy': tensor dtype must be float32 or float16" "$GVIS" yolo-decode "$D/ti32.npy" -o "$O/d.json"
bad "tensor of zero boxes" 1 "'$D/tempty.npy': .*(shape|empty|zero|no )" "$GVIS" yolo-decode --layout v5 "$D/tempty.npy" -o "$O/d.json"
bad "tensor over --max-pixels elements (npy)" 1 "'$D/nan.npy': NPY array of 48 bytes is larger than the limit of 40 bytes" "$GVIS" --max-pixels 10 yolo-decode --layout v5 "$D/nan.npy" -o "$O/d.json"
bad "raw tensor over --max-pixels elements" 1 "'$D/good.raw': --shape 2x6 is larger than the limit of 10 elements" "$GVIS" --max-pixels 10 yolo-decode --shape 2x6 "$D/good.raw" -o "$O/d.json"
bad "tensor file over the size limit" 1 "'$D/3mb.ppm': tensor file is larger than .* bytes \\(16 float32 elements" "$GVIS" --max-pixels 16 yolo-decode --shape 2x6 "$D/3mb.ppm" -o "$O/d.json"
bad "image as a tensor" 1 "'$D/l.png': not an NPY file" "$GVIS" yolo-decode "$D/l.png" -o "$O/d.json"
bad "missing class names" 1 "'$D/names-missing.txt': cannot open" "$GVIS" yolo-decode --shape 2x6 --names "$D/names-missing.txt" "$D/good.raw" -o "$O/d.json"

# matrices
bad "warpaffine singular matrix" 2 "matrix is singular" "$GVIS" warpaffine --matrix "0 0 0 0 0 0" "$D/l.png" -o "$O/x.png"
bad "warpaffine singular matrix file" 1 "'$D/singular.txt': .*singular" "$GVIS" warpaffine --matrix-file "$D/singular.txt" "$D/l.png" -o "$O/x.png"
bad "warpaffine rank-1 matrix file" 1 "'$D/rank1.txt': .*singular" "$GVIS" warpaffine --matrix-file "$D/rank1.txt" "$D/l.png" -o "$O/x.png"
bad "matrix file with nan" 1 "'$D/nan.txt': .*not finite" "$GVIS" warpaffine --matrix-file "$D/nan.txt" "$D/l.png" -o "$O/x.png"
bad "matrix file with 1e999" 1 "'$D/inf.txt': coefficient out of range" "$GVIS" yolo-decode --shape 2x6 --matrix "$D/inf.txt" "$D/good.raw" -o "$O/d.json"
bad "matrix file of 5 numbers" 1 "'$D/five.txt': expected 6 numbers .* found 5" "$GVIS" warpaffine --matrix-file "$D/five.txt" "$D/l.png" -o "$O/x.png"
bad "matrices not inverses" 1 "'$D/notinv.txt': the two matrices are not inverses" "$GVIS" yolo-decode --shape 2x6 --matrix "$D/notinv.txt" "$D/good.raw" -o "$O/d.json"
bad "matrix file without numbers" 1 "'$D/nomatrix.txt': expected 6 numbers .* found 0" "$GVIS" yolo-decode --shape 2x6 --matrix "$D/nomatrix.txt" "$D/good.raw" -o "$O/d.json"
bad "matrix file with a word" 1 "'$D/word.txt': not a number: 'x'" "$GVIS" warpaffine --matrix-file "$D/word.txt" "$D/l.png" -o "$O/x.png"
bad "warpaffine huge output size" 2 "output sides are at most" "$GVIS" warpaffine --size 1048576x1048576 --matrix "1 0 0 0 1 0" "$D/l.png" -o "$O/x.png"

# empty lists and usage errors
bad "hist: no input" 2 "no input given" "$GVIS" hist
bad "gauss: no input" 2 "no input given" "$GVIS" gauss --sigma 1 -o "$O/x.png"
bad "yolo-decode: no input" 2 "no input given" "$GVIS" yolo-decode -o "$O/d.json"
bad "disparity: one image" 2 "needs LEFT and RIGHT" "$GVIS" disparity "$D/l.png" -o "$O/d.png"
bad "several inputs to one file" 2 "2 inputs need -o DIR/" "$GVIS" gauss --sigma 1 "$D/l.png" "$D/r.png" -o "$O/x.png"
bad "standard input twice" 2 "standard input" "$GVIS" hist - -
bad "empty -o" 2 "-o needs a file name" "$GVIS" gauss --sigma 1 "$D/l.png" -o ""
bad "unknown --format" 2 "unknown format 'gif'" "$GVIS" gauss --sigma 1 "$D/l.png" -o - --format gif
bad "gauss even kernel" 2 "ksize" "$GVIS" gauss --ksize 4 "$D/l.png" -o "$O/x.png"
bad "gauss kernel beyond any image" 2 "ksize" "$GVIS" gauss --ksize 1048577 "$D/l.png" -o "$O/x.png"
bad "gauss kernel too large for the image" 2 "kernel width 2049: at most max\\(1023" "$GVIS" gauss --ksize 2049x3 "$D/l.png" -o "$O/x.png"
bad "gauss sigma nan" 2 "--sigma takes a finite number, not 'nan'" "$GVIS" gauss --sigma nan "$D/l.png" -o "$O/x.png"
bad "gauss negative sigma" 2 "sigma" "$GVIS" gauss --sigma -2 "$D/l.png" -o "$O/x.png"
bad "letterbox 0x0" 2 "is not a size WxH of positive numbers" "$GVIS" warpaffine --letterbox 0x0 "$D/l.png" -o "$O/x.png"
bad "yolo-decode --shape 0x6" 2 "shape" "$GVIS" yolo-decode --shape 0x6 "$D/good.raw" -o "$O/d.json"
bad "yolo-decode --conf 2" 2 "--conf takes 0 to 1" "$GVIS" yolo-decode --conf 2 "$D/good.raw" -o "$O/d.json"
bad "disparity --max-disp 17" 2 "max-disp|multiple of 16" "$GVIS" disparity --max-disp 17 "$D/l.png" "$D/r.png" -o "$O/d.png"
bad "--quality 0" 2 "--quality takes a whole number from 1 to 100" "$GVIS" gauss --sigma 1 --quality 0 "$D/g.jpg" -o "$O/x.jpg"

# outputs: equal to an input, unwritable, a full disk
bad "gauss output equal to input" 1 "refusing to write over input file '$D/l.png'" "$GVIS" gauss --sigma 1 "$D/l.png" -o "$D/l.png"
bad "warpaffine output equal to input" 1 "refusing to write over input file" "$GVIS" warpaffine --letterbox 32x32 "$D/rgb.png" -o "$D/./rgb.png"
bad "hist --equalize output equal to input" 1 "refusing to write over input file" "$GVIS" hist --equalize "$D/l.png" -o "$D/../in/l.png"
bad "disparity output equal to the right image" 1 "'$D/r.png'" "$GVIS" disparity --max-disp 16 "$D/l.png" "$D/r.png" -o "$D/r.png"
bad "yolo-decode --draw over its own image" 1 "refusing to write over the image '$D/rgb.png'" "$GVIS" yolo-decode --shape 2x6 --draw "$D/rgb.png" "$D/good.raw" -o "$D/rgb.png"
bad "warpaffine --save-matrix over the input" 1 "refusing to write the matrix over input file '$D/rgb.png'" "$GVIS" warpaffine --letterbox 32x32 "$D/rgb.png" -o "$O/x.png" --save-matrix "$D/rgb.png"
bad "two inputs, one output name (gauss)" 2 "'$D/s1/v.png' and '$D/s2/v.png' would both be written to '$O/v.png'" "$GVIS" gauss --sigma 1 "$D/s1/v.png" "$D/s2/v.png" -o "$O/"
bad "two inputs, one output name (hist)" 2 "would both be written to '$O/v.csv'" "$GVIS" hist "$D/s1/v.png" "$D/s2/v.png" -o "$O/"
bad "two inputs, one output name (yolo-decode)" 2 "would both be written to '$O/t.json'" "$GVIS" yolo-decode --shape 2x6 "$D/s1/t.raw" "$D/s2/t.raw" -o "$O/" --format json
bad "two pairs, one output name (disparity --pairs)" 2 "'$D/s1/v.png' and '$D/s2/v.png' would both be written to '$O/v.png'" "$GVIS" disparity --max-disp 16 --pairs "$D/pairs-same-name.txt" -o "$O/"
# one command, two of its outputs given one name: the second would replace the first
bad "disparity -o and --right one file" 2 "'$O/d.png' is named for two outputs" "$GVIS" disparity --max-disp 16 "$D/l.png" "$D/r.png" -o "$O/d.png" --right "$O/d.png"
bad "warpaffine -o and --save-matrix one file" 2 "'$O/x.png' is named for two outputs" "$GVIS" warpaffine --letterbox 16x16 "$D/l.png" -o "$O/x.png" --save-matrix "$O/x.png"
bad "hist --equalize -o and --plot one file" 2 "'$O/e.png'" "$GVIS" hist --equalize "$D/l.png" -o "$O/e.png" --plot "$O/e.png"
bad "output a symbolic link to the input" 1 "refusing to write over input file" "$GVIS" gauss --sigma 1 "$D/l.png" -o "$D/sym.png"
bad "output a hard link of the input" 1 "refusing to write over input file" "$GVIS" hist --equalize "$D/r.png" -o "$D/hard.png"
bad "output in a missing directory" 1 "cannot write '$O/no/x.png': no such file" "$GVIS" gauss --sigma 1 "$D/l.png" -o "$O/no/x.png"
bad "output under a file" 1 "cannot (write|create).*not a directory" "$GVIS" gauss --sigma 1 "$D/l.png" -o "$D/l.png/x.png"
bad "output to /dev/full" 1 "cannot write '/dev/full': no space left on device" "$GVIS" gauss --sigma 1 "$D/l.png" -o /dev/full --format png
bad "output to a full stdout" 1 "cannot write to standard output: no space left on device" sh -c '"$0" hist "$1" >/dev/full' "$GVIS" "$D/l.png"
bad "file-size limit (ulimit -f)" 1 "'$D/big.png': cannot write '$O/x.png': file too large" sh -c 'ulimit -f 8 && exec "$@"' sh "$GVIS" gauss --sigma 1 "$D/big.png" -o "$O/x.png"
bad "file-size limit on a batch" 1 "'$D/big.png': cannot write '$O/big.png': file too large" sh -c 'ulimit -f 8 && exec "$@"' sh "$GVIS" gauss --sigma 1 "$D/big.png" -o "$O/"
# (the batch case above writes into -o DIR/; its one output is refused, so $O stays empty)

if [ "$as_other" != skip ]; then
  bad "unreadable input" 1 "'$D/secret.png': cannot open: permission denied" $as_other "$GVIS" hist "$D/secret.png"
  chmod 555 "$O" 2>/dev/null
  rm -rf "$O"; mkdir -p "$O"; chmod 555 "$O"
  # bad() recreates $O writable; this case needs it read-only, so it runs inline
  cases=$((cases + 1))
  run $as_other "$GVIS" gauss --sigma 1 "$D/l.png" -o "$O/x.png"
  if [ "$rc" -eq 1 ] && grep -q "cannot write '$O/x.png': permission denied" "$T/err" && [ -z "$(ls -A "$O")" ]; then
    pass=$((pass + 1))
  else
    say_fail "unwritable output directory: exit $rc: $(head -c 300 "$T/err")"
  fi
  chmod 755 "$O"
fi

# A full file system: a 64 KiB tmpfs, in a mount namespace of our own where that works.
if unshare -rm true 2>/dev/null; then
  bad "full tmpfs" 1 "'$D/big.png': cannot write '$O/x.png': no space left on device" \
    unshare -rm sh -c 'mount -t tmpfs -o size=64k gvis-full "$0" || exit 99
      "$@"; rc=$?
      [ -z "$(ls -A "$0")" ] || echo "LEFTOVER: $(ls -A "$0")" >&2
      exit $rc' "$O" "$GVIS" gauss --sigma 1 "$D/big.png" -o "$O/x.png"
else
  echo "bad_inputs: no mount namespace here; the tmpfs case is left out (the ulimit -f cases stand in)" >&2
fi

# ---- streams (issue 13 item 2): sniffed from the first bytes, read no further than the
# header says; every file argument that takes a stream; no leak on the way out (item 3)
bad "image arg from /dev/zero" 1 "'/dev/zero': not a readable image \(unknown format" "$GVIS" gauss --sigma 1 /dev/zero -o "$O/x.png"
bad "image arg from /dev/urandom" 1 "'/dev/urandom': not a readable image" "$GVIS" hist /dev/urandom
bad "stereo right image from /dev/zero" 1 "'/dev/zero': not a readable image" "$GVIS" disparity --max-disp 16 "$D/l.png" /dev/zero -o "$O/d.png"
bad "--gt from /dev/zero" 1 "'/dev/zero': not a readable image" "$GVIS" disparity --max-disp 16 "$D/l.png" "$D/r.png" --gt /dev/zero -o "$O/d.png"
bad "--draw image from /dev/zero" 1 "--draw image '/dev/zero': not a readable image" "$GVIS" yolo-decode --shape 2x6 --draw /dev/zero "$D/good.raw" -o "$O/x.png"
bad "tensor from /dev/zero" 1 "'/dev/zero': not an NPY file" "$GVIS" yolo-decode /dev/zero
bad "tensor from /dev/urandom" 1 "'/dev/urandom': not an NPY file" "$GVIS" yolo-decode /dev/urandom
bad "raw tensor from /dev/zero, --shape bounds it" 1 "'/dev/zero': raw tensor is longer than the 48 bytes of --shape 2x6" "$GVIS" yolo-decode --shape 2x6 /dev/zero
bad "--matrix-file from /dev/zero (leaked before)" 1 "'/dev/zero': not a text file" "$GVIS" warpaffine --matrix-file /dev/zero "$D/l.png" -o "$O/x.png"
bad "--matrix-file from /dev/urandom" 1 "'/dev/urandom': not a text file|'/dev/urandom': .*larger than" "$GVIS" warpaffine --matrix-file /dev/urandom "$D/l.png" -o "$O/x.png"
bad "--names from /dev/zero (leaked before)" 1 "'/dev/zero': not a text file" "$GVIS" yolo-decode --shape 2x6 --names /dev/zero "$D/good.raw" -o "$O/d.json"
bad "--pairs from /dev/zero (leaked before)" 1 "'/dev/zero': not a text file" "$GVIS" disparity --max-disp 16 --pairs /dev/zero -o "$O/"
bad "--list from /dev/zero (read 4 GB before)" 1 "'/dev/zero': not a text file" "$GVIS" gauss --sigma 1 --list /dev/zero -o "$O/"
bad "--list from /dev/urandom" 1 "'/dev/urandom': not a text file" "$GVIS" hist --list /dev/urandom
bad "--q from /dev/zero" 1 "'/dev/zero': not a text file" "$GVIS" disparity --max-disp 16 "$D/l.png" "$D/r.png" --ply "$O/x.ply" --q /dev/zero
bad "PGM header on an endless stream" 1 "'-': stream goes on past the [0-9]+ bytes its header allows" sh -c '{ printf "P5 4 4 255\n"; cat /dev/zero; } | "$0" hist -' "$GVIS"
bad "PNG header over the limit on a stream" 1 "'-': PNG image of 100000x100000 pixels is larger than the limit" sh -c '{ printf "\211PNG\r\n\032\n\0\0\0\rIHDR\0\1\206\240\0\1\206\240\10\0\0\0\0"; printf "\0\0\0\0"; cat /dev/zero; } | "$0" hist -' "$GVIS"
bad "NPY shape over the limit on a stream" 1 "'-': NPY array of [0-9]+ elements is larger than the limit" sh -c 'cat "$1" /dev/zero | "$0" yolo-decode -' "$GVIS" "$D/huge-hdr.npy"
bad "NPY with data after the array" 1 "'$D/trail.npy': 4 bytes after the end of the NPY array" "$GVIS" hist "$D/trail.npy"
bad "empty pipe" 1 "'-': empty input: the pipe gave no bytes \(did the command before it fail\?\)" sh -c 'printf "" | "$0" hist -' "$GVIS"

# ---- issue 13 items 4 and 5: PLY geometry, sentinels, tiny numbers
bad "PLY centre at 1e308 (wrote inf points)" 2 "--cx and --cy must lie within" "$GVIS" disparity --max-disp 16 "$D/l.png" "$D/r.png" --ply "$O/x.ply" --focal 1 --baseline 1 --cx 1e308 --cy -1e308
bad "PLY focal x baseline 1e616 (wrote an empty cloud)" 2 "--focal, --baseline and their product" "$GVIS" disparity --max-disp 16 "$D/l.png" "$D/r.png" --ply "$O/x.ply" --focal 1e308 --baseline 1e308
bad "all-zero Q matrix" 2 "'$D/q0.txt': the Q matrix is degenerate" "$GVIS" disparity --max-disp 16 "$D/l.png" "$D/r.png" --ply "$O/x.ply" --q "$D/q0.txt"
bad "Q whose points overflow float32: left out and counted, not written as inf" 1 "points left out: not finite in float32" sh -c '"$0" disparity --max-disp 16 "$1" "$2" --ply "$3/x.ply" --q "$4" && rm -f "$3/x.ply" && exit 1' "$GVIS" "$TESTDATA/stereo/tsukuba_left.png" "$TESTDATA/stereo/tsukuba_right.png" "$O" "$D/qbig.txt"
bad "hist --bins -1 (the old 'not given')" 2 "--bins takes 1 to 65536" "$GVIS" hist --bins -1 "$D/l.png"
bad "hist --channel -1 (the old 'not given')" 2 "--channel takes 0 to 3" "$GVIS" hist --channel -1 "$D/l.png"
bad "PNG over the pixel limit says so" 1 "'$D/l.png': .*larger than the limit of 100 pixels" "$GVIS" --max-pixels 100 hist "$D/l.png"

check "no temporary files under the inputs" no_temp "$D"
check "at least 60 cases ran ($cases)" test "$cases" -ge 60
finish
