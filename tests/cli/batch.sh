# Batch inputs and the pipeline (issue 15): folders (sorted), --list FILE|-, --jobs N
# gives the same bytes as one file after another, a corrupt file in the middle is
# reported and the rest go on (exit 1), --fail-fast stops, bad --jobs is a usage error.
. "$(dirname "$0")/lib.sh"
mkdir -p "$T/in"
for i in 1 2 3 4 5 6 7 8 9 10 11; do "$MKIMAGE" $((20 + i)) $((9 + i)) 3 u8 random "$T/in/p$i.png"; done
"$MKIMAGE" 13 7 1 u8 random "$T/in/g.pgm"
echo "not an image" >"$T/in/notes.txt"   # not an image extension: left out of the folder

ok "folder, one job" "$GVIS" --cpu gauss --sigma 2 "$T/in" -o "$T/j1/" --jobs 1
check "folder gives its 12 images" [ "$(ls "$T/j1" | wc -l)" -eq 12 ]
for j in 2 3 8; do
  ok "folder, $j jobs" "$GVIS" --cpu gauss --sigma 2 "$T/in" -o "$T/j$j/" -j $j
  check "--jobs $j: same bytes as --jobs 1" diff -r "$T/j1" "$T/j$j"
done
# each file alone gives the same bytes
"$GVIS" --cpu gauss --sigma 2 "$T/in/p7.png" -o "$T/alone.png"
check "batch output = the file alone" cmp -s "$T/alone.png" "$T/j3/p7.png"

ls "$T"/in/*.png | sort -r >"$T/list"
ok "--list FILE" "$GVIS" --cpu gauss --sigma 2 --list "$T/list" -o "$T/l/" -j 2
check "--list: same outputs" diff -r <(ls "$T/l") <(ls "$T"/in/*.png | xargs -n1 basename)
ok "--list -" sh -c "\"$GVIS\" --cpu gauss --sigma 2 --list - -o \"$T/ls/\" -j 2 <\"$T/list\""
check "--list -: 11 outputs" [ "$(ls "$T/ls" | wc -l)" -eq 11 ]
fails "--list missing" 1 "nope.txt" "$GVIS" --cpu gauss --sigma 2 --list "$T/nope.txt" -o "$T/x/"

# a corrupt file in the middle: reported, the rest written, exit 1
cp -r "$T/in" "$T/bad"
echo garbage >"$T/bad/p5.png"
fails "corrupt in the middle" 1 "p5.png': not a readable image" "$GVIS" --cpu gauss --sigma 2 "$T/bad" -o "$T/b/" -j 3
check "the other 11 written" [ "$(ls "$T/b" | wc -l)" -eq 11 ]
check "no partial output of the bad file" [ ! -e "$T/b/p5.png" ]
check "no temp left" no_temp "$T/b"
fails "summary names the failure" 1 "of 12 files done, 1 failed" "$GVIS" --cpu gauss --sigma 2 "$T/bad" -o "$T/b2/" -j 2
fails "--fail-fast, one job" 1 "p5.png'" "$GVIS" --cpu gauss --sigma 2 "$T/bad" -o "$T/f1/" -j 1 --fail-fast
# sorted: g.pgm p1 p10 p11 p2 p3 p4, then p5: seven written with one job
check "--fail-fast stops at the bad file" [ "$(ls "$T/f1" | wc -l)" -eq 7 ]
# with jobs, at most 2 x jobs files are in flight when the bad one is reported: a bad
# second file among 40 leaves at most 1 + 6 written with three jobs, whatever the timing
mkdir -p "$T/many"
for i in $(seq 10 49); do cp "$T/in/p1.png" "$T/many/m$i.png"; done
echo garbage >"$T/many/m11.png"
fails "--fail-fast, three jobs" 1 "m11.png'" "$GVIS" --cpu gauss --sigma 2 "$T/many" -o "$T/f3/" -j 3 --fail-fast
check "--fail-fast with jobs stops within the files in flight" [ "$(ls "$T/f3" | wc -l)" -le 7 ]

fails "--jobs 0" 2 "--jobs" "$GVIS" gauss --sigma 2 "$T/in" -o "$T/z/" --jobs 0
fails "--jobs word" 2 "--jobs" "$GVIS" gauss --sigma 2 "$T/in" -o "$T/z/" --jobs many
fails "folder without -o DIR/" 2 "need -o DIR/" "$GVIS" --cpu gauss --sigma 2 "$T/in" -o "$T/one.png"
# --shard K/N: the union of the shards is the whole, and they are disjoint
for k in 1 2 3; do
  ok "--shard $k/3" "$GVIS" --cpu gauss --sigma 2 "$T/in" -o "$T/sh/" --shard $k/3 -j 2
  ls "$T/sh" >"$T/shard$k"; rm -rf "$T/sh"
done
check "shards together are all" diff <(cat "$T"/shard1 "$T"/shard2 "$T"/shard3 | sort) <(ls "$T/j1" | sort)
check "shards are disjoint" [ "$(cat "$T"/shard? | sort | uniq -d | wc -l)" -eq 0 ]
check "shard 1/3 takes items 1, 4, 7, 10" [ "$(wc -l <"$T/shard1")" -eq 4 ]
# a Slurm array task: SLURM_ARRAY_TASK_ID names the shard
for id in 1 2; do
  ok "Slurm-style task $id" env SLURM_ARRAY_TASK_ID=$id sh -c '"$0" --cpu gauss --sigma 2 "$1" -o "$2/" --shard "$SLURM_ARRAY_TASK_ID/2"' "$GVIS" "$T/in" "$T/slurm"
done
check "Slurm-style tasks cover all" diff <(ls "$T/slurm") <(ls "$T/j1")
if command -v parallel >/dev/null 2>&1; then
  ok "GNU parallel over 4 shards" parallel --will-cite -j 2 "$GVIS" --cpu gauss --sigma 2 "$T/in" -o "$T/par/" --shard {}/4 ::: 1 2 3 4
  check "parallel shards: same bytes as one run" diff -r "$T/par" "$T/j1"
fi
for bad in 0/3 4/3 1/0 x 1/ 2/3/4; do
  fails "--shard $bad" 2 "--shard" "$GVIS" gauss --sigma 2 "$T/in" -o "$T/z/" --shard $bad
done
finish
