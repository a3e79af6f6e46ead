# Turns one capture of run.sh (NAME.wire.json + NAME.{client,server}.out) into the golden files
# NAME.wire.txt, NAME.client.txt, NAME.server.txt.   Usage: python3 to_golden.py CAPTURE_DIR GOLDEN_DIR NAME "RUN"
# RUN describes the command for the header, e.g. "ib_send_bw -b -n 200".
# SPDX-License-Identifier: Apache-2.0
import json, shutil, sys
src, dst, name, run = sys.argv[1:5]
with open(f"{src}/{name}.wire.json") as f:
    log = json.load(f)
with open(f"{dst}/{name}.wire.txt", "w") as f:
    f.write(f"# {run}: TCP exchange between Debian perftest 4.5+0.17 (6.06) client and server, captured by a\n"
            "# logging relay in the Soft-RoCE VM (rxe0, -x 1). One line per TCP segment as received by the relay:\n"
            "# C>S = client to server, S>C = server to client, then the bytes in hex.\n")
    for seg in log:
        f.write(("C>S " if seg["dir"] == "client->server" else "S>C ") + seg["hex"] + "\n")
for side in ("client", "server"):
    shutil.copyfile(f"{src}/{name}.{side}.out", f"{dst}/{name}.{side}.txt")
