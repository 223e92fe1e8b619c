#!/usr/bin/python3
"""gvis warpaffine on the CPU beside cv2.warpAffine (and cv2 + numpy for the tensor), one run.

Usage: /usr/bin/python3 scripts/bench_warp_cpu.py GVIS_BINARY MKIMAGE_BINARY
Makes 3840x2160 and 1920x1080 RGB test images, letterboxes them to 640x640; medians of 50.
"""
import json
import os
import subprocess
import sys
import tempfile
import time

import cv2
import numpy as np

G = sys.argv[1] if len(sys.argv) > 1 else 'build/cli/gvis'
MK = sys.argv[2] if len(sys.argv) > 2 else 'build/tests/mkimage'
D = tempfile.mkdtemp()
for n, (w, h) in {'4k': (3840, 2160), '2k': (1920, 1080)}.items():
    subprocess.run([MK, str(w), str(h), '3', 'u8', 'smooth', '%s/%s.ppm' % (D, n)], check=True)
def med(f, n=50):
    ts=[]
    for i in range(n):
        t=time.perf_counter(); f(); ts.append(time.perf_counter()-t)
    return np.median(ts)*1e3
for name in ['4k','2k']:
    img=cv2.imread('%s/%s.ppm'%(D,name))  # BGR
    h,w=img.shape[:2]; W=H=640; s=min(W/w,H/h)
    M=np.array([[s,0,-s*w*.5+W*.5+s*.5-.5],[0,s,-s*h*.5+H*.5+s*.5-.5]])
    a=med(lambda: cv2.warpAffine(img,M,(W,H),flags=cv2.INTER_LINEAR,borderValue=(114,114,114)))
    def tens():
        r=cv2.warpAffine(img,M,(W,H),flags=cv2.INTER_LINEAR,borderValue=(114,114,114))
        return np.ascontiguousarray(r[:,:,::-1].transpose(2,0,1)).astype(np.float32)/255
    b=med(tens)
    def g(*extra):
        out=subprocess.run([G,'warpaffine','--cpu','--timing=json','--repeat','50','%s/%s.ppm'%(D,name),'--letterbox','640x640']+list(extra),capture_output=True,text=True).stderr
        return json.loads(out.strip().splitlines()[-1])['compute_ms']
    c=g('-o',D+'/o.ppm'); d=g('--bgr','--scale','1/255','-o',D+'/o.npy')
    print('%s: cv2 warpAffine %.3f ms, gvis %.3f ms (ratio %.2f) | cv2+numpy tensor %.3f ms, gvis tensor %.3f ms (ratio %.2f)'%(name,a,c,c/a,b,d,d/b))
import shutil
shutil.rmtree(D)
