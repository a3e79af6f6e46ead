#!/usr/bin/env bash
# The fault scenarios of scripts/fault-suite, run on node 1 of the two-node testbed.
# Usage (inside scripts/softroce --nodes 2): scripts/lib/fault-scenarios.sh RESULTS.tsv [--ci]
# One tab-separated row per scenario (see record in fault-run.sh); exit 1 if any scenario did
# not behave as expected. --ci: the representative subset CI runs. JRDMA_FAULT_ONLY=regex
# runs only the scenarios whose name it matches.
# SPDX-License-Identifier: Apache-2.0
set -uo pipefail
results=$1
ci=${2:-}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/fault-run.sh"
. "$here/jdk.sh"
jrdma_find_jdk
: >"$results"
BW_ARGS="-s 65536 -n 300 --timeout 60"

# A BW test under a netem fault: RC must complete (the transport retransmits).
under_netem() {
    want "$1" || return 0
    local name=$1 test=$2 fault=$3 t0 c s
    shift 3
    clear_faults
    netem "$@"
    t0=$(now)
    start_pair "$test" "$BW_ARGS" || { record "$name" "$fault" "completes" no "server did not start" - - -; return; }
    wait_bounded "$client_pid" 900; c=$waited
    wait_bounded "$server_pid" 120; s=$waited
    if [ "$c" = 0 ] && [ "$s" = 0 ]; then
        record "$name" "$fault" "completes" yes "completed" "$(secs "$t0" "$(now)") s" "n/a (BW test)" "$(bw_of "$work/client.log")"
    else
        record "$name" "$fault" "completes" no "client $c, server $s: $(last_line "$work/client.log")" \
            "$(secs "$t0" "$(now)") s" - -
    fi
    clear_faults
}

