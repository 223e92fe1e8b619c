# Helpers for gvis's CLI tests (sourced).  Environment from tests/meson.build:
# GVIS (the binary), MKIMAGE (tests/mkimage), TESTDATA (testdata/), SHARED (../shared).
set -u
# byte order for ls and sort, as gvis sorts a folder's files (a UTF-8 locale's ls puts
# f07b.png before f07.png)
export LC_ALL=C
: "${GVIS:?GVIS is not set}" "${TESTDATA:?TESTDATA is not set}"
T=$(mktemp -d "${TMPDIR:-/tmp}/gvis-cli.XXXXXX")
# Only the test's own shell removes $T.  A child that bash forks for `gvis ... &` keeps
# the shell's handlers until it execs, and bash runs the EXIT trap when such a child is
# killed before that: tests/cli/interrupts.sh, signalling gvis a few ms after the fork on a
# loaded machine, lost its folder mid-test that way (every later round then failed).
T_OWNER=$$
trap '[ "$BASHPID" = "$T_OWNER" ] && rm -rf "$T"' EXIT
pass=0
fail=0
name=${0##*/}

say_fail() { fail=$((fail + 1)); printf 'FAIL %s: %s\n' "$name" "$*" >&2; }

# run CMD...: runs a command, keeping status in $rc, stdout in $T/out, stderr in $T/err.
run() { "$@" >"$T/out" 2>"$T/err"; rc=$?; }

# ok DESC CMD...: the command must exit 0.
ok() {
  local desc=$1; shift
  run "$@"
  if [ "$rc" -eq 0 ]; then pass=$((pass + 1)); else say_fail "$desc: exit $rc, stderr: $(head -c 400 "$T/err")"; fi
}

# fails DESC STATUS REGEX CMD...: the command must exit STATUS with stderr matching REGEX.
fails() {
  local desc=$1 want=$2 re=$3; shift 3
  run "$@"
  if [ "$rc" -ne "$want" ]; then
    say_fail "$desc: exit $rc, wanted $want; stderr: $(head -c 400 "$T/err")"
  elif ! grep -Eq -- "$re" "$T/err"; then
    say_fail "$desc: stderr does not match /$re/: $(head -c 400 "$T/err")"
  else
    pass=$((pass + 1))
  fi
}

# check DESC TEST...: a shell test that must hold.
check() {
  local desc=$1; shift
  if "$@"; then pass=$((pass + 1)); else say_fail "$desc"; fi
}

# no_temp DIR: no temporary output file (.NAME.gvis-XXXXXX) is left in DIR.
no_temp() { ! ls -a "$1" | grep -q '\.gvis-'; }

finish() {
  printf '%s: %d passed, %d failed\n' "$name" "$pass" "$fail"
  [ "$fail" -eq 0 ]
}
