# Stream inputs (issue 13 item 2, issue 12 item 2): a pipe, a FIFO or a device is told from
# its first bytes and refused at once when it is no format that argument reads; a stream
# of a known format is read no further than its header says.  Every file argument that
# takes a stream is fed /dev/zero and /dev/urandom and must exit 1 within a second and a
# few MB (tests/peakrss measures both).  Pipes need no --format: the input's format.
. "$(dirname "$0")/lib.sh"
: "${PEAKRSS:?PEAKRSS is not set}"
"$MKIMAGE" 37 23 3 u8 smooth "$T/c.png"
"$MKIMAGE" 37 23 1 u8 random "$T/g.pgm"
"$MKIMAGE" 16 16 1 u8 random "$T/l.png"
"$MKIMAGE" 16 16 1 u8 random "$T/r.png"
"$MKIMAGE" 8 6 1 f32 smooth "$T/f.pfm"
head -c 48 /dev/zero >"$T/t.raw"

# the limits: a second and 48 MiB (the sanitizer builds: their shadow memory and slower code)
MS=1000 KB=49152
if [ -n "${ASAN_OPTIONS:-}${UBSAN_OPTIONS:-}" ] || "$GVIS" info 2>/dev/null | grep -q sanitize; then MS=5000 KB=1048576; fi
# on top of what a valid tiny input costs with the default device: where a GPU is usable,
# its context alone is ~110 MB and ~300 ms before any input is read
"$PEAKRSS" 60000 100000000 "$GVIS" hist "$T/g.pgm" >/dev/null 2>"$T/base"
base_ms=$(sed -n 's/^peakrss: \([0-9]*\) ms, \([0-9]*\) KiB.*/\1/p' "$T/base")
base_kb=$(sed -n 's/^peakrss: \([0-9]*\) ms, \([0-9]*\) KiB.*/\2/p' "$T/base")
# (time: twice the base, as a loaded GPU machine's start-up varies by a second)
MS=$((MS + 2 * ${base_ms:-0})) KB=$((KB + ${base_kb:-0}))

# quick DESC REGEX CMD...: exit 1, stderr matching REGEX, within the time and memory limits
quick() {
  local desc=$1 re=$2; shift 2
  "$PEAKRSS" "$MS" "$KB" "$@" >"$T/out" 2>"$T/err"
  local prc=$?
  local rc_line; rc_line=$(grep -c '^peakrss:' "$T/err")
  if [ "$prc" -ne 0 ]; then
    say_fail "$desc: over the limits ($MS ms, $KB KiB): $(grep '^peakrss:' "$T/err")"
  elif ! grep -v '^peakrss:' "$T/err" | grep -Eq -- "$re"; then
    say_fail "$desc: stderr does not match /$re/: $(head -c 300 "$T/err")"
  elif ! "$@" </dev/null >/dev/null 2>&1 && [ "$rc_line" -eq 1 ]; then
    pass=$((pass + 1))
  else
    say_fail "$desc: exit 0"
  fi
}

for dev in /dev/zero /dev/urandom; do
  quick "hist $dev" "'$dev': not a readable image" "$GVIS" hist "$dev"
  quick "gauss $dev" "'$dev': not a readable image" "$GVIS" gauss --sigma 1 "$dev" -o "$T/x.png"
  quick "warpaffine $dev" "'$dev': not a readable image" "$GVIS" warpaffine --letterbox 8x8 "$dev" -o "$T/x.png"
  quick "disparity right $dev" "'$dev': not a readable image" "$GVIS" disparity --cpu --max-disp 16 "$T/l.png" "$dev" -o "$T/d.png"
  quick "disparity --gt $dev" "'$dev': not a readable image" "$GVIS" disparity --cpu --max-disp 16 "$T/l.png" "$T/r.png" --gt "$dev"
  quick "yolo-decode $dev" "'$dev': not an NPY file" "$GVIS" yolo-decode "$dev"
  quick "yolo-decode --shape $dev" "'$dev': raw tensor is longer than the 48 bytes" "$GVIS" yolo-decode --shape 2x6 "$dev"
  quick "warpaffine --matrix-file $dev" "'$dev': not a text file" "$GVIS" warpaffine --matrix-file "$dev" "$T/c.png" -o "$T/x.png"
  quick "disparity --pairs $dev" "'$dev': not a text file" "$GVIS" disparity --cpu --max-disp 16 --pairs "$dev" -o "$T/pd/"
  quick "disparity --q $dev" "'$dev': not a text file" "$GVIS" disparity --cpu --max-disp 16 "$T/l.png" "$T/r.png" --ply "$T/x.ply" --q "$dev"
  quick "yolo-decode --names $dev" "'$dev': not a text file" "$GVIS" yolo-decode --shape 2x6 --names "$dev" /dev/null
  # the audit of issue 13: the file arguments the rows above left out (--list read 4 GB)
  quick "hist --list $dev" "'$dev': not a text file" "$GVIS" hist --list "$dev"
  quick "gauss --list $dev" "'$dev': not a text file" "$GVIS" gauss --sigma 1 --list "$dev" -o "$T/ld/"
  quick "yolo-decode --matrix $dev" "'$dev': not a text file" "$GVIS" yolo-decode --shape 2x6 --matrix "$dev" /dev/null
  quick "yolo-decode --draw $dev" "--draw image '$dev': not a readable image" "$GVIS" yolo-decode --shape 2x6 --draw "$dev" "$T/t.raw" -o "$T/dr.png"
  quick "disparity left $dev" "'$dev': not a readable image" "$GVIS" disparity --cpu --max-disp 16 "$dev" "$T/r.png" -o "$T/d.png"
  quick "disparity --method phase $dev" "'$dev': not a readable image" "$GVIS" disparity --cpu --method phase --max-disp 16 "$T/f.pfm" "$dev" -o "$T/d.pfm"
