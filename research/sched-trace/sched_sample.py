#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Runs a perftest-style client and reports what the scheduler did while it measured.

Usage: sched_sample.py LOG SERVER_PID -- CLIENT_CMD...

Starts the client (stdout and stderr to LOG), snapshots /proc/<pid>/task/<tid>/sched of the
client, the server and the ksoftirqd threads when the client prints its '#bytes' header (both
perftest and jrdma print it just before the measuring loop) and again every 0.25 s until the
client exits, then prints the deltas of the last snapshot: run time, migrations, voluntary and
involuntary context switches per thread, per-CPU softirq counts. Reading files only, no tracing:
the guest kernel needs no debugfs, perf or bpf (only CONFIG_SCHED_DEBUG for the sched files,
which Debian's kernel has).
"""
import os
import subprocess
import sys
import time


def thread_stats(pid):
    out = {}
    try:
        tids = os.listdir(f'/proc/{pid}/task')
    except OSError:
        return out
    for tid in tids:
        base = f'/proc/{pid}/task/{tid}'
        try:
            stat = open(f'{base}/stat').read()
            fields = {}
            for line in open(f'{base}/sched'):
                key, sep, value = line.partition(':')
                if sep:
                    fields[key.strip()] = value.strip()
        except OSError:
            continue
        out[(pid, tid)] = {
            'comm': stat[stat.index('(') + 1:stat.rindex(')')],
            'cpu': int(stat[stat.rindex(')') + 2:].split()[36]),
            'run_ms': float(fields.get('se.sum_exec_runtime', 0)),
            'migrations': int(float(fields.get('se.nr_migrations', 0))),
            'voluntary': int(float(fields.get('nr_voluntary_switches', 0))),
            'involuntary': int(float(fields.get('nr_involuntary_switches', 0))),
        }
    return out


def softirqs():
    out = {}
    for line in open('/proc/softirqs'):
        parts = line.split()
        if parts and parts[0] in ('TASKLET:', 'NET_RX:', 'TIMER:', 'SCHED:'):
            out[parts[0].rstrip(':')] = [int(x) for x in parts[1:]]
    return out


def main():
    if len(sys.argv) < 5 or sys.argv[3] != '--':
        sys.exit('usage: sched_sample.py LOG SERVER_PID -- CLIENT_CMD...')
    log, server = sys.argv[1], int(sys.argv[2])
    ksoftirqd = []
    for p in os.listdir('/proc'):
        if p.isdigit():
            try:
                if open(f'/proc/{p}/comm').read().startswith('ksoftirqd/'):
                    ksoftirqd.append(int(p))
            except OSError:
                pass
    with open(log, 'w') as f:
        client = subprocess.Popen(sys.argv[4:], stdout=f, stderr=subprocess.STDOUT)
    pids = [client.pid, server] + ksoftirqd

    def snapshot():
        threads = {}
        for pid in pids:
            threads.update(thread_stats(pid))
        return time.monotonic(), threads, softirqs()

    first = last = None
    deadline = time.monotonic() + 600
    while client.poll() is None and time.monotonic() < deadline:
        if first is None:
            with open(log) as f:
                if '#bytes' in f.read():
                    first = last = snapshot()
        else:
            last = snapshot()
        time.sleep(0.25)
    if client.poll() is None:
        client.kill()
        print('client still running after 600 s: killed')
    client.wait()
    if first is None:
        print(f'no measurement window: the client printed no #bytes header (exit {client.returncode})')
        return
    print(f'window {last[0] - first[0]:.2f} s (header to last snapshot before exit)')
    rows = []
    for key, b in last[1].items():
        a = first[1].get(key)
        if a is None:
            continue
        d = {k: b[k] - a[k] for k in ('run_ms', 'migrations', 'voluntary', 'involuntary')}
        if d['run_ms'] < 1 and d['voluntary'] + d['involuntary'] == 0:
            continue
        who = 'client' if key[0] == client.pid else 'server' if key[0] == server else 'kernel'
        rows.append((d['run_ms'], who, b['comm'], d, a['cpu'], b['cpu']))
    for run_ms, who, comm, d, cpu_a, cpu_b in sorted(rows, key=lambda r: -r[0]):
        print(f'  {who:6} {comm[:16]:16} run {run_ms:8.1f} ms  migrations {d["migrations"]:5}'
              f'  voluntary {d["voluntary"]:7}  involuntary {d["involuntary"]:7}  cpu{cpu_a}->cpu{cpu_b}')
    for name, b in sorted(last[2].items()):
        print(f'  softirq {name:8} per cpu ' + ' '.join(str(y - x) for x, y in zip(first[2][name], b)))


if __name__ == '__main__':
    main()
