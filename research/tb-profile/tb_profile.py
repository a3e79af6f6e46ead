# SPDX-License-Identifier: Apache-2.0
"""User-mode instructions per iteration for research/tb-profile/tb-profile.

Usage: tb_profile.py LOG_DIR                      the table of every run and the medians per tool
       tb_profile.py LOG_DIR --disassemble RUN REGEX
                                                  the executed blocks of RUN whose symbol matches
                                                  REGEX, disassembled, with executions per iteration

For every run NAME (TEST-TOOL-ROUND) in LOG_DIR/windows it reads the plugin's dump that closes the
run's window (tb.N, research/tcg-plugins/tcg_tbprof.c), NAME.maps (the client's /proc/PID/maps in the window)
and, for jrdma, NAME.perfmap (the JVM's map of its JIT code, -XX:+DumpPerfMapAtExit). Only CPU 0
counts: the client's measuring thread is bound there, the perftest server to CPU 1. An address is
named by the JIT map first, then by the mapping's file and its nearest symbol (nm; stripped
libraries such as the provider only by their name). Iterations are the window's write(2) system
calls from libc on CPU 0: one doorbell per post_send.
"""
import bisect
import collections
import os
import re
import statistics
import subprocess
import sys
import tempfile

_symbols = {}


def symbols(path):
    """Sorted (address, name) of the functions in an ELF file, and its PT_LOAD segments."""
    if path not in _symbols:
        table = []
        for extra in ([], ["-D"]):
            out = subprocess.run(["nm", "-n", "-C", "--defined-only"] + extra + [path],
                                 capture_output=True, text=True).stdout
            for line in out.splitlines():
                parts = line.split(None, 2)
                if len(parts) == 3 and parts[1] in "tTwWiI":
                    table.append((int(parts[0], 16), parts[2]))
        table.sort()
        loads = []
        out = subprocess.run(["readelf", "-lW", path], capture_output=True, text=True).stdout
        for line in out.splitlines():
            parts = line.split()
            if parts and parts[0] == "LOAD":
                loads.append((int(parts[1], 16), int(parts[2], 16), int(parts[4], 16)))
        _symbols[path] = (table, [a for a, _ in table], loads)
    return _symbols[path]


def symbol(path, offset):
    table, keys, loads = symbols(path)
    vaddr = offset
    for file_off, seg_vaddr, size in loads:
        if file_off <= offset < file_off + size:
            vaddr = offset - file_off + seg_vaddr
            break
    i = bisect.bisect_right(keys, vaddr) - 1
    return table[i][1] if i >= 0 else "?"


# The first bytes of bindings' ExtendedPostTrampoline (its first translation block).
TRAMPOLINE = "534889fb488b3bff5308"


class Run:
    def __init__(self, logs, name, dump):
        self.name = name
        self.maps = []
        with open(os.path.join(logs, name + ".maps")) as f:
            for line in f:
                p = line.split()
                lo, hi = (int(x, 16) for x in p[0].split("-"))
                self.maps.append((lo, hi, int(p[2], 16), p[5] if len(p) > 5 else ""))
        self.jit = []
        jit_path = os.path.join(logs, name + ".perfmap")
        if os.path.exists(jit_path):
            with open(jit_path) as f:
                for line in f:
                    p = line.rstrip("\n").split(" ", 2)
                    self.jit.append((int(p[0], 16), int(p[1], 16), re.sub(r"\s+", " ", p[2])))
        self.jit.sort()
        self.jit_keys = [j[0] for j in self.jit]
        self.blocks = []   # (vaddr, insns, syscall, execs on CPU 0, bytes)
        self.kernel = 0
        with open(os.path.join(logs, "tb.%d" % dump)) as f:
            last = None
            for line in f:
                p = line.split()
                if p[0] == "K":
                    self.kernel = int(p[1])
                elif p[0] == "B":
                    if last is not None:
                        self.blocks.append(last + (p[1] if len(p) > 1 else "",))
                    last = None
                else:
                    execs = int(p[4])
                    last = (int(p[1], 16), int(p[2]), p[3] == "1", execs) if execs else None
        # jrdma's post clock (tools' PostClock): rdtsc in an anonymous page of its own, which the
        # JIT map does not list. Name the client's anonymous mappings that hold a block starting
        # with rdtsc (0f 31), so that it counts as the clock, as perftest's inline rdtsc counts.
        # Likewise the extended post's one-call routine (bindings' ExtendedPostTrampoline: push
        # %rbx; mov %rdi,%rbx; mov (%rbx),%rdi; call *8(%rbx)), counted as jrdma's own. Both are
        # named per page, not per mapping: the kernel merges the two adjacent read-only
        # executable anonymous pages into one mapping (seen 2026-11-28: the routine's 29
        # instructions per send_lat_ext iteration were named rdtsc).
        self.counters = set()
        self.trampolines = set()
        for vaddr, _, _, _, code in self.blocks:
            kind = self.counters if code.lower().startswith("0f31") else \
                self.trampolines if code.lower().startswith(TRAMPOLINE) else None
            if kind is not None:
                for lo, hi, _, path in self.maps:
                    if lo <= vaddr < hi and not path:
                        kind.add(vaddr >> 12)
        self.iterations = sum(b[3] for b in self.blocks if b[2] and self.where(b[0])[1].startswith("write"))
        with open(os.path.join(logs, name + ".client.log")) as f:
            m = re.search(r"^\s*2\s+\d+\s+[\d.]+\s+[\d.]+\s+([\d.]+)", f.read(), re.M)
        self.reported = float(m.group(1)) if m else None   # t_typical [us], or MsgRate [Mpps] for write_bw

    def where(self, vaddr):
        """(component, symbol) of a user address of the client."""
        i = bisect.bisect_right(self.jit_keys, vaddr) - 1
        if i >= 0 and vaddr < self.jit[i][0] + self.jit[i][1]:
            return "JIT", self.jit[i][2]
        for lo, hi, off, path in self.maps:
            if lo <= vaddr < hi:
                if path.startswith("/"):
                    return os.path.basename(path), symbol(path, vaddr - lo + off)
                if not path and vaddr >> 12 in self.counters:
                    return "[cycle counter]", "rdtsc (jrdma's PostClock)"
                if not path and vaddr >> 12 in self.trampolines:
                    return "[extended post]", "jrdma's one-call ibv_wr_* post (ExtendedPostTrampoline)"
                return path or "anonymous", path or "anonymous"
        return "unmapped", "?"

    def per_symbol(self):
        counts = collections.Counter()
        for vaddr, insns, _, execs, _ in self.blocks:
            counts[self.where(vaddr)] += insns * execs
        return counts


