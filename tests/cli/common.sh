# The command line every subcommand shares: dispatch, global options, exit statuses,
# messages, help, version.
. "$(dirname "$0")/lib.sh"

ok "--help" "$GVIS" --help
check "--help lists hist" grep -q '^  hist ' "$T/out"
check "--help lists info" grep -q '^  info ' "$T/out"
ok "--version" "$GVIS" --version
check "--version names gvis" grep -Eq '^gvis [0-9]+\.[0-9]+\.[0-9]+' "$T/out"
fails "no subcommand" 2 'usage: gvis' "$GVIS"
fails "unknown subcommand" 2 "^gvis: unknown subcommand 'frobnicate'" "$GVIS" frobnicate
fails "unknown global option" 2 "unknown option '--frob'" "$GVIS" --frob hist x
# did you mean (issue 12): a near miss is named, a word far from every name is not
fails "misspelt subcommand" 2 "^gvis: unknown subcommand 'gaus'; did you mean 'gauss'\?" "$GVIS" gaus --sigma 2 x.png -o y.png
fails "transposed subcommand" 2 "did you mean 'disparity'\?" "$GVIS" dispairty l.png r.png
fails "subcommand prefix" 2 "did you mean 'warpaffine'\?" "$GVIS" warp x.png
fails "help misspelt" 2 "unknown subcommand 'hsit'; did you mean 'hist'\?" "$GVIS" help hsit
fails "misspelt option" 2 "^gvis gauss: unknown option '--sigm'; did you mean '--sigma'\?" "$GVIS" gauss --sigm 2 x.png -o y.png
fails "misspelt global option" 2 "unknown option '--devise'; did you mean '--device'\?" "$GVIS" --devise cpu hist x.png
fails "misspelt io option" 2 "did you mean '--format'\?" "$GVIS" hist --fromat json x.png
run "$GVIS" frobnicate
check "no suggestion far from every name" test "$rc" -eq 2 -a "$(grep -c 'did you mean' "$T/err")" -eq 0
run "$GVIS" gauss --zzzzzz 1 x.png
check "no option suggestion far from every name" test "$rc" -eq 2 -a "$(grep -c 'did you mean' "$T/err")" -eq 0
# a value's message that names its option is not prefixed with it again
fails "--quality 101 said once" 2 "^gvis gauss: --quality takes a whole number from 1 to 100, not '101'$" "$GVIS" gauss --sigma 1 --quality 101 x.png -o y.jpg
fails "--repeat 0 said once" 2 "^gvis hist: --repeat takes a whole number" "$GVIS" hist --repeat 0 x.png
# GVIS_THREADS that is not a number: warned, and the CPUs used (not 1 thread in silence)
"$MKIMAGE" 9 7 1 u8 random "$T/t.png"
GVIS_THREADS=abc "$GVIS" hist "$T/t.png" >"$T/out" 2>"$T/err"; rc=$?
check "GVIS_THREADS=abc still runs" test "$rc" -eq 0 -a -s "$T/out"
check "GVIS_THREADS=abc is warned" grep -q "warning: GVIS_THREADS='abc' is not a whole number from 1 up; using the [0-9]* online CPUs" "$T/err"
GVIS_THREADS=abc "$GVIS" info >"$T/out" 2>"$T/err"
check "GVIS_THREADS=abc: the online CPUs" test "$(sed -n 's/^cpu threads: //p' "$T/out")" -eq "$(GVIS_THREADS= "$GVIS" info | sed -n 's/^cpu threads: //p')"
for v in 0 -3 4x ""; do
  GVIS_THREADS=$v "$GVIS" hist "$T/t.png" >/dev/null 2>"$T/err"
  if [ -n "$v" ]; then check "GVIS_THREADS='$v' is warned" grep -q "GVIS_THREADS='$v'" "$T/err"
  else check "GVIS_THREADS empty: no warning" test ! -s "$T/err"; fi
