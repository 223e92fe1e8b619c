# EXIF into TIFF (issue 14): a JPEG's EXIF (either byte order, with GPS) carried to a .tif
# as its EXIF and GPS directories and IFD0 text, read back with exiftool; --strip writes
# none; the orientation is the image's (1 after turning it upright); a JPEG whose EXIF
# block is corrupt still gives a TIFF, its pixels those of the clean one.  And back: a
# TIFF's EXIF (its own directories) into JPEG, PNG, WebP and TIFF.
. "$(dirname "$0")/lib.sh"
info=$("$GVIS" info)
has() { printf '%s\n' "$info" | grep -Eq "^  $1 +$2"; }
if ! has tif libtiff || ! has jpg libjpeg-turbo || ! command -v exiftool >/dev/null 2>&1; then
  echo "tiff_exif: needs libtiff, libjpeg-turbo and exiftool"
  finish
  exit
fi
"$MKIMAGE" 48 32 3 u8 smooth "$T/rgb.png" >/dev/null
ok "a jpeg" "$GVIS" gauss --ksize 1 "$T/rgb.png" -o "$T/a.jpg"
tags=(-Make=Gvisco -Model=T1 -Software=gvis-test -Artist=Ann -Copyright=CC0 '-DateTimeOriginal=2021:02:03 04:05:06'
  -ExposureTime=1/250 -FNumber=2.8 -ISO=400 -FocalLength=35 -ExposureCompensation=-0.33 -LensModel=L50
  -UserComment=hello -GPSLatitude=48.85 -GPSLatitudeRef=N -GPSLongitude=2.35 -GPSLongitudeRef=E -GPSAltitude=35
  -Orientation#=6)
# the values as exiftool prints them: libtiff 4.5 keeps EXIF rationals as floats, so
# 1/250 comes back as 0.00400000019 with -n (a relative error under 1e-7), 1/250 printed
fields='Make Model Software Artist Copyright DateTimeOriginal ExposureTime FNumber ISO FocalLength
  ExposureCompensation LensModel UserComment GPSLatitude GPSLongitude GPSAltitude'
for order in II MM; do
  cp "$T/a.jpg" "$T/$order.jpg"
  exiftool -q -overwrite_original -ExifByteOrder="$order" "${tags[@]}" "$T/$order.jpg"
  check "$order: exiftool wrote the tags" test "$(exiftool -s3 -Make "$T/$order.jpg")" = Gvisco
  ok "$order: jpeg to tif" "$GVIS" gauss --ksize 1 "$T/$order.jpg" -o "$T/$order.tif"
  for f in $fields; do
    want=$(exiftool -s3 "-$f" "$T/$order.jpg") got=$(exiftool -s3 "-$f" "$T/$order.tif")
    check "$order: $f kept ('$want', got '$got')" test -n "$want" -a "$want" = "$got"
  done
  check "$order: the EXIF directory is EXIF's" test -n "$(exiftool -s3 -ExifIFD:ExposureTime "$T/$order.tif")"
  check "$order: the GPS directory is GPS's" test -n "$(exiftool -s3 -GPS:GPSLatitude "$T/$order.tif")"
  check "$order: turned upright, orientation 1 or none" test "$(exiftool -s3 -n -Orientation "$T/$order.tif")" != 6
  check "$order: 32 wide after turning" test "$(exiftool -s3 -n -ImageWidth "$T/$order.tif")" = 32
  check "$order: exiftool finds no fault" test -z "$(exiftool -validate -warning -s3 "$T/$order.tif" | grep -iv 'missing required\|non-standard\|^$' | grep -i 'error\|invalid\|bad')"
  ok "$order: --no-autorotate" "$GVIS" gauss --ksize 1 --no-autorotate "$T/$order.jpg" -o "$T/$order-k.tif"
  check "$order: kept orientation 6" test "$(exiftool -s3 -n -Orientation "$T/$order-k.tif")" = 6
  ok "$order: --strip" "$GVIS" gauss --ksize 1 --strip "$T/$order.jpg" -o "$T/$order-s.tif"
  check "$order: stripped: no EXIF" test -z "$(exiftool -s3 -EXIF:Make -ExifIFD:all -GPS:all "$T/$order-s.tif")"
  ok "$order: tif back to png" "$GVIS" gauss --ksize 1 --strip "$T/$order.tif" -o "$T/$order-back.png"
  ok "$order: the jpeg to png" "$GVIS" gauss --ksize 1 --strip "$T/$order.jpg" -o "$T/$order-ref.png"
  check "$order: the tif's pixels are the jpeg's" cmp -s "$T/$order-back.png" "$T/$order-ref.png"
done
# corrupt EXIF blocks: every byte of the block's IFD area flipped in turn still writes
python3 - "$T/II.jpg" "$T" <<'PY'
import sys
d = open(sys.argv[1], 'rb').read()
i = d.find(b'Exif\0\0') + 6
for k, at in enumerate(range(i + 8, min(i + 400, len(d)), 7)):
    b = bytearray(d)
    b[at] ^= 0xA5
    open('%s/bad%03d.jpg' % (sys.argv[2], k), 'wb').write(bytes(b))
PY
n=0 bad=0
for f in "$T"/bad*.jpg; do
  n=$((n + 1))
  "$GVIS" gauss --ksize 1 "$f" -o "$T/bad.tif" 2>"$T/err"; rc=$?
  if [ $rc -gt 1 ] || grep -qi 'sanitizer\|runtime error' "$T/err"; then bad=$((bad + 1)); echo "bad exif $f: exit $rc $(head -c 300 "$T/err")" >&2; fi
done
check "$n corrupt EXIF blocks: a TIFF or a clear error, never a crash" [ "$bad" -eq 0 ]
# TIFF input (issue 12 item 5): a TIFF's own camera fields (IFD0 text, the EXIF and GPS
# directories, either byte order) reach JPEG, PNG, WebP and TIFF outputs; the MakerNote is
# left out; --page 1 takes the second page's; the pixels turned by the orientation tag.
python3 "$(dirname "$0")/../tiff_exif_gen.py" "$T"
for order in II MM; do
  for x in jpg png webp tif; do
    ok "$order tif in: to $x" "$GVIS" gauss --ksize 1 "$T/t-$order.tif" -o "$T/from-$order.$x"
    got=$(exiftool -s3 -Make -Model -Software -FNumber -ExposureTime -DateTimeOriginal -UserComment -GPSLatitude# \
      -ImageWidth# "$T/from-$order.$x" | tr '\n' '|')
    want='Tiffco|T2|maker-sw|2.8|1/250|2019:05:06 07:08:09|hello|48.85|4|'
    check "$order tif in: $x keeps the camera fields (got '$got')" test "$got" = "$want"
    check "$order tif in: $x has no MakerNote" test -z "$(exiftool -s3 -MakerNote "$T/from-$order.$x")"
    [ $x = jpg ] && check "$order tif in: jpg in the source's byte order" test "$(exiftool -s3 -ExifByteOrder "$T/from-$order.$x" | cut -c1-2)" = \
      "$([ $order = II ] && echo Li || echo Bi)"
    [ $x != tif ] && check "$order tif in: $x says orientation 1" test "$(exiftool -s3 -n -Orientation "$T/from-$order.$x")" = 1
  done
  ok "$order tif in: --page 1" "$GVIS" gauss --ksize 1 --page 1 "$T/t-$order.tif" -o "$T/p1-$order.jpg"
  check "$order tif in: --page 1 has page 1's fields only" test "$(exiftool -s3 -Make -FNumber "$T/p1-$order.jpg" | tr '\n' '|')" = 'Page2co|'
  ok "$order tif in: --strip" "$GVIS" gauss --ksize 1 --strip "$T/t-$order.tif" -o "$T/s-$order.jpg"
  check "$order tif in: --strip leaves no EXIF" test -z "$(exiftool -s3 -EXIF:all "$T/s-$order.jpg")"
done
# every byte of the directories flipped in turn: an image and EXIF or none, or a clear error
python3 - "$T" <<'PY'
import sys
for order in ('II', 'MM'):
    d = open('%s/t-%s.tif' % (sys.argv[1], order), 'rb').read()
    for k, at in enumerate(range(40, len(d), 5)):
        b = bytearray(d)
        b[at] ^= 0x5A
        open('%s/badt-%s-%03d.tif' % (sys.argv[1], order, k), 'wb').write(bytes(b))
PY
n=0 bad=0
for f in "$T"/badt-*.tif; do
  n=$((n + 1))
  "$GVIS" gauss --ksize 1 "$f" -o "$T/badt.jpg" 2>"$T/err"; rc=$?
  if [ $rc -gt 1 ] || grep -qi 'sanitizer\|runtime error' "$T/err"; then bad=$((bad + 1)); echo "bad tiff $f: exit $rc $(head -c 300 "$T/err")" >&2; fi
done
check "$n corrupt TIFF directories: a JPEG or a clear error, never a crash" [ "$bad" -eq 0 ]
finish
