# disparity --left-dir L --right-dir R (issue 15): pairs by file name; a file without its
# partner is named (exit 1, the other pairs done); no pair at all is a usage error; the
# outputs equal those of --pairs FILE and of each pair alone; templates name the maps.
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 1
mkdir -p L R
for i in 1 2 3; do
  "$MKIMAGE" $((40 + 8 * i)) $((24 + i)) 1 u8 random "L/s$i.png"
  "$MKIMAGE" $((40 + 8 * i)) $((24 + i)) 1 u8 random "R/s$i.png"
  printf '%s %s\n' "L/s$i.png" "R/s$i.png" >>pairs.txt
done
D="--cpu --max-disp 16"
ok "--pairs FILE" "$GVIS" disparity $D --pairs pairs.txt -o byfile/
ok "--left-dir, --right-dir" "$GVIS" disparity $D --left-dir L --right-dir R -o bydir/ -j 1
check "three maps" [ "$(ls bydir | wc -l)" -eq 3 ]
check "same maps as --pairs FILE" diff -r byfile bydir
"$GVIS" disparity $D L/s2.png R/s2.png -o alone.png
check "a pair alone gives the same bytes" cmp -s alone.png bydir/s2.png
ok "a trailing slash" "$GVIS" disparity $D --left-dir L/ --right-dir R/ -o slash/
check "a trailing slash: same maps" diff -r bydir slash
ok "a template" "$GVIS" disparity $D --left-dir L --right-dir R -o 'tpl/{stem}_disp.pfm' --preview pv/
check "template: s1_disp.pfm" [ -s tpl/s1_disp.pfm ] && [ -s pv/s1.png ]

# a partner missing on either side: named, the other pairs still done, exit 1
cp -r L L2; cp -r R R2
"$MKIMAGE" 48 25 1 u8 random L2/only_left.png
"$MKIMAGE" 48 25 1 u8 random R2/only_right.png
fails "a left without its right" 1 "'L2/only_left.png': no file of that name in 'R2'" \
  "$GVIS" disparity $D --left-dir L2 --right-dir R2 -o miss/
grep -q "'R2/only_right.png': no file of that name in 'L2'" err || say_fail "a right without its left is named too"
check "the paired ones are done" diff -r bydir miss

# --jobs: maps, scores and their mean give the same bytes at -j 3 as at -j 1, in input order
S=$TESTDATA/stereo
for k in 1 2 3; do
  mkdir -p "ts$k"
  cp "$S/tsukuba_left.png" "ts$k/left.png"; cp "$S/tsukuba_right.png" "ts$k/right.png"
  printf '%s %s %s\n' "ts$k/left.png" "ts$k/right.png" "$S/tsukuba_gt.pgm" >>tp.txt
  printf '%s %s\n' "L/s$k.png" "R/s$k.png" >>tp.txt
done
for j in 1 3; do
  ok "scores, -j $j" "$GVIS" disparity --cpu --max-disp 32 --pairs tp.txt -o "tj$j/{dir}/{stem}.png" --json -j $j
  cp out "scores$j"
done
check "maps: -j 3 = -j 1" diff -r tj1 tj3
check "scores and mean: -j 3 = -j 1" cmp -s scores1 scores3
check "three scores and their mean" [ "$(wc -l <scores1)" -eq 4 ] && grep -q '"mean": {"pairs": 3' scores1
check "scores in input order" diff <(grep -o '"left": "[^"]*"' scores1) <(printf '"left": "ts%d/left.png"\n' 1 2 3)
ok "--left-dir, -j 3" "$GVIS" disparity $D --left-dir L --right-dir R -o bydir3/ -j 3
check "--left-dir: -j 3 = -j 1" diff -r bydir bydir3

# the staged pipeline (read / match / write threads): a failure in each stage among good
# pairs, a pair named twice, every output kind; maps, scores, messages (in input order)
# and the exit status the same at -j 1, 3 and 7
mkdir -p F
printf 'not a png' >F/corrupt.png
"$MKIMAGE" 50 30 1 u8 random F/wide.png            # the right view of another size
"$MKIMAGE" 20 10 1 u8 random F/gt_small.png        # a ground truth of another size
"$MKIMAGE" 56 26 1 u8 random F/gt.png
{
  printf '%s %s\n' L/s1.png R/s1.png
  printf '%s %s\n' F/corrupt.png R/s2.png          # fails when read
  printf '%s %s %s\n' L/s2.png R/s2.png F/gt_small.png  # fails its check after the read
  printf '%s %s\n' L/s3.png F/wide.png             # fails when matched
  printf '%s %s %s\n' L/s2.png R/s2.png F/gt.png   # written and scored (a 2nd time: the same file)
  printf '%s %s\n' L/s1.png R/s1.png               # the first pair again
} >mixed.txt
for j in 1 3 7; do
  run "$GVIS" disparity $D --pairs mixed.txt -o "mx$j/{index}.pfm" --right "mr$j/" --preview "mp$j/" \
    --ply "ml$j/" --focal 100 --baseline 0.1 --gt-scale 1 -j $j
  check "mixed pairs -j $j: exit 1" test "$rc" -eq 1
  # the summary line last (its time differs from run to run), the messages before it
  check "mixed pairs -j $j: the summary counts 3 done, 3 failed" \
    bash -c "tail -n 1 '$T/err' | grep -Eq '^gvis disparity: 3 of 6 pairs done, 3 failed, .* $((j < 6 ? j : 6)) jobs on cpu\$'"
  cp out "mxout$j"; sed '$d' err >"mxerr$j"
