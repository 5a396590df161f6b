#!/usr/bin/env python3
"""A hostile agent: it holds the key (root on any Ceph node does) and
speaks the real protocol (cfproto.py's framing), then answers every
request with what a hostile agent would send: names of hundreds of bytes,
a bond of many such members all down, wrong types where numbers belong,
huge counts, nested garbage, replies to questions never asked.

    evil_agent.py KEYFILE ADDR PORT SECONDS

Serves every connection for SECONDS, then exits 0."""
import hashlib, hmac, json, os, socket, sys, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cfproto import HDR, MAGIC, T, NAMES, REPLY  # noqa: E402

LONG = "A" * 300


def facts():
    members = [{"name": LONG + str(i), "mii": "down", "speed_mbps": "fast",
                "partner_state": -1} for i in range(40)]
    links = [{"name": LONG, "kind": "bond", "state": "up", "mtu": "9000",
              "bond": {"mode": LONG, "xmit_hash_policy": LONG, "ad": {"aggregator": []},
                       "members": members}}]
    links += [{"name": LONG + str(i), "kind": "veth", "state": LONG, "mtu": 1e300,
               "addresses": [LONG, 7, None, "300.1.2.3/99"],
               "counters": {"rx_bytes": -5, "tx_bytes": "x"}} for i in range(50)]
    routes = [{"dst": LONG, "nexthops": [{"gateway": LONG, "dev": LONG}] * 64}] * 20
    return {"hostname": LONG, "links": links, "routes": routes,
            "frr": {"ospf": {"neighbors": [LONG] * 100}, "bgp": LONG},
            "sysctl": {LONG: LONG}, "spread": [[LONG] * 10] * 10}


def answer(typ, body, me):
    if typ == "STATUS":
        # Valid where the coordinator checks, hostile elsewhere: so that
        # it goes on to ask for the facts.
        return {"version": "0.1.0", "proto": 2, "hostname": LONG, "uptime": 5,
                "sessions": 1e18, "busy": False, "addrs": [{"ifname": LONG,
                "addr": LONG, "prefix": 999}] * 300 + [{"ifname": "eth0",
                "addr": me, "prefix": 24}], "fds": [], "threads": {}}
    if typ == "FACTS":
        return facts()
    if typ in ("PROBE_OPEN", "PROBE_RUN"):
        return {"probe": body.get("probe", ""), "port": 70000,
                "results": [{"from": LONG, "to": LONG, "configured": "big",
                             "path": 1e300, "trace": {"hops": [LONG] * 50,
                             "reached": 99}, "sizes": [{"rtt": LONG}],
                             "ports": [{"port": -1, "state": LONG}] * 200,
                             "load": {"rx_drops": "many"}}] * 3,
                "route": {"egress_if": LONG, "source": LONG}, "tried": LONG}
    if typ in ("TEST_LISTEN", "TEST_CONNECT"):
        return {"test": body.get("test", ""), "port": 1, "error": LONG * 3}
    if typ == "WATCH":
        return {"watch": body.get("watch", ""), "error": {"nested": [LONG]}}
    return {"error": LONG}


def serve(c, key):
    c.settimeout(30)
    tx = rx = b"\0" * 32
    tseq = rseq = 0

    def send(typ, body, flags=REPLY):
        nonlocal tseq
        b = json.dumps(body).encode()
        h = HDR.pack(MAGIC, 2, T[typ], flags, len(b), tseq)
        c.sendall(h + b + hmac.new(tx, h + b, hashlib.sha256).digest())
        tseq += 1

    def recvn(n):
        buf = b""
        while len(buf) < n:
            d = c.recv(n - len(buf))
            if not d:
                raise EOFError
            buf += d
        return buf

    def recv():
        nonlocal rseq
        h = recvn(HDR.size)
        _, _, typ, _, n, _ = HDR.unpack(h)
        b = recvn(n)
        recvn(32)
        rseq += 1
        return NAMES.get(typ, typ), json.loads(b)

    typ, b = recv()
    nc = bytes.fromhex(b["nonce"])
    ns = os.urandom(32)
    send("HELLO", {"proto": 2, "role": "agent", "nonce": ns.hex()})
    mac = lambda label: hmac.new(key, label + nc + ns, hashlib.sha256).digest()
    typ, b = recv()
    # A name and version just inside the handshake's own bounds: what
    # follows is the payload the checks must survive.
    send("AUTH", {"proof": mac(b"cephfab-v1 server").hex(), "version": "9" * 31,
                  "host": "e" * 250})
    tx, rx = mac(b"cephfab-v1 s2c"), mac(b"cephfab-v1 c2s")
    while True:
        typ, b = recv()
        if typ == "BYE":
            return
        send(typ, answer(typ, b, c.getsockname()[0]))
        # And, once it has had the facts, one nobody asked for.
        if typ != "STATUS":
            send("TEST_END", {"streams": [{"id": 10 ** 9, "path": {"hops": [LONG] * 40}}]},
                 0)


def main():
    keyfile, addr, port, secs = sys.argv[1:5]
    key = bytes.fromhex(open(keyfile).read().strip())
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((addr, int(port)))
    ls.listen(64)
    ls.settimeout(0.5)
    end = time.monotonic() + float(secs)
    print("listening", flush=True)
    while time.monotonic() < end:
        try:
            c, _ = ls.accept()
        except socket.timeout:
            continue
        threading.Thread(target=lambda: (serve_safe(c, key)), daemon=True).start()


def serve_safe(c, key):
    try:
        serve(c, key)
    except Exception:
        pass
    finally:
        c.close()


if __name__ == "__main__":
    main()
