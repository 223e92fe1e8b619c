#!/usr/bin/python3
"""Golden outputs of cv2.warpAffine for tests/test_warp.c and tests/cli/warpaffine.sh.

Run with Debian's Python (OpenCV 4.6): /usr/bin/python3 testdata/warp/gen_warp_golden.py
It writes small sources (PNG 8/16-bit, NPY float32), the expected warps (PNG or NPY) and
cases.txt, one case a line:
  SRC EXPECTED interp(0 nearest, 1 bilinear) border(0 constant, 1 replicate) inverse W H
  fill0 fill1 fill2 fill3 m0 m1 m2 m3 m4 m5
and letterbox_chw.npy, the float tensor of case 'letterbox' (CHW, BGR, scale 1/255,
mean 0.485,0.456,0.406 and std 0.229,0.224,0.225 in the tensor's channel order) as gvis
computes it: v * float32(scale/std) + float32(-mean/std), multiply then add, in float32.
"""
import os
import cv2
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(20261121)


def smooth(h, w, c, dtype):
    x = rng.random((h, w, c)).astype(np.float32)
    x = cv2.GaussianBlur(x, (5, 5), 1.2).reshape(h, w, c)
    x = (x - x.min()) / (x.max() - x.min() + 1e-9)
    x = 0.6 * x + 0.4 * rng.random((h, w, c)).astype(np.float32)
    if dtype == np.uint8:
        return (x * 255).round().astype(np.uint8)
    if dtype == np.uint16:
        return (x * 65535).round().astype(np.uint16)
    return (x * 100 - 20).astype(np.float32)


def save(name, img):
    path = os.path.join(here, name)
    if name.endswith('.npy'):
        np.save(path, np.ascontiguousarray(img))
    else:
        a = img
        if a.ndim == 3 and a.shape[2] == 3:
            a = cv2.cvtColor(a, cv2.COLOR_RGB2BGR)
        elif a.ndim == 3 and a.shape[2] == 4:
            a = cv2.cvtColor(a, cv2.COLOR_RGBA2BGRA)
        assert cv2.imwrite(path, a)


def rot(h, w, angle, scale, shear, tx, ty):
    a = np.deg2rad(angle)
    R = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]]) @ np.array([[scale, shear], [0, scale]])
    c = np.array([w / 2, h / 2])
    t = c - R @ c + np.array([tx, ty])
    return np.hstack([R, t[:, None]])


def letterbox(w, h, W, H):
    s = min(W / w, H / h)
    return np.array([[s, 0, -s * w * 0.5 + W * 0.5 + s * 0.5 - 0.5], [0, s, -s * h * 0.5 + H * 0.5 + s * 0.5 - 0.5]])


sources = {
    'rgb.png': smooth(29, 37, 3, np.uint8),
    'gray.png': smooth(31, 23, 1, np.uint8)[:, :, 0],
    'rgba.png': smooth(19, 27, 4, np.uint8),
    'row.png': smooth(1, 40, 3, np.uint8),
    'col.png': smooth(33, 1, 1, np.uint8)[:, :, 0],
    'rgb16.png': smooth(21, 26, 3, np.uint16),
    'gray16.png': smooth(24, 17, 1, np.uint16)[:, :, 0],
    'rgbf.npy': smooth(17, 22, 3, np.float32),
    'grayf.npy': smooth(18, 15, 1, np.float32)[:, :, 0],
}
for k, v in sources.items():
    save(k, v)

