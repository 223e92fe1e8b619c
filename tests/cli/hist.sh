# gvis hist: formats, channels, 16-bit bins, plots, equalization, pipes, errors.
. "$(dirname "$0")/lib.sh"
H=$TESTDATA/hist
"$MKIMAGE" 37 23 1 u8 random "$T/g.png"
"$MKIMAGE" 37 23 3 u8 smooth "$T/c.png"
"$MKIMAGE" 37 23 4 u8 random "$T/a.png"
"$MKIMAGE" 37 23 1 u16 smooth "$T/w.png"
"$MKIMAGE" 9 9 1 f32 smooth "$T/f.pfm"

ok "gray csv" "$GVIS" hist "$T/g.png"
check "gray header" test "$(head -1 "$T/out")" = "bin,count"
check "gray 256 rows" test "$(tail -n +2 "$T/out" | wc -l)" -eq 256
check "gray counts sum to the pixels" test "$(tail -n +2 "$T/out" | awk -F, '{s+=$2} END {print s}')" -eq $((37 * 23))
ok "colour csv" "$GVIS" hist "$T/c.png"
check "colour header" test "$(head -1 "$T/out")" = "bin,r,g,b"
ok "rgba csv" "$GVIS" hist "$T/a.png"
check "rgba header" test "$(head -1 "$T/out")" = "bin,r,g,b,a"
ok "one channel" "$GVIS" hist --channel 1 "$T/c.png"
check "one channel header" test "$(head -1 "$T/out")" = "bin,g"
check "one channel equals the g column" test "$(tail -n +2 "$T/out" | cut -d, -f2 | md5sum)" = "$("$GVIS" hist "$T/c.png" | tail -n +2 | cut -d, -f3 | md5sum)"

ok "json flag" "$GVIS" hist --json "$T/c.png"
if [ -x /usr/bin/python3 ]; then
  check "json parses, three histograms of 256" /usr/bin/python3 -c '
import json,sys; d=json.load(open(sys.argv[1])); h=d["histograms"]
assert list(h)==["r","g","b"] and all(len(v)==256 and sum(v)==37*23 for v in h.values()), d' "$T/out"
fi
ok "-o x.json" "$GVIS" hist "$T/g.png" -o "$T/h.json"
check "-o x.json writes JSON" grep -q '"histograms"' "$T/h.json"
ok "-o x.csv" "$GVIS" hist "$T/g.png" -o "$T/h.csv"
check "-o x.csv writes CSV" test "$(head -1 "$T/h.csv")" = "bin,count"
check "-o writes nothing on stdout" test ! -s "$T/out"

ok "several inputs to stdout" "$GVIS" hist "$T/g.png" "$T/c.png"
check "several inputs: long form" test "$(head -1 "$T/out")" = "file,channel,bin,count"
check "several inputs: one header" test "$(grep -c '^file,' "$T/out")" -eq 1
check "several inputs: 256 rows of gray" test "$(grep -c "^$T/g.png,gray," "$T/out")" -eq 256
check "several inputs: 3 x 256 rows of colour" test "$(grep -c "^$T/c.png,[rgb]," "$T/out")" -eq 768
check "several inputs: same counts as one input" test "$(grep "^$T/c.png,g," "$T/out" | cut -d, -f4 | md5sum)" = "$("$GVIS" hist "$T/c.png" | tail -n +2 | cut -d, -f3 | md5sum)"
# gray, RGB and RGBA files in one CSV: every row has the header's four fields (issue 12)
ok "mixed channel counts" "$GVIS" hist "$T/g.png" "$T/c.png" "$T/a.png"
check "mixed: every row has 4 fields" test "$(awk -F, 'NF != 4' "$T/out" | wc -l)" -eq 0
check "mixed: 1 + 3 + 4 channels of 256 bins" test "$(tail -n +2 "$T/out" | wc -l)" -eq $((8 * 256))
if [ -x /usr/bin/python3 ]; then
  check "mixed: csv.DictReader reads it" /usr/bin/python3 -c '
