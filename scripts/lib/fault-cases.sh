# shellcheck shell=bash
# The kinds of fault scenario of scripts/fault-suite (one function each; the list of scenarios
# is scripts/lib/fault-scenarios.sh), on node 1 of the two-node testbed. Each runs jrdma (or a
# Java test class) across the wire, injects its fault and records one row (fault-run.sh).
# The jrdma server runs on node 1, its client on node 2 (the client is the active side of the
# BW tests: it sends the RDMA writes and SENDs).
# SPDX-License-Identifier: Apache-2.0

BW_ARGS="-s 65536 -n 300 --timeout 60"
# The survivor of a killed peer must be done within --timeout plus this. --timeout is also the
# server's accept timeout: on a loaded 2-core host the client's JVM on node 2 took more than
# 30 s to start (one run), hence 60 by default (JRDMA_FAULT_KILL_TIMEOUT).
MARGIN_S=15
KILL_TIMEOUT_S=${JRDMA_FAULT_KILL_TIMEOUT:-60}

# under_netem NAME TEST FAULT NETEM-ARGS...: a BW test under a netem fault on both ends: RC must
# complete (rxe retransmits; jrdma's default of 7 retries, which rxe takes as "forever").
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

# integrity_under NAME FAULT BYTES [NETEM-ARGS...]: the WireIntegrity transfer (tools' tests)
# under a netem fault: every byte verified on the receiving side.
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

# link_down NAME SECONDS U EXPECT(completes|fails): node 1, the receiving side, sends nothing
# (netem loss 100 % on its egress: the client's RDMA writes arrive, their ACKs never return)
# for SECONDS in the middle of a write-bw with -u U and 6 retries, a finite budget on rxe of
# 7 x 4.096 us x 2^U. Not `ip link set down`: cut on the sender's own interface, rxe failed the
# transmit with LOC_QP_OP_ERR after 41.5 s; cut on the receiver's, the client saw no
# RETRY_EXC_ERR while the wire was down (30 s) but REM_INV_REQ_ERR 60 s after the cut (one run
# each, docs/reliability.md).
link_down() {
    want "$1" || return 0
    local name=$1 down=$2 u=$3 expect=$4 t0 c s tc ok budget fault
    budget=$(awk -v u="$u" 'BEGIN { printf "%.2f", 7 * 4.096e-6 * 2 ^ u }')
    fault="node 1 sends nothing (netem loss 100 %) for ${down} s, -u $u, 6 retries (budget $budget s)"
    clear_faults
    # -t 16: every retry resends the whole outstanding window, which at the default depth (128 x
    # 64 KiB) took seconds per retry under TCG on a loaded host (RETRY_EXC_ERR 15.5 s after the
    # cut for a 0.47 s budget, one run).
    start_pair write-bw "-s 65536 -n 3000 -t 16 -u $u --retry-count 6 --timeout 60" \
        || { record "$name" - - no "no start" - - -; return; }
    await_running "$work/client.log"
    sleep 2
    t0=$(now)
    (tc qdisc replace dev "$W" root netem loss 100%; sleep "$down"; tc qdisc del dev "$W" root) &
    wait_bounded "$client_pid" 600; c=$waited
    tc=$(now)
    wait_bounded "$server_pid" 180; s=$waited
    wait
    if [ "$expect" = completes ]; then
        [ "$c" = 0 ] && [ "$s" = 0 ] && ok=yes || ok=no
        record "$name" "$fault" "completes" $ok \
            "client $c, server $s" "$(secs "$t0" "$tc") s after the cut" "n/a (BW test)" "$(bw_of "$work/client.log")"
    else
        # The client's line must name RETRY_EXC_ERR and the queue pair, within the budget + 30 s.
        [ "$c" = 1 ] && [ "$s" = 1 ] && grep -q 'RETRY_EXC_ERR' "$work/client.log" \
            && grep -q 'queue pair 0x' "$work/client.log" \
            && awk -v t="$(secs "$t0" "$tc")" -v b="$budget" 'BEGIN { exit !(t <= b + 30) }' && ok=yes || ok=no
        record "$name" "$fault" "client exits 1 with RETRY_EXC_ERR within the budget + 30 s" $ok \
            "client $c: $(last_line "$work/client.log"); server $s: $(last_line "$work/server.log")" \
            "client $(secs "$t0" "$tc") s, server $(secs "$t0" "$(now)") s after the cut" - -
    fi
    clear_faults
}

# peer_dies NAME TEST client|server kill|poweroff: a side killed (SIGKILL) or node 2 powered off
# mid-run; the survivor must exit 1 within --timeout plus MARGIN_S.
peer_dies() {
    want "$1" || return 0
    local name=$1 test=$2 victim=$3 how=$4 t0 survivor rc args t log ok=no
    clear_faults
    args="-n 5000000 --timeout $KILL_TIMEOUT_S"
    # 64 KiB messages for the BW tests; an atomic is 8 bytes, which jrdma refuses to change.
    [[ $test == *-bw && $test != atomic-bw ]] && args="-s 65536 $args"
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
    t=$(secs "$t0" "$(now)") log=$work/server.log
    [ "$survivor" = "$client_pid" ] && log=$work/client.log
    # One line naming the cause: "jrdma TEST: ...".
    [ "$rc" = 1 ] && tail -n 3 "$log" | grep -qa "^jrdma $test: " \
        && awk -v t="$t" -v b=$((KILL_TIMEOUT_S + MARGIN_S)) 'BEGIN { exit !(t <= b) }' && ok=yes
    record "$name" "$victim $how mid-run ($test, --timeout $KILL_TIMEOUT_S)" \
        "survivor exits 1 within $KILL_TIMEOUT_S s + $MARGIN_S s" $ok "survivor $rc: $(last_line "$log")" "$t s" - -
    kill -KILL "$server_pid" "$client_pid" 2>/dev/null
    wait 2>/dev/null
}

