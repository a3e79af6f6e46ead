# shellcheck shell=bash
# The two-node testbed of scripts/softroce --nodes 2 (sourced by it; uses its qemu_node,
# command_output, $run; run_two_nodes runs once per boot, each in a fresh $run).
#
# Two VMs, 1 vCPU each, and two emulated Ethernet links between them, each a pair of unix
# datagram sockets in the run directory (qemu's -netdev dgram): nothing reaches the host's
# network stack. Link "wire" carries the RDMA traffic (rxe0 on each end, 10.200.1.N) and is
# the one faults are injected on; link "ctl" (10.201.1.N) carries only scripts/node's
# commands, so that `ip link set $JRDMA_WIRE_IF down` or netem loss never cut the testbed's
# own control. A second link is the simplest control channel that works guest to guest:
# virtio-vsock only reaches the host (a guest-to-guest path would need a relay process on the
# host), and a virtio-serial port per node would need one too.
# Datagram sockets, not -netdev stream: either side may start, stop or be powered off first
# (a stream link needs its server up before the client starts and qemu 7.2 cannot reconnect).
# romfile= drops the NICs' iPXE boot ROMs, which the direct kernel boot never uses.
# MACs 52:54:00:12:0L:0N (L = 0 wire, 1 control; N = node) let the guest find its interfaces.
# SPDX-License-Identifier: Apache-2.0

# node_links N: qemu arguments for node N's two links.
node_links() {
    local n=$1 other=$((3 - $1)) link l
    for l in 0 1; do
        link=$([ $l = 0 ] && echo wire || echo ctl)
        printf '%s\n' -netdev "dgram,id=$link,local.type=unix,local.path=$run/$link$n.sock,remote.type=unix,remote.path=$run/$link$other.sock" \
            -device "virtio-net-pci,netdev=$link,mac=52:54:00:12:0$l:0$n,romfile="
    done
}

# Runs both nodes; COMMAND's console output on stdout; sets qemu_rc (node 1's qemu status).
run_two_nodes() {
    local node2_pid links1 links2
    mapfile -t links1 < <(node_links 1)
    mapfile -t links2 < <(node_links 2)
    # Node 2 boots again after a power-off (scripts/node 2 --poweroff) for as long as node 1
    # runs, so that a suite can power it off in more than one scenario: like a machine that
    # reboots. Its wire socket is removed first, qemu binds it anew.
    # A power-off the guest's kernel does not finish within 5 s (its agent leaves node2.poweroff
    # in the run directory first) ends with qemu killed: the plug pulled.
    (
        while :; do
            rm -f "$run/wire2.sock" "$run/ctl2.sock" "$run/node2.poweroff"
            qemu_node jrdma-node2 1 " jrdma_node=2" "${links2[@]}" >>"$run/node2.log" &
            local q=$! waited=0
            while kill -0 "$q" 2>/dev/null; do
                if [ -e "$run/node2.poweroff" ]; then
                    waited=$((waited + 1))
                    if [ "$waited" = 10 ]; then
                        echo "=== node 2 did not power off within 5 s: its qemu is killed" >>"$run/node2.log"
                        pkill -KILL -f "jrdma_run=$run jrdma_node=2" 2>/dev/null
                    fi
                fi
                sleep 0.5
            done
            wait "$q"
            [ ! -e "$run/node1.done" ] || break
            sleep 1
            [ ! -e "$run/node1.done" ] || break
            echo "=== node 2 boots again" >>"$run/node2.log"
        done
    ) &
    node2_pid=$!
    qemu_node jrdma-node1 1 " jrdma_node=1" "${links1[@]}" | command_output
    qemu_rc=${PIPESTATUS[0]}
    touch "$run/node1.done"
    # Node 2 runs until powered off; node 1 is done, so stop it. Its qemu (and the timeout
    # above it) are found by this run's own kernel arguments, not by other testbeds' qemu.
    if kill -0 "$node2_pid" 2>/dev/null; then
        pkill -TERM -f "jrdma_run=$run jrdma_node=2" 2>/dev/null
        sleep 0.2
        pkill -TERM -f "jrdma_run=$run jrdma_node=2" 2>/dev/null
    fi
    wait "$node2_pid" 2>/dev/null
    report_node2_boot_deaths
    local up
    up=$(grep -ao 'JRDMA-NODES-UP [0-9.]*' "$log" | cut -d' ' -f2)
    [ -z "$up" ] || say "both nodes up ${up} s after node 1's kernel started"
    return 0
}

# Node 2's boots that ended before its agent listened (a kernel panic at boot, like
# research/notes/2026-11-27-boot-panic.md), which the loop above booted again: said on stderr
# with the first one's console, so that a flake absorbed here still shows in the log. The last
# boot is left out: node 1 finishing stops it wherever it is.
report_node2_boot_deaths() {
    local deaths first=$run/node2-first-death.log
    deaths=$(tr -d '\r' <"$run/node2.log" | awk -v first="$first" '
        /^=== node 2 boots again$/ { if (!up && n++ == 0) printf "%s", seg >first; seg = ""; up = 0; next }
        /node-agent: listening/ { up = 1 }
        { seg = seg $0 "\n" }
        END { print n + 0 }')
    [ "$deaths" != 0 ] || return 0
    say "node 2 died during boot $deaths time(s) and was booted again; the first of those boots' console follows"
    sed 's/^/  2| /' "$first" >&2
}
