# Output templates (issue 15): -o 'out/{stem}_blur.png' with {stem}, {name}, {ext},
# {index} ({index:W}) and {dir}; parent folders made; two inputs mapping to one output is a
# usage error naming both; an output over an input refused; bad templates are usage errors.
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 1
mkdir -p in a b
for i in 1 2 3 4 5; do "$MKIMAGE" $((17 + i)) $((11 + i)) 3 u8 random "in/p$i.png"; done
"$MKIMAGE" 13 9 1 u8 random in/g.pgm
"$MKIMAGE" 15 8 3 u8 random a/x.png
"$MKIMAGE" 9 14 3 u8 random b/x.png

ok "reference: -o DIR/" "$GVIS" --cpu gauss --sigma 1.5 in -o ref/ -j 1
ok "{stem}_blur.png" "$GVIS" --cpu gauss --sigma 1.5 in -o 'res/deep/{stem}_blur.png' -j 1
check "parent folders made" [ -d res/deep ]
check "{stem}: six outputs" [ "$(ls res/deep | wc -l)" -eq 6 ]
for f in p1 p2 p3 p4 p5; do
  check "{stem}: $f same bytes as -o DIR/" cmp -s "res/deep/${f}_blur.png" "ref/$f.png"
done
check "{stem}: the pgm input written as png (the template's extension)" [ "$(head -c 4 res/deep/g_blur.png | tail -c 3)" = PNG ]
ok "{stem}.{ext}" "$GVIS" --cpu gauss --sigma 1.5 in -o 'ext/{stem}.{ext}' -j 2
check "{ext}: each input keeps its format" cmp -s ext/g.pgm ref/g.pgm
check "{ext}: png" cmp -s ext/p3.png ref/p3.png
ok "{name}" "$GVIS" --cpu gauss --sigma 1.5 in/p1.png in/g.pgm -o 'name/{name}.png'
check "{name}: the whole file name" [ -f name/p1.png.png ] && [ -f name/g.pgm.png ]
ok "--jobs 2 with a template" "$GVIS" --cpu gauss --sigma 1.5 in -o 'j2/{stem}_blur.png' -j 2
check "--jobs 2 = --jobs 1" diff -r res/deep j2

# {index}: from 1 in the input order; {index:W} zero-padded; under --shard the index in the whole list
printf '%s\n' in/p3.png in/p1.png in/p2.png >list
ok "{index}" "$GVIS" --cpu gauss --sigma 1.5 --list list -o 'idx/{index}.png'
check "{index}: 1.png is the first of the list" cmp -s idx/1.png ref/p3.png
check "{index}: 3.png the third" cmp -s idx/3.png ref/p2.png
ok "{index:04}" "$GVIS" --cpu gauss --sigma 1.5 --list list -o 'idx4/f{index:04}_{stem}.png'
check "{index:04}" [ -f idx4/f0001_p3.png ] && [ -f idx4/f0003_p2.png ]
for k in 1 2 3; do ok "--shard $k/3 with {index}" "$GVIS" --cpu gauss --sigma 1.5 in -o 'sh/{index}_{stem}.png' --shard $k/3; done
check "shards: one index space" diff <(ls sh | sort) <(printf '%s\n' 1_g.png 2_p1.png 3_p2.png 4_p3.png 5_p4.png 6_p5.png)

# {dir}: the input's folder, so that inputs of one name stay apart
ok "{dir}" "$GVIS" --cpu gauss --sigma 1.5 a/x.png b/x.png -o 'byd/{dir}/{name}' -j 2
check "{dir}: a/x.png" [ -f byd/a/x.png ] && [ -f byd/b/x.png ]
"$GVIS" --cpu gauss --sigma 1.5 b/x.png -o alone.png
check "{dir}: b/x.png's own bytes" cmp -s alone.png byd/b/x.png
ok "{dir} of a file without a folder" sh -c 'cd a && "$0" --cpu gauss --sigma 1.5 x.png -o "../dot/{dir}/{stem}.png"' "$GVIS"
check "{dir} is '.'" [ -f dot/x.png ]
ok "one input, a template" "$GVIS" --cpu gauss --sigma 1.5 a/x.png -o 'one/{stem}_blur.png'
check "one input: written" [ -f one/x_blur.png ]
ok "standard input, a template" sh -c '"$0" --cpu gauss --sigma 1.5 - -o "stdin/{stem}.png" <a/x.png' "$GVIS"
check "standard input is named stdin" cmp -s stdin/stdin.png one/x_blur.png
ok "braces doubled" "$GVIS" --cpu gauss --sigma 1.5 a/x.png -o 'br/{{{stem}}}.png'
check "'{{' and '}}' are braces" [ -f 'br/{x}.png' ]

