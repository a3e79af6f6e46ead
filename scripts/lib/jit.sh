# shellcheck shell=bash
# Sourced by the jrdma launchers (scripts/jrdma, and bin/jrdma of the .deb and the tarball).
#
# Under qemu TCG (full emulation: the Soft-RoCE VM of scripts/softroce, CI), two JIT settings
# (research/notes/2026-11-25-jit-under-emulation.md):
# - no tiered compilation: JDK 25's tiered JIT crashes now and then under TCG (hs_err: SIGSEGV or
#   SIGILL at +0x20 of a c1 method). Making a C1 method not entrant patches a jump into its entry
#   while another vCPU runs it, and TCG can translate the half-patched bytes; JDK 26 no longer
#   patches entries (JDK-8358821). Without tiers only C2 replaces interpreted code: 0 crashes in
#   16 JVMs against 5 in 16 with tiers, in one boot.
# - PerMethodTrapLimit=0: C2 then compiles a branch the warm-up never took instead of a trap that
#   deoptimizes the measurement into the interpreter until C2 compiles again (~0.5 s under TCG,
#   a few ms on hardware), e.g. send-lat's re-posting of receives, which its warm-up avoids.
# Prints the options, or nothing on other machines or when JRDMA_JAVA_OPTS sets the JIT itself.
# SPDX-License-Identifier: Apache-2.0
jrdma_jit_opts() {
    case "${JRDMA_JAVA_OPTS:-}" in
        *TieredCompilation*|*TieredStopAtLevel*|*TrapLimit*) ;;
        *) if grep -qs "QEMU TCG" /proc/cpuinfo; then echo "-XX:-TieredCompilation -XX:PerMethodTrapLimit=0"; fi ;;
    esac
}

# The CLI's data path, inlined into its measurement loops by name (every machine, with or without
# tiers): the busy-poll of one completion (Completions.spin), the prepared poll under it, the
# prepared posts. (The poll's status read needs no name: it reads through a constant segment, whose
# calls C2 binds and inlines without a profile; research/notes/2026-11-27-status-read.md.) C2 does not inline a
# callee it has already compiled on its own into more than InlineSmallCode bytes ("already
# compiled into a big method": 1000 without tiers, as under TCG above, 2500 with them), and these
# methods are hot, so compiled on their own long before the loop that calls them is: the poll
# loop compiled to ~2,800 bytes, the prepared posts to ~1,050-1,300. Called out of line, each
# costs a call and C2's spills of every live value around it (C2 keeps no register across a
# call): 389 of send_lat's 622 instructions per iteration under perf-gate's count (2026-11-26)
# ran in methods called out of line (research/notes/2026-11-27-latency-loops-inlined.md). The
# bandwidth loop's cq-mod flag (SendPoster$Prepared::signaled and PreparedSend::signaled under it)
# lost the same lottery in 3 of 6 perf-gate runs of 2026-11-27 ("already compiled into a big
# method"), 15 more instructions per write_bw message when it did. The prepared requests' shared
# guard (PostGuard::post, 2026-11-28) is called from three posts, each with its own Inside:
# compiled on its own, its inside.post call is megamorphic, and perf-gate's profile of send_lat
# found it out of line at 111 instructions per iteration; it and the posts' insides are named
# too; so are the extended post's signalled flag and its one-call routine's downcall (issue 47).
# A CompileCommand changes only that
# decision: the code and every check in it are the same. "quiet" first: HotSpot would print each
# command on stdout.
jrdma_inline_opts() {
    local m opts="-XX:CompileCommand=quiet"
    for m in dev.jrdma.tools.runner.Completions::spin dev.jrdma.PreparedPoll::poll \
             dev.jrdma.tools.runner.SendPoster\$Prepared::post dev.jrdma.PreparedSend::post dev.jrdma.PreparedReceive::post \
             dev.jrdma.tools.runner.SendPoster\$Prepared::signaled dev.jrdma.PreparedSend::signaled \
             dev.jrdma.PostGuard::post dev.jrdma.PreparedSend::postInside dev.jrdma.PreparedReceive::postInside \
             dev.jrdma.PreparedExtendedSend::post dev.jrdma.PreparedExtendedSend::postInside \
             dev.jrdma.PreparedExtendedSend::signaled dev.jrdma.ExtendedPostRequest::flags \
             dev.jrdma.bindings.shim.ExtendedPostTrampoline::post; do
        opts+=" -XX:CompileCommand=inline,$m"
    done
    echo "$opts"
}

