# The codecs from the command line: TIFF and WebP by extension and --format, EXIF
# orientation applied (or kept with --no-autorotate) and carried to the output, --strip,
# --png-level, --lossless, --page, `gvis info` naming each codec, and a binary that needs
# none of the codec libraries at run time (linked statically).
. "$(dirname "$0")/lib.sh"
C=$TESTDATA/codec
info=$("$GVIS" info)
has() { printf '%s\n' "$info" | grep -Eq "^  $1 +$2"; }
mk() { "$MKIMAGE" "$@" >/dev/null; }
mk 64 48 3 u8 smooth "$T/rgb.png"
mk 64 48 1 u16 smooth "$T/g16.png"
mk 64 48 4 u8 smooth "$T/rgba.png"

# ---- gvis info and the static link
check "info names a codec for png and jpg" has png '(libpng|stb_image)'
check "info names a codec for jpg" has jpg '(libjpeg-turbo|stb_image)'
if command -v ldd >/dev/null 2>&1; then
  ldd "$GVIS" >"$T/ldd" 2>&1
  check "gvis needs no codec library at run time (static): $(grep -Eo 'lib(png|jpeg|turbojpeg|tiff|webp|z|sharpyuv|deflate|zstd|lzma|jbig|Lerc)[^ ]*' "$T/ldd" | tr '\n' ' ')" \
    sh -c "! grep -Eq 'lib(png|jpeg|turbojpeg|tiff|webp|z|sharpyuv|deflate|zstd|lzma|jbig|Lerc)[^ ]*\.so' '$T/ldd'"
fi

# ---- TIFF
if has tif libtiff; then
  ok "gauss to .tif (8-bit RGB)" "$GVIS" gauss --sigma 1 "$T/rgb.png" -o "$T/o.tif"
  ok "tif back to png" "$GVIS" gauss --ksize 1 "$T/o.tif" -o "$T/o-back.png"
  ok "16-bit gray to .tiff" "$GVIS" gauss --ksize 1 "$T/g16.png" -o "$T/g16.tiff"
  ok "16-bit tiff back" "$GVIS" gauss --ksize 1 "$T/g16.tiff" -o "$T/g16-back.png"
  ok "16-bit png through gvis" "$GVIS" gauss --ksize 1 "$T/g16.png" -o "$T/g16-gvis.png"
  check "16-bit gray survives tiff" cmp -s "$T/g16-gvis.png" "$T/g16-back.png"
  ok "--format tif to stdout" sh -c "'$GVIS' gauss --ksize 1 --format tif '$T/rgb.png' -o - >'$T/stdout.tif'"
  check "stdout tif is TIFF" sh -c "head -c 4 '$T/stdout.tif' | od -An -c | grep -q 'I   I   \\*'"
  ok "page 1 of a multi-page tiff" "$GVIS" hist --page 1 "$C/im_multipage.tif" -o "$T/p1.csv"
  ok "page 0 of a multi-page tiff" "$GVIS" hist "$C/im_multipage.tif" -o "$T/p0.csv"
  check "page 1 is the gray page, page 0 the colour one" sh -c "head -1 '$T/p1.csv' | grep -qv ',b' && head -1 '$T/p0.csv' | grep -q ',b'"
  fails "--page past the last" 2 "no page 5 in this TIFF \\(it has 2" "$GVIS" hist --page 5 "$C/im_multipage.tif"
  fails "--page -1" 2 "--page: takes a page number" "$GVIS" hist --page -1 "$C/im_multipage.tif"
  ok "tiled tiff" "$GVIS" hist "$C/vips_tiled.tif" -o "$T/t.csv"
  # disparity maps as float32 TIFF: the values of the PFM
  mk 64 48 1 u8 smooth "$T/L.png"
  ok "disparity to .tif" "$GVIS" disparity --max-disp 16 "$T/rgb.png" "$T/L.png" -o "$T/d.tif"
  ok "disparity to .pfm" "$GVIS" disparity --max-disp 16 "$T/rgb.png" "$T/L.png" -o "$T/d.pfm"
  ok "float tif back to pfm" "$GVIS" gauss --ksize 1 "$T/d.tif" -o "$T/d-back.pfm"
  check "disparity tif holds the pfm's floats" cmp -s "$T/d.pfm" "$T/d-back.pfm"