import csv,sys,collections
rows=list(csv.DictReader(open(sys.argv[1])))
assert all(None not in r and len(r)==4 for r in rows), "ragged"
n=collections.Counter((r["file"].rsplit("/",1)[1],r["channel"]) for r in rows)
assert sorted(n)==[("a.png",c) for c in "abgr"]+[("c.png",c) for c in "bgr"]+[("g.png","gray")], n
assert all(v==256 for v in n.values()), n
tot=collections.Counter()
for r in rows: tot[(r["file"],r["channel"])]+=int(r["count"])
assert set(tot.values())=={37*23}, tot' "$T/out"
fi
ok "several inputs, --channel" "$GVIS" hist --channel 2 "$T/c.png" "$T/a.png"
check "--channel: only that channel" test "$(tail -n +2 "$T/out" | cut -d, -f2 | sort -u)" = "b"
ok "several inputs json lines" "$GVIS" hist --json "$T/g.png" "$T/c.png"
check "json lines: two lines" test "$(wc -l <"$T/out")" -eq 2
ok "several inputs -o DIR/" "$GVIS" hist "$T/g.png" "$T/c.png" -o "$T/dir/"
check "DIR/g.csv and DIR/c.csv" test -s "$T/dir/g.csv" -a -s "$T/dir/c.csv"
check "DIR/: each file the long form with its header" test "$(head -1 "$T/dir/g.csv")" = "file,channel,bin,count" -a "$(head -1 "$T/dir/c.csv")" = "file,channel,bin,count"
fails "several inputs -o FILE" 2 "2 inputs need -o DIR/" "$GVIS" hist "$T/g.png" "$T/c.png" -o "$T/one.csv"
check "no file for a usage error" test ! -e "$T/one.csv"

ok "stdin" sh -c "cat '$T/g.png' | '$GVIS' hist -"
check "stdin same as file" test "$(md5sum <"$T/out")" = "$("$GVIS" hist "$T/g.png" | md5sum)"
fails "stdin twice" 2 "standard input" "$GVIS" hist - - </dev/null

ok "16-bit default bins" "$GVIS" hist "$T/w.png"
check "16-bit 256 bins" test "$(tail -n +2 "$T/out" | wc -l)" -eq 256
ok "16-bit bins and range" "$GVIS" hist --bins 16 --range 0:65536 "$T/w.png"
check "16-bit 16 bins" test "$(tail -n +2 "$T/out" | wc -l)" -eq 16
check "16-bit counts sum to the pixels" test "$(tail -n +2 "$T/out" | awk -F, '{s+=$2} END {print s}')" -eq $((37 * 23))
# --bins and --range on 8-bit images (issue 12): the 16-bit rule over the values 0:256
"$GVIS" hist "$T/c.png" >"$T/full.csv"
ok "8-bit --bins 64" "$GVIS" hist --bins 64 "$T/c.png"
check "8-bit --bins 64: 64 rows" test "$(tail -n +2 "$T/out" | wc -l)" -eq 64
check "8-bit --bins 64: bin k holds values 4k..4k+3" test "$(tail -n +2 "$T/out" | md5sum)" = "$(tail -n +2 "$T/full.csv" | awk -F, '{k=int($1/4); for(c=2;c<=4;c++) s[k,c]+=$c} END {for(k=0;k<64;k++) print k "," s[k,2] "," s[k,3] "," s[k,4]}' | md5sum)"
ok "8-bit --bins 10 --range 100:200" "$GVIS" hist --bins 10 --range 100:200 --channel 1 "$T/c.png"
check "8-bit range: bin k holds 100+10k..109+10k" test "$(tail -n +2 "$T/out" | md5sum)" = "$(tail -n +2 "$T/full.csv" | awk -F, '$1>=100 && $1<200 {s[int(($1-100)/10)]+=$3} END {for(k=0;k<10;k++) print k "," s[k]+0}' | md5sum)"
ok "8-bit --bins 3 (uneven bins)" "$GVIS" hist --bins 3 "$T/g.png"
check "8-bit --bins 3: counts sum to the pixels" test "$(tail -n +2 "$T/out" | awk -F, '{s+=$2} END {print s}')" -eq $((37 * 23))
check "8-bit --bins 3: bin of v is v*3/256" test "$(tail -n +2 "$T/out" | md5sum)" = "$("$GVIS" hist "$T/g.png" | tail -n +2 | awk -F, '{s[int($1*3/256)]+=$2} END {for(k=0;k<3;k++) print k "," s[k]+0}' | md5sum)"
ok "8-bit --bins 64 --json" "$GVIS" hist --bins 64 --json "$T/g.png"
check "8-bit json says 64 bins over 0:256" grep -q '"bins": 64, "range": \[0, 256\]' "$T/out"
fails "8-bit range beyond 255" 2 "'$T/g.png': --range 0:1000 is beyond the values of an 8-bit image \(0:256\)" "$GVIS" hist --range 0:1000 "$T/g.png"
fails "bad range" 2 "not a range" "$GVIS" hist --range 5 "$T/w.png"
fails "empty range" 2 "LO < HI" "$GVIS" hist --range 9:9 "$T/w.png"
fails "bins zero" 2 "--bins takes 1 to 65536" "$GVIS" hist --bins 0 "$T/w.png"
fails "channel out of range" 2 "--channel takes 0 to 3" "$GVIS" hist --channel 7 "$T/g.png"
fails "channel missing in image" 2 "channel 2 does not exist" "$GVIS" hist --channel 2 "$T/g.png"
fails "float image" 1 "'$T/f.pfm': histograms need an 8- or 16-bit image" "$GVIS" hist "$T/f.pfm"

