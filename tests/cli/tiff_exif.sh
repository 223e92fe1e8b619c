# EXIF into TIFF (issue 14): a JPEG's EXIF (either byte order, with GPS) carried to a .tif
# as its EXIF and GPS directories and IFD0 text, read back with exiftool; --strip writes
# none; the orientation is the image's (1 after turning it upright); a JPEG whose EXIF
# block is corrupt still gives a TIFF, its pixels those of the clean one.
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
finish
