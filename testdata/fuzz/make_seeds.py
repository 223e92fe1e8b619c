#!/usr/bin/python3
"""Writes the seed corpus of the fuzz targets (tests/fuzz/): a few tiny valid files per
reader.  Run from anywhere with Debian's python3 (numpy, cv2):
    /usr/bin/python3 testdata/fuzz/make_seeds.py
Regression inputs (crash-*, regress-*) are kept beside the seeds and never rewritten."""
import os, struct, sys, zlib
import numpy as np
import cv2

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(7)


def put(target, name, data):
    d = os.path.join(HERE, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), 'wb') as f:
        f.write(data)


def enc(ext, img, params=()):
    ok, b = cv2.imencode(ext, img, list(params))
    assert ok
    return b.tobytes()


def png_chunk(kind, body):
    return struct.pack('>I', len(body)) + kind + body + struct.pack('>I', zlib.crc32(kind + body) & 0xffffffff)


def png_raw(w, h, depth, ctype, rows, extra=b''):
    """A PNG written by hand (palette, gray+alpha, low bit depths, which cv2 does not write)."""
    ihdr = struct.pack('>IIBBBBB', w, h, depth, ctype, 0, 0, 0)
    raw = b''.join(b'\x00' + r for r in rows)
    return b'\x89PNG\r\n\x1a\n' + png_chunk(b'IHDR', ihdr) + extra + png_chunk(b'IDAT', zlib.compress(raw)) + png_chunk(b'IEND', b'')


g8 = rng.integers(0, 256, (5, 7), dtype=np.uint8)
c8 = rng.integers(0, 256, (4, 6, 3), dtype=np.uint8)
a8 = rng.integers(0, 256, (3, 5, 4), dtype=np.uint8)
g16 = rng.integers(0, 65536, (4, 5), dtype=np.uint16)
c16 = rng.integers(0, 65536, (3, 4, 3), dtype=np.uint16)
f32 = (rng.standard_normal((4, 5)) * 10).astype(np.float32)
c32 = (rng.standard_normal((3, 4, 3))).astype(np.float32)

# PNG 8 and 16 bit, gray, RGB, RGBA, gray+alpha, palette, 1-bit
put('png', 'gray8.png', enc('.png', g8))
put('png', 'rgb8.png', enc('.png', c8))
put('png', 'rgba8.png', enc('.png', a8))
put('png', 'gray16.png', enc('.png', g16))
put('png', 'rgb16.png', enc('.png', c16))
put('png', 'graya8.png', png_raw(3, 2, 8, 4, [bytes(range(6)), bytes(range(6, 12))]))
put('png', 'palette.png', png_raw(4, 2, 8, 3, [b'\x00\x01\x02\x01', b'\x02\x01\x00\x00'],
                                  extra=png_chunk(b'PLTE', bytes([255, 0, 0, 0, 255, 0, 0, 0, 255])) +
                                  png_chunk(b'tRNS', b'\x80')))
put('png', 'gray1.png', png_raw(9, 2, 1, 0, [b'\xa5\x80', b'\x5a\x00']))

# JPEG: baseline gray and colour, progressive, subsampled
put('jpeg', 'gray.jpg', enc('.jpg', cv2.resize(g8, (9, 7)), (cv2.IMWRITE_JPEG_QUALITY, 80)))
put('jpeg', 'rgb.jpg', enc('.jpg', cv2.resize(c8, (10, 9)), (cv2.IMWRITE_JPEG_QUALITY, 90)))
put('jpeg', 'progressive.jpg', enc('.jpg', cv2.resize(c8, (17, 9)), (cv2.IMWRITE_JPEG_PROGRESSIVE, 1)))
put('jpeg', 'rgb16x16.jpg', enc('.jpg', cv2.resize(c8, (16, 16)), (cv2.IMWRITE_JPEG_QUALITY, 50)))

# BMP: 8-bit palette (cv2's gray), 24-bit, 32-bit
put('bmp', 'gray8.bmp', enc('.bmp', g8))
put('bmp', 'rgb24.bmp', enc('.bmp', c8))
put('bmp', 'rgba32.bmp', enc('.bmp', a8))

# TGA written by hand: uncompressed gray (3) and colour (2), RLE colour (10) and gray (11)
def tga(kind, w, h, bpp, payload, desc=0):
    return struct.pack('<BBBHHBHHHHBB', 0, 0, kind, 0, 0, 0, 0, 0, w, h, bpp, desc) + payload