ok "plot" "$GVIS" hist "$T/c.png" --plot "$T/p.png"
check "plot alone prints no numbers" test ! -s "$T/out"
check "plot is a PNG" sh -c "head -c 8 '$T/p.png' | od -c | grep -q 'P   N   G'"
ok "plot is readable by gvis" "$GVIS" hist "$T/p.png"
ok "plot with json" "$GVIS" hist "$T/g.png" --json --plot "$T/p2.png"
check "plot with json prints numbers" grep -q histograms "$T/out"
fails "plot of several inputs needs a dir" 2 "needs a directory" "$GVIS" hist "$T/g.png" "$T/c.png" --plot "$T/p3.png"
ok "plots into a dir" "$GVIS" hist "$T/g.png" "$T/c.png" --plot "$T/plots/"
check "one plot per input" test -s "$T/plots/g.png" -a -s "$T/plots/c.png"

# equalization against OpenCV's equalizeHist (testdata/hist, scripts/gen_hist_golden.py)
for n in random_gray smooth_gray skewed_gray constant_gray; do
  ok "equalize $n" "$GVIS" hist --equalize "$H/$n.png" -o "$T/$n.pgm"
  ok "decode golden $n" "$GVIS" hist --equalize "$H/${n}_eq.png" -o "$T/${n}_gold.npy"
  "$GVIS" hist "$T/$n.pgm" >"$T/h1"; "$GVIS" hist "$H/${n}_eq.png" >"$T/h2"
  check "equalize $n histogram equals OpenCV's" cmp -s "$T/h1" "$T/h2"
done
ok "equalize luma" "$GVIS" hist --equalize "$H/smooth_rgb.png" -o "$T/eq.png"
"$GVIS" hist --json "$T/eq.png" | sed 's/"file": "[^"]*"//' >"$T/h1"
"$GVIS" hist --json "$H/smooth_rgb_eq_luma.png" | sed 's/"file": "[^"]*"//' >"$T/h2"
check "equalize luma equals OpenCV's" cmp -s "$T/h1" "$T/h2"
ok "equalize per channel" "$GVIS" hist --equalize --per-channel "$H/smooth_rgb.png" -o "$T/eqc.png"
"$GVIS" hist --json "$T/eqc.png" | sed 's/"file": "[^"]*"//' >"$T/h1"
"$GVIS" hist --json "$H/smooth_rgb_eq_channels.png" | sed 's/"file": "[^"]*"//' >"$T/h2"
check "equalize per channel equals OpenCV's" cmp -s "$T/h1" "$T/h2"
ok "equalize through a pipe" sh -c "cat '$H/smooth_gray.png' | '$GVIS' hist --equalize - -o - --format png | '$GVIS' hist - >'$T/h1'"
"$GVIS" hist "$H/smooth_gray_eq.png" >"$T/h2"
check "pipe result equals OpenCV's" cmp -s "$T/h1" "$T/h2"
fails "-o and --plot one file" 2 "-o and --plot both name '$T/same-out.png'" "$GVIS" hist --equalize "$T/g.png" -o "$T/same-out.png" --plot "$T/same-out.png"
check "no file for -o and --plot one file" test ! -e "$T/same-out.png"
fails "equalize needs -o" 2 "--equalize needs -o" "$GVIS" hist --equalize "$T/g.png"
ok "equalize to stdout writes the input's format" "$GVIS" hist --equalize "$T/g.png" -o -
check "equalize to stdout is a PNG" test "$(head -c 4 "$T/out" | tail -c 3)" = PNG
fails "per-channel alone" 2 "goes with --equalize" "$GVIS" hist --per-channel "$T/g.png"
fails "equalize 16-bit" 1 "needs an 8-bit image" "$GVIS" hist --equalize "$T/w.png" -o "$T/w2.png"
check "no output after a failure" test ! -e "$T/w2.png"
ok "equalize several to a dir" "$GVIS" hist --equalize "$T/g.png" "$T/c.png" -o "$T/eqdir/"
check "equalized files keep their extension" test -s "$T/eqdir/g.png" -a -s "$T/eqdir/c.png"
ok "equalize with --format into a dir" "$GVIS" hist --equalize "$T/g.png" -o "$T/eqdir2/" --format ppm
check "--format names the extension" test -s "$T/eqdir2/g.ppm"

