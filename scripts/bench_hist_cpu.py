#!/usr/bin/python3
"""CPU hist and equalize beside OpenCV in one run, on the same images (Debian's
python3-opencv):  /usr/bin/python3 scripts/bench_hist_cpu.py BUILD_DIR
gvis: median compute_ms of --repeat 50 (--timing=json, --cpu); cv2: median of 50
calls; the two alternate three times and the best median of each is kept."""
import json, os, subprocess, sys, tempfile, time
import cv2
import numpy as np

build = sys.argv[1] if len(sys.argv) > 1 else "build/bench"
G = os.path.join(build, "cli", "gvis")
g = np.random.default_rng(5)


def cv_ms(f, it=50):
    f()
    t = []
    for _ in range(it):
        a = time.perf_counter()
        f()
        t.append((time.perf_counter() - a) * 1e3)
    return sorted(t)[len(t) // 2]


def gvis_ms(args):
    r = subprocess.run([G, "--cpu", "--timing=json", "--repeat", "50"] + args, capture_output=True, text=True)
    return json.loads(r.stderr.strip().splitlines()[-1])["compute_ms"]


tmp = tempfile.mkdtemp()
print("cv2", cv2.__version__, "threads", cv2.getNumThreads(), "| gvis threads", os.environ.get("GVIS_THREADS", "all"))
print("| image | gvis hist | cv2 calcHist | ratio | gvis equalize | cv2 equalizeHist | ratio |")
print("|---|---|---|---|---|---|---|")
for w, h in ((1920, 1080), (3840, 2160)):
    y, x = np.mgrid[0:h, 0:w]
    imgs = {"random": g.integers(0, 256, (h, w), np.uint8),
            "natural-like": np.clip(128 + 60 * np.sin(x / 97.0) * np.cos(y / 53.0) + g.normal(0, 12, (h, w)), 0, 255).astype(np.uint8),
            "skewed": (100 + g.integers(0, 4, (h, w))).astype(np.uint8)}
    for name, a in imgs.items():
        p = os.path.join(tmp, "in.pgm")
        cv2.imwrite(p, a)
        best = [1e9] * 4
        for _ in range(3):
            best[0] = min(best[0], gvis_ms(["hist", p, "-o", "/dev/null"]))
            best[1] = min(best[1], cv_ms(lambda: cv2.calcHist([a], [0], None, [256], [0, 256])))
            best[2] = min(best[2], gvis_ms(["hist", "--equalize", p, "-o", os.path.join(tmp, "o.pgm")]))
            best[3] = min(best[3], cv_ms(lambda: cv2.equalizeHist(a)))
        print("| %dx%d %s | %.3f | %.3f | %.2f | %.3f | %.3f | %.2f |" % (
            w, h, name, best[0], best[1], best[0] / best[1], best[2], best[3], best[2] / best[3]))
