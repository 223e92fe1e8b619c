# gvis info: build features and devices, text and JSON; exit 0 with or without a GPU.
. "$(dirname "$0")/lib.sh"

ok "info" "$GVIS" info
check "info names the version" grep -Eq '^gvis [0-9]' "$T/out"
check "info says the build" grep -Eq '^build: (CUDA|CPU only)' "$T/out"
check "info lists devices or says why none" grep -Eq '^(cuda:[0-9]+: |no usable CUDA device: )' "$T/out"
ok "info --json" "$GVIS" info --json
if [ -x /usr/bin/python3 ]; then
  check "info --json parses" /usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert "version" in d and "devices" in d and isinstance(d["cuda"], bool)' "$T/out"
fi
check "info --json is one line" test "$(wc -l <"$T/out")" -eq 1
fails "info takes no input" 2 "takes no inputs" "$GVIS" info something
finish
