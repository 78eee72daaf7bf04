#!/usr/bin/env python3
"""An HTTP proxy in front of git-http-server.py that cuts the connections of pushes, for the
fault-injection tests (CutPushTests): the client loses the connection while the server
goes on, as when a load balancer drops it or the worker serving it is killed while its CGI lives.

Usage: push-fault-proxy.py CONTROL_DIR UPSTREAM_PORT

CONTROL_DIR holds:
  faults     one fault per line, taken in order, one per push attempt (the attempt's first request
             with credentials, GET info/refs?service=git-receive-pack, takes it; its POST
             git-receive-pack obeys it):
               none     pass it through
               refs     cut the info/refs request: the push never starts
               before   cut the POST before any of it reaches the server
               during   forward the POST, cut the client once the server's pre-receive hook has
                        started (a new line in hook-runs), the server goes on
               after    forward the POST, cut the client once the server has answered, before
                        any of the answer is passed on
               partial  pass on the answer's headers and half its body, then cut
             Every POST of the attempt obeys it, the one git's HTTP client sends again on its own
             after a cut included. A file with no line left means none.
  hook-runs  a line per pre-receive hook start (the test's hook appends it)
  inflight   written by the proxy: how many forwarded requests the server has not answered yet
  log        written by the proxy: one JSON line per request, with the fault applied

Once listening it prints the port on stdout and flushes. Python standard library only.
"""

import http.client
import http.server
import json
import os
import socket
import sys
import threading
import time
import urllib.parse

FAULTS = ("none", "refs", "before", "during", "after", "partial")


class Control:
    def __init__(self, directory, upstream):
        self.directory = directory
        self.upstream = upstream
        self.lock = threading.Lock()
        self.inflight = 0
        self.current = "none"
        self.write_inflight()

    def path(self, name):
        return os.path.join(self.directory, name)

    def take_fault(self):
        """The next fault of the faults file, removed from it."""
        with self.lock:
            try:
                with open(self.path("faults"), encoding="utf-8") as handle:
                    lines = [line.strip() for line in handle if line.strip()]
            except FileNotFoundError:
                lines = []
            fault = lines[0] if lines else "none"
            if fault not in FAULTS:
                fault = "none"
            with open(self.path("faults.tmp"), "w", encoding="utf-8") as handle:
                handle.write("".join(line + "\n" for line in lines[1:]))
            os.replace(self.path("faults.tmp"), self.path("faults"))
            self.current = fault
            return fault

    def hook_runs(self):
        try:
            with open(self.path("hook-runs"), encoding="utf-8") as handle:
                return sum(1 for _ in handle)
        except FileNotFoundError:
            return 0

    def write_inflight(self):
        with open(self.path("inflight.tmp"), "w", encoding="utf-8") as handle:
            handle.write("%d\n" % self.inflight)
        os.replace(self.path("inflight.tmp"), self.path("inflight"))

    def change_inflight(self, delta):
        with self.lock:
            self.inflight += delta
            self.write_inflight()

    def record(self, **fields):
        with self.lock:
            with open(self.path("log"), "a", encoding="utf-8") as handle:
                handle.write(json.dumps(fields, sort_keys=True) + "\n")


class Upstream(threading.Thread):
    """One request forwarded to the server, answered whether or not the client is still there."""

    def __init__(self, control, method, path, headers, body):
        super().__init__(daemon=True)
        self.control, self.method, self.path, self.headers, self.body = control, method, path, headers, body
        self.done = threading.Event()
        self.status, self.reason, self.response_headers, self.payload, self.error = 502, "Bad Gateway", [], b"", None

    def run(self):
        self.control.change_inflight(1)
        try:
            connection = http.client.HTTPConnection("127.0.0.1", self.control.upstream, timeout=300)
            connection.request(self.method, self.path, body=self.body, headers=self.headers)
            response = connection.getresponse()
            self.status, self.reason = response.status, response.reason
            self.response_headers = response.getheaders()
            self.payload = response.read()
            connection.close()
        except Exception as error:  # the test reads it in the log
            self.error = repr(error)
        finally:
            self.control.change_inflight(-1)
            self.done.set()


class Handler(http.server.BaseHTTPRequestHandler):
    control = None
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):
        pass

    def do_GET(self):
        self.serve()

    def do_POST(self):
        self.serve()

    def read_body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def cut(self):
        """Closes the client's connection at once, with a reset, as a killed worker's socket is."""
        self.close_connection = True
        try:
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def serve(self):
        control = self.control
        parsed = urllib.parse.urlsplit(self.path)
        query = urllib.parse.parse_qs(parsed.query)
        # git asks without credentials first and answers the 401 with them: only the request
        # that carries them starts the push attempt.
        refs = (
            self.command == "GET" and "git-receive-pack" in query.get("service", []) and "Authorization" in self.headers
        )
        post = self.command == "POST" and parsed.path.endswith("/git-receive-pack")
        # Every POST of the attempt obeys its fault, the one git's HTTP client sends again by
        # itself after a cut included.
        fault = control.take_fault() if refs else (control.current if post else "none")
        step = "refs" if refs else ("post" if post else "other")
        if refs and fault == "refs" or post and fault == "before":
            control.record(request=step, fault=fault, action="cut before forwarding")
            return self.cut()
        body = self.read_body() if self.command == "POST" else b""
        headers = {
            name: value
            for name, value in self.headers.items()
            if name.lower() not in ("connection", "transfer-encoding", "content-length", "expect", "keep-alive")
        }
        headers["Content-Length"] = str(len(body))
        runs = control.hook_runs()
        upstream = Upstream(control, self.command, self.path, headers, body)
        upstream.start()
        if post and fault == "during":
            deadline = time.monotonic() + 30
            while control.hook_runs() == runs and not upstream.done.is_set() and time.monotonic() < deadline:
                time.sleep(0.005)
            control.record(
                request=step, fault=fault,
                action="cut while the hook runs" if not upstream.done.is_set() else "cut after the answer (the hook was quick)")
            return self.cut()
        upstream.done.wait()
        if post and fault == "after":
            control.record(request=step, fault=fault, action="cut after the server answered")
            return self.cut()
        self.send_response(upstream.status, upstream.reason)
        for name, value in upstream.response_headers:
            if name.lower() not in ("content-length", "transfer-encoding", "connection", "keep-alive", "date", "server"):
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(upstream.payload)))
        self.end_headers()
        if post and fault == "partial":
            self.wfile.write(upstream.payload[: len(upstream.payload) // 2])
            self.wfile.flush()
            control.record(request=step, fault=fault, action="cut half way through the answer")
            return self.cut()
        self.wfile.write(upstream.payload)
        control.record(request=step, fault=fault if post or refs else "none", action="passed", status=upstream.status, error=upstream.error)


def main():
    if len(sys.argv) != 3:
        raise SystemExit("usage: push-fault-proxy.py CONTROL_DIR UPSTREAM_PORT")
    Handler.control = Control(sys.argv[1], int(sys.argv[2]))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