put('tga', 'gray.tga', tga(3, 3, 2, 8, bytes(range(6))))
put('tga', 'bgr.tga', tga(2, 2, 2, 24, bytes(range(12)), desc=0x20))
put('tga', 'bgra.tga', tga(2, 2, 1, 32, bytes(range(8)), desc=0x28))
put('tga', 'rle_bgr.tga', tga(10, 4, 1, 24, b'\x83\x10\x20\x30'))
put('tga', 'rle_gray.tga', tga(11, 4, 2, 8, b'\x03\x01\x02\x03\x04\x83\x09'))

# PGM / PPM 8 and 16 bit, with a comment
put('pnm', 'gray8.pgm', b'P5\n# seed\n7 5\n255\n' + g8.tobytes())
put('pnm', 'gray16.pgm', b'P5\n5 4\n65535\n' + g16.astype('>u2').tobytes())
put('pnm', 'rgb8.ppm', b'P6 6 4 255\n' + c8.tobytes())
put('pnm', 'rgb16.ppm', b'P6\n4 3\n1023\n' + (c16 >> 6).astype('>u2').tobytes())

# PFM gray and colour, little- and big-endian, rows bottom first
put('pfm', 'gray_le.pfm', b'Pf\n5 4\n-1.0\n' + f32[::-1].astype('<f4').tobytes())
put('pfm', 'gray_be.pfm', b'Pf\n5 4\n1.0\n' + f32[::-1].astype('>f4').tobytes())
put('pfm', 'rgb_le.pfm', b'PF\n4 3\n-1\n' + c32[::-1].astype('<f4').tobytes())


def npy(a, version=1):
    from io import BytesIO
    b = BytesIO()
    np.lib.format.write_array(b, a, version=(version, 0))
    return b.getvalue()

# NPY: every dtype gvis reads, images and tensors, versions 1 and 2
put('npy', 'u8_hw.npy', npy(g8))
put('npy', 'u8_hwc.npy', npy(c8))
put('npy', 'u16_hw.npy', npy(g16))
put('npy', 'f32_hwc.npy', npy(c32))
put('npy', 'f16_1d.npy', npy(np.arange(5, dtype=np.float16)))
put('npy', 'f64_2d.npy', npy(np.eye(3)))
put('npy', 'i32_3d.npy', npy(np.arange(24, dtype=np.int32).reshape(2, 3, 4)))
put('npy', 'i64_v2.npy', npy(np.arange(4, dtype=np.int64), version=2))
put('npy', 'empty.npy', npy(np.zeros((0, 3), dtype=np.float32)))

# Matrix files: 6 numbers (numpy.savetxt of 2x3), 12 (gvis's own), commas and comments
put('matrix', 'savetxt.txt', b'5.000000000000000000e-01 0.000000000000000000e+00 1.200000000000000000e+01\n'
                             b'0.000000000000000000e+00 5.000000000000000000e-01 3.000000000000000000e+00\n')
put('matrix', 'gvis.txt', b'# gvis affine matrices a b c d e f: forward, then inverse\n'
                          b'0.5 0 12 0 0.5 3\n2 0 -24 0 2 -6\n')
put('matrix', 'commas.txt', b'\n# rotation\n0.8660254, -0.5, 10,\r\n0.5, 0.8660254, -4\n')

# YOLO tensors (fuzz_tensor input: mode byte, N and K as 16-bit little-endian, then the file)
def tensor_input(mode, n, k, payload):
    return bytes([mode]) + struct.pack('<HH', n, k) + payload
v5 = np.zeros((1, 12, 7), np.float32)
for i in range(12):
    v5[0, i] = [8 + 3 * i, 10 + 2 * i, 6, 5, 0.3 + 0.05 * i, (i % 2) * 0.9, 0.9 - (i % 2) * 0.9]
v8 = np.ascontiguousarray(v5[0, :, [0, 1, 2, 3, 5, 6]].T.reshape(1, 6, 12)).astype(np.float32)
put('tensor', 'v5.npy.in', tensor_input(0, 0, 0, npy(v5)))
put('tensor', 'v8.npy.in', tensor_input(0b1000, 0, 0, npy(v8)))
put('tensor', 'v5_f16.npy.in', tensor_input(0b10010, 0, 0, npy(v5.astype(np.float16))))
put('tensor', 'v5_raw.in', tensor_input(0b1011, 12, 7, v5.tobytes()))
put('tensor', 'v8_raw.in', tensor_input(0b0101, 6, 12, v8.tobytes()))

