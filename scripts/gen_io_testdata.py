#!/usr/bin/python3
"""Writes testdata/io/: images written by OpenCV (cv2.imwrite) beside the pixels they
were given, as NPY in RGB order.  Run once with Debian's python3-opencv:
    /usr/bin/python3 scripts/gen_io_testdata.py
tests/test_image_io.c checks that gvis reads each file back to exactly those pixels."""
import os
import numpy as np
import cv2

out = os.path.join(os.path.dirname(__file__), "..", "testdata", "io")
os.makedirs(out, exist_ok=True)
g = np.random.default_rng(7)
H, W = 23, 37
imgs = {
    "gray8": g.integers(0, 256, (H, W), np.uint8),
    "rgb8": g.integers(0, 256, (H, W, 3), np.uint8),
    "rgba8": g.integers(0, 256, (H, W, 4), np.uint8),
    "gray16": g.integers(0, 65536, (H, W), np.uint16),
    "rgb16": g.integers(0, 65536, (H, W, 3), np.uint16),
    "gray32f": g.standard_normal((H, W)).astype(np.float32),
    "rgb32f": g.standard_normal((H, W, 3)).astype(np.float32),
}
exts = {"gray8": ["png", "pgm"], "rgb8": ["png", "ppm", "bmp"], "rgba8": ["png"], "gray16": ["png", "pgm"],
        "rgb16": ["png", "ppm"], "gray32f": ["pfm"], "rgb32f": ["pfm"]}
for name, a in imgs.items():
    np.save(os.path.join(out, name + ".npy"), a)
    bgr = a
    if a.ndim == 3:
        bgr = cv2.cvtColor(a, cv2.COLOR_RGB2BGR if a.shape[2] == 3 else cv2.COLOR_RGBA2BGRA)
    for e in exts[name]:
        assert cv2.imwrite(os.path.join(out, "cv_%s.%s" % (name, e)), bgr), (name, e)
print("wrote", out)