# oob_cut NAME: the out-of-band TCP exchange cut. netem delays the wire by 1.5 s each way, so the
# exchange takes seconds; the wire goes down on node 1 as soon as the TCP connection is
# established (the client's first exchange message is then still on its way) and stays down
# longer than both sides' --timeout. Both must exit 1 within --timeout + MARGIN_S.
oob_cut() {
    want "$1" || return 0
    local name=$1 t0 c s tc ok=no
    clear_faults
    netem delay 1500ms
    start_pair write-bw "-s 65536 -n 300 --timeout $KILL_TIMEOUT_S" \
        || { record "$name" - - no "no start" - - -; return; }
    if ! await_established "$port" 120; then
        record "$name" "wire down during the exchange" "both exit 1" no "no TCP connection in 120 s" - - -
        kill -KILL "$server_pid" "$client_pid" 2>/dev/null; wait 2>/dev/null; clear_faults; return
    fi
    t0=$(now)
    (ip link set "$W" down; sleep $((KILL_TIMEOUT_S + MARGIN_S + 10)); ip link set "$W" up) &
    wait_bounded "$server_pid" 120; s=$waited
    tc=$(now)
    wait_bounded "$client_pid" 120; c=$waited
    [ "$c" = 1 ] && [ "$s" = 1 ] && ! grep -qa 'remote address' "$work/server.log" \
        && awk -v t="$(secs "$t0" "$(now)")" -v b=$((KILL_TIMEOUT_S + MARGIN_S)) 'BEGIN { exit !(t <= b) }' && ok=yes
    record "$name" "wire down ($((KILL_TIMEOUT_S + MARGIN_S + 10)) s) once the TCP connection is up, 1.5 s delay each way, --timeout $KILL_TIMEOUT_S" \
        "both exit 1 within $KILL_TIMEOUT_S s + $MARGIN_S s, before the run" $ok \
        "server $s: $(last_line "$work/server.log"); client $c: $(last_line "$work/client.log")" \
        "server $(secs "$t0" "$tc") s, client $(secs "$t0" "$(now)") s after the cut" - -
    wait
    clear_faults
}

# mtu_differs NAME: node 1's wire MTU 9000 (rxe active MTU 4096), node 2's 1500 (1024): the run
# completes and both sides report the smaller path MTU, 1024.
mtu_differs() {
    want "$1" || return 0
    local name=$1 t0 c s m1 m2 p1 p2 ok=no
    clear_faults
    ip link set "$W" mtu 9000
    sleep 1
    m1=$(ibv_devinfo -d rxe0 | awk '/active_mtu/ { print $2 }')
    m2=$(n2 ibv_devinfo -d rxe0 | awk '/active_mtu/ { print $2 }')
    t0=$(now)
    start_pair write-bw "$BW_ARGS" || { record "$name" - - no "no start" - - -; clear_faults; return; }
    wait_bounded "$client_pid" 600; c=$waited
    wait_bounded "$server_pid" 120; s=$waited
    p1=$(grep -ao 'Mtu *: *[0-9]*' "$work/server.log" | grep -o '[0-9]*$' | head -n1)
    p2=$(grep -ao 'Mtu *: *[0-9]*' "$work/client.log" | grep -o '[0-9]*$' | head -n1)
    [ "$c" = 0 ] && [ "$s" = 0 ] && [ "$p1" = 1024 ] && [ "$p2" = 1024 ] && ok=yes
    record "$name" "wire MTU 9000 on node 1 (rxe active MTU $m1), 1500 on node 2 ($m2)" \
        "completes with path MTU 1024" $ok "client $c, server $s; path MTU: server ${p1:-?}, client ${p2:-?}" \
        "$(secs "$t0" "$(now)") s" "n/a (BW test)" "$(bw_of "$work/client.log")"
    clear_faults
}

# api_retry NAME: tools' TwoNodeRetryDeviceTest (a QP towards a peer that never reaches RTR; then
# RETRY_EXC_ERR under netem loss 100 %, reset, reconnect, data verified).
api_retry() {
    want "$1" || return 0
    local name=$1 t0 rc cp ok=no
    clear_faults
    cp="$root/tools/target/test-classes:$root/tools/target/classes:$(cat "$root/tools/target/test.classpath")"
    t0=$(now)
    timeout -k 10 600 "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -XX:TieredStopAtLevel=1 -cp "$cp" \
        org.junit.platform.console.ConsoleLauncher execute --disable-banner --disable-ansi-colors \
        --details=tree --include-tag=two-node --select-class=dev.jrdma.tools.TwoNodeRetryDeviceTest \
        >"$work/server.log" 2>&1
    rc=$?
    : >"$work/client.log"
    [ "$rc" = 0 ] && grep -q '2 tests successful' "$work/server.log" && ok=yes
    record "$name" "peer QP left in RESET; netem loss 100 % on node 1, then reset and reconnect (-u 16, 6 retries)" \
        "RETRY_EXC_ERR naming the QP within 20 s, twice; data verified after the reconnect" $ok \
        "$(grep -ao 'tests successful\|[0-9]* tests failed' "$work/server.log" | head -n2 | tr '\n' ' ')exit $rc" \
        "$(grep -ao 'RETRY_EXC_ERR.* after [0-9.]* s' "$work/server.log" | grep -o 'after [0-9.]* s' | paste -sd, -)" \
        "4 messages of 4 KiB" -
    clear_faults
}
