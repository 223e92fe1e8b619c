#!/usr/bin/python3
"""CPU time per call of OpenCV's StereoSGBM (SGBM_3WAY, 64 disparities) on the Middlebury
scenes, beside scripts/sgm_cpu_time.c.  Run with Debian's /usr/bin/python3 (cv2 4.6):
    /usr/bin/python3 scripts/sgm_cpu_time_opencv.py [STEREO_DIR]"""
import sys
import time

import cv2

d = sys.argv[1] if len(sys.argv) > 1 else "../shared/data/stereo"
for a, b in [("tsukuba/im3.png", "tsukuba/im4.png"), ("venus/im2.png", "venus/im6.png"),
             ("teddy/im2.png", "teddy/im6.png"), ("cones/im2.png", "cones/im6.png")]:
    L = cv2.imread(f"{d}/{a}", 0)
    R = cv2.imread(f"{d}/{b}", 0)
    s = cv2.StereoSGBM_create(0, 64, 5, P1=8 * 25, P2=32 * 25, mode=cv2.STEREO_SGBM_MODE_SGBM_3WAY)
    s.compute(L, R)
    n = 30
    c0, w0 = time.process_time(), time.perf_counter()
    for _ in range(n):
        s.compute(L, R)
    print(f"{a:16s} cpu {(time.process_time() - c0) * 1e3 / n:6.2f} ms/call  "
          f"wall {(time.perf_counter() - w0) * 1e3 / n:6.2f} ms/call  ({cv2.getNumThreads()} threads)")
