"""Medians and jrdma/perftest ratios from scripts/perf-compare's results file, as Markdown.

Results lines: "ROUND IMPL TEST SIZE METRIC VALUE" (or "... FAILED"); "# key value" header lines.
"""
import statistics
import sys

results, invocation, kernel_args = sys.argv[1], sys.argv[2], sys.argv[3]
meta, retries, failed = {}, [], []
values = {}
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

LABEL = {'t_typical': 't_typical [us]', 'bw_avg': 'BW average [MB/s]', 'msg_rate': 'MsgRate [Mpps]'}
TARGET = {('t_typical', None): ('<=', 1.05), ('bw_avg', 65536): ('>=', 0.95), ('msg_rate', 2): ('>=', 0.90)}


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
print('| test | size [B] | metric | perftest median | jrdma median | jrdma/perftest | runs (C, J) | target | met |')
print('| --- | ---: | --- | ---: | ---: | ---: | --- | --- | --- |')
for key in order:
    test, size, metric = key
    v = values[key]
    c, j = v.get('perftest', []), v.get('jrdma', [])
    cm = statistics.median(c) if c else None
    jm = statistics.median(j) if j else None
    ratio = jm / cm if cm and jm is not None else None
    t = target(test, size, metric)
    met = ''
    if t and ratio is not None:
        met = 'yes' if (ratio <= t[1] if t[0] == '<=' else ratio >= t[1]) else '**no**'
    fmt = (lambda x: '-' if x is None else f'{x:.3f}') if metric == 'msg_rate' else \
        (lambda x: '-' if x is None else f'{x:.2f}')
    print(f"| {test} | {size} | {LABEL[metric]} | {fmt(cm)} | {fmt(jm)} | "
          f"{'-' if ratio is None else f'{ratio:.2f}'} | {len(c)}, {len(j)} | "
          f"{'' if not t else t[0] + ' ' + str(t[1])} | {met} |")
print()
print('Every run of every round: ' + '; '.join(
    f"{t} {s} {LABEL[m].split(' [')[0]}: C " + ' '.join(f'{x:g}' for x in values[(t, s, m)].get('perftest', []))
    + ' / J ' + ' '.join(f'{x:g}' for x in values[(t, s, m)].get('jrdma', []))
    for (t, s, m) in order) + '.')
if retries:
    print()
    print('Retried (no valid report, e.g. perftest\'s "Can\'t produce a report" or inf): ' + '; '.join(retries) + '.')
if failed:
    print()
    print('Failed after 3 attempts: ' + '; '.join(failed) + '.')
