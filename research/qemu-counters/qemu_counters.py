# SPDX-License-Identifier: Apache-2.0
"""Per-read counts for research/qemu-counters/qemu-counters.

Usage: qemu_counters.py LOG_DIR PAIRING...

For every run NAME (PAIRING-ROUND) in LOG_DIR it reads NAME.result (t_typical, t_avg of the
client's report), NAME.icount0/1 (the TCG plugin's running totals at the window's start and
end, research/tcg-plugins/tcg_icount.c) and NAME.stat (perf stat of the uprobes over the window, absent
with --no-uprobes). The reads in the window are the client's system calls there (one doorbell
write(2) per read), counted by the plugin: the uprobes slow the VM down several times while
they are armed, so the run's own t_avg would overstate them.
"""
import os
import statistics
import sys

COLUMNS = [
    ("t_typ", "t_typical [us]"),
    ("t_avg", "t_avg [us]"),
    ("reads_s", "reads per second in the window [thousands]"),
    ("k_insn", "guest kernel instructions per read"),
    ("u_insn", "guest user instructions per read (busy-polling included)"),
    ("k_tb", "guest kernel translation blocks executed per read"),
    ("k_mips", "guest kernel instructions per second of the window, both vCPUs [millions]"),
    ("tb_miss", "translation-block hash lookups (jump cache missed) per read"),
    ("tlb_fill", "software-TLB fills per read"),
    ("cr3_k", "address-space switches (each a full TLB and jump-cache flush) per 1,000 reads"),
]


def icount(path):
    with open(path) as f:
        fields = f.read().split()
    t, v = float(fields[0]), [int(x) for x in fields[1:]]
    # per vCPU: kernel insns, user insns, kernel TBs, user TBs, user syscalls; then TBs translated
    return t, [v[i] + v[i + 5] for i in range(5)]


def uprobes(path):
    counts = {}
    with open(path) as f:
        for line in f:
            parts = line.strip().split(",")
            if len(parts) > 2 and parts[2].startswith("jrdma_qemu:"):
                counts[parts[2].split(":", 1)[1]] = int(parts[0]) if parts[0].isdigit() else None
    return counts


def run(logs, name):
    def p(ext):
        return os.path.join(logs, name + ext)

    if not all(os.path.exists(p(e)) for e in (".result", ".icount0", ".icount1")):
        return None
    with open(p(".result")) as f:
        r = f.read().split()
    if len(r) != 2:
        return None
    t_typ, t_avg = float(r[0]), float(r[1])
    t0, a = icount(p(".icount0"))
    t1, b = icount(p(".icount1"))
    window = t1 - t0
    k, u, ktb, _, reads = (y - x for x, y in zip(a, b))
    if window <= 0 or reads <= 0:
        return None
    r = {
        "t_typ": t_typ, "t_avg": t_avg, "reads_s": reads / window / 1e3,
        "k_insn": k / reads, "u_insn": u / reads, "k_tb": ktb / reads, "k_mips": k / window / 1e6,
        "tb_miss": None, "tlb_fill": None, "cr3_k": None,
    }
    if os.path.exists(p(".stat")):
        c = uprobes(p(".stat"))
        if any(c.get(x) is None for x in ("tb_lookup_miss", "tlb_fill", "cr3_write")):
            return None
        r.update(tb_miss=c["tb_lookup_miss"] / reads, tlb_fill=c["tlb_fill"] / reads,
                 cr3_k=c["cr3_write"] / reads * 1e3)
    return r


def fmt(x):
    return f"{x:>10.1f}" if x is not None else f"{'-':>10}"


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def main():
    logs, pairings = sys.argv[1], sys.argv[2:]
    names = sorted({f[: -len(".result")] for f in os.listdir(logs) if f.endswith(".result")},
                   key=lambda n: (int(n.rsplit("-", 1)[1]), pairings.index(n.rsplit("-", 1)[0])))
    rows = {}
    print("# columns: " + "; ".join(f"{k} = {d}" for k, d in COLUMNS))
    print(f"{'run':<16}" + "".join(f"{k:>10}" for k, _ in COLUMNS))
    for n in names:
        r = run(logs, n)
        if r is None:
            print(f"{n:<16}  (incomplete: see {logs})")
            continue
        rows.setdefault(n.rsplit("-", 1)[0], []).append(r)
        print(f"{n:<16}" + "".join(fmt(r[k]) for k, _ in COLUMNS))
    print()
    print("medians")
    print(f"{'pairing':<16}" + "".join(f"{k:>10}" for k, _ in COLUMNS) + "   runs")
    for pairing in pairings:
        rs = rows.get(pairing, [])
        if rs:
            print(f"{pairing:<16}" + "".join(fmt(median(r[k] for r in rs)) for k, _ in COLUMNS)
                  + f"   {len(rs)}")


if __name__ == "__main__":
    main()