# Pair lists for disparity --pairs
put('pairs', 'two.txt', b'left/0001.png right/0001.png\nleft/0002.png\tright/0002.png gt/0002.pfm\n')
put('pairs', 'comments.txt', b'# KITTI\n\n  a.png b.png  \r\n# end\n')

# Command lines for fuzz_cli: arguments separated by NUL (the sandbox holds a.png, r.png,
# c.png, w.png, f.pfm, g.pgm, t.npy, m.txt, p.txt, n.txt)
def cli(*args):
    return b'\0'.join(a.encode() for a in args)
put('cli', 'hist.args', cli('hist', 'a.png'))
put('cli', 'hist_json.args', cli('--cpu', 'hist', '--json', 'c.png', 'w.png', '-o', 'out/'))
put('cli', 'hist_eq.args', cli('hist', '--equalize', 'a.png', '-o', 'e.png', '--plot', 'p.png'))
put('cli', 'hist16.args', cli('hist', '--bins', '16', '--range', '0:65536', 'w.png', '--timing=json'))
put('cli', 'gauss.args', cli('gauss', '--sigma', '1.5', '--border', 'wrap', 'c.png', '-o', 'b.png'))
put('cli', 'gauss_f.args', cli('gauss', '--ksize', '7', '--sigma-y', '3', 'f.pfm', '-o', '-', '--format', 'pfm'))
put('cli', 'warp.args', cli('warpaffine', '--matrix-file', 'm.txt', '--size', '12x9', 'c.png', '-o', 'x.png'))
put('cli', 'letterbox.args', cli('warpaffine', '--letterbox', '16x16', 'c.png', '-o', 'x.npy', '--save-matrix', 'mm.txt'))
put('cli', 'yolo.args', cli('yolo-decode', 't.npy', '--conf', '0.1', '--names', 'n.txt', '-o', 'd.json'))
put('cli', 'yolo_draw.args', cli('yolo-decode', 't.npy', '--draw', 'c.png', '-o', 'd.png'))
put('cli', 'disparity.args', cli('disparity', '--max-disp', '16', 'a.png', 'r.png', '-o', 'd.png', '--preview', 'v.png'))
put('cli', 'pairs.args', cli('disparity', '--max-disp', '16', '--pairs', 'p.txt', '-o', 'dd/'))
put('cli', 'info.args', cli('info'))
put('cli', 'usage.args', cli('-v', 'gauss', '--sigma', 'x', 'a.png'))

# Operations (fuzz_ops input: op, width-1, height-1, channels|type<<2, 16 parameter bytes,
# then samples).  op: 0 hist, 1 equalize, 2 gauss, 3 warp, 4 warp to a tensor, 5 SGM.
def ops(op, w, h, ct, params, n=64):
    p = bytes(params) + bytes(16 - len(params))
    return bytes([op, w - 1, h - 1, ct]) + p + rng.integers(0, 256, n, dtype=np.uint8).tobytes()
put('ops', 'hist_u8.in', ops(0, 17, 5, 0x00, [0]))
put('ops', 'hist_u16.in', ops(0, 9, 9, 0x04, [0x80, 15, 0, 0, 1, 255, 3, 0, 0]))
put('ops', 'equalize_rgb.in', ops(1, 13, 7, 0x01, [0]))
put('ops', 'gauss_u8.in', ops(2, 31, 9, 0x01, [12, 20, 20, 7, 5, 1, 0]))
put('ops', 'gauss_f32_wrap.in', ops(2, 5, 40, 0x08, [0, 200, 10, 0, 0, 4, 0]))
put('ops', 'gauss_u16_const.in', ops(2, 64, 1, 0x06, [3, 0, 0, 255, 255, 2, 128]))
put('ops', 'warp_rot.in', ops(3, 20, 20, 0x01, [14, 250, 40, 6, 14, 0, 4, 30, 30, 114]))
put('ops', 'letterbox_tensor.in', ops(4, 33, 17, 0x01, [16, 0, 0, 0, 16, 0, 1, 64, 64, 114, 114, 114, 0, 1, 130, 200]))
put('ops', 'sgm_u8.in', ops(5, 48, 20, 0x00, [0, 0, 0, 10, 120, 8, 1, 240, 0x13, 3, 1], n=500))
put('ops', 'sgm_rgb16.in', ops(5, 64, 16, 0x05, [1, 250, 1, 7, 90, 0, 0, 200, 0x0a, 1, 0], n=500))

