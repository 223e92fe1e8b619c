# gvis yolo-decode: layouts, dtypes, raw input, thresholds, NMS modes, formats, matrix,
# drawing, pipes, many inputs, errors and exit statuses.
. "$(dirname "$0")/lib.sh"
Y=$TESTDATA/yolo
rows() { sed -n 's/.*"x1":\([^,]*\),"y1":\([^,]*\),.*/\1 \2/p' "$1" | tr '\n' ';'; }
classes() { grep -o '"class":[0-9]*' "$1" | cut -d: -f2 | tr '\n' ' '; }

# The tiny tensor (testdata/yolo/make_cli_inputs.py): class-aware keeps rows 0, 2, 6, 3.
ok "v5 npy" "$GVIS" yolo-decode --cpu "$Y/tiny_v5.npy"
check "v5: four detections, JSON Lines" test "$(wc -l <"$T/out")" -eq 4
check "v5: classes in descending score" test "$(classes "$T/out")" = "0 1 1 2 "
check "v5: the first line" test "$(head -1 "$T/out")" = \
  "{\"file\":\"$Y/tiny_v5.npy\",\"class\":0,\"name\":\"0\",\"score\":0.80999994,\"x1\":75,\"y1\":75,\"x2\":125,\"y2\":125}"
cp "$T/out" "$T/v5.jsonl"
ok "v8 npy" "$GVIS" yolo-decode --cpu "$Y/tiny_v8.npy"
check "v8 equals v5" test "$(sed 's/tiny_v8/tiny_v5/' "$T/out" | md5sum)" = "$(md5sum <"$T/v5.jsonl")"
ok "layout said with -v" "$GVIS" yolo-decode -v --cpu "$Y/tiny_v8.npy"
check "-v names the layout v8" grep -q "layout v8, 12 boxes, 3 classes" "$T/err"
ok "float16" "$GVIS" yolo-decode --cpu "$Y/tiny_v5_f16.npy"
check "float16: the same boxes" test "$(rows "$T/out")" = "$(rows "$T/v5.jsonl")"
ok "default device" "$GVIS" yolo-decode "$Y/tiny_v5.npy"
check "default device: the same output" test "$(md5sum <"$T/out")" = "$(md5sum <"$T/v5.jsonl")"

ok "agnostic" "$GVIS" yolo-decode --cpu --agnostic "$Y/tiny_v5.npy"
check "agnostic: three" test "$(classes "$T/out")" = "0 1 2 "
ok "max-det" "$GVIS" yolo-decode --cpu --max-det 2 "$Y/tiny_v5.npy"
check "max-det 2: the best two" test "$(classes "$T/out")" = "0 1 "
ok "conf" "$GVIS" yolo-decode --cpu --conf 0.6 "$Y/tiny_v5.npy"
check "conf 0.6: two" test "$(wc -l <"$T/out")" -eq 2
ok "conf 1: nothing" "$GVIS" yolo-decode --cpu --conf 1 "$Y/tiny_v5.npy"
check "empty result: empty output" test ! -s "$T/out"
ok "iou 0: any overlap suppresses" "$GVIS" yolo-decode --cpu --iou 0 --agnostic "$Y/tiny_v5.npy"
check "iou 0: three" test "$(wc -l <"$T/out")" -eq 3
ok "fast nms" "$GVIS" yolo-decode --cpu --fast-nms "$Y/tiny_v5.npy"
check "fast nms on this tensor: the same four" test "$(classes "$T/out")" = "0 1 1 2 "
ok "classes given" "$GVIS" yolo-decode --cpu --classes 3 "$Y/tiny_v5.npy"

ok "raw float32" "$GVIS" yolo-decode --cpu --shape 8x8 --layout v5 "$Y/tiny_v5.raw"
check "raw: class-aware keeps 0, 2, 6, 3" test "$(classes "$T/out")" = "0 1 1 2 "
fails "raw 8x8 is ambiguous" 2 "ambiguous: give --layout v5 or v8" "$GVIS" yolo-decode --cpu --shape 8x8 "$Y/tiny_v5.raw"
fails "raw size mismatch" 1 "'$Y/tiny_v5.raw': file has 256 bytes; --shape 9x8 of float32 needs 288" \
  "$GVIS" yolo-decode --cpu --shape 9x8 --layout v5 "$Y/tiny_v5.raw"
fails "bad --shape" 2 "not a shape NxK" "$GVIS" yolo-decode --shape 8 "$Y/tiny_v5.raw"
fails "negative --shape" 2 "not a shape NxK" "$GVIS" yolo-decode --shape -8x8 "$Y/tiny_v5.raw"

