#!/bin/sh
# Names every coverage point of a `make coverage` build: one line per call of __sanitizer_cov_trace_pc,
# "<id>\t<file>\t<line>\t<function>", the id being the return address the runtime reports (coverage.c),
# the place the source line of the call (objdump finds the calls, addr2line names them).
# Usage: covmap.sh PROGRAM > PROGRAM.map
set -eu
prog="$1"
objdump -d --no-show-raw-insn "$prog" | awk '
    found { sub(/^ */, "", $0); split($0, a, ":"); print a[1]; found = 0 }
    /call.*<__sanitizer_cov_trace_pc>/ { found = 1 }
' > "$prog.ids"
# addr2line is asked for the call itself (the byte before the return address): its line, its function
while read -r id; do printf '0x%x\n' $((0x$id - 1)); done < "$prog.ids" > "$prog.calls"
addr2line -f -e "$prog" < "$prog.calls" | paste - - > "$prog.names"
while read -r id; do printf '%d\n' "0x$id"; done < "$prog.ids" | paste - "$prog.names" | \
    awk -F '\t' '{ n = split($3, p, ":"); line = p[n]; sub(/ .*/, "", line); file = $3; sub(/:[^:]*$/, "", file);
                   m = split(file, q, "/"); print $1 "\t" q[m] "\t" (line ~ /^[0-9]+$/ ? line : 0) "\t" $2 }'
rm -f "$prog.ids" "$prog.calls" "$prog.names"
