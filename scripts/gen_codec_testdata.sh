#!/usr/bin/env bash
# Writes testdata/codec/: small files of every kind the codecs read, made by other tools
# (OpenCV 4.6, ImageMagick 6, vips 8.14, exiftool 12), and beside each the pixels
# cv2.imread gives for it (NPY, RGB order) as the golden answer, listed in MANIFEST.
# Run once on the development machine:   scripts/gen_codec_testdata.sh
# tests/test_codecs.c decodes each file and compares with its answer.  The pictures are
# synthetic (gradients and noise), 41x29 so that the orientation cases are not square.
set -eu
cd "$(dirname "$0")/.."
out=testdata/codec
rm -rf "$out"; mkdir -p "$out"
IM=convert-im6.q16
PY=/usr/bin/python3
$PY - "$out" <<'PYEOF'
import sys, os
import numpy as np, cv2
out = sys.argv[1]
H, W = 29, 41
y, x = np.mgrid[0:H, 0:W]
g = np.random.default_rng(14)
rgb = np.stack([x * 6, y * 8, (x + y) * 3], -1).clip(0, 255).astype(np.uint8)
rgb = (rgb.astype(int) + g.integers(-20, 20, rgb.shape)).clip(0, 255).astype(np.uint8)
bgr = rgb[..., ::-1].copy()
gray = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
alpha = (x * 255 // (W - 1)).astype(np.uint8)
bgra = np.dstack([bgr, alpha])
w = lambda name, img, params=(): cv2.imwrite(os.path.join(out, name), img, list(params))
w("src_rgb.png", bgr); w("src_gray.png", gray); w("src_rgba.png", bgra)
w("cv_baseline.jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, 90])
w("cv_gray.jpg", gray, [cv2.IMWRITE_JPEG_QUALITY, 90])
w("cv_progressive.jpg", bgr, [cv2.IMWRITE_JPEG_PROGRESSIVE, 1])
w("cv_lzw.tif", bgr)
w("cv_gray16.tif", (gray.astype(np.uint16) * 257))
w("cv_rgba16.tif", (bgra.astype(np.uint16) * 257))
w("cv_float.tif", (gray.astype(np.float32) / 7.0 - 3.0))
w("cv_lossy.webp", bgr, [cv2.IMWRITE_WEBP_QUALITY, 80])
w("cv_lossless.webp", bgra, [cv2.IMWRITE_WEBP_QUALITY, 101])
w("cv_rgba16.png", np.dstack([bgr, alpha]).astype(np.uint16) * 257)
PYEOF
cd "$out"
# PNG kinds OpenCV does not write
$IM src_rgb.png -colors 40 PNG8:im_palette.png
$IM src_rgba.png -interlace PNG im_interlaced.png
$IM src_gray.png -threshold 50% -monochrome im_bilevel.png
$IM src_rgba.png -colorspace gray -type GrayscaleAlpha PNG32:im_gray_alpha_tmp.png && $IM im_gray_alpha_tmp.png -define png:color-type=4 im_gray_alpha.png && rm im_gray_alpha_tmp.png
$IM src_rgb.png -colorspace CMYK -quality 92 im_cmyk.jpg
$IM src_rgb.png -sampling-factor 1x1 -quality 93 im_444.jpg
# TIFF kinds: tiled (vips), deflate, multi-page (page 1 differs), palette, planar
vips tiffsave src_rgb.png vips_tiled.tif --tile --tile-width 16 --tile-height 16 --compression deflate
vips tiffsave src_gray.png vips_gray_strips.tif --compression lzw
$IM src_rgb.png src_gray.png im_multipage.tif
$IM src_rgb.png -colors 30 -type Palette im_palette.tif
$IM src_rgb.png -interlace plane im_planar.tif
# EXIF orientation 1..8: the same JPEG with only the tag changed
for o in 1 2 3 4 5 6 7 8; do
  cp cv_baseline.jpg orient_$o.jpg
  exiftool -q -overwrite_original -Orientation#=$o orient_$o.jpg
done
cp cv_lzw.tif orient_6.tif && exiftool -q -overwrite_original -IFD0:Orientation#=6 orient_6.tif
cd - >/dev/null
$PY - "$out" <<'PYEOF'
import sys, os, glob
import numpy as np, cv2
out = sys.argv[1]
rows = []
def rgb(a):
    if a.ndim == 3 and a.shape[2] == 3: return a[..., ::-1]
    if a.ndim == 3 and a.shape[2] == 4: return a[..., [2, 1, 0, 3]]
    return a
for f in sorted(os.listdir(out)):
    if f.startswith("src_") or f.endswith(".npy") or f == "MANIFEST": continue
    p = os.path.join(out, f)
    # IMREAD_UNCHANGED keeps depth and alpha but ignores EXIF orientation; the orientation
    # files use IMREAD_COLOR, which applies it (as gvis does by default)
    if f.startswith("orient_"):
        a = cv2.imread(p, cv2.IMREAD_COLOR)
    else:
        a = cv2.imread(p, cv2.IMREAD_UNCHANGED)
    if a is None:
        print("cv2 cannot read", f); continue
    name = f.rsplit(".", 1)[0] + "_" + f.rsplit(".", 1)[1] + ".npy"
    np.save(os.path.join(out, name), np.ascontiguousarray(rgb(a)))
    tol = 0
    rows.append((f, name, tol))
with open(os.path.join(out, "MANIFEST"), "w") as m:
    m.write("# file  cv2.imread's pixels (RGB order)  largest difference allowed\n")
    for r in rows: m.write("%s %s %d\n" % r)
PYEOF
rm -f "$out"/src_*.png
ls -la "$out" | head -80
du -sh "$out"
