#!/usr/bin/python3
"""Writes testdata/hist/: small inputs and their equalization by OpenCV 4.6
(cv2.equalizeHist; colour on the Y of cv2.cvtColor(..., COLOR_RGB2YCrCb) and back,
or per channel).  Run once with Debian's python3-opencv:
    /usr/bin/python3 scripts/gen_hist_golden.py
Images are saved RGB(A) as PNG (cv2.imwrite wants BGR, hence the conversions)."""
import os
import numpy as np
import cv2

out = os.path.join(os.path.dirname(__file__), "..", "testdata", "hist")
os.makedirs(out, exist_ok=True)
g = np.random.default_rng(11)


def save(name, rgb):
    a = rgb
    if rgb.ndim == 3:
        a = cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR if rgb.shape[2] == 3 else cv2.COLOR_RGBA2BGRA)
    assert cv2.imwrite(os.path.join(out, name), a)


def smooth(h, w, c):
    y, x = np.mgrid[0:h, 0:w] / np.array([h, w]).reshape(2, 1, 1)
    base = 0.4 * x + 0.3 * y + 0.2 * np.sin(11 * x) * np.cos(7 * y)
    chans = [np.clip((base + 0.1 * k + 0.03 * g.standard_normal((h, w))) * 200 + 20, 0, 255) for k in range(c)]
    a = np.stack(chans, -1).astype(np.uint8)
    return a[..., 0] if c == 1 else a


def eq_luma(rgb):
    ycc = cv2.cvtColor(rgb[..., :3], cv2.COLOR_RGB2YCrCb)
    ycc[..., 0] = cv2.equalizeHist(ycc[..., 0])
    res = cv2.cvtColor(ycc, cv2.COLOR_YCrCb2RGB)
    if rgb.shape[2] == 4:
        res = np.dstack([res, rgb[..., 3]])
    return res


grays = {
    "random_gray": g.integers(0, 256, (47, 61), np.uint8),
    "smooth_gray": smooth(77, 123, 1),
    "skewed_gray": (100 + g.integers(0, 4, (33, 45))).astype(np.uint8),
    "constant_gray": np.full((9, 13), 77, np.uint8),
}
for name, a in grays.items():
    save(name + ".png", a)
    save(name + "_eq.png", cv2.equalizeHist(a))
rgb = smooth(64, 97, 3)
save("smooth_rgb.png", rgb)
save("smooth_rgb_eq_luma.png", eq_luma(rgb))
save("smooth_rgb_eq_channels.png", np.dstack([cv2.equalizeHist(np.ascontiguousarray(rgb[..., k])) for k in range(3)]))
rgba = g.integers(0, 256, (31, 29, 4), np.uint8)
save("random_rgba.png", rgba)
save("random_rgba_eq_luma.png", eq_luma(rgba))
print("wrote", out)
