#!/bin/bash
# Runs inside the Soft-RoCE VM: for each TEST:TAG:ARGS (ARGS comma-separated), a perftest server
# on 18515, a logging relay (relay.py) on 18516 and the perftest client through the relay.
# Writes $OUT/<test><tag>.{client,server}.{out,err} and .wire.json.
# From the repository root:
#   mkdir -p tools/target/capture && cp tools/src/test/resources/dev/jrdma/tools/perftest/golden/capture/* tools/target/capture/
#   scripts/softroce -- bash tools/target/capture/run.sh ib_send_lat::-n,100 ib_send_lat:-a:-a,-n,5
# SPDX-License-Identifier: Apache-2.0
OUT=${OUT:-/work/main/tools/target/capture}
cd "$OUT"
for t in "$@"; do
  name=${t%%:*}; rest=${t#*:}; tag=${rest%%:*}; args=${rest#*:}; args=${args//,/ }; out=$name$tag
  timeout 120 $name -d rxe0 -x 1 -p 18515 $args > $out.server.out 2> $out.server.err &
  sp=$!
  rm -f ready
  timeout 120 python3 relay.py 18516 18515 $out.wire.json &
  rp=$!
  for i in $(seq 100); do [ -e ready ] && break; sleep 0.2; done
  sleep 0.5
  timeout 120 $name -d rxe0 -x 1 -p 18516 $args 127.0.0.1 > $out.client.out 2> $out.client.err
  echo "client $name rc=$?"
  wait $sp; echo "server $name rc=$?"
  wait $rp; echo "relay rc=$?"
done
