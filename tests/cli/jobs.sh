# --jobs for every subcommand (issue 15): hist, warpaffine, yolo-decode (and gauss in
# batch.sh) give the same bytes at -j 3 as at -j 1, and really run on several threads
# (the -v summary says so); hist's long CSV on standard output stays in input order.
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 1
mkdir -p in y
i=0
for spec in "23 11 3 u8" "40 17 1 u8" "9 31 4 u8" "64 48 3 u8" "17 17 1 u16" "33 5 3 u8" "12 40 1 u8" "50 21 3 u16" \
            "7 7 3 u8"; do
  i=$((i + 1))
  set -- $spec
  ext=png
  "$MKIMAGE" "$1" "$2" "$3" "$4" random "in/f$i.$ext"
done
jobs_used() { grep -Eq "of $2 files done, 0 failed, .* 3 jobs on" "$1"; }

# hist: CSV and JSON per file, --equalize, --plot DIR/
for form in "" "--json"; do
  ok "hist $form -j 1" "$GVIS" --cpu hist $form in -o "h1$form/" -j 1
  ok "hist $form -j 3" "$GVIS" --cpu -v hist $form in -o "h3$form/" -j 3
  check "hist $form: three jobs ran" jobs_used "$T/err" 9
  check "hist $form: -j 3 = -j 1" diff -r "h1$form" "h3$form"
done
check "hist: nine CSV files" [ "$(ls h1 | wc -l)" -eq 9 ]
eight=$(ls in/f[1234679].png)  # equalization takes 8-bit images
ok "hist --equalize -j 1" "$GVIS" --cpu hist --equalize $eight -o e1/ -j 1
ok "hist --equalize -j 3" "$GVIS" --cpu hist --equalize $eight -o e3/ -j 3
check "hist --equalize: -j 3 = -j 1" diff -r e1 e3
ok "hist --plot DIR/ -j 1" "$GVIS" --cpu hist in --plot p1/ -o c1/ -j 1
ok "hist --plot DIR/ -j 3" "$GVIS" --cpu hist in --plot p3/ -o c3/ -j 3
check "hist --plot: -j 3 = -j 1" diff -r p1 p3
# the long CSV of a folder to standard output: in input order whatever --jobs
"$GVIS" --cpu hist in -j 1 >long1.csv
ok "hist long CSV -j 3" sh -c '"$0" --cpu hist in -j 3 >long3.csv' "$GVIS"
check "hist long CSV: -j 3 = -j 1" cmp -s long1.csv long3.csv
check "hist long CSV: files in input order" diff <(cut -d, -f1 long1.csv | uniq | tail -n +2) <(ls in/* | sort)

# warpaffine: letterboxed images with their matrices, and tensors
ok "warpaffine -j 1" "$GVIS" --cpu warpaffine --letterbox 40x24 in -o w1/ --save-matrix m1/ -j 1
ok "warpaffine -j 3" "$GVIS" --cpu -v warpaffine --letterbox 40x24 in -o w3/ --save-matrix m3/ -j 3
check "warpaffine: three jobs ran" jobs_used "$T/err" 9
check "warpaffine: images -j 3 = -j 1" diff -r w1 w3
check "warpaffine: matrices -j 3 = -j 1" diff -r m1 m3
ok "warpaffine tensors -j 1" "$GVIS" --cpu warpaffine --letterbox 32x32 --scale 1/255 in -o t1/ -j 1
ok "warpaffine tensors -j 3" "$GVIS" --cpu warpaffine --letterbox 32x32 --scale 1/255 in -o 't3/{stem}.npy' -j 3
check "warpaffine tensors: nine .npy" [ "$(ls t1/*.npy | wc -l)" -eq 9 ]
check "warpaffine tensors: -j 3 = -j 1" diff -r t1 t3

# yolo-decode: random YOLOv5 tensors (numpy) or copies of the tiny one
if /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
  /usr/bin/python3 - <<'EOF'
import numpy as np
r = np.random.default_rng(15)
for k in range(10):
    n = int(r.integers(5, 60))
    t = np.zeros((1, n, 8), np.float32)
    t[0, :, 0:2] = r.uniform(0, 640, (n, 2))
    t[0, :, 2:4] = r.uniform(5, 120, (n, 2))
    t[0, :, 4:] = r.uniform(0, 1, (n, 4))
    np.save("y/t%02d.npy" % k, t)
EOF
else
  for k in 0 1 2 3 4 5; do cp "$TESTDATA/yolo/tiny_v5.npy" "y/t0$k.npy"; done
fi
ny=$(ls y | wc -l)
for fmt in json csv jsonl; do
  f="--format $fmt"
  [ $fmt = jsonl ] && f=  # the default
  ok "yolo-decode $fmt -j 1" "$GVIS" --cpu yolo-decode y $f -o "y1$fmt/" -j 1
  ok "yolo-decode $fmt -j 3" "$GVIS" --cpu -v yolo-decode y $f -o "y3$fmt/" -j 3
  check "yolo-decode $fmt: three jobs ran" jobs_used "$T/err" "$ny"
  check "yolo-decode $fmt: -j 3 = -j 1" diff -r "y1$fmt" "y3$fmt"
done
"$GVIS" --cpu yolo-decode y --json -j 1 >yall1.json
ok "yolo-decode to one stream -j 3" sh -c '"$0" --cpu yolo-decode y --json -j 3 >yall3.json' "$GVIS"
check "yolo-decode one stream: -j 3 = -j 1" cmp -s yall1.json yall3.json
finish
