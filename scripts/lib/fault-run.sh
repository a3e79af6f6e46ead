# shellcheck shell=bash
# Building blocks of the fault scenarios (scripts/lib/fault-scenarios.sh), on node 1 of the
# two-node testbed: jrdma runs on both nodes, faults on the wire, and one result row per scenario.
# SPDX-License-Identifier: Apache-2.0

root=${JRDMA_PROJECT:?not inside scripts/softroce --nodes 2}
N1=10.200.1.1
J=$root/scripts/jrdma
# C1 only, as the device tests' JVMs: these runs measure nothing, and under TCG the C2-only JIT of
# scripts/jrdma (scripts/lib/jit.sh) spends its first tens of seconds interpreting and compiling;
# on the host, `jrdma write-bw --help` cost 0.68 s of CPU this way against 1.09 s.
JOPTS="-XX:TieredStopAtLevel=1 ${JRDMA_JAVA_OPTS:-}"
W=$JRDMA_WIRE_IF
port=9100
work=$(mktemp -d)

n2() { "$root/scripts/node" 2 "$@"; }
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# netem on both ends of the wire (each node's egress), so both directions see the fault.
netem() {
    tc qdisc replace dev "$W" root netem "$@"
    n2 bash -c 'tc qdisc replace dev "$JRDMA_WIRE_IF" root netem "$@"' netem "$@"
}

clear_faults() {
    tc qdisc del dev "$W" root 2>/dev/null
    ip link set "$W" up mtu 1500
    await_node2
    n2 bash -c 'tc qdisc del dev "$JRDMA_WIRE_IF" root 2>/dev/null; ip link set "$JRDMA_WIRE_IF" up mtu 1500' || true
    sleep 1
}

# Waits (at most 300 s) until node 2 runs commands: after a power-off it boots again
# (scripts/lib/softroce-nodes.sh), which under TCG on a loaded host takes a while.
await_node2() {
    local i
    for i in $(seq 150); do
        n2 true 2>/dev/null && return 0
        sleep 2
    done
    echo "fault-run: node 2 did not come back" >&2
    return 1
}

# Waits until the server's port on node 1 has an established TCP connection, max $2 s.
await_established() {
    local hex i
    hex=$(printf ':%04X' "$1")
    for i in $(seq $(($2 * 20))); do
        awk -v p="$hex" '$2 ~ p"$" && $4 == "01" { found = 1 } END { exit !found }' /proc/net/tcp /proc/net/tcp6 \
            && return 0
        sleep 0.05
    done
    return 1
}

# Waits (at most 120 s) until node 1 listens on TCP port $1, without connecting.
await_listen() {
    local hex i
    hex=$(printf ':%04X' "$1")
    for i in $(seq 600); do
        # A Java server socket is dual-stack: its listener is in tcp6.
        awk -v p="$hex" '$2 ~ p"$" && $4 == "0A" { found = 1 } END { exit !found }' /proc/net/tcp /proc/net/tcp6 \
            && return 0
        kill -0 "$2" 2>/dev/null || return 1
        sleep 0.2
    done
    return 1
}

# Waits for pid $1 (a child of this shell: not in a $(...) subshell, where wait cannot see it)
# at most $2 s; sets $waited to its exit status, or "hung" after killing it.
# The clock, not a count of sleeps: under TCG each loop's forks add time, and a count of 4500
# sleeps of 0.2 s once let a "900 s" wait run 1385 s.
wait_bounded() {
    local pid=$1 deadline=$((SECONDS + $2))
    while kill -0 "$pid" 2>/dev/null; do
        if [ "$SECONDS" -ge "$deadline" ]; then
            kill -KILL "$pid" 2>/dev/null
            wait "$pid" 2>/dev/null
            waited=hung
            return
        fi
        sleep 0.2
    done
    wait "$pid"
    waited=$?
}

# start_pair TEST "ARGS": the server on node 1 and the client on node 2 in the background
# (pids in $server_pid and $client_pid, output in $work/server.log and $work/client.log);
# returns once the client has been started. The client's java runs under "bash -c", whose
# pid file ($work/client.pid on node 2's /tmp) lets a scenario kill exactly that process.
start_pair() {
    local test=$1 args=$2
    port=$((port + 1))
    # shellcheck disable=SC2086
    JRDMA_JAVA_OPTS=$JOPTS "$J" "$test" -d rxe0 -x 1 -p "$port" --warm-up 0 $args >"$work/server.log" 2>&1 &
    server_pid=$!
    await_listen "$port" "$server_pid" || { echo "server did not listen" >>"$work/server.log"; return 1; }
    n2 bash -c 'echo $$ >/tmp/client.pid; exec "$@"' client env JRDMA_JAVA_OPTS="$JOPTS" "$J" "$test" -d rxe0 -x 1 -p "$port" --warm-up 0 \
        $args "$N1" >"$work/client.log" 2>&1 &
    client_pid=$!
}

# Waits until $1's log shows the measurement has started (a BW/latency header or progress), max 180 s.
await_running() {
    local i
    for i in $(seq 900); do
        grep -qa -- '---------------------' "$1" && grep -qa 'remote address' "$1" && { run_started=$(date +%s); return 0; }
        sleep 0.2
    done
    return 1
}

# The client's average bandwidth (MB/s) from its BW row, or "-".
bw_of() {
    awk '$1 ~ /^[0-9]+$/ && NF >= 5 && $3 ~ /^[0-9.]+$/ { v = $4 } END { print (v == "" ? "-" : v " MB/s") }' "$1"
}

# The last line jrdma printed on stderr-like output, shortened for the table.
last_line() {
    grep -av '^\s*$' "$1" | tail -n1 | cut -c1-140 | sed 's/|/\\|/g'
}

# want NAME: whether JRDMA_FAULT_ONLY (an extended regex, default: all) selects the scenario.
want() {
    scenario_start=$(date +%s) run_started=
    [[ -z "${JRDMA_FAULT_ONLY:-}" || "$1" =~ ${JRDMA_FAULT_ONLY} ]]
}

# record NAME FAULT EXPECTED PASS(yes/no) OUTCOME TIME VERIFIED THROUGHPUT
record() {
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$results"
    # Where a scenario's time goes (mostly the JVMs' start under TCG): for CI's time budget.
    printf '%-28s %-4s %s (%s) [scenario %s s%s]\n' "$1" "$4" "$5" "$6" $(( $(date +%s) - scenario_start )) \
        "${run_started:+, the run started after $((run_started - scenario_start)) s}"
    # Both sides' whole logs stay in the project for a look from the host.
    mkdir -p "$root/target/fault-suite/logs"
    cp "$work/server.log" "$root/target/fault-suite/logs/${1//[^A-Za-z0-9]/_}.server.log" 2>/dev/null
    cp "$work/client.log" "$root/target/fault-suite/logs/${1//[^A-Za-z0-9]/_}.client.log" 2>/dev/null
    if [ "$4" != yes ]; then
        echo "--- server (node 1)"; cat "$work/server.log" 2>/dev/null | tail -20
        echo "--- client (node 2)"; cat "$work/client.log" 2>/dev/null | tail -20
    fi
}