ok "csv" "$GVIS" yolo-decode --cpu "$Y/tiny_v5.npy" -o "$T/d.csv"
check "csv header" test "$(head -1 "$T/d.csv")" = "file,class,name,score,x1,y1,x2,y2"
check "csv rows" test "$(tail -n +2 "$T/d.csv" | wc -l)" -eq 4
check "-o writes nothing on stdout" test ! -s "$T/out"
ok "names" "$GVIS" yolo-decode --cpu --names "$Y/names.txt" "$Y/tiny_v5.npy" -o - --format csv
check "names in csv" test "$(cut -d, -f3 "$T/out" | tr '\n' ' ')" = "name person bicycle bicycle car "
: >"$T/empty-names.txt"
fails "empty names file" 1 "'$T/empty-names.txt': no names in the file" "$GVIS" yolo-decode --names "$T/empty-names.txt" "$Y/tiny_v5.npy"
fails "missing names file" 1 "'$T/nonames.txt': cannot open" "$GVIS" yolo-decode --names "$T/nonames.txt" "$Y/tiny_v5.npy"
ok "json document" "$GVIS" yolo-decode --cpu --json "$Y/tiny_v5.npy"
if [ -x /usr/bin/python3 ]; then
  check "json parses" /usr/bin/python3 -c '
import json,sys; d=json.load(open(sys.argv[1]))
assert d["layout"]=="v5" and d["rows"]==12 and d["classes"]==3 and d["candidates"]==6, d
assert [x["class"] for x in d["detections"]]==[0,1,1,2], d' "$T/out"
  ok "json, two inputs" "$GVIS" yolo-decode --cpu --json "$Y/tiny_v5.npy" "$Y/tiny_v8.npy"
  check "two inputs: one array" /usr/bin/python3 -c '
import json,sys; d=json.load(open(sys.argv[1])); assert len(d)==2 and d[1]["layout"]=="v8", d' "$T/out"
  ok "jsonl parses" "$GVIS" yolo-decode --cpu "$Y/tiny_v5.npy"
  check "each line an object" /usr/bin/python3 -c '
import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$T/out"
fi
ok "-o x.json" "$GVIS" yolo-decode --cpu "$Y/tiny_v5.npy" -o "$T/d.json"
check "-o x.json: a document" grep -q '"detections":\[' "$T/d.json"
fails "txt without a size" 2 "needs the image size" "$GVIS" yolo-decode --cpu "$Y/tiny_v5.npy" -o "$T/d.txt"
check "no partial txt" test ! -e "$T/d.txt"
check "no temporary files" no_temp "$T"
ok "txt labels" "$GVIS" yolo-decode --cpu --size 640x640 "$Y/tiny_v5.npy" -o "$T/d.txt"
check "txt: normalized and clipped" test "$(sed -n 3p "$T/d.txt")" = "1 0.929688 0.960938 0.140625 0.078125"
ok "size clips" "$GVIS" yolo-decode --cpu --size 640x640 "$Y/tiny_v5.npy"
check "clipped to 640" grep -q '"x1":550,"y1":590,"x2":640,"y2":640' "$T/out"

# letterbox 1280x720 -> 640x640 as gvis warpaffine --save-matrix writes it (OpenCV's
# pixel-centre convention); on box edges the inverse is 2x, 2y-280
printf '# forward, inverse\n0.5 0 -0.25 0 0.5 139.75\n2 0 0.5 0 2 -279.5\n' >"$T/m.txt"
ok "matrix" "$GVIS" yolo-decode --cpu --matrix "$T/m.txt" --size 1280x720 "$Y/tiny_v5.npy"
check "matrix maps to the source" test "$(head -1 "$T/out" | rows /dev/stdin)" = "150 0;"
check "matrix clips to the source" grep -q '"x1":1100,"y1":720,"x2":1280,"y2":720' "$T/out"
fails "bad matrix file" 1 "'$T/nope.txt'" "$GVIS" yolo-decode --cpu --matrix "$T/nope.txt" "$Y/tiny_v5.npy"

