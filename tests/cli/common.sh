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
fails "bad device" 2 "bad device 'gpu'" "$GVIS" --device gpu info
fails "bad device index" 2 "bad device 'cuda:x'" "$GVIS" hist --device cuda:x x.png
fails "repeat zero" 2 "repeat takes a whole number" "$GVIS" --repeat 0 info
fails "repeat missing value" 2 "needs a value" "$GVIS" info --repeat
fails "timing bad value" 2 "timing takes no value" "$GVIS" --timing=xml info
fails "max-pixels bad" 2 "max-pixels takes a whole number" "$GVIS" --max-pixels -5 info
fails "flag with value" 2 "takes no value" "$GVIS" info --cpu=1
fails "help unknown" 2 "unknown subcommand 'nope'" "$GVIS" help nope

for sub in $("$GVIS" --help | awk '/^Subcommands:/{s=1; next} /^$/{s=0} s && $1 != "help" {print $1}'); do
  ok "$sub --help" "$GVIS" "$sub" --help
  check "$sub --help prints usage to stdout" grep -q "^usage: gvis $sub" "$T/out"
  check "$sub --help prints nothing on stderr" test ! -s "$T/err"
  fails "$sub unknown option" 2 "^gvis $sub: unknown option '--no-such-option'" "$GVIS" "$sub" --no-such-option
  if command -v man >/dev/null 2>&1 || command -v mandoc >/dev/null 2>&1; then
    MANPAGER=cat PAGER=cat ok "help $sub" "$GVIS" help "$sub"
    check "help $sub shows the page" grep -qi "gvis-$sub" "$T/out"
  fi
done

# --device cuda without a usable GPU is an error that says why; auto falls back.
if ! "$GVIS" info | grep -q '^cuda:0'; then
  "$MKIMAGE" 16 16 1 u8 random "$T/a.png"
  fails "--device cuda without a GPU" 1 "no usable CUDA device" "$GVIS" --device cuda hist "$T/a.png"
  ok "--device auto without a GPU" "$GVIS" --device auto hist "$T/a.png"
  ok "-v says the device" "$GVIS" -v hist "$T/a.png"
  check "-v names the cpu" grep -q "device cpu" "$T/err"
fi
finish