def category(component, name):
    """The classes of the summary: what a C tool also runs, and what the JVM adds."""
    if component == "JIT":
        if name in ("nep_invoker_blob",) or "linkToNative" in name:
            return "FFM downcall stubs"
        if name.startswith("Interpreter") or "adapters" in name:
            return "interpreter, adapters"
        return "JIT-compiled Java"
    if component in ("[vdso]", "[cycle counter]") or name.startswith("clock_gettime") or "javaTimeNanos" in name:
        return "clock (vDSO, clock_gettime, os::javaTimeNanos; rdtsc)"
    if component == "[extended post]":
        return "jrdma machine code (the one-call extended post)"
    if component.startswith("libc."):
        return "libc"
    if component.startswith("lib") and "rdmav" in component:
        return "provider (" + component + ")"
    if component.startswith("libjvm"):
        return "libjvm"
    if component.startswith("ib_"):
        return "perftest"
    return "other (" + component + ")"


def summary(logs):
    windows = []
    with open(os.path.join(logs, "windows")) as f:
        for line in f:
            name, dump = line.split()
            windows.append((name, int(dump)))
    by_tool = collections.defaultdict(list)
    for name, dump in windows:
        try:
            run = Run(logs, name, dump)
        except FileNotFoundError as e:
            print("%s: missing %s" % (name, e.filename))
            continue
        if run.iterations == 0:
            print("%s: no iterations in the window" % name)
            continue
        n = run.iterations
        syms = run.per_symbol()
        cats = collections.Counter()
        for (component, name_), v in syms.items():
            cats[category(component, name_)] += v
        total = sum(syms.values())
        print("== %s: %d iterations in the window, reported %s (%s); per iteration on CPU 0: %.0f user "
              "and %.0f kernel instructions" % (name, n, run.reported, "Mpps" if "_bw-" in name else "t_typical, us",
                                                 total / n, run.kernel / n))
        for c, v in cats.most_common():
            if v / n >= 0.5:
                print("   %9.1f  %s" % (v / n, c))
        print("   top symbols:")
        for (component, name_), v in syms.most_common(14):
            print("   %9.1f  %-26.26s %s" % (v / n, component, name_[:100]))
        test, tool, _ = name.rsplit("-", 2)
        by_tool[(test, tool)].append((total / n, run.kernel / n, {c: v / n for c, v in cats.items()}))
    print()
    print("Medians per test and tool, instructions per iteration on the client's CPU:")
    for (test, tool), rows in sorted(by_tool.items()):
        names = sorted({c for r in rows for c in r[2]})
        parts = ", ".join("%s %.0f" % (c, statistics.median(r[2].get(c, 0) for r in rows)) for c in names
                          if statistics.median(r[2].get(c, 0) for r in rows) >= 0.5)
        print("  %s %s (%d runs): user %.0f, kernel %.0f; %s" % (
            test, "perftest" if tool == "C" else "jrdma", len(rows), statistics.median(r[0] for r in rows),
            statistics.median(r[1] for r in rows), parts))


def disassemble(logs, name, pattern):
    dump = None
    with open(os.path.join(logs, "windows")) as f:
        for line in f:
            n, d = line.split()
            if n == name:
                dump = int(d)
    if dump is None:
        sys.exit("no run %s in %s/windows" % (name, logs))
    run = Run(logs, name, dump)
    hot = collections.defaultdict(lambda: [0, 0, ""])
    for vaddr, insns, _, execs, code in run.blocks:
        component, name_ = run.where(vaddr)
        if re.search(pattern, component + " " + name_):
            h = hot[vaddr]
            h[0] += execs
            h[1] = insns
            h[2] = code
    print("%s: %d iterations; blocks matching %r:" % (name, run.iterations, pattern))
    for vaddr in sorted(hot):
        execs, insns, code = hot[vaddr]
        print("--- %#x  %s: %d instructions x %.2f per iteration" % (vaddr, run.where(vaddr)[1][:80], insns,
                                                                      execs / max(run.iterations, 1)))
        with tempfile.NamedTemporaryFile(suffix=".bin") as tf:
            tf.write(bytes.fromhex(code))
            tf.flush()
            out = subprocess.run(["objdump", "-D", "-b", "binary", "-m", "i386:x86-64",
                                  "--adjust-vma=%#x" % vaddr, tf.name], capture_output=True, text=True).stdout
        for line in out.splitlines():
            if re.match(r"\s+[0-9a-f]+:\t", line):
                print("   ", line.strip())


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[2] == "--disassemble":
        disassemble(sys.argv[1], sys.argv[3], sys.argv[4])
    elif len(sys.argv) == 2:
        summary(sys.argv[1])
    else:
        sys.exit(__doc__)