# Palettes shorter than the indices used (stb_image read uninitialised palette entries for
# the indices past them: tests/test_hardening.c checks they decode as black)
put('png', 'palette_short.png', png_raw(4, 1, 8, 3, [b'\x00\x01\x05\xff'],
                                        extra=png_chunk(b'PLTE', bytes([200, 100, 50, 10, 20, 30]))))
def bmp8(w, rows, palette, os2=False):
    """An uncompressed 8-bit BMP (rows bottom first), palette of (b, g, r) entries."""
    stride = (w + 3) & ~3
    pix = b''.join(bytes(r) + bytes(stride - w) for r in rows)
    if os2:
        hdr = struct.pack('<IHHHH', 12, w, len(rows), 1, 8)
        pal = b''.join(bytes(p) for p in palette)
    else:
        hdr = struct.pack('<IiiHHIIiiII', 40, w, len(rows), 1, 8, 0, len(pix), 2835, 2835, len(palette), 0)
        pal = b''.join(bytes(p) + b'\0' for p in palette)
    off = 14 + len(hdr) + len(pal)
    return b'BM' + struct.pack('<IHHI', off + len(pix), 0, 0, off) + hdr + pal + pix
put('bmp', 'pal3.bmp', bmp8(4, [[0, 1, 2, 7]], [(50, 100, 200), (30, 20, 10), (1, 2, 3)]))
put('bmp', 'pal3_os2.bmp', bmp8(4, [[2, 9, 0, 1]] * 6, [(50, 100, 200), (30, 20, 10), (1, 2, 3)], os2=True))

# TIFF and WebP seeds: small files of testdata/codec (scripts/gen_codec_testdata.sh made
# them with OpenCV, vips and ImageMagick), copied as they are.
import shutil
CODEC = os.path.join(HERE, '..', 'codec')
for target, names in (('tiff', ['cv_gray16.tif', 'vips_gray_strips.tif', 'vips_tiled.tif', 'im_palette.tif',
                                'cv_float.tif', 'im_planar.tif']),
                      ('webp', ['cv_lossy.webp', 'cv_lossless.webp'])):
    os.makedirs(os.path.join(HERE, target), exist_ok=True)
    for n in names:
        shutil.copy(os.path.join(CODEC, n), os.path.join(HERE, target, n))

# TIFF with its own EXIF and GPS directories (tiff_exif_read.c), two pages, both byte
# orders: tests/tiff_exif_gen.py, the generator of tests/cli/tiff_exif.sh.
sys.path.insert(0, os.path.join(HERE, '..', '..', 'tests'))
from tiff_exif_gen import PAGES, tiff  # noqa: E402
for order in ('II', 'MM'):
    put('tiff', 'exif_%s_2pages.tif' % order.lower(), tiff(order, PAGES))

# phase (tests/fuzz/fuzz_phase.c): 4 header bytes (format, flags, tolerance/valid-min,
# range), then a small phase map: PFM, NPY float32 or 16-bit PNG, rising along the rows
# with an unlit pixel; one with a NaN (refused), one of three channels (refused).
ph = (np.arange(12 * 5, dtype=np.float32).reshape(5, 12) * 0.4 + 1.0)
ph[2, 3] = 0.0
def pfm1(a):
    h, w = a.shape
    return b'Pf\n%d %d\n-1.0\n' % (w, h) + a[::-1].astype('<f4').tobytes()
def npy1(a):
    import io
    b = io.BytesIO(); np.save(b, a); return b.getvalue()
put('phase', 'pfm_ordered.bin', bytes([0, 0x02, 0x08, 4 + 9 * 5]) + pfm1(ph))
put('phase', 'pfm_full_lr.bin', bytes([0, 0x12, 0x09, 3 + 9 * 3]) + pfm1(ph))
put('phase', 'npy_window5.bin', bytes([1, 0x44, 0x10, 4 + 9 * 8]) + npy1(ph))
nan = ph.copy(); nan[1, 1] = np.nan
put('phase', 'npy_nan.bin', bytes([1, 0x02, 0x08, 40]) + npy1(nan))
put('phase', 'npy_rgb.bin', bytes([1, 0x02, 0x08, 40]) + npy1(np.stack([ph] * 3, axis=-1)))
put('phase', 'png16_scaled.bin', bytes([2, 0x03, 0x08, 4 + 9 * 5]) + enc('.png', (ph * 1000).astype(np.uint16)))
