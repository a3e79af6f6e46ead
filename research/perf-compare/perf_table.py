# SPDX-License-Identifier: Apache-2.0
"""Medians and jrdma/perftest ratios from scripts/perf-compare's results file, as Markdown.

Results lines: "ROUND IMPL TEST SIZE METRIC VALUE" (or "... FAILED"); "# key value" header lines.

A target's verdict comes from the rounds, not from the two medians: in one round the two tools
run the same test back to back, so their ratio cancels what drifts between rounds (the host's
load, the boot). The median of those per-round ratios gets a distribution-free confidence
interval (order statistics of a binomial(n, 1/2), no assumption on the noise's shape); a target
is met or missed only when the whole interval is on one side of it, and undecided otherwise.
"""
import math
import statistics
import sys

CONFIDENCE = 0.90

results, invocation, kernel_args = sys.argv[1], sys.argv[2], sys.argv[3]
meta, retries, failed = {}, [], []
values = {}
by_round = {}
order = []
for line in open(results):
    line = line.strip()
    if not line:
        continue
    if line.startswith('# retry'):
        retries.append(line[2:])
        continue
    if line.startswith('#'):
        key, _, value = line[2:].partition(' ')
        meta[key] = value
        continue
    parts = line.split()
    if parts[-1] == 'FAILED':
        failed.append(' '.join(parts[:4]))
        continue
    rnd, impl, test, size, metric, value = parts
    key = (test, int(size), metric)
    if key not in order:
        order.append(key)
    values.setdefault(key, {}).setdefault(impl, []).append(float(value))
    by_round.setdefault(key, {}).setdefault(impl, {})[rnd] = float(value)

LABEL = {'t_typical': 't_typical [us]', 'bw_avg': 'BW average [MB/s]', 'msg_rate': 'MsgRate [Mpps]',
         'wall': 'command to report [s]'}
LOWER_IS_BETTER = {'t_typical', 'wall'}
TARGET = {('t_typical', None): ('<=', 1.05), ('bw_avg', 65536): ('>=', 0.95), ('msg_rate', 2): ('>=', 0.90)}