# The JVM's own timers off the measuring CPU's critical path (every launcher, every machine).
# HotSpot's monitor deflation thread wakes every 250 ms (AsyncDeflationInterval) and at every
# GuaranteedSafepointInterval (1 s) to ask whether idle monitors need deflating, and now and then
# deflates them and handshakes every thread. A latency test pins its thread to one CPU and
# busy-polls; when the wake-up lands there, its instructions (in libjvm, the vDSO's clock) and its
# handshake are paid by the iteration that waits, and more the slower the iterations: under
# perf-gate, 4-8 instructions per send_lat_ext iteration, the "libjvm handshakes" of
# research/notes/2026-11-28-send-queue-owner.md. Both intervals 0 leave the guaranteed deflation
# every 60 s (GuaranteedAsyncDeflationInterval), which keeps idle monitors in check in a long
# run; no safepoint is needed for anything else periodically (a GC or a deoptimization still
# brings its own). Diagnostic flags, hence the unlock; documented in docs/performance.md.
# Diagnostic flags may change or go in any release, and a JVM refuses a flag it does not know
# (exit 1, "Unrecognized VM option"), so they are given only to a runtime known to take them:
# feature release 25, checked with -XX:+PrintFlagsFinal on Temurin 25.0.3; any other runtime is
# asked once per launch (java FLAGS -version, one extra JVM start) and, where it refuses them,
# runs without them after a one-line note. Needs JAVA_HOME (jrdma_find_java) and jdk.sh.
jrdma_quiet_opts() {
    local flags="-XX:+UnlockDiagnosticVMOptions -XX:AsyncDeflationInterval=0 -XX:GuaranteedSafepointInterval=0"
    # shellcheck disable=SC2086 # a list of options
    if [ "$(jrdma_java_feature "$JAVA_HOME")" = 25 ] || "$JAVA_HOME/bin/java" $flags -version >/dev/null 2>&1; then
        echo "$flags"
    else
        echo "jrdma: note: the Java runtime at $JAVA_HOME refuses $flags; running without them (the JVM's periodic wake-ups stay on; docs/performance.md)" >&2
    fi
}

# The JDK_JAVA_OPTIONS of the Soft-RoCE VM (scripts/vm/guest-stage), which every `java` launcher
# in the guest reads, whatever program it runs (a user's own too): "-XX:TieredStopAtLevel=1",
# C1 only, then the caller's own JDK_JAVA_OPTIONS (passed in by scripts/softroce; later wins).
# C1 only rather than the measuring launchers' -XX:-TieredCompilation above: it avoids the crash
# as well (no tier ever replaces C1 code), and it composes with every launcher. HotSpot ignores
# TieredStopAtLevel once tiers are off, whatever the order, so -XX:-TieredCompilation in the
# environment would silently turn the launchers that choose C1 (scripts/device-tests,
# test-support's Jvm.program, examples/run, the fault suite) into C2 only. With C1 in the
# environment, a command line's -XX:-TieredCompilation (scripts/jrdma under TCG) still wins,
# and -XX:TieredStopAtLevel=4 brings the tiers back (measured with -XX:+PrintFlagsFinal and
# -XX:+CIPrintCompilerName on Temurin 25). The launcher notes it on stderr: "NOTE: Picked up
# JDK_JAVA_OPTIONS: -XX:TieredStopAtLevel=1".
jrdma_vm_java_options() {
    echo "-XX:TieredStopAtLevel=1${JDK_JAVA_OPTIONS:+ $JDK_JAVA_OPTIONS}"
}
