#!/bin/bash
# A/B of the MCP server's start-up (session 34, tester34b F4): pipe initialize, notifications/initialized and one
# list_sessions (limit 1) into `BIN mcp --index INDEX` (and a resources/list with LIST=1), then end the input; print
# when each answer arrived (seconds since spawn), when the server exited, and its processor time (user, sys).
# bench/ab-mcp-busy.mjs times the first resources/list with the input kept open and pings sent meanwhile.
# usage: bench/ab-mcp-start.sh BIN INDEX     e.g. bench/ab-mcp-start.sh bin/session-ingest.mjs /tmp/big.db
set -u
BIN=$1 INDEX=$2 T=$(mktemp -d)
REQ=('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"ab","version":"1"}}}'
  '{"jsonrpc":"2.0","method":"notifications/initialized"}'
  '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_sessions","arguments":{"limit":1}}}')
[ "${LIST:-0}" = 1 ] && REQ+=('{"jsonrpc":"2.0","id":3,"method":"resources/list","params":{}}')
S=$(date +%s.%N)
printf '%s\n' "${REQ[@]}" | /usr/bin/time -f "processor time: user %U s, sys %S s" -o "$T/time" node "$BIN" mcp --index "$INDEX" 2>"$T/err" |
  while IFS= read -r l; do echo "$(echo "$(date +%s.%N) - $S" | bc | cut -c1-6) s: ${l:0:48}"; done
echo "$(echo "$(date +%s.%N) - $S" | bc | cut -c1-6) s: exit; $(cat "$T/time"); stderr: $(head -c 300 "$T/err")"
rm -rf "$T"
