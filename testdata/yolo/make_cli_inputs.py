#!/usr/bin/python3
"""Makes the small hand-made tensors tests/cli/yolo-decode.sh reads (numpy only):
    /usr/bin/python3 testdata/yolo/make_cli_inputs.py
tiny_v5.npy [1,12,8] float32 (3 classes), tiny_v5_f16.npy (the same in float16),
tiny_v8.npy [1,7,12] (the same boxes as YOLOv8: class scores = objectness * class),
tiny_v5.raw (the first 8 rows as raw float32, 8x8: ambiguous without --layout),
nan.npy (tiny_v5 with a NaN at [1,6]) and int32.npy (a wrong dtype).
Class-aware at --iou 0.45 keeps rows 0, 2, 6, 3; agnostic keeps 0, 6, 3."""
import os
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
rows = [  # cx, cy, w, h, obj, class scores
    [100, 100, 50, 50, 0.9, 0.9, 0.1, 0.0],   # 0: class 0, score .81
    [102, 100, 50, 50, 0.8, 0.9, 0.0, 0.0],   # 1: class 0, .72, overlaps 0: suppressed
    [102, 100, 50, 50, 0.8, 0.0, 0.9, 0.0],   # 2: class 1, .72: kept unless agnostic
    [300, 300, 40, 80, 0.5, 0.0, 0.0, 0.6],   # 3: class 2, .30
    [500, 500, 20, 20, 0.2, 1.0, 0.0, 0.0],   # 4: objectness below conf
    [400, 100, 30, 30, 0.6, 0.4, 0.0, 0.0],   # 5: score .24 below conf
    [600, 620, 100, 60, 1.0, 0.0, 0.5, 0.0],  # 6: class 1, .5, reaches past 640x640
    [100, 100, 50, 50, 0.9, 0.9, 0.0, 0.0],   # 7: the same box and score as 0: the tie goes to row 0
] + [[20 * k, 20 * k, 10, 10, 0.01, 0.5, 0.5, 0.5] for k in range(4)]  # 8-11: background, below conf
v5 = np.array(rows, np.float32)
np.save(os.path.join(here, "tiny_v5.npy"), v5[None])
np.save(os.path.join(here, "tiny_v5_f16.npy"), v5.astype(np.float16)[None])
v8 = np.concatenate([v5[:, :4], v5[:, 4:5] * v5[:, 5:]], 1).T.copy()
np.save(os.path.join(here, "tiny_v8.npy"), v8[None])
v5[:8].tofile(os.path.join(here, "tiny_v5.raw"))
bad = v5.copy()
bad[1, 6] = np.nan
np.save(os.path.join(here, "nan.npy"), bad)
np.save(os.path.join(here, "int32.npy"), v5.astype(np.int32))
