# gvis info: build features and devices, text and JSON; exit 0 with or without a GPU.
. "$(dirname "$0")/lib.sh"

ok "info" "$GVIS" info
check "info names the version" grep -Eq '^gvis [0-9]' "$T/out"
check "info says the build" grep -Eq '^build: (CUDA|CPU only)' "$T/out"
check "info lists devices or says why none" grep -Eq '^(cuda:[0-9]+: |no usable CUDA device: )' "$T/out"
# no NVIDIA driver at all: say so, not "driver version is insufficient" (an upgrade) (issue 12)
if grep -q '^build: CUDA' "$T/out" && [ ! -e /proc/driver/nvidia/version ] &&
   ! /sbin/ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1'; then
  check "no driver: says no NVIDIA driver found" grep -q '^no usable CUDA device: no NVIDIA driver found; gvis runs on the CPU$' "$T/out"
  check "no driver: no word of an insufficient driver" test "$(grep -ci insufficient "$T/out")" -eq 0
  "$MKIMAGE" 5 5 1 u8 random "$T/d.png"
  fails "no driver: --device cuda says why" 1 "no usable CUDA device: no NVIDIA driver found" "$GVIS" --device cuda hist "$T/d.png"
fi
# nvJPEG: loaded at run time, or a reason; GVIS_NVJPEG_LIBRARY=none and a missing file say so
ok "info, nvJPEG" "$GVIS" info
check "info has an nvJPEG line" grep -Eq '^nvJPEG: ' "$T/out"
if grep -q '^build: CUDA' "$T/out"; then
  GVIS_NVJPEG_LIBRARY=none ok "info, nvJPEG off" "$GVIS" info
  check "GVIS_NVJPEG_LIBRARY=none is named" grep -q '^nvJPEG: not used (nvJPEG disabled by GVIS_NVJPEG_LIBRARY=none): JPEG is decoded and encoded on the CPU$' "$T/out"
  GVIS_NVJPEG_LIBRARY=/nonexistent/libnvjpeg.so.13 ok "info, nvJPEG missing" "$GVIS" info
  check "a missing nvJPEG is named" grep -q '^nvJPEG: not used (cannot load /nonexistent/libnvjpeg.so.13: ' "$T/out"
  GVIS_NVJPEG_LIBRARY=none ok "info --json, nvJPEG off" "$GVIS" info --json
  check "--json: nvjpeg not found" grep -q '"nvjpeg": {"found": false, "reason": "nvJPEG disabled by GVIS_NVJPEG_LIBRARY=none"}' "$T/out"
else
  check "CPU build: nvJPEG not used" grep -q '^nvJPEG: not used (built without CUDA)' "$T/out"
fi
ok "info --json" "$GVIS" info --json
if [ -x /usr/bin/python3 ]; then
  check "info --json parses" /usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert "version" in d and "devices" in d and isinstance(d["cuda"], bool) and isinstance(d["nvjpeg"]["found"], bool)' "$T/out"
fi
check "info --json is one line" test "$(wc -l <"$T/out")" -eq 1
fails "info takes no input" 2 "takes no inputs" "$GVIS" info something
finish
