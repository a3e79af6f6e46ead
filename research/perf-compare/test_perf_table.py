# SPDX-License-Identifier: Apache-2.0
"""Tests of perf_table.py: the table perf-compare writes into docs/performance.md, checked from
results files (one line per run: "ROUND IMPL TEST SIZE METRIC VALUE"); the VM run itself is too
long for a test. Run: python3 -m unittest discover -s research/perf-compare"""
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "perf_table.py")
HEADER = """# date 2026-11-23 18:10 UTC
# cpus 2
# clocksource tsc
# perftest Version: 6.06
# pinning none
# aslr on
# java openjdk version "25.0.3" 2026-04-21 LTS
"""


def table(results, invocation):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "results.txt")
        with open(path, "w") as f:
            f.write(results)
        p = subprocess.run([sys.executable, SCRIPT, path, invocation, "clocksource=tsc"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=60)
        if p.returncode != 0:
            raise AssertionError(p.stdout)
        return p.stdout


class PerfTableTest(unittest.TestCase):
    def test_medians_ratios_and_targets(self):
        t = table(HEADER + """1 perftest read_lat 2 t_typical 24.0
1 jrdma read_lat 2 t_typical 27.0
2 perftest read_lat 2 t_typical 26.0
2 jrdma read_lat 2 t_typical 25.0
3 perftest read_lat 2 t_typical 25.0
3 jrdma read_lat 2 t_typical 30.0
1 perftest write_bw 65536 bw_avg 56.0
1 jrdma write_bw 65536 bw_avg 53.0
1 perftest write_bw 65536 msg_rate 0.0009
1 jrdma write_bw 65536 msg_rate 0.00085
""", "scripts/perf-compare --rounds 3")
        self.assertTrue(t.startswith("Measured 2026-11-23 18:10 UTC with `scripts/perf-compare --rounds 3`"), t)
        # Medians 25 and 27 (1.08); per round 1.125, 0.96, 1.2. Three rounds give no 90 % interval
        # of the median, so no verdict either way, however far the medians are from the target.
        self.assertIn("| read_lat | 2 | t_typical [us] | 25.00 | 27.00 | 1.08 | 1.12 | 1 of 3 | 3, 3 | <= 1.05"
                      " | undecided (< 5 rounds) |", t)
        self.assertIn("| write_bw | 65536 | BW average [MB/s] | 56.00 | 53.00 | 0.95 | 0.95 | 0 of 1 | 1, 1"
                      " | >= 0.95 | undecided (< 5 rounds) |", t)
        self.assertIn("read_lat 2 t_typical: C 24 26 25 / J 27 25 30;", t)
        self.assertNotIn("Mixed pairs", t, "no mixed table without --mixed runs")

    def test_verdicts_come_from_the_interval_of_the_per_round_ratios(self):
        t = table(HEADER + """1 perftest send_lat 2 t_typical 10.0
1 jrdma send_lat 2 t_typical 10.2
2 jrdma send_lat 2 t_typical 9.9
2 perftest send_lat 2 t_typical 10.0
3 perftest send_lat 2 t_typical 14.0
3 jrdma send_lat 2 t_typical 14.35
4 jrdma send_lat 2 t_typical 10.4
4 perftest send_lat 2 t_typical 10.0
5 perftest send_lat 2 t_typical 10.0
5 jrdma send_lat 2 t_typical 10.1
1 perftest read_lat 2 t_typical 30.0
1 jrdma read_lat 2 t_typical 33.0
2 perftest read_lat 2 t_typical 30.0
2 jrdma read_lat 2 t_typical 34.5
3 perftest read_lat 2 t_typical 45.0
3 jrdma read_lat 2 t_typical 48.0
4 perftest read_lat 2 t_typical 30.0
4 jrdma read_lat 2 t_typical 31.8
5 perftest read_lat 2 t_typical 30.0
5 jrdma read_lat 2 t_typical 36.0
1 perftest write_bw 2 msg_rate 0.060
1 jrdma write_bw 2 msg_rate 0.057
2 perftest write_bw 2 msg_rate 0.060
2 jrdma write_bw 2 msg_rate 0.051
3 perftest write_bw 2 msg_rate 0.050
3 jrdma write_bw 2 msg_rate 0.049
4 perftest write_bw 2 msg_rate 0.060
4 jrdma write_bw 2 msg_rate 0.058
5 perftest write_bw 2 msg_rate 0.060
5 jrdma write_bw 2 msg_rate 0.056
""", "scripts/perf-compare --rounds 5")
        # Per round 1.02, 0.99, 1.025, 1.04, 1.01: the interval (the extremes, 93.8 % for 5 rounds)
        # is below 1.05, although round 3's slow boot moved both medians' tools alike.
        self.assertIn("| send_lat | 2 | t_typical [us] | 10.00 | 10.20 | 1.02 | 1.02 [0.99, 1.04] | 1 of 5 | 5, 5"
                      " | <= 1.05 | yes |", t)
        # 1.10, 1.15, 1.067, 1.06, 1.20: all above 1.05.
        self.assertIn("| read_lat | 2 | t_typical [us] | 30.00 | 34.50 | 1.15 | 1.10 [1.06, 1.20] | 0 of 5 | 5, 5"
                      " | <= 1.05 | **no** |", t)
        # 0.95, 0.85, 0.98, 0.967, 0.933: straddles 0.90, so neither met nor missed.
        self.assertIn("| write_bw | 2 | MsgRate [Mpps] | 0.0600 | 0.0560 | 0.93 | 0.95 [0.85, 0.98] | 0 of 5 | 5, 5"
                      " | >= 0.9 | undecided |", t)
        self.assertIn("(93.8% for 5 rounds, at least 90%; none below 5 rounds)", t)

    def test_more_rounds_narrow_the_interval_past_one_outlier(self):
        results = HEADER
        jrdma = [10.0, 10.1, 10.2, 10.25, 10.4, 10.5, 10.6, 20.0]
        for r, j in enumerate(jrdma, start=1):
            results += "%d perftest write_lat 2 t_typical 10.0\n%d jrdma write_lat 2 t_typical %s\n" % (r, r, j)
        t = table(results, "scripts/perf-compare --rounds 8")
        # 8 rounds: the 2nd smallest and 2nd largest (93.0 %); the 2.0 round does not reach the interval.
        self.assertIn("| write_lat | 2 | t_typical [us] | 10.00 | 10.32 | 1.03 | 1.03 [1.01, 1.06] | 0 of 8 | 8, 8"
                      " | <= 1.05 | undecided |", t)
        self.assertIn("(93.0% for 8 rounds, at least 90%", t)

    def test_mixed_pairs_get_their_own_table_and_failures_are_listed(self):
        t = table(HEADER + """1 perftest send_lat 64 t_typical 10.0
1 jrdma send_lat 64 t_typical 13.0
1 jrdma-client send_lat 64 t_typical 11.0
1 jrdma-server send_lat 64 t_typical 12.0
2 perftest send_lat 64 t_typical 10.0
2 jrdma send_lat 64 t_typical 13.0
2 jrdma-client send_lat 64 t_typical 11.5
# retry round 2 jrdma-server send_lat 64 attempt 1: no valid report
2 jrdma-server send_lat 64 FAILED
""", "scripts/perf-compare --rounds 2 --mixed")
        # The main table stays perftest against jrdma on both sides.
        self.assertIn("| send_lat | 64 | t_typical [us] | 10.00 | 13.00 | 1.30 | 1.30 | 0 of 2 | 2, 2 | <= 1.05"
                      " | undecided (< 5 rounds) |", t)
        self.assertIn("| send_lat | 64 | t_typical [us] | 10.00 | 11.25 | 1.12 | 12.00 | 1.20 | 13.00 | 1.30 |", t)
        self.assertIn("C server + J client 11 11.5 / J server + C client 12.", t)
        self.assertIn("Failed after 3 attempts: 2 jrdma-server send_lat 64.", t)
        self.assertIn("retry round 2 jrdma-server send_lat 64 attempt 1", t)


class PeersTableTest(unittest.TestCase):
    def test_jucx_beside_perftest_and_jrdma(self):
        rows = "".join(f"{r} perftest send_lat 2 t_typical {c}\n{r} jrdma send_lat 2 t_typical {j}\n"
                       f"{r} jucx send_lat 2 t_typical {u}\n"
                       for r, c, j, u in [(1, 10.0, 11.0, 30.0), (2, 12.0, 12.0, 33.0), (3, 10.0, 10.5, 31.0),
                                          (4, 11.0, 12.0, 29.0), (5, 10.0, 11.0, 30.0)])
        t = table(HEADER + "# jucx org.openucx:jucx 1.12.1, libucx0 1.13.1\n" + rows, "scripts/perf-compare")
        self.assertIn("Other Java RDMA libraries on the same device, in the same rounds "
                      "(org.openucx:jucx 1.12.1, libucx0 1.13.1; research/jucx-peer)", t)
        # JUCX per round: 3.0, 2.75, 3.1, 2.64, 3.0: median 3.0, five rounds' interval the extremes.
        self.assertIn("| send_lat | 2 | t_typical [us] | 10.00 | 11.00 | 1.10 | 30.00 | 3.00 [2.64, 3.10] |", t)
        self.assertIn("/ JUCX 30 33 31 29 30", t)
        # JUCX is no row of the main table: that one compares jrdma with perftest only.
        self.assertNotIn("| 30.00 | 11.00 |", t)

    def test_no_peers_table_without_peer_runs(self):
        t = table(HEADER + "1 perftest send_lat 2 t_typical 10.0\n1 jrdma send_lat 2 t_typical 11.0\n",
                  "scripts/perf-compare --no-jucx")
        self.assertNotIn("Other Java RDMA libraries", t)

    def test_time_to_a_result_is_a_row_where_lower_is_better(self):
        t = table(HEADER + "1 perftest send_lat 2 wall 4.0\n1 jrdma send_lat 2 wall 40.0\n", "scripts/perf-compare")
        self.assertIn("| send_lat | 2 | command to report [s] | 4.00 | 40.00 | 10.00 | 10.00 | 0 of 1 | 1, 1 |  |  |", t)


if __name__ == "__main__":
    unittest.main()
