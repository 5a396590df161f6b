#!/usr/bin/env python3
"""A minimal, independent implementation of the cephfab control protocol,
for integration tests that must speak to an agent the way no real
coordinator would (bad tokens, limits, hostile frames).

    cfproto.py KEYFILE HOST PORT SCENARIO [ARGS...]

Prints one JSON line per observation; exits 0 when the scenario's
assertions hold. Written from the protocol description in include/frame.h
and include/auth.h, not from the C code, so the two cross-check."""
import hashlib, hmac, json, os, socket, struct, sys, time

MAGIC = b"CFAB"
HDR = struct.Struct(">4sBBHIQ")
T = {"HELLO": 1, "AUTH": 2, "STATUS": 3, "ERROR": 4, "BYE": 5,
     "TEST_LISTEN": 6, "TEST_CONNECT": 7, "TEST_READY": 8, "TEST_START": 9,
     "TEST_INTERVAL": 10, "TEST_END": 11, "TEST_ABORT": 12,
     "PROBE_OPEN": 13, "PROBE_RUN": 14, "PROBE_CLOSE": 15, "FACTS": 16,
     "WATCH": 17, "WATCH_INTERVAL": 18}
NAMES = {v: k for k, v in T.items()}
REPLY = 1


class Conn:
    def __init__(self, key, host, port, proto=2):
        self.key, self.proto = key, proto
        self.s = socket.create_connection((host, port), timeout=5)
        self.tx_key = self.rx_key = b"\0" * 32
        self.tx_seq = self.rx_seq = 0

    def send(self, typ, body, flags=0, key=None, seq=None):
        b = json.dumps(body).encode()
        h = HDR.pack(MAGIC, self.proto, T[typ], flags, len(b),
                     self.tx_seq if seq is None else seq)
        tag = hmac.new(key or self.tx_key, h + b, hashlib.sha256).digest()
        frame = h + b + tag
        self.s.sendall(frame)
        self.tx_seq += 1
        return frame

    def recvn(self, n):
        buf = b""
        while len(buf) < n:
            c = self.s.recv(n - len(buf))
            if not c:
                raise EOFError
            buf += c
        return buf

    def recv(self):
        h = self.recvn(HDR.size)
        magic, ver, typ, flags, length, seq = HDR.unpack(h)
        assert magic == MAGIC
        b = self.recvn(length)
        tag = self.recvn(32)
        want = hmac.new(self.rx_key, h + b, hashlib.sha256).digest()
        assert hmac.compare_digest(tag, want), "bad tag from agent"
        assert seq == self.rx_seq, "agent sequence"
        self.rx_seq += 1
        return NAMES.get(typ, typ), flags, json.loads(b)

    def handshake(self):
        nc = os.urandom(32)
        self.send("HELLO", {"proto": self.proto, "version": "cfproto",
                            "role": "coordinator", "host": "cfproto",
                            "nonce": nc.hex()})
        typ, _, b = self.recv()
        if typ != "HELLO":
            return typ, b
        ns = bytes.fromhex(b["nonce"])
        mac = lambda label: hmac.new(self.key, label + nc + ns,
                                     hashlib.sha256).digest()
        self.send("AUTH", {"proof": mac(b"cephfab-v1 client").hex()})
        typ, _, b = self.recv()
        assert typ == "AUTH", (typ, b)
        assert hmac.compare_digest(bytes.fromhex(b["proof"]),
                                   mac(b"cephfab-v1 server"))
        self.tx_key, self.rx_key = mac(b"cephfab-v1 c2s"), mac(b"cephfab-v1 s2c")
        return "OK", None


def spec(local, **kw):
    s = {"test": os.urandom(8).hex(), "proto": "tcp", "streams": 1,
         "duration": 2, "len": 65536, "rate": 0, "interval": 1,
         "window": 0, "zerocopy": False, "skip_rx_copy": False,
         "connector_sends": True, "listener_sends": False,
         "token": os.urandom(32).hex(), "local": local,
         "coordinator": "cfproto"}
    s.update(kw)
    return s