# two inputs, one output: a usage error that names both and says how to tell them apart
fails "clash: {stem}" 2 "'a/x.png' and 'b/x.png' would both be written to 'cl/x.png'.*\{index\}.*\{dir\}" \
  "$GVIS" --cpu gauss --sigma 1.5 a/x.png b/x.png -o 'cl/{stem}.png'
check "clash: nothing written, no folder made" [ ! -e cl ]
fails "clash: no placeholder that varies" 2 "would both be written to 'cl/in/same.png'" \
  "$GVIS" --cpu gauss --sigma 1.5 in -o 'cl/{dir}/same.png'
fails "clash: -o DIR/ suggests a template" 2 "would both be written to 'cl/x.png'.*\{dir\}" \
  "$GVIS" --cpu gauss --sigma 1.5 a/x.png b/x.png -o cl/
fails "clash: hist" 2 "would both be written to 'cl/x.csv'" "$GVIS" --cpu hist a/x.png b/x.png -o 'cl/{stem}.csv'
# the same file twice (a list with duplicates) is processed twice, into one output
printf '%s\n' a/x.png b/x.png a/x.png >dups
ok "duplicates in a --list: {dir} keeps them apart" "$GVIS" --cpu gauss --sigma 1.5 --list dups -o 'dup/{dir}/{name}' -j 2
check "duplicates: two outputs" [ "$(find dup -type f | wc -l)" -eq 2 ]
ok "duplicates with {index}: one output each" "$GVIS" --cpu gauss --sigma 1.5 --list dups -o 'dupi/{index}.png' -j 2
check "duplicates with {index}: three outputs, 1 and 3 alike" cmp -s dupi/1.png dupi/3.png

printf '%s\n' a/x.png a/x.png >dupd
ok "duplicates in a --list, -o DIR/: processed twice" "$GVIS" --cpu -v gauss --sigma 1.5 --list dupd -o dupdir/ -j 2
check "duplicates, -o DIR/: the summary counts both" grep -q "2 of 2 files done, 0 failed" err
check "duplicates, -o DIR/: one output, the file's bytes" cmp -s dupdir/x.png byd/a/x.png
# GNU parallel over shards into one template: {index} is the index in the whole list
if command -v parallel >/dev/null 2>&1; then
  ok "GNU parallel, 3 shards, one template" parallel --will-cite -j 2 "$GVIS" --cpu gauss --sigma 1.5 in \
    -o "'par/{index:02}_{stem}.png'" --shard {}/3 ::: 1 2 3
  check "parallel shards: all six, indexed as one run" diff <(ls par) <(printf '%s\n' 01_g.png 02_p1.png 03_p2.png 04_p3.png 05_p4.png 06_p5.png)
  check "parallel shards: same bytes" cmp -s par/04_p3.png ref/p3.png
fi

# an output over its input is refused, no matter how it was named
cp a/x.png a/y.png
fails "template naming the input" 1 "refusing to write over input file 'a/y.png'" \
  "$GVIS" --cpu gauss --sigma 1.5 a/y.png -o '{dir}/{name}'
check "the input is untouched" cmp -s a/y.png a/x.png
fails "template naming the inputs, two jobs" 1 "refusing to write over input file" \
  "$GVIS" --cpu gauss --sigma 1.5 a/x.png a/y.png -o '{dir}/{stem}.png' -j 2
check "the inputs are untouched" cmp -s a/y.png a/x.png

# bad templates: usage errors before any work
fails "unknown placeholder" 2 "unknown placeholder '\{base\}'.*\{stem\}" "$GVIS" gauss --sigma 1 a/x.png -o 'o/{base}.png'
fails "unclosed placeholder" 2 "unknown placeholder '\{stem.png'" "$GVIS" gauss --sigma 1 a/x.png -o 'o/{stem.png'
fails "stray }" 2 "'\}' without its '\{'" "$GVIS" gauss --sigma 1 a/x.png -o 'o/}{stem}.png'
fails "bad width" 2 "unknown placeholder '\{index:x\}'" "$GVIS" gauss --sigma 1 a/x.png -o 'o/{index:x}.png'
fails "template ending in /" 2 "ends in '/'" "$GVIS" gauss --sigma 1 a/x.png b/x.png -o 'o/{dir}/'
check "bad templates made nothing" [ ! -e o ]
fails "a template's folder that cannot be made" 1 "" "$GVIS" --cpu gauss --sigma 1 a/x.png -o 'a/x.png/{stem}.png'
finish