else
  fails "tif without libtiff" 1 "built without libtiff" "$GVIS" gauss --sigma 1 "$T/rgb.png" -o "$T/o.tif"
fi

# ---- WebP
if has webp libwebp; then
  ok "gauss to .webp (lossy)" "$GVIS" gauss --sigma 1 --quality 80 "$T/rgb.png" -o "$T/o.webp"
  ok "gauss to .webp (lossless, RGBA)" "$GVIS" gauss --ksize 1 --lossless "$T/rgba.png" -o "$T/l.webp"
  ok "lossless webp back to png" "$GVIS" gauss --ksize 1 "$T/l.webp" -o "$T/l-back.png"
  ok "the source as png through gvis" "$GVIS" gauss --ksize 1 "$T/rgba.png" -o "$T/rgba-gvis.png"
  check "lossless webp keeps every RGBA pixel" cmp -s "$T/l-back.png" "$T/rgba-gvis.png"
  fails "16-bit to webp" 1 "WebP holds 8-bit images" "$GVIS" gauss --ksize 1 "$T/g16.png" -o "$T/x.webp"
fi

# ---- PNG level
ok "png default level" "$GVIS" gauss --sigma 2 "$T/rgb.png" -o "$T/l-def.png"
ok "png level 9" "$GVIS" gauss --sigma 2 --png-level 9 "$T/rgb.png" -o "$T/l9.png"
check "level 9 is not larger than the default" test "$(stat -c %s "$T/l9.png")" -le "$(stat -c %s "$T/l-def.png")"
fails "--png-level 10" 2 "--png-level: takes a zlib level from 0" "$GVIS" gauss --sigma 2 --png-level 10 "$T/rgb.png" -o "$T/x.png"

# ---- EXIF orientation and metadata (needs libjpeg-turbo: stb reads no EXIF)
if has jpg libjpeg-turbo; then
  ok "orientation 6 applied" "$GVIS" gauss --ksize 1 "$C/orient_6.jpg" -o "$T/up.jpg"
  ok "orientation 6 kept" "$GVIS" gauss --ksize 1 --no-autorotate "$C/orient_6.jpg" -o "$T/kept.jpg"
  ok "orientation 6 stripped" "$GVIS" gauss --ksize 1 --strip "$C/orient_6.jpg" -o "$T/stripped.jpg"
  ok "orientation 6 to png" "$GVIS" gauss --ksize 1 "$C/orient_6.jpg" -o "$T/up.png"
  if command -v exiftool >/dev/null 2>&1; then
    ex() { exiftool -s3 -n "-$1" "$2"; }
    check "turned upright: 29 wide" test "$(ex ImageWidth "$T/up.jpg")" = 29
    check "turned upright: the tag says 1" test "$(ex Orientation "$T/up.jpg")" = 1
    check "kept: 41 wide, tag 6" test "$(ex ImageWidth "$T/kept.jpg"):$(ex Orientation "$T/kept.jpg")" = 41:6
    check "stripped: no EXIF" test -z "$(ex Orientation "$T/stripped.jpg")"
    check "png carries the EXIF (eXIf)" test "$(ex Orientation "$T/up.png")" = 1
    check "png from jpeg keeps the camera's EXIF fields" test -n "$(exiftool -s3 -EXIF:all "$T/up.png" | head -1)"
    # ICC profile: vips embeds its sRGB profile
    vips copy "$T/rgb.png" "$T/srgb.jpg[profile=srgb]" 2>/dev/null || true
    if [ -s "$T/srgb.jpg" ] && [ -n "$(exiftool -s3 -ProfileDescription "$T/srgb.jpg")" ]; then
      ok "icc jpeg through gauss" "$GVIS" gauss --sigma 1 "$T/srgb.jpg" -o "$T/srgb-out.png"
      check "ICC profile kept (png)" test "$(exiftool -s3 -ProfileDescription "$T/srgb-out.png")" = "$(exiftool -s3 -ProfileDescription "$T/srgb.jpg")"
      ok "icc jpeg to tif" "$GVIS" gauss --sigma 1 "$T/srgb.jpg" -o "$T/srgb-out.tif"
      has tif libtiff && check "ICC profile kept (tif)" test -n "$(exiftool -s3 -ProfileDescription "$T/srgb-out.tif")"
      ok "icc jpeg stripped" "$GVIS" gauss --sigma 1 --strip "$T/srgb.jpg" -o "$T/srgb-strip.png"
      check "ICC profile stripped" test -z "$(exiftool -s3 -ProfileDescription "$T/srgb-strip.png")"
    fi
    exiftool -q -overwrite_original -XResolution=240 -YResolution=240 -ResolutionUnit=inches "$T/up.jpg"
    ok "resolution through warpaffine" "$GVIS" warpaffine --matrix "1 0 0 0 1 0" "$T/up.jpg" -o "$T/res.png"
    check "resolution kept (png pHYs)" test "$(exiftool -s3 -n -XResolution "$T/res.png" | cut -d. -f1)" = 240
  fi
