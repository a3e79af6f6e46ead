#!/usr/bin/env bash
# Issue 51 probes, run inside the Soft-RoCE VM:
#   scripts/softroce --timeout 900 -- research/rsocket-probe/probe.sh
# Datagram rsockets and rselect (dgram-probe.c, built to target/probe below: gcc and
# librdmacm-dev of the host), the rdma_cm C tools on one node, and rstream over rsockets vs TCP.
# Findings: research/notes/2026-11-28-rsockets.md (session 3).
# SPDX-License-Identifier: Apache-2.0
set -u
A=${A:-10.200.0.1}
here=$(cd "$(dirname "$0")" && pwd)
bin=$here/../../target/probe
mkdir -p "$bin"
[ "$bin/dgram-probe" -nt "$here/dgram-probe.c" ] || gcc -O1 -Wall -o "$bin/dgram-probe" "$here/dgram-probe.c" -lrdmacm
step() { echo; echo "=== $*"; }
pair() {   # pair SECONDS "server cmd" "client cmd"
    local t=$1 s=$2 c=$3
    bash -c "timeout $t $s" > /tmp/srv.out 2>&1 & local sp=$!
    sleep 2
    timeout "$t" bash -c "$c"; echo "client exit $?"
    wait $sp; echo "server exit $?"
    sed 's/^/  server| /' /tmp/srv.out | tail -15
}
step "datagram rsockets + rselect"
timeout 120 "$bin/dgram-probe" "$A"; echo "dgram-probe exit $?"
step "rping -C 3 -v"
pair 90 "rping -s -a $A -C 3 -v" "rping -c -a $A -C 3 -v"
step "ucmatose (defaults: 1 connection, 10 messages)"
pair 90 "ucmatose -b $A" "ucmatose -s $A"
step "udaddy"
pair 90 "udaddy -b $A" "udaddy -s $A"
step "mckey multicast 239.1.2.3"
pair 60 "mckey -m 239.1.2.3 -b $A" "mckey -m 239.1.2.3 -b $A -s"
step "rstream rsockets vs TCP (information)"
for mode in "" "-T s"; do
    for args in "-S 1 -C 2000" "-S 65536 -C 200"; do
        echo "--- rstream $mode $args"
        pair 200 "rstream $mode $args -b $A" "rstream $mode $args -s $A"
    done
done
echo PROBE-END
