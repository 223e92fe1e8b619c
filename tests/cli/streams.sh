# Stream inputs (issue 13 item 2, issue 12 item 2): sniffed from their first bytes and read
# no further than their header says; pipes need no --format.
. "$(dirname "$0")/lib.sh"
finish