done
check "--list from a device: no output folder" test ! -e "$T/ld"
# a list through a pipe is still read, CR LF and empty lines too
ok "--list - through a pipe" sh -c 'printf "%s\r\n\n%s" "$1" "$2" | "$0" hist --list -' "$GVIS" "$T/g.pgm" "$T/c.png"
check "--list -: both files" test "$(grep -c "^$T/g.pgm,gray,\|^$T/c.png,r," "$T/out")" -eq 512
quick "hist - from /dev/zero through a pipe" "'-': not a readable image" sh -c 'cat /dev/zero | "$0" hist -' "$GVIS"
# a header gvis reads, then no end: stopped where the header says the image ends
quick "PGM header then /dev/zero" "'-': stream goes on past the 27 bytes its header allows" sh -c '{ printf "P5 4 4 255\n"; cat /dev/zero; } | "$0" hist -' "$GVIS"
quick "PNG header then /dev/urandom" "'-': stream goes on past" sh -c '{ head -c 33 "$1"; cat /dev/urandom; } | "$0" hist -' "$GVIS" "$T/c.png"
quick "JPEG start then /dev/zero" "'-': not a readable JPEG" sh -c '{ printf "\377\330"; cat /dev/zero; } | "$0" hist -' "$GVIS"
check "no temporaries left" no_temp "$T"

# streams of every kind still read: pipes, FIFOs, standard input from a file
ok "PNG through a pipe" sh -c 'cat "$1" | "$0" hist -' "$GVIS" "$T/c.png"
check "same histogram as the file" test "$(md5sum <"$T/out")" = "$("$GVIS" hist "$T/c.png" | md5sum)"
ok "PGM through a pipe" sh -c 'cat "$1" | "$0" hist -' "$GVIS" "$T/g.pgm"
ok "PFM through a pipe" sh -c 'cat "$1" | "$0" gauss --sigma 1 - -o "$2"' "$GVIS" "$T/f.pfm" "$T/f2.pfm"
mkfifo "$T/fifo"
( cat "$T/c.png" >"$T/fifo" ) &
ok "PNG through a FIFO" "$GVIS" hist "$T/fifo"
wait
printf '1 0 0\n0 1 0\n' >"$T/m.txt"
ok "matrix through a pipe" sh -c 'cat "$1" | "$0" warpaffine --matrix-file - "$2" -o "$3"' "$GVIS" "$T/m.txt" "$T/c.png" "$T/m.png"
"$MKIMAGE" 8 8 1 u8 random "$T/n.npy"
ok "NPY image through a pipe" sh -c 'cat "$1" | "$0" hist -' "$GVIS" "$T/n.npy"

# issue 12 item 2: -o - with no --format writes the input's format
ok "gauss | hist pipeline, no --format" sh -c 'cat "$1" | "$0" gauss --sigma 2 - -o - | "$0" hist -' "$GVIS" "$T/c.png"
check "the pipeline counts every pixel" test "$(tail -n +2 "$T/out" | awk -F, '{s+=$2} END {print s}')" -eq $((37 * 23))
run sh -c 'cat "$1" | "$0" gauss --sigma 2 - -o -' "$GVIS" "$T/c.png"
check "-o - from a PNG writes PNG" test "$(head -c 4 "$T/out" | tail -c 3)" = PNG
run "$GVIS" gauss --sigma 2 "$T/g.pgm" -o -
check "-o - from a PGM writes PGM" test "$(head -c 2 "$T/out")" = P5
ok "-o /dev/stdout" "$GVIS" -v gauss --sigma 2 "$T/c.png" -o /dev/stdout
check "-o /dev/stdout writes PNG" test "$(head -c 4 "$T/out" | tail -c 3)" = PNG
check "/dev/stdout is still the system's symlink" test -L /dev/stdout
check "with -v, a note of the format" grep -q "no format from the name; writing png (the input's format)" "$T/err"
ok "disparity -o -: KITTI PNG" "$GVIS" disparity --cpu --max-disp 16 "$T/l.png" "$T/r.png" -o -
check "disparity -o - writes PNG" test "$(head -c 4 "$T/out" | tail -c 3)" = PNG
ok "hist --equalize -o -" "$GVIS" hist --equalize "$T/g.pgm" -o -
check "hist --equalize -o - writes PGM" test "$(head -c 2 "$T/out")" = P5
ok "an output name of no extension" "$GVIS" gauss --sigma 1 "$T/c.png" -o "$T/noext"
check "written as the input's PNG" test "$(head -c 4 "$T/noext" | tail -c 3)" = PNG
# the downstream message says the pipe was empty
fails "an empty pipe says so" 1 "'-': empty input: the pipe gave no bytes \(did the command before it fail\?\)" \
  sh -c '"$0" gauss --sigma 2 /nonexistent.png -o - | "$0" hist -' "$GVIS"
finish
