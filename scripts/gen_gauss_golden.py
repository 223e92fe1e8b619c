#!/usr/bin/python3
"""Makes testdata/gauss: small inputs and cv2.GaussianBlur outputs (OpenCV 4.6).

Run once with Debian's python3-opencv: /usr/bin/python3 scripts/gen_gauss_golden.py
The natural inputs are crops of the Middlebury "cones" left image (../shared/data/stereo).
cases.tsv lists: input, expected output, ksize_x, ksize_y, sigma_x, sigma_y, border.
"""
import os
import sys

import cv2
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, '..', 'testdata', 'gauss')
CONES = os.path.join(HERE, '..', '..', 'shared', 'data', 'stereo', 'cones', 'im2.png')
BORDERS = {'reflect101': cv2.BORDER_REFLECT_101, 'replicate': cv2.BORDER_REPLICATE,
           'constant': cv2.BORDER_CONSTANT, 'reflect': cv2.BORDER_REFLECT, 'wrap': cv2.BORDER_WRAP}


def save(name, img):
    path = os.path.join(OUT, name)
    if name.endswith('.npy'):
        np.save(path, img)
    else:
        assert cv2.imwrite(path, img), path


def main():
    os.makedirs(OUT, exist_ok=True)
    rng = np.random.default_rng(20261121)
    cones = cv2.imread(CONES, cv2.IMREAD_COLOR)
    if cones is None:
        sys.exit('cannot read ' + CONES)
    nat_rgb = np.ascontiguousarray(cones[100:171, 150:247])           # 97 x 71
    nat_gray = cv2.cvtColor(nat_rgb, cv2.COLOR_BGR2GRAY)
    nat_u16 = (nat_gray.astype(np.uint16) << 8) | rng.integers(0, 256, nat_gray.shape, dtype=np.uint16)
    inputs = {
        'nat_rgb.png': nat_rgb,
        'nat_gray.png': nat_gray,
        'nat_u16.png': nat_u16,
        'rand_gray.png': rng.integers(0, 256, (37, 53), dtype=np.uint8),
        'rand_rgba.png': rng.integers(0, 256, (23, 31, 4), dtype=np.uint8),
        'rand_u16_rgb.png': rng.integers(0, 65536, (19, 27, 3), dtype=np.uint16),
        'rand_f32.npy': rng.random((29, 41), dtype=np.float32) * 100,
        'tiny_3x2.png': rng.integers(0, 256, (2, 3), dtype=np.uint8),
        'row_9x1.png': rng.integers(0, 256, (1, 9), dtype=np.uint8),
    }
    for name, img in inputs.items():
        save(name, img)
    cases = [('nat_gray.png', 5, 5, 0, 0, b) for b in BORDERS]
    cases += [
        ('nat_gray.png', 3, 3, 0, 0, 'reflect101'), ('nat_gray.png', 7, 7, 0, 0, 'reflect101'),
        ('nat_gray.png', 9, 9, 0, 0, 'reflect101'), ('nat_gray.png', 0, 0, 1.5, 0, 'reflect101'),
        ('nat_gray.png', 15, 15, 0, 0, 'reflect101'), ('nat_gray.png', 31, 31, 5, 0, 'reflect101'),
        ('nat_gray.png', 13, 5, 2.0, 1.0, 'replicate'), ('nat_gray.png', 0, 0, 3.3, 0.7, 'reflect'),
        ('nat_gray.png', 61, 61, 10, 0, 'replicate'), ('nat_gray.png', 255, 255, 40, 0, 'reflect101'),
        ('nat_rgb.png', 5, 5, 0, 0, 'reflect101'), ('nat_rgb.png', 5, 5, 0, 0, 'constant'),
        ('nat_rgb.png', 11, 11, 2, 0, 'reflect'), ('nat_rgb.png', 31, 31, 0, 0, 'wrap'),
        ('rand_rgba.png', 7, 7, 0, 0, 'replicate'), ('rand_rgba.png', 21, 3, 4, 1, 'reflect101'),
        ('rand_gray.png', 5, 5, 0, 0, 'reflect101'), ('rand_gray.png', 255, 1, 0, 0, 'reflect101'),
        ('nat_u16.png', 5, 5, 0, 0, 'reflect101'), ('nat_u16.png', 0, 0, 2.0, 0, 'reflect101'),
        ('nat_u16.png', 31, 31, 5, 0, 'constant'), ('nat_u16.png', 15, 15, 0, 0, 'wrap'),
        ('rand_u16_rgb.png', 9, 9, 0, 0, 'reflect101'),
        ('rand_f32.npy', 5, 5, 0, 0, 'reflect101'), ('rand_f32.npy', 0, 0, 2.0, 0, 'reflect'),
        ('rand_f32.npy', 31, 31, 0, 0, 'replicate'),
    ]
    cases += [('tiny_3x2.png', 31, 31, 0, 0, b) for b in BORDERS]
    cases += [('row_9x1.png', 5, 5, 0, 0, 'reflect101'), ('row_9x1.png', 5, 5, 0, 0, 'constant')]
    # wide kernels, sigma 5 to 50 (issue 12): past the 255 taps of the GPU's tile kernel,
    # and wider than the image (the borders fold back more than once)
    cases += [
        ('nat_gray.png', 0, 0, 50, 0, 'reflect101'), ('nat_gray.png', 0, 0, 25, 0, 'replicate'),
        ('nat_gray.png', 0, 0, 45, 5, 'constant'), ('nat_rgb.png', 0, 0, 20, 0, 'reflect'),
        ('nat_rgb.png', 0, 0, 50, 0, 'wrap'), ('rand_rgba.png', 0, 0, 12.5, 0, 'reflect101'),
        ('nat_u16.png', 0, 0, 50, 0, 'reflect101'), ('nat_u16.png', 0, 0, 33, 0, 'constant'),
        ('rand_u16_rgb.png', 0, 0, 40, 0, 'replicate'), ('rand_f32.npy', 0, 0, 35, 0, 'reflect101'),
        ('rand_f32.npy', 0, 0, 5, 50, 'reflect'), ('nat_gray.png', 301, 5, 0, 0, 'reflect'),
        ('tiny_3x2.png', 0, 0, 30, 0, 'reflect101'), ('row_9x1.png', 0, 0, 50, 0, 'constant'),
    ]
    lines = []
    for i, (name, kx, ky, sx, sy, b) in enumerate(cases):
        src = inputs[name]
        out = cv2.GaussianBlur(src, (kx, ky), sx, sigmaY=sy, borderType=BORDERS[b])
        base, ext = os.path.splitext(name)
        oname = '%s_%02d.out%s' % (base, i, ext)
        save(oname, out)
        lines.append('\t'.join(str(v) for v in (name, oname, kx, ky, sx, sy, b)))
    with open(os.path.join(OUT, 'cases.tsv'), 'w') as f:
        f.write('# input\texpected\tksize_x\tksize_y\tsigma_x\tsigma_y\tborder (cv2.GaussianBlur %s)\n' % cv2.__version__)
        f.write('\n'.join(lines) + '\n')
    with open(os.path.join(OUT, 'README'), 'w') as f:
        f.write('Inputs and cv2.GaussianBlur (OpenCV %s) outputs for tests/test_gauss.c; made by\n'
                '/usr/bin/python3 scripts/gen_gauss_golden.py (natural crops: Middlebury cones im2.png).\n'
                % cv2.__version__)


if __name__ == '__main__':
    main()
