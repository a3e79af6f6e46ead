#!/bin/bash
# Runs inside the Soft-RoCE VM: -R (rdma_cm) sessions, server and client both on rxe0, the client
# connecting to 10.200.0.1. There is no TCP to relay (perftest sends every message over an rdma_cm
# RC control QP), so only stdout/stderr are kept: $OUT/<test><tag>.{client,server}.{out,err}.
# From the repository root (same TEST:TAG:ARGS form as run.sh):
#   mkdir -p tools/target/capture && cp tools/src/test/resources/dev/jrdma/tools/perftest/golden/capture/* tools/target/capture/
#   scripts/softroce -- bash tools/target/capture/rdma_cm.sh ib_send_lat:-R:-R,-n,100 ib_write_bw:-R:-R,-n,200
# SPDX-License-Identifier: Apache-2.0
OUT=${OUT:-/work/main/tools/target/capture}
cd "$OUT"
for t in "$@"; do
  name=${t%%:*}; rest=${t#*:}; tag=${rest%%:*}; args=${rest#*:}; args=${args//,/ }; out=$name$tag
  timeout 120 $name -d rxe0 -p 18515 $args > $out.server.out 2> $out.server.err &
  sp=$!
  sleep 2   # rdma_cm has no connect retry loop for a server that is not listening yet
  timeout 120 $name -d rxe0 -p 18515 $args 10.200.0.1 > $out.client.out 2> $out.client.err
  echo "client $name rc=$?"
  wait $sp; echo "server $name rc=$?"
done