done
check "mixed pairs: the corrupt left named" grep -q "'F/corrupt.png'" mxerr1
check "mixed pairs: the small ground truth named" grep -q "'F/gt_small.png': ground truth is 20x10" mxerr1
check "mixed pairs: three failures said" [ "$(wc -l <mxerr1)" -eq 3 ]
check "mixed pairs: three pairs written" [ "$(ls mx1 | wc -l)" -eq 3 ] && [ "$(ls ml1 | wc -l)" -eq 2 ]
for j in 3 7; do
  check "mixed pairs: maps -j $j = -j 1" diff -r mx1 "mx$j"
  check "mixed pairs: right maps, previews, clouds -j $j = -j 1" \
    bash -c "diff -r mr1 mr$j && diff -r mp1 mp$j && diff -r ml1 ml$j"
  check "mixed pairs: scores -j $j = -j 1" cmp -s mxout1 "mxout$j"
  check "mixed pairs: messages in input order, -j $j = -j 1" cmp -s mxerr1 "mxerr$j"
done

# usage errors
mkdir -p E
"$MKIMAGE" 48 25 1 u8 random E/other.png
fails "no name in common" 2 "no image file name in common" "$GVIS" disparity $D --left-dir L --right-dir E -o none/
check "no name in common: nothing made" [ ! -e none ]
fails "--left-dir alone" 2 "go together" "$GVIS" disparity $D --left-dir L -o x/
fails "with --pairs too" 2 "one way" "$GVIS" disparity $D --left-dir L --right-dir R --pairs pairs.txt -o x/
fails "with LEFT RIGHT too" 2 "one way" "$GVIS" disparity $D --left-dir L --right-dir R L/s1.png R/s1.png -o x/
fails "with --gt" 2 "--gt scores one pair" "$GVIS" disparity $D --left-dir L --right-dir R --gt L/s1.png -o x/
fails "-o FILE" 2 "needs a directory" "$GVIS" disparity $D --left-dir L --right-dir R -o one.png
fails "a left folder that is not there" 1 "'nope': No such file" "$GVIS" disparity $D --left-dir nope --right-dir R -o x/
# two left images of one name in different folders (issue 12 item 7): every output kind,
# not only the map, is refused before any folder is made, and each takes a template
mkdir -p X/a X/b
for d in a b; do cp L/s1.png X/$d/l.png; cp R/s1.png X/$d/r.png; printf 'X/%s/l.png X/%s/r.png\n' $d $d >>dup.txt; done
fails "same-name lefts, -o DIR/" 2 "'X/a/l.png' and 'X/b/l.png' would both be written to 'dup1/l.png'.*\{index\}" \
  "$GVIS" disparity $D --pairs dup.txt -o dup1/
check "same-name lefts, -o DIR/: no folder made" [ ! -e dup1 ]
for opt in --preview --right --ply; do
  fails "same-name lefts, $opt DIR/" 2 "would both be written to 'dup2$opt/l\.(png|ply)'" \
    "$GVIS" disparity $D --pairs dup.txt -o 'dm/{dir}/{name}' $opt "dup2$opt/" --focal 100 --baseline 1
  check "same-name lefts, $opt DIR/: nothing made" [ ! -e dm ] && [ ! -e "dup2$opt" ]
done
ok "same-name lefts: a template for every output" "$GVIS" disparity $D --pairs dup.txt -o 'tm/{dir}/{name}' \
  --preview 'tp/{index}.png' --right 'tr/{stem}_{index}.png' --ply 'tc/{dir}/{stem}.ply' --focal 100 --baseline 1
check "templates: two of each" [ -s tm/X/a/l.png ] && [ -s tm/X/b/l.png ] && [ -s tp/1.png ] && [ -s tp/2.png ] && \
  [ -s tr/l_1.png ] && [ -s tr/l_2.png ] && [ -s tc/X/a/l.ply ] && [ -s tc/X/b/l.ply ]
"$GVIS" disparity $D X/b/l.png X/b/r.png -o b.png --preview bp.png --right br.png
check "templates: the second pair's outputs are its own" cmp -s tm/X/b/l.png b.png && cmp -s tp/2.png bp.png && cmp -s tr/l_2.png br.png
fails "--preview FILE with several pairs" 2 "needs a directory or a template" "$GVIS" disparity $D --pairs dup.txt -o 'tm/{index}.png' --preview one.png
finish
