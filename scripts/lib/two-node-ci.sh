#!/usr/bin/env bash
# What scripts/test runs on node 1 of the two-node testbed (one boot for both): the tests tagged
# two-node, then the fault suite's CI subset (scripts/fault-suite --ci), whose last scenario
# powers node 2 off. Fails if either failed.
# SPDX-License-Identifier: Apache-2.0
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
rc=0
start=$(date +%s)
"$root/scripts/device-tests" --two-node || rc=1
echo "=== two-node tests: $(( $(date +%s) - start )) s"
start=$(date +%s)
mkdir -p "$root/target/fault-suite"
"$here/fault-scenarios.sh" "$root/target/fault-suite/results-ci.tsv" --ci || rc=1
echo "=== fault scenarios (CI subset): $(( $(date +%s) - start )) s"
exit $rc