fi
# ---- metadata through every pair of formats (issue 12 item 5), read back with exiftool:
# EXIF (a make), the ICC profile and the resolution (only in EXIF IFD0 here, as cameras and
# vips write it: no JFIF density) from each input format to each output format that holds
# them; resolution in the output's own field: JFIF density, pHYs, the TIFF tag; WebP has
# none but its EXIF.
if has jpg libjpeg-turbo && command -v exiftool >/dev/null 2>&1 && command -v vips >/dev/null 2>&1; then
  vips copy "$T/rgb.png" "$T/meta.jpg[profile=srgb]" 2>/dev/null
  exiftool -q -overwrite_original -Make=Metaco -XResolution=240 -YResolution=240 -ResolutionUnit=inches "$T/meta.jpg"
  fmts="jpg png"
  has tif libtiff && fmts="$fmts tif"
  has webp libwebp && fmts="$fmts webp"
  res_of() {
    case $1 in
      *.jpg) exiftool -s3 -JFIF:XResolution "$1" ;; *.png) exiftool -s3 -PNG:PixelsPerUnitX "$1" ;;
      *) exiftool -s3 -IFD0:XResolution "$1" | cut -d. -f1 ;;
    esac
  }
  for i in $fmts; do
    [ $i = jpg ] || ok "meta: jpg to $i" "$GVIS" gauss --ksize 1 "$T/meta.jpg" -o "$T/meta.$i"
    for x in $fmts; do
      ok "meta: $i to $x" "$GVIS" gauss --ksize 1 "$T/meta.$i" -o "$T/meta-$i.$x"
      got="$(exiftool -s3 -Make -ProfileDescription "$T/meta-$i.$x" | tr '\n' '|')$(res_of "$T/meta-$i.$x")"
      want="Metaco|sRGB|$(case $x in png) echo 9449 ;; *) echo 240 ;; esac)"
      check "meta: $i to $x keeps EXIF, ICC profile and resolution (got '$got')" test "$got" = "$want"
    done
    ok "meta: $i --strip" "$GVIS" gauss --ksize 1 --strip "$T/meta.$i" -o "$T/meta-s-$i.png"
    check "meta: $i --strip keeps none" test -z "$(exiftool -s3 -Make -ProfileDescription -PixelsPerUnitX "$T/meta-s-$i.png")"
  done
fi
finish
