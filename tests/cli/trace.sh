# GVIS_TRACE=FILE: a batch writes its threads' timeline as a Chrome trace (one span a
# stage a file, the threads named, the main thread's phases from the process's start),
# the outputs are the same as without it, a command with no batch writes its phases, an
# unwritable place is a warning (the exit status stands, no temporary left), and
# scripts/trace-summary reads it back.
. "$(dirname "$0")/lib.sh"
SUMMARY=$(cd "$(dirname "$0")/../.." && pwd)/scripts/trace-summary
cd "$T" || exit 1
mkdir -p in
for i in 1 2 3 4 5 6 7; do "$MKIMAGE" $((20 + 7 * i)) 31 3 u8 random "in/f$i.png"; done
ok "plain batch" "$GVIS" --cpu gauss --sigma 1.5 in -o plain/ -j 2
GVIS_TRACE="$T/t.json" ok "traced batch" "$GVIS" --cpu gauss --sigma 1.5 in -o traced/ -j 2
check "the outputs are the same traced" diff -r plain traced
check "a trace file" [ -s t.json ]
check "no temporary trace" [ -z "$(ls -a | grep 't.json.*tmp')" ]
spans() { grep -o "\"name\": \"$1\", \"ph\": \"X\"" t.json | wc -l; }
check "one read span a file" [ "$(spans read)" -eq 7 ]
check "one compute span a file" [ "$(spans compute)" -eq 7 ]
check "one write span a file" [ "$(spans write)" -eq 7 ]
check "the threads named" grep -q '"name": "reader 0"' t.json
check "the compute thread named" grep -q '"name": "compute thread 0"' t.json
check "each file's index" grep -q '"args": {"n": 6}' t.json
check "the main thread's phase: list" [ "$(spans 'list the inputs')" -eq 1 ]
check "the main thread's phase: the files" [ "$(spans 'batch: the files')" -eq 1 ]
check "the main thread's phase: the command" [ "$(spans 'the command')" -eq 1 ]
check "when it was written" grep -q '"name": "timeline written"' t.json
if command -v python3 >/dev/null 2>&1; then
  check "valid JSON" python3 -c "import json,sys; json.load(open(sys.argv[1]))" t.json
  ok "trace-summary" python3 "$SUMMARY" t.json 1
  check "trace-summary: the groups" grep -q '^readers (2 threads): read' "$T/out"
  check "trace-summary: the compute threads" grep -q '^compute threads (' "$T/out"
  check "trace-summary: the phases" grep -q ' batch: the files, main$' "$T/out"
  echo '{"nothing": 1}' > notrace.json
  fails "trace-summary: not a trace" 2 "traceEvents" python3 "$SUMMARY" notrace.json
fi
GVIS_TRACE="$T/info.json" ok "no batch: a trace" "$GVIS" --cpu info
check "no batch: the command's phase" grep -q '"name": "the command"' info.json
mkdir -p ro && chmod 555 ro
if [ ! -w ro ]; then  # not as root
  GVIS_TRACE="$T/ro/t.json" ok "an unwritable trace: still exit 0" "$GVIS" --cpu gauss --sigma 1.5 in -o ro_out/ -j 2
  check "an unwritable trace: a warning" grep -q "cannot write the timeline GVIS_TRACE names" "$T/err"
  check "an unwritable trace: nothing in ro" [ -z "$(ls -A ro)" ]
fi
GVIS_TRACE="$T/nodir/t.json" ok "a trace in a missing folder: still exit 0" "$GVIS" --cpu gauss --sigma 1.5 in -o nd_out/ -j 2
check "a trace in a missing folder: a warning" grep -q "cannot write the timeline GVIS_TRACE names: No such file" "$T/err"
finish