done
GVIS_THREADS=3 "$GVIS" info >"$T/out" 2>"$T/err"
check "GVIS_THREADS=3 is taken" test "$(sed -n 's/^cpu threads: //p' "$T/out")" -eq 3 -a ! -s "$T/err"
GVIS_THREADS=abc "$GVIS" -q hist "$T/t.png" >/dev/null 2>"$T/err"
check "-q silences the GVIS_THREADS warning" test ! -s "$T/err"
fails "bad device" 2 "bad device 'gpu'" "$GVIS" --device gpu info
fails "bad device index" 2 "bad device 'cuda:x'" "$GVIS" hist --device cuda:x x.png
fails "repeat zero" 2 "repeat takes a whole number" "$GVIS" --repeat 0 info
fails "repeat missing value" 2 "needs a value" "$GVIS" info --repeat
fails "timing bad value" 2 "timing takes no value" "$GVIS" --timing=xml info
fails "max-pixels bad" 2 "max-pixels takes a whole number" "$GVIS" --max-pixels -5 info
fails "flag with value" 2 "takes no value" "$GVIS" info --cpu=1
fails "help unknown" 2 "unknown subcommand 'nope'" "$GVIS" help nope

# a man that renders pages (a minimized system's man is a stub that says so and exits 0)
printf '.TH PROBE 1\n.SH NAME\nmanprobe\n' >"$T/probe.1"
man_works=0
{ MANPAGER=cat PAGER=cat man -l "$T/probe.1" 2>/dev/null || mandoc "$T/probe.1" 2>/dev/null; } | grep -q manprobe && man_works=1
[ "$man_works" = 1 ] || echo "note: no working man or mandoc here: the help page rows are left out"
for sub in $("$GVIS" --help | awk '/^Subcommands:/{s=1; next} /^$/{s=0} s && $1 != "help" {print $1}'); do
  ok "$sub --help" "$GVIS" "$sub" --help
  check "$sub --help prints usage to stdout" grep -q "^usage: gvis $sub" "$T/out"
  check "$sub --help prints nothing on stderr" test ! -s "$T/err"
  fails "$sub unknown option" 2 "^gvis $sub: unknown option '--no-such-option'" "$GVIS" "$sub" --no-such-option
  if [ "$man_works" = 1 ]; then
    MANPAGER=cat PAGER=cat ok "help $sub" "$GVIS" help "$sub"
    check "help $sub shows the page" grep -qi "gvis-$sub" "$T/out"
  fi
done

# A copied binary (a release folder, the GPU machine's carried build) finds the pages
# beside it: PREFIX/bin -> PREFIX/share/man/man1, or two levels under a tree with man/.
if [ "$man_works" = 1 ] && [ ! -e /usr/local/share/man/man1/gvis-hist.1 ]; then
  mkdir -p "$T/rel/man" "$T/rel/x/y" "$T/pfx/bin" "$T/pfx/share/man/man1"
  cp "$GVIS" "$T/rel/x/y/gvis" && cp "$GVIS" "$T/pfx/bin/gvis"
  printf '.TH GVIS-HIST 1\n.SH NAME\nrelmarker\n' >"$T/rel/man/gvis-hist.1"
  printf '.TH GVIS-HIST 1\n.SH NAME\npfxmarker\n' >"$T/pfx/share/man/man1/gvis-hist.1"
  MANPAGER=cat PAGER=cat ok "help from a copied build folder" "$T/rel/x/y/gvis" help hist
  check "help: the page two levels up" grep -q relmarker "$T/out"
  MANPAGER=cat PAGER=cat ok "help from PREFIX/bin" "$T/pfx/bin/gvis" help hist
  check "help: PREFIX/share/man/man1" grep -q pfxmarker "$T/out"
fi

# --device cuda without a usable GPU is an error that says why; auto falls back.
if ! "$GVIS" info | grep -q '^cuda:0'; then
  "$MKIMAGE" 16 16 1 u8 random "$T/a.png"
  fails "--device cuda without a GPU" 1 "no usable CUDA device" "$GVIS" --device cuda hist "$T/a.png"
  ok "--device auto without a GPU" "$GVIS" --device auto hist "$T/a.png"
  ok "-v says the device" "$GVIS" -v hist "$T/a.png"
  check "-v names the cpu" grep -q "device cpu" "$T/err"
fi
finish
