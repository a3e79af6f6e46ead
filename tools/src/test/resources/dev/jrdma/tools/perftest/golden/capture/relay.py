# TCP relay that logs every chunk: listen on LPORT, forward to 127.0.0.1:DPORT.
# SPDX-License-Identifier: Apache-2.0
import socket, sys, threading, json, time
lport, dport, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
ls = socket.socket(); ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind(("127.0.0.1", lport)); ls.listen(1); ls.settimeout(60); open("ready", "w").close()
c, _ = ls.accept()
s = socket.create_connection(("127.0.0.1", dport), timeout=60)
log = []; lock = threading.Lock()
def pump(src, dst, tag):
    while True:
        try: d = src.recv(65536)
        except OSError: d = b""
        if not d:
            try: dst.shutdown(socket.SHUT_WR)
            except OSError: pass
            return
        with lock: log.append({"dir": tag, "t": time.monotonic(), "hex": d.hex()})
        dst.sendall(d)
a = threading.Thread(target=pump, args=(c, s, "client->server")); b = threading.Thread(target=pump, args=(s, c, "server->client"))
a.start(); b.start(); a.join(); b.join()
with open(out, "w") as f: json.dump(log, f, indent=1)
