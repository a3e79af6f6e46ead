#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Where the CPU time of one latency iteration goes, from `perf script` dumps of cpu-clock samples.

Usage: cpu_profile.py TEST WINDOW_S HZ RUN...   with RUN = NAME:CLIENT_PID:SERVER_PID:DIR

For each run DIR holds client.log (the perftest-format report), samples.txt (`perf script -F
pid,tid,comm,ip,sym,dso` of `perf record -a -F HZ` over WINDOW_S seconds inside the
measurement). A sample is one 1/HZ s of one CPU; dividing a class's samples by the iterations
in the window (WINDOW_S over the iteration time, from the report's t_avg) gives microseconds of
CPU per iteration. The report's latency is half a round trip for send_lat and write_lat, so one
of their iterations is 2 x t_avg; a read_lat iteration is one t_avg.

Prints, per run, CPU per iteration by class (client measuring thread in the kernel and in user
space, the client's other threads, the same for the server, ksoftirqd, everything else but the
idle task and apart from the profiler: perf and its sleep), then the per-tool means and, for each
other tool (jrdma and the controls) minus perftest, the kernel functions and user objects whose
CPU per iteration differs most.
"""
import collections
import os
import re
import sys

ROW = re.compile(r'^\s*\d+\s+\d+\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)', re.M)
CLASSES = ('client kernel', 'client user', 'client other threads', 'server kernel', 'server user',
           'server other threads', 'ksoftirqd', 'rest', 'profiler')


def parse_samples(path, client, server):
    """Counter of (class, detail) -> samples; detail is a kernel symbol or a user object."""
    per_thread = collections.Counter()
    rows = []
    with open(path, errors='replace') as f:
        for line in f:
            # perf script: "  comm  pid/tid  ip sym (dso)"; comm may contain spaces.
            m = re.match(r'^\s*(.+?)\s+(\d+)/(\d+)\s+([0-9a-f]+)\s+(.*?)\s*\((.*)\)\s*$', line)
            if not m:
                continue
            comm, pid, tid, _ip, sym, dso = m.groups()
            pid, tid = int(pid), int(tid)
            if pid == 0 or comm == 'swapper' or comm.startswith('swapper/'):
                continue
            rows.append((comm, pid, tid, sym, dso))
            per_thread[(pid, tid)] += 1
    # The measuring thread of each side is its busiest thread (for a JVM not the primordial one).
    busiest = {}
    for (pid, tid), n in per_thread.items():
        if pid in (client, server) and n > per_thread.get((pid, busiest.get(pid, -1)), -1):
            busiest[pid] = tid
    counts = collections.Counter()
    for comm, pid, tid, sym, dso in rows:
        kernel = 'kernel.kallsyms' in dso or dso.startswith('[kernel')
        if pid in (client, server):
            side = 'client' if pid == client else 'server'
            if tid != busiest.get(pid):
                cls = side + ' other threads'
            else:
                cls = side + (' kernel' if kernel else ' user')
        elif comm.startswith('ksoftirqd/'):
            cls = 'ksoftirqd'
        elif comm in ('perf', 'perf-exec', 'sleep'):
            cls = 'profiler'
        else:
            cls = 'rest'
        if kernel:
            detail = 'kernel ' + (sym if sym and sym != '[unknown]' else '?')
        else:
            base = os.path.basename(dso) if dso and dso != '[unknown]' else '?'
            if base.startswith('[JIT]') or base.startswith('perf-') or base == '?' or 'anon' in base:
                base = 'JIT code / anonymous memory'
            detail = 'user ' + base
        counts[(cls, detail)] += 1
    return counts


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    test, window, hz = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
    per_iter = 2 if test in ('send_lat', 'write_lat') else 1
    runs = []
    for spec in sys.argv[4:]:
        name, client, server, d = spec.split(':', 3)
        text = open(os.path.join(d, 'client.log'), errors='replace').read()
        m = ROW.search(text[text.find('#bytes'):]) if '#bytes' in text else None
        if not m:
            print(f'{name}: no result row in {d}/client.log; skipped')
            continue
        t_typical, t_avg = float(m.group(3)), float(m.group(4))
        iters = window / (per_iter * t_avg * 1e-6)
        counts = parse_samples(os.path.join(d, 'samples.txt'), int(client), int(server))
        us = {k: v / hz / iters * 1e6 for k, v in counts.items()}
        runs.append((name, t_typical, t_avg, iters, us))
    if not runs:
        sys.exit('no run to report')

    def by_class(us):
        out = collections.Counter()
        for (cls, _), v in us.items():
            out[cls] += v
        return out

    print(f'CPU per iteration [us] ({test}: one iteration = {per_iter} x t_avg; '
          f'{window:g} s of cpu-clock samples at {hz:g} Hz on every CPU)')
    print(f'{"run":24} {"t_typ":>6} {"t_avg":>6} ' + ' '.join(f'{c[:14]:>14}' for c in CLASSES) + f' {"sum*":>7}')
    for name, t_typical, t_avg, _, us in runs:
        c = by_class(us)
        print(f'{name:24} {t_typical:6.2f} {t_avg:6.2f} ' + ' '.join(f'{c[k]:14.2f}' for k in CLASSES)
              + f' {sum(c[k] for k in CLASSES if k != "profiler"):7.2f}')

    print('* sum: all classes but the profiler; a class name is cut to 14 characters')
    tools = collections.OrderedDict()
    for run in runs:
        tools.setdefault(run[0].rsplit('-', 1)[0], []).append(run)

    def mean_us(group):
        keys = set().union(*(r[4].keys() for r in group))
        return {k: sum(r[4].get(k, 0.0) for r in group) / len(group) for k in keys}

    means = {tool: mean_us(group) for tool, group in tools.items()}
    print()
    print('means per tool')
    for tool, group in tools.items():
        c = by_class(means[tool])
        t_avg = sum(r[2] for r in group) / len(group)
        print(f'{tool:24} {"":6} {t_avg:6.2f} ' + ' '.join(f'{c[k]:14.2f}' for k in CLASSES)
              + f' {sum(c[k] for k in CLASSES if k != "profiler"):7.2f}')
    if 'perftest' not in means:
        return
    # Each other tool against plain perftest: jrdma, and the controls (--idle-thread, --idle-jvm).
    c = means['perftest']
    for tool, j in means.items():
        if tool == 'perftest':
            continue
        keys = {k for k in set(c) | set(j) if k[0] != 'profiler'}
        diff = sorted(keys, key=lambda k: j.get(k, 0.0) - c.get(k, 0.0), reverse=True)
        print()
        print(f'{tool} - perftest, CPU per iteration [us], largest differences (class, kernel function or user object)')
        shown = [k for k in diff[:15]] + [k for k in diff[-5:] if k not in diff[:15]]
        for k in shown:
            print(f'  {j.get(k, 0.0) - c.get(k, 0.0):+7.3f}  perftest {c.get(k, 0.0):6.3f}  {tool} {j.get(k, 0.0):6.3f}'
                  f'  {k[0]}: {k[1]}')


if __name__ == '__main__':
    main()