if [ -n "${MKIMAGE:-}" ]; then
  "$MKIMAGE" 640 640 3 u8 smooth "$T/img.png"
  ok "draw" "$GVIS" yolo-decode --cpu --names "$Y/names.txt" --draw "$T/img.png" "$Y/tiny_v5.npy" -o "$T/ann.png"
  check "draw writes an image of the same size" "$GVIS" hist "$T/ann.png" -o "$T/ann.csv"
  check "draw changed pixels" test "$(md5sum <"$T/ann.png")" != "$(md5sum <"$T/img.png")"
  ok "draw to DIR/" "$GVIS" yolo-decode --cpu --draw "$T/img.png" "$Y/tiny_v5.npy" -o "$T/drawn/"
  check "draw to DIR/ writes DIR/tiny_v5.png" test -s "$T/drawn/tiny_v5.png"
  fails "draw needs -o" 2 "--draw needs -o" "$GVIS" yolo-decode --draw "$T/img.png" "$Y/tiny_v5.npy"
  fails "draw over its image" 1 "refusing to write over" "$GVIS" yolo-decode --cpu --draw "$T/img.png" "$Y/tiny_v5.npy" -o "$T/img.png"
  fails "draw, missing image" 1 "--draw image '$T/none.png': cannot open" "$GVIS" yolo-decode --cpu --draw "$T/none.png" "$Y/tiny_v5.npy" -o "$T/x.png"
  check "no partial drawing" test ! -e "$T/x.png"
fi

ok "stdin" sh -c "cat '$Y/tiny_v5.npy' | '$GVIS' yolo-decode --cpu -"
check "stdin: the same detections" test "$(rows "$T/out")" = "$(rows "$T/v5.jsonl")"
ok "two inputs to stdout" "$GVIS" yolo-decode --cpu "$Y/tiny_v5.npy" "$Y/tiny_v8.npy"
check "two inputs: eight lines with file names" test "$(grep -c '"file":"[^"]*tiny_v8.npy"' "$T/out")" -eq 4
ok "two inputs to DIR/" "$GVIS" yolo-decode --cpu "$Y/tiny_v5.npy" "$Y/tiny_v8.npy" -o "$T/dir/"
check "DIR/tiny_v5.jsonl and DIR/tiny_v8.jsonl" test -s "$T/dir/tiny_v5.jsonl" -a -s "$T/dir/tiny_v8.jsonl"
ok "two inputs csv to stdout" "$GVIS" yolo-decode --cpu --format csv "$Y/tiny_v5.npy" "$Y/tiny_v8.npy" -o -
check "csv: one header" test "$(grep -c '^file,' "$T/out")" -eq 1

fails "nan" 1 "'$Y/nan.npy': nan value at element \[1,6\] of the tensor" "$GVIS" yolo-decode --cpu "$Y/nan.npy"
fails "wrong dtype" 1 "'$Y/int32.npy': tensor dtype must be float32 or float16" "$GVIS" yolo-decode --cpu "$Y/int32.npy"
fails "a batch goes on after a bad file" 1 "nan value" "$GVIS" yolo-decode --cpu "$Y/nan.npy" "$Y/tiny_v5.npy"
check "the good file still decoded" test "$(wc -l <"$T/out")" -eq 4
fails "not npy" 1 "not an NPY file" "$GVIS" yolo-decode --cpu "$Y/names.txt"
fails "missing file" 1 "'$T/none.npy'" "$GVIS" yolo-decode --cpu "$T/none.npy"
fails "classes disagree" 1 "has 3 classes as v5, not 80" "$GVIS" yolo-decode --cpu --classes 80 --layout v5 "$Y/tiny_v5.npy"
fails "negative class count in the shape" 1 "shape \[32,2\] as v5 \[N,5\+C\] gives -3 classes" \
  "$GVIS" yolo-decode --cpu --layout v5 --shape 32x2 "$Y/tiny_v5.raw"
fails "zero classes option" 2 "--classes takes a positive count" "$GVIS" yolo-decode --classes 0 "$Y/tiny_v5.npy"
fails "negative classes option" 2 "--classes takes a positive count" "$GVIS" yolo-decode --classes -3 "$Y/tiny_v5.npy"
fails "bad conf" 2 "--conf takes 0 to 1" "$GVIS" yolo-decode --conf 1.5 "$Y/tiny_v5.npy"
fails "bad iou" 2 "--iou takes 0 to 1" "$GVIS" yolo-decode --iou -1 "$Y/tiny_v5.npy"
fails "bad max-det" 2 "--max-det takes" "$GVIS" yolo-decode --max-det 0 "$Y/tiny_v5.npy"
fails "bad layout" 2 "not a layout" "$GVIS" yolo-decode --layout v7 "$Y/tiny_v5.npy"
fails "bad format" 2 "--format takes" "$GVIS" yolo-decode --format png "$Y/tiny_v5.npy" -o -
fails "unknown option" 2 "" "$GVIS" yolo-decode --frobnicate "$Y/tiny_v5.npy"
fails "no input" 2 "" "$GVIS" yolo-decode
fails "two inputs, one file" 2 "need -o DIR/" "$GVIS" yolo-decode "$Y/tiny_v5.npy" "$Y/tiny_v8.npy" -o "$T/one.csv"
ok "help" "$GVIS" yolo-decode --help
check "help lists --agnostic" grep -q -- "--agnostic" "$T/out"
finish