# name, source, matrix, size, interp, border, fill, inverse
cases = [
    ('rot', 'rgb.png', rot(29, 37, 23, 1.1, 0.15, 2.5, -1.25), (41, 33), 1, 0, (7, 8, 9, 0), 0),
    ('rot_nn_rep', 'rgb.png', rot(29, 37, -37, 0.8, -0.2, 0, 0), (41, 33), 0, 1, (0, 0, 0, 0), 0),
    ('rot_rep', 'rgb.png', rot(29, 37, 71, 1.6, 0.3, 3, 1), (40, 30), 1, 1, (0, 0, 0, 0), 0),
    ('inverse', 'rgb.png', rot(29, 37, 12, 0.7, 0.1, -2, 4), (35, 27), 1, 0, (200, 100, 50, 0), 1),
    ('letterbox', 'rgb.png', letterbox(37, 29, 64, 64), (64, 64), 1, 0, (114, 114, 114, 114), 0),
    ('gray_up', 'gray.png', rot(31, 23, 31, 2.7, 0.0, 5, -3), (53, 61), 1, 1, (0, 0, 0, 0), 0),
    ('gray_nn', 'gray.png', rot(31, 23, -58, 1.3, 0.4, 0, 0), (29, 35), 0, 0, (33, 0, 0, 0), 0),
    ('rgba_down', 'rgba.png', rot(19, 27, 5, 0.4, 0.0, 0, 0), (16, 12), 1, 0, (10, 20, 30, 255), 0),
    ('row', 'row.png', rot(1, 40, 3, 1.5, 0, 0, 2), (45, 7), 1, 1, (0, 0, 0, 0), 0),
    ('col', 'col.png', rot(33, 1, -4, 0.9, 0, 1, 0), (5, 30), 1, 0, (90, 0, 0, 0), 0),
    ('rgb16', 'rgb16.png', rot(21, 26, 41, 1.3, -0.1, 1, 1), (29, 23), 1, 0, (1000, 40000, 65535, 0), 0),
    ('rgb16_nn', 'rgb16.png', rot(21, 26, -20, 0.6, 0, 0, 0), (20, 20), 0, 1, (0, 0, 0, 0), 0),
    ('gray16', 'gray16.png', rot(24, 17, 77, 2.2, 0.2, 0, 0), (30, 33), 1, 1, (0, 0, 0, 0), 0),
    ('rgbf', 'rgbf.npy', rot(17, 22, 17, 1.2, 0.1, 0.5, 0.5), (25, 19), 1, 0, (-3.3, 0.1, 7.7, 0), 0),
    ('grayf', 'grayf.npy', rot(18, 15, -66, 0.75, -0.3, 0, 1), (16, 21), 1, 1, (0, 0, 0, 0), 0),
]
lines = []
for name, src, M, (W, H), interp, border, fill, inverse in cases:
    img = sources[src]
    flags = (cv2.INTER_NEAREST if interp == 0 else cv2.INTER_LINEAR) | (cv2.WARP_INVERSE_MAP if inverse else 0)
    bm = cv2.BORDER_CONSTANT if border == 0 else cv2.BORDER_REPLICATE
    out = cv2.warpAffine(img, M, (W, H), flags=flags, borderMode=bm, borderValue=tuple(float(f) for f in fill))
    ext = 'npy' if img.dtype == np.float32 else 'png'
    exp = 'exp_%s.%s' % (name, ext)
    save(exp, out)
    lines.append(' '.join([src, exp, str(interp), str(border), str(inverse), str(W), str(H)] +
                          ['%.17g' % f for f in fill] + ['%.17g' % v for v in M.ravel()]))
    if name == 'letterbox':
        scale = 1 / 255
        mean = np.array([0.485, 0.456, 0.406])
        std = np.array([0.229, 0.224, 0.225])
        a = (scale / std).astype(np.float32)
        b = (-mean / std).astype(np.float32)
        t = out[:, :, ::-1].astype(np.float32).transpose(2, 0, 1)
        t = t * a[:, None, None] + b[:, None, None]
        np.save(os.path.join(here, 'letterbox_chw.npy'), t.astype(np.float32))
with open(os.path.join(here, 'cases.txt'), 'w') as f:
    f.write('\n'.join(lines) + '\n')
print('wrote %d cases' % len(lines))
