#!/usr/bin/env python3
"""A smart-HTTP git server for the end-to-end tests: the real `git http-backend` behind Basic auth.

Usage: git-http-server.py CONFIG.json

CONFIG holds:
  root       directory of bare repositories (GIT_PROJECT_ROOT)
  log        file that gets one JSON line per request: method, path, query, user, status
  mode       "private" (every request needs a user) or "public-read" (fetching is anonymous,
             pushing needs a user, including the push's info/refs?service=git-receive-pack)
  users      {"name": "password"} accepted through Basic auth
  forbidden  names (in users) that authenticate but are refused with 403
  headers    {"Authorization header value": "user"}: whole header values accepted as that user,
             for http.extraheader with a bearer or basic token
  tls        optional {"cert": PEM file, "key": PEM file}: serve HTTPS
  port       0 picks a free port

Once listening it prints the port on stdout and flushes. Python standard library only.
"""

import base64
import http.server
import json
import os
import ssl
import subprocess
import sys
import threading
import urllib.parse


class Settings:
    def __init__(self, path):
        with open(path, encoding="utf-8") as handle:
            config = json.load(handle)
        self.root = os.path.abspath(config["root"])
        self.log = config["log"]
        self.mode = config.get("mode", "private")
        if self.mode not in ("private", "public-read"):
            raise SystemExit("mode must be private or public-read")
        self.users = config.get("users", {})
        self.forbidden = set(config.get("forbidden", []))
        self.headers = config.get("headers", {})
        self.tls = config.get("tls")
        self.port = int(config.get("port", 0))
        self.log_lock = threading.Lock()


def is_push(path, query):
    """A push starts with info/refs?service=git-receive-pack and then POSTs git-receive-pack."""
    return path.endswith("/git-receive-pack") or "git-receive-pack" in urllib.parse.parse_qs(query).get("service", [])


class Handler(http.server.BaseHTTPRequestHandler):
    settings = None
    server_version = "rollout-test-git/1"

    def log_message(self, format, *args):
        pass  # every request goes to the settings' log file instead

    def do_GET(self):
        self.serve()

    def do_POST(self):
        self.serve()

    def record(self, path, query, user, status):
        line = json.dumps({"method": self.command, "path": path, "query": query, "user": user or "", "status": status}, sort_keys=True)
        with self.settings.log_lock:
            with open(self.settings.log, "a", encoding="utf-8") as handle:
                handle.write(line + "\n")

    def authenticate(self):
        """Returns (user, presented): the user the request proves it is, and whether it tried."""
        header = self.headers.get("Authorization")
        if header is None:
            return None, False
        if header in self.settings.headers:
            return self.settings.headers[header], True
        scheme, _, value = header.partition(" ")
        if scheme.lower() != "basic":
            return None, True
        try:
            name, _, password = base64.b64decode(value.strip(), validate=True).decode("utf-8").partition(":")
        except (ValueError, UnicodeDecodeError):
            return None, True
        if name in self.settings.users and self.settings.users[name] == password:
            return name, True
        return None, True

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

    def refuse(self, path, query, user, status, text, challenge):
        # Recorded before the answer: a client that has its answer must find the request in the log.
        self.record(path, query, user, status)
        body = text.encode("utf-8")
        self.send_response(status)
        if challenge:
            self.send_header("WWW-Authenticate", 'Basic realm="rollout tests"')
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def serve(self):
        parsed = urllib.parse.urlsplit(self.path)
        path, query = urllib.parse.unquote(parsed.path), parsed.query
        body = self.read_body() if self.command == "POST" else b""
        user, presented = self.authenticate()
        needs_user = self.settings.mode == "private" or is_push(path, query)
        if (needs_user or presented) and user is None:
            return self.refuse(path, query, None, 401, "Authentication required\n", True)
        if user in self.settings.forbidden:
            return self.refuse(path, query, user, 403, "Forbidden\n", False)

        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "GIT_PROJECT_ROOT": self.settings.root,
            "GIT_HTTP_EXPORT_ALL": "1",
            "GIT_HTTP_MAX_REQUEST_BUFFER": "100M",
            "GIT_CONFIG_NOSYSTEM": "1",
            "HOME": self.settings.root,
            "PATH_INFO": path,
            "QUERY_STRING": query,
            "REQUEST_METHOD": self.command,
            "CONTENT_TYPE": self.headers.get("Content-Type", ""),
            "CONTENT_LENGTH": str(len(body)),
            "REMOTE_ADDR": self.client_address[0],
            "SERVER_PROTOCOL": "HTTP/1.1",
            "GATEWAY_INTERFACE": "CGI/1.1",
        }
        if user is not None:
            env["REMOTE_USER"] = user
            env["AUTH_TYPE"] = "Basic"
        for name in ("Content-Encoding", "Git-Protocol"):
            if self.headers.get(name):
                env["HTTP_" + name.upper().replace("-", "_")] = self.headers[name]
        backend = subprocess.run(["git", "http-backend"], input=body, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        head, _, payload = backend.stdout.partition(b"\r\n\r\n")
        if not _:
            head, _, payload = backend.stdout.partition(b"\n\n")
        status, headers = 200, []
        for line in head.decode("latin-1").splitlines():
            name, _, value = line.partition(":")
            if name.lower() == "status":
                status = int(value.strip().split(" ")[0])
            elif name:
                headers.append((name, value.strip()))
        if backend.returncode != 0 and not backend.stdout:
            status, payload, headers = 500, backend.stderr, [("Content-Type", "text/plain")]
        self.record(path, query, user, status)
        self.send_response(status)
        for name, value in headers:
            if name.lower() != "content-length":
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


def main():
    if len(sys.argv) != 2:
        raise SystemExit("usage: git-http-server.py CONFIG.json")
    settings = Settings(sys.argv[1])
    Handler.settings = settings
    server = http.server.ThreadingHTTPServer(("127.0.0.1", settings.port), Handler)
    server.daemon_threads = True
    if settings.tls:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(settings.tls["cert"], settings.tls["key"])
        # The handshake happens in the connection's own thread: a client that never finishes one
        # (or refuses the certificate) cannot hold up accept().
        server.socket = context.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
