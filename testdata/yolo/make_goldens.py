#!/usr/bin/env python3
"""Makes the torchvision keep-lists that tests/test_yolo.c and tests/test_cuda_yolo.c compare with.

Run once where torch and torchvision are installed (the GPU machine):
    python3 testdata/yolo/make_goldens.py OUTDIR
It writes, for each case (random, clustered, ties):
    CASE_cands.npy            float16 [M, 6]: cx, cy, w, h, score, class (exact in float32)
    CASE_keep_MODE.npy        int32 [k]: the rows torchvision keeps, in descending score,
                              equal scores by ascending row (the order gvis documents)
for MODE aware045 / aware050 / aware070 (batched_nms, class-aware, --iou 0.45 / 0.5 / 0.7)
and agnostic045 (nms over all classes), and a report (report.txt) that cross-checks
torchvision on the CPU (which the goldens are), torchvision on CUDA, batched_nms's
coordinate trick run on the CPU, and an exact float32 reference written here.
The tests build a YOLOv5 tensor [M, 85] from the candidates (objectness 1, the class
score at the class column, 0 elsewhere) and its YOLOv8 transpose.
"""
import os
import sys

import numpy as np
import torch
import torchvision
from torchvision.ops import batched_nms, nms
from torchvision.ops.boxes import _batched_nms_coordinate_trick, _batched_nms_vanilla

g = np.random.default_rng(2026)


def f16(a):
    return np.asarray(a, np.float32).astype(np.float16)


def case_random(m=3000):
    c = np.zeros((m, 6), np.float32)
    c[:, 0:2] = g.uniform(0, 640, (m, 2))
    c[:, 2:4] = g.uniform(8, 200, (m, 2))
    c[:, 4] = g.uniform(0.25, 1.0, m)
    c[:, 5] = g.integers(0, 80, m)
    return f16(c)


def case_clustered(objects=20, per=100, noise=1000):
    rows = []
    for _ in range(objects):
        ctr = g.uniform(50, 590, 2)
        wh = g.uniform(30, 300, 2)
        cls = g.integers(0, 80)
        for _ in range(per):
            k = cls if g.uniform() < 0.9 else g.integers(0, 80)
            rows.append([*(ctr + g.normal(0, 4, 2)), *(wh * g.normal(1, 0.05, 2)), g.uniform(0.5, 1.0), k])
    for _ in range(noise):
        rows.append([*g.uniform(0, 640, 2), *g.uniform(8, 200, 2), g.uniform(0.25, 0.6), g.integers(0, 80)])
    c = np.array(rows, np.float32)
    g.shuffle(c)
    return f16(c)


def case_ties(m=1000):
    # heavy overlaps, 8 distinct scores, 3 classes, coordinates on a 1/4 grid: exact ties
    # in scores and IoUs at the thresholds
    c = np.zeros((m, 6), np.float32)
    ctr = np.array([[100, 100], [104, 100], [300, 300], [320, 310]], np.float32)
    k = g.integers(0, 4, m)
    c[:, 0:2] = ctr[k] + np.round(g.normal(0, 6, (m, 2)) * 4) / 4
    c[:, 2:4] = np.round(g.uniform(40, 80, (m, 2)) * 4) / 4
    c[:, 4] = g.integers(1, 9, m) / 8.0
    c[:, 5] = g.integers(0, 3, m)
    return f16(c)


def boxes_of(c):
    b = torch.from_numpy(c.astype(np.float32))
    return torch.stack([b[:, 0] - b[:, 2] * 0.5, b[:, 1] - b[:, 3] * 0.5, b[:, 0] + b[:, 2] * 0.5,
                        b[:, 1] + b[:, 3] * 0.5], 1), b[:, 4].contiguous(), b[:, 5].long()


def canonical(keep, scores):
    keep = np.asarray(keep, np.int64)
    s = scores.numpy()[keep]
    return keep[np.lexsort((keep, -s))].astype(np.int32)


def reference(boxes, scores, cls, iou, agnostic):
    """Greedy NMS with the float32 arithmetic of lib/yolo.h, stable by row."""
    b = boxes.numpy()
    s = scores.numpy()
    order = np.lexsort((np.arange(len(s)), -s))
    area = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    kept = []
    sup = np.zeros(len(s), bool)
    for i in order:
        if sup[i]:
            continue
        kept.append(i)
        l = np.maximum(b[i, 0], b[:, 0]); r = np.minimum(b[i, 2], b[:, 2])
        t = np.maximum(b[i, 1], b[:, 1]); bo = np.minimum(b[i, 3], b[:, 3])
        w = np.maximum(r - l, np.float32(0)); h = np.maximum(bo - t, np.float32(0))
        inter = w * h
        with np.errstate(invalid="ignore", divide="ignore"):
            ovr = inter / ((area[i] + area) - inter)
        m = ovr.astype(np.float64) > iou
        if not agnostic:
            m &= cls.numpy() == cls.numpy()[i]
        sup |= m
    return np.array(kept, np.int64)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    os.makedirs(out, exist_ok=True)
    report = [f"torch {torch.__version__}, torchvision {torchvision.__version__}, cuda {torch.cuda.is_available()}"]
    modes = [("aware045", 0.45, False), ("aware050", 0.5, False), ("agnostic045", 0.45, True), ("aware070", 0.7, False)]
    for name, make in (("random", case_random), ("clustered", case_clustered), ("ties", case_ties)):
        c = make()
        np.save(os.path.join(out, f"{name}_cands.npy"), c)
        boxes, scores, cls = boxes_of(c)
        for mode, iou, agnostic in modes:
            if agnostic:
                cpu = nms(boxes, scores, iou)
            else:
                cpu = batched_nms(boxes, scores, cls, iou)
            golden = canonical(cpu, scores)
            np.save(os.path.join(out, f"{name}_keep_{mode}.npy"), golden)
            checks = {"reference": reference(boxes, scores, cls, iou, agnostic)}
            if not agnostic:
                checks["cpu coordinate trick"] = _batched_nms_coordinate_trick(boxes, scores, cls, iou)
                checks["cpu vanilla"] = _batched_nms_vanilla(boxes, scores, cls, iou)
            if torch.cuda.is_available():
                d = boxes.cuda(), scores.cuda(), cls.cuda()
                checks["cuda"] = (nms(d[0], d[1], iou) if agnostic else batched_nms(*d, iou)).cpu()
            line = f"{name} {mode}: {len(c)} candidates, torchvision cpu keeps {len(golden)}"
            for k, v in checks.items():
                v = canonical(v, scores)
                same = np.array_equal(v, golden)
                diff = sorted(set(v.tolist()) ^ set(golden.tolist()))
                line += f"; {k}: {'same' if same else 'DIFFERS rows ' + str(diff[:10]) + (' (order only)' if not diff else '')}"
            report.append(line)
    text = "\n".join(report) + "\n"
    open(os.path.join(out, "report.txt"), "w").write(text)
    print(text, end="")


if __name__ == "__main__":
    main()