# errors: the message names the file and the problem; no output, no temporary file
fails "missing file" 1 "^gvis hist: '$T/missing.png': cannot open: no such file" "$GVIS" hist "$T/missing.png"
printf 'not an image at all' >"$T/bad.png"
fails "corrupt file" 1 "'$T/bad.png': not a readable image" "$GVIS" hist "$T/bad.png"
head -c 100 "$T/c.png" >"$T/trunc.png"
fails "truncated png" 1 "'$T/trunc.png': .*truncated" "$GVIS" hist "$T/trunc.png" -o "$T/t.csv"
check "no output for a truncated input" test ! -e "$T/t.csv"
"$MKIMAGE" 37 23 1 u8 random "$T/g.pgm"
head -c 300 "$T/g.pgm" >"$T/trunc.pgm"
fails "truncated pgm" 1 "truncated PGM data" "$GVIS" hist "$T/trunc.pgm"
printf 'P5\n0 0\n255\n' >"$T/zero.pgm"
fails "zero-size image" 1 "zero size" "$GVIS" hist "$T/zero.pgm"
printf 'P5\n100000 100000\n255\n' >"$T/huge.pgm"
fails "over-limit header" 1 "larger than the limit" "$GVIS" hist "$T/huge.pgm"
fails "--max-pixels" 1 "larger than the limit of 100 pixels" "$GVIS" --max-pixels 100 hist "$T/g.png"
: >"$T/empty.png"
fails "empty file" 1 "empty file" "$GVIS" hist "$T/empty.png"
mkdir -p "$T/noimages"
fails "a folder with no images as input" 1 "'$T/noimages': is a directory with no image files" "$GVIS" hist "$T/noimages"
fails "unwritable output" 1 "cannot write '$T/nodir/x.csv'" "$GVIS" hist "$T/g.png" -o "$T/nodir/x.csv"
cp "$T/g.png" "$T/same.png"; cp "$T/same.png" "$T/same.orig"
fails "output equal to input" 1 "refusing to write over input file" "$GVIS" hist --equalize "$T/same.png" -o "$T/same.png"
check "input unchanged" cmp -s "$T/same.png" "$T/same.orig"
fails "output equal to input via another path" 1 "refusing" "$GVIS" hist --equalize "$T/same.png" -o "$T/../${T##*/}/same.png"
fails "unknown option" 2 "unknown option '--bogus'" "$GVIS" hist --bogus "$T/g.png"
fails "no input" 2 "no input given" "$GVIS" hist
fails "missing value" 2 "--channel needs a value" "$GVIS" hist "$T/g.png" --channel
fails "malformed value" 2 "--channel takes a whole number" "$GVIS" hist --channel x "$T/g.png"
check "no temporary files left" no_temp "$T"
run "$GVIS" hist "$T/g.png" "$T/missing.png" "$T/c.png" -o "$T/b2/"
check "batch: exit 1" test "$rc" -eq 1
check "batch: good files written" test -s "$T/b2/g.csv" -a -s "$T/b2/c.csv"

# timing
ok "--timing=json" "$GVIS" --timing=json --repeat 3 hist "$T/g.png"
if [ -x /usr/bin/python3 ]; then
  check "timing json has every field" /usr/bin/python3 -c '
import json,sys; d=json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
assert set(d)=={"device","repeat","load_ms","upload_ms","compute_ms","download_ms","save_ms","total_ms"} and d["repeat"]==3, d' "$T/err"
fi
ok "--timing after the subcommand" "$GVIS" hist "$T/g.png" --timing
check "--timing text" grep -q "compute" "$T/err"
finish