def median_interval(ratios):
    """(low, high, coverage) of the median of `ratios`: the k-th smallest and k-th largest, with
    the largest k whose coverage 1 - 2 P(Binomial(n, 1/2) < k) is still >= CONFIDENCE; None when
    even the extremes (k = 1) cover less, i.e. fewer than 5 rounds."""
    n = len(ratios)
    best = None
    for k in range(1, n // 2 + 1):
        tail = sum(math.comb(n, i) for i in range(k)) / 2 ** n
        coverage = 1 - 2 * tail
        if coverage < CONFIDENCE:
            break
        best = (k, coverage)
    if best is None:
        return None
    k, coverage = best
    r = sorted(ratios)
    return r[k - 1], r[n - k], coverage


def verdict(t, interval):
    """'yes' when the whole interval meets the target, '**no**' when none of it does."""
    if not t:
        return ''
    if interval is None:
        return 'undecided (< 5 rounds)'
    low, high, _ = interval
    op, bound = t
    if (high <= bound) if op == '<=' else (low >= bound):
        return 'yes'
    if (low > bound) if op == '<=' else (high < bound):
        return '**no**'
    return 'undecided'


def value_format(metric):
    """Message rates with 3 significant digits: 64 KiB runs are ~0.0008 Mpps, 2 B runs ~0.05."""
    if metric == 'msg_rate':
        return lambda x: '-' if x is None else f'{x:#.3g}'
    return lambda x: '-' if x is None else f'{x:.2f}'


def target(test, size, metric):
    if metric == 't_typical':
        return TARGET[('t_typical', None)]
    if test == 'write_bw':
        return TARGET.get((metric, size))
    return None


print(f"Measured {meta.get('date', '?')} with `{invocation}`"
      + (f" (guest kernel arguments `{kernel_args}`)" if kernel_args else '') + '.')
print(f"VM: {meta.get('cpus', '?')} vCPUs, qemu TCG (no KVM), guest clocksource {meta.get('clocksource', '?')}; "
      f"{meta.get('perftest', 'perftest ?')}; {meta.get('java', 'java ?')}.")
if 'pinning' in meta:
    print(f"Measuring threads bound: {meta['pinning']}"
          + (" (perftest under `taskset -c`, jrdma with `--pin-cpu`)." if meta['pinning'] != 'none' else "."))
if meta.get('aslr') == 'off':
    print("Address-space randomization off: both tools under `setarch -R`.")
print()
print('| test | size [B] | metric | perftest median | jrdma median | jrdma/perftest | per-round ratio, median '
      '[interval] | jrdma ahead | runs (C, J) | target | met |')
print('| --- | ---: | --- | ---: | ---: | ---: | --- | ---: | --- | --- | --- |')
coverages = set()
for key in order:
    test, size, metric = key
    v = values[key]
    c, j = v.get('perftest', []), v.get('jrdma', [])
    cm = statistics.median(c) if c else None
    jm = statistics.median(j) if j else None
    ratio = jm / cm if cm and jm is not None else None
    rc, rj = by_round[key].get('perftest', {}), by_round[key].get('jrdma', {})
    paired = [rj[r] / rc[r] for r in rc if r in rj and rc[r]]
    lower_is_better = metric in LOWER_IS_BETTER
    ahead = sum(1 for r in rc if r in rj and (rj[r] < rc[r] if lower_is_better else rj[r] > rc[r]))
    interval = median_interval(paired)
    if interval:
        coverages.add((len(paired), interval[2]))
    t = target(test, size, metric)
    fmt = value_format(metric)
    cell = '-' if not paired else f'{statistics.median(paired):.2f}' + \
        (f' [{interval[0]:.2f}, {interval[1]:.2f}]' if interval else '')
    print(f"| {test} | {size} | {LABEL[metric]} | {fmt(cm)} | {fmt(jm)} | "
          f"{'-' if ratio is None else f'{ratio:.2f}'} | {cell} | {ahead} of {len(paired)} | {len(c)}, {len(j)} | "
          f"{'' if not t else t[0] + ' ' + str(t[1])} | {verdict(t, interval)} |")
print()
print('"per-round ratio": jrdma/perftest within each round, where the two ran back to back; its median and a '
      'distribution-free confidence interval of that median ('
      + ', '.join(f'{cov:.1%} for {n} rounds' for n, cov in sorted(coverages))
      + (', ' if coverages else '') + f'at least {CONFIDENCE:.0%}; none below 5 rounds). '
      '"met" is yes or **no** only when the whole interval is on one side of the target. '
      '"jrdma ahead": rounds in which jrdma had the lower latency or the higher rate.')
MIXED = [('jrdma-client', 'perftest server, jrdma client'), ('jrdma-server', 'jrdma server, perftest client')]
if any(impl in values[key] for key in order for impl, _ in MIXED):
    print()
    print('Mixed pairs (`--mixed`): each tool against the other on the wire, medians and their ratio '
          'to perftest against perftest; the report is the client\'s.')
    print()
    print('| test | size [B] | metric | perftest median | '
          + ' | '.join(f'{label} | /perftest' for _, label in MIXED) + ' | jrdma both sides | /perftest |')
    print('| --- | ---: | --- | ---: |' + ' ---: | ---: |' * (len(MIXED) + 1))
    for key in order:
        test, size, metric = key
        v = values[key]
        cm = statistics.median(v['perftest']) if v.get('perftest') else None
        fmt = value_format(metric)
        cells = []
        for impl in [i for i, _ in MIXED] + ['jrdma']:
            m = statistics.median(v[impl]) if v.get(impl) else None
            cells.append(fmt(m))
            cells.append('-' if m is None or not cm else f'{m / cm:.2f}')
        print(f"| {test} | {size} | {LABEL[metric]} | {fmt(cm)} | " + ' | '.join(cells) + ' |')
PEERS = [('jucx', 'JUCX')]
if any(impl in values[key] for key in order for impl, _ in PEERS):
    print()
    print(f"Other Java RDMA libraries on the same device, in the same rounds ({meta.get('jucx', '?')}; "
          'research/jucx-peer): medians, and the per-round ratio to perftest with its interval as above.')
    print()
    print('| test | size [B] | metric | perftest median | jrdma median | jrdma/perftest | '
          + ' | '.join(f'{label} median | {label}/perftest per round [interval]' for _, label in PEERS) + ' |')
    print('| --- | ---: | --- | ---: | ---: | ---: |' + ' ---: | --- |' * len(PEERS))
    for key in order:
        test, size, metric = key
        v = values[key]
        if not any(impl in v for impl, _ in PEERS):
            continue
        fmt = value_format(metric)
        cm = statistics.median(v['perftest']) if v.get('perftest') else None
        jm = statistics.median(v['jrdma']) if v.get('jrdma') else None
        cells = [fmt(cm), fmt(jm), '-' if jm is None or not cm else f'{jm / cm:.2f}']
        rc = by_round[key].get('perftest', {})
        for impl, _ in PEERS:
            m = statistics.median(v[impl]) if v.get(impl) else None
            rp = by_round[key].get(impl, {})
            paired = [rp[r] / rc[r] for r in rc if r in rp and rc[r]]
            interval = median_interval(paired)
            cells.append(fmt(m))
            cells.append('-' if not paired else f'{statistics.median(paired):.2f}'
                         + (f' [{interval[0]:.2f}, {interval[1]:.2f}]' if interval else ''))
        print(f"| {test} | {size} | {LABEL[metric]} | " + ' | '.join(cells) + ' |')
SHORT = [('perftest', 'C'), ('jrdma', 'J'), ('jrdma-client', 'C server + J client'),
         ('jrdma-server', 'J server + C client'), ('jucx', 'JUCX')]
print()
print('Every run of every round: ' + '; '.join(
    f"{t} {s} {LABEL[m].split(' [')[0]}: " + ' / '.join(
        f"{short} " + ' '.join(f'{x:g}' for x in values[(t, s, m)].get(impl, []))
        for impl, short in SHORT if impl in values[(t, s, m)] or impl in ('perftest', 'jrdma'))
    for (t, s, m) in order) + '.')
if retries:
    print()
    print('Retried (no valid report, e.g. perftest\'s "Can\'t produce a report" or inf): ' + '; '.join(retries) + '.')
if failed:
    print()
    print('Failed after 3 attempts: ' + '; '.join(failed) + '.')