# The integrity transfer (WireIntegrity) under a netem fault: every byte verified.
integrity_under() {
    want "$1" || return 0
    local name=$1 fault=$2 bytes=$3 t0 c s cp seed
    shift 3
    clear_faults
    [ $# -eq 0 ] || netem "$@"
    cp="$root/tools/target/test-classes:$root/tools/target/classes:$(cat "$root/tools/target/test.classpath")"
    port=$((port + 1)) seed=$RANDOM
    t0=$(now)
    "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -XX:TieredStopAtLevel=1 -cp "$cp" dev.jrdma.tools.WireIntegrity \
        receive "$port" "$seed" "$bytes" >"$work/server.log" 2>&1 &
    server_pid=$!
    await_listen "$port" "$server_pid"
    n2 "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -XX:TieredStopAtLevel=1 -cp "$cp" dev.jrdma.tools.WireIntegrity \
        send "$N1" "$port" "$seed" "$bytes" >"$work/client.log" 2>&1 &
    client_pid=$!
    wait_bounded "$client_pid" 1200; c=$waited
    wait_bounded "$server_pid" 120; s=$waited
    if [ "$c" = 0 ] && [ "$s" = 0 ] && grep -q 'bytes verified' "$work/server.log"; then
        record "$name" "$fault" "completes, every byte verified" yes "completed" "$(secs "$t0" "$(now)") s" \
            "$(grep -o '[0-9]* messages ([^)]*), [0-9]* bytes' "$work/server.log")" \
            "$(grep -o '[0-9.]* MiB/s' "$work/server.log")"
    else
        record "$name" "$fault" "completes, every byte verified" no \
            "sender $c, receiver $s: $(last_line "$work/server.log")" "$(secs "$t0" "$(now)") s" - -
    fi
    clear_faults
}

# The wire down on node 1 for $2 s in the middle of a write-bw with QP timeout exponent $3.
link_down() {
    want "$1" || return 0
    local name=$1 down=$2 u=$3 expect=$4 t0 c s tc ok
    clear_faults
    start_pair write-bw "-s 65536 -n 3000 -u $u --timeout 30" || { record "$name" - - no "no start" - - -; return; }
    await_running "$work/client.log"
    sleep 2
    t0=$(now)
    # The cut is on node 1, the receiving side: cut on the sender's own interface, rxe fails the
    # transmit at once with LOC_QP_OP_ERR instead of retrying (measured: 41.5 s, one run).
    (ip link set "$W" down; sleep "$down"; ip link set "$W" up) &
    wait_bounded "$client_pid" 600; c=$waited
    tc=$(now)
    wait_bounded "$server_pid" 180; s=$waited
    wait
    if [ "$expect" = completes ]; then
        [ "$c" = 0 ] && [ "$s" = 0 ] && ok=yes || ok=no
        record "$name" "wire down ${down} s, -u $u" "completes" $ok "client $c, server $s" \
            "$(secs "$t0" "$tc") s after the cut" "n/a (BW test)" "$(bw_of "$work/client.log")"
    else
        [ "$c" = 1 ] && [ "$s" = 1 ] && grep -q RETRY_EXC_ERR "$work/client.log" && ok=yes || ok=no
        record "$name" "wire down ${down} s, -u $u" "exit 1, RETRY_EXC_ERR" $ok \
            "client $c: $(last_line "$work/client.log"); server $s: $(last_line "$work/server.log")" \
            "client $(secs "$t0" "$tc") s, server $(secs "$t0" "$(now)") s after the cut" - -
    fi
    clear_faults
}

# A side killed (SIGKILL) or its node powered off mid-run; the survivor must exit 1 within
# --timeout (20 s) plus a margin. $2: test, $3: client|server (which side dies), $4: kill|poweroff.
peer_dies() {
    want "$1" || return 0
    local name=$1 test=$2 victim=$3 how=$4 t0 survivor rc args
    clear_faults
    args="-n 5000000 --timeout 20"
    [[ $test == *-bw ]] && args="-s 65536 -n 5000000 --timeout 20"
    start_pair "$test" "$args" || { record "$name" - - no "no start" - - -; return; }
    # A kill before the run started would test the accept timeout instead (seen in one run).
    if ! await_running "$work/client.log"; then
        record "$name" "$victim $how mid-run ($test)" "survivor exits 1" no "the run never started" - - -
        kill -KILL "$server_pid" "$client_pid" 2>/dev/null
        wait 2>/dev/null
        return
    fi
    sleep 2
    t0=$(now)
    if [ "$how" = poweroff ]; then
        n2 --poweroff
        survivor=$server_pid
    elif [ "$victim" = client ]; then
        n2 bash -c 'kill -KILL $(cat /tmp/client.pid)'
        survivor=$server_pid
    else
        kill -KILL "$server_pid"
        survivor=$client_pid
    fi
    wait_bounded "$survivor" 120; rc=$waited
    local t=$(secs "$t0" "$(now)") log=$work/server.log ok=no
    [ "$survivor" = "$client_pid" ] && log=$work/client.log
    [ "$rc" = 1 ] && awk -v t="$t" 'BEGIN { exit !(t <= 20 + 15) }' && ok=yes
    record "$name" "$victim $how mid-run ($test, --timeout 20)" "survivor exits 1 within 20 s + 15 s" $ok \
        "survivor $rc: $(last_line "$log")" "$t s" - -
    kill -KILL "$server_pid" "$client_pid" 2>/dev/null
    wait 2>/dev/null
}

echo "=== fault scenarios (${ci:-full}) on $(uname -r)"
if [ "$ci" = --ci ]; then
    under_netem "write-bw, 1 % loss" write-bw "netem loss 1 %" loss 1%
    link_down "link down past the budget" 30 14 fails
    peer_dies "write-bw client killed" write-bw client kill
    peer_dies "write-bw node 2 powered off" write-bw client poweroff
else
    under_netem "write-bw, no fault" write-bw "none" delay 0ms
    under_netem "write-bw, 1 % loss" write-bw "netem loss 1 %" loss 1%
    under_netem "write-bw, 5 % loss" write-bw "netem loss 5 %" loss 5%
    under_netem "send-bw, 1 % loss" send-bw "netem loss 1 %" loss 1%
    under_netem "send-bw, 5 % loss" send-bw "netem loss 5 %" loss 5%
    under_netem "write-bw, reordering" write-bw "netem delay 2ms reorder 25% 50%" delay 2ms reorder 25% 50%
    under_netem "write-bw, duplication" write-bw "netem duplicate 5 %" duplicate 5%
    under_netem "write-bw, delay" write-bw "netem delay 20ms 5ms" delay 20ms 5ms
    integrity_under "integrity, 1 % loss" "netem loss 1 %" $((16 << 20)) loss 1%
    integrity_under "integrity, 5 % loss" "netem loss 5 %" $((16 << 20)) loss 5%
    integrity_under "integrity, reorder+dup" "netem delay 2ms reorder 25% duplicate 2%" $((16 << 20)) \
        delay 2ms reorder 25% duplicate 2%
    link_down "link down within the budget" 2 18 completes
    link_down "link down past the budget" 30 14 fails
    for t in ${JRDMA_FAULT_KILL_TESTS:-send-lat write-bw}; do
        peer_dies "$t client killed" "$t" client kill
        peer_dies "$t server killed" "$t" server kill
    done
    peer_dies "write-bw node 2 powered off" write-bw client poweroff
fi
failed=$(awk -F'\t' '$4 != "yes"' "$results" | wc -l)
echo "=== $(wc -l <"$results") scenarios, $failed not as expected"
[ "$failed" = 0 ]
