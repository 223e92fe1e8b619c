#!/usr/bin/env python3
"""Writes the benchmark tensors of scripts/bench and docs/notes-yolo.md into OUTDIR (numpy only):
    python3 testdata/yolo/make_bench_tensors.py OUTDIR
v5_25200.npy [1,25200,85] and v5_100800.npy [1,100800,85]: the YOLOv5-shaped tensors of
../shared/peers/torch_cv2_peers.py (same generator, same seed, same order, so the same
values torchvision is timed on); v8_8400.npy [1,84,8400]: the first 8400 rows of the
25200 one as YOLOv8 (class scores times objectness, transposed)."""
import numpy as np, sys
g = np.random.default_rng(3)
def synth(rows=25200, ncls=80, objects=20):
    p = np.zeros((rows, 5 + ncls), np.float32)
    p[:, 0:2] = g.uniform(0, 640, (rows, 2)); p[:, 2:4] = g.uniform(8, 200, (rows, 2))
    p[:, 4] = g.beta(0.3, 8, rows); p[:, 5:] = g.beta(0.2, 6, (rows, ncls))
    c = g.uniform(50, 590, (objects, 2)); wh = g.uniform(30, 300, (objects, 2)); cls = g.integers(0, ncls, objects)
    for k in range(objects):
        idx = g.choice(rows, 60, replace=False)
        p[idx, 0:2] = c[k] + g.normal(0, 4, (60, 2)); p[idx, 2:4] = wh[k] * g.normal(1, 0.05, (60, 2))
        p[idx, 4] = g.uniform(0.5, 0.99, 60); p[idx, 5 + cls[k]] = g.uniform(0.6, 0.99, 60)
    return p
out = sys.argv[1]
a = synth(25200); np.save(f"{out}/v5_25200.npy", a[None])
b = synth(100800); np.save(f"{out}/v5_100800.npy", b[None])
v8 = np.concatenate([a[:8400, :4], a[:8400, 4:5] * a[:8400, 5:]], 1).T.copy()
np.save(f"{out}/v8_8400.npy", v8[None])