def out(**kw):
    print(json.dumps(kw), flush=True)


def main():
    keyfile, host, port, scenario = sys.argv[1:5]
    args = sys.argv[5:]
    key = bytes.fromhex(open(keyfile).read().strip())
    c = Conn(key, host, int(port))
    assert c.handshake()[0] == "OK"
    if scenario == "token":
        # A listener admits only connections that present the token.
        local = args[0]
        sp = spec(local)
        c.send("TEST_LISTEN", sp)
        typ, flags, b = c.recv()
        assert typ == "TEST_LISTEN" and flags & REPLY and "port" in b, b
        p = b["port"]
        # Wrong token: closed at once.
        bad = socket.create_connection((local, p), timeout=3)
        bad.sendall(b"CFDATA01" + os.urandom(32) + struct.pack(">II", 0, 0))
        t0 = time.time()
        try:
            closed = bad.recv(1) == b""
        except ConnectionResetError:
            closed = True
        out(check="wrong_token_closed", closed=closed,
            seconds=round(time.time() - t0, 3))
        assert closed and time.time() - t0 < 1.0
        # Garbage: closed too.
        g = socket.create_connection((local, p), timeout=3)
        g.sendall(b"GET / HTTP/1.0\r\n\r\n" + b"x" * 40)
        try:
            closed = g.recv(1) == b""
        except ConnectionResetError:
            closed = True
        out(check="garbage_closed", closed=closed)
        assert closed
        # The right token: admitted; the listener then reports READY
        # and closes its port to everyone else.
        ok = socket.create_connection((local, p), timeout=3)
        ok.sendall(b"CFDATA01" + bytes.fromhex(sp["token"]) +
                   struct.pack(">II", 0, 0))
        typ, flags, b = c.recv()
        out(check="ready", type=typ)
        assert typ == "TEST_READY", (typ, b)
        try:
            late = socket.create_connection((local, p), timeout=2)
            late.close()
            refused = False
        except OSError:
            refused = True
        out(check="listener_closed", refused=refused)
        assert refused
        c.send("TEST_ABORT", {"test": sp["test"], "reason": "cfproto"})
        typ, _, b = c.recv()
        assert typ == "TEST_END" and "aborted" in b.get("error", ""), b
        ok.close()
    elif scenario == "limit":
        # ARGS: local dst field=value...; expect a refusal naming LIMIT.
        local, dst, want = args[0], args[1], args[2]
        kw = {}
        for a in args[3:]:
            k, v = a.split("=", 1)
            kw[k] = json.loads(v)
        sp = spec(local, **kw)
        sp.update({"dst": dst, "port": 9, "bind_dev": "", "sport_base": 0,
                   "sport_stride": 0})
        c.send("TEST_CONNECT", sp)
        typ, flags, b = c.recv()
        out(check="refused", type=typ, body=b)
        assert typ == "TEST_CONNECT" and flags & REPLY and "error" in b, b
        assert want in b["error"], (want, b["error"])
        # The session survives a refusal.
        c.send("STATUS", {})
        typ, _, b = c.recv()
        assert typ == "STATUS" and b["busy"] is False, b
    elif scenario == "probe":
        # ARGS: local want field=value...: a PROBE_RUN the agent must
        # refuse with WANT in its error; the session survives it.
        local, want = args[0], args[1]
        body = {"probe": os.urandom(8).hex(), "token": os.urandom(32).hex(),
                "local": local, "duration": 1}
        for a in args[2:]:
            k, v = a.split("=", 1)
            body[k] = json.loads(v)
        c.send("PROBE_RUN", body)
        typ, flags, b = c.recv()
        out(check="refused", type=typ, body=b)
        assert typ == "PROBE_RUN" and flags & REPLY and "error" in b, b
        assert want in b["error"], (want, b["error"])
        c.send("STATUS", {})
        typ, _, b = c.recv()
        assert typ == "STATUS", b
    else:
        raise SystemExit("unknown scenario " + scenario)
    c.send("BYE", {})
    out(result="ok")


if __name__ == "__main__":
    main()
