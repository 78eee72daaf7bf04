# A webhook receiver on a free port of 127.0.0.1, for the docs and the tests (docs/notifications.md).
# Usage: python3 webhook-receiver.py DIR. Prints the port on its first line, then records each POST
# as DIR/requests/N.json ({"path", "headers", "body"}, N from 1) and answers as DIR/mode says when the
# request arrives: "ok" (or no file) 200, "fail" 500, "hang" accepts and never answers. Standard
# library only.
import http.server, json, os, sys, threading, time

directory = sys.argv[1]
os.makedirs(os.path.join(directory, "requests"), exist_ok=True)
lock = threading.Lock()
count = [0]


class Receiver(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        with lock:
            count[0] += 1
            number = count[0]
            record = {"path": self.path, "headers": dict(self.headers.items()), "body": body.decode("utf-8")}
            temporary = os.path.join(directory, "requests", ".%d.json" % number)
            with open(temporary, "w", encoding="utf-8") as f:
                json.dump(record, f, ensure_ascii=False, indent=2)
            os.rename(temporary, os.path.join(directory, "requests", "%d.json" % number))
        try:
            with open(os.path.join(directory, "mode"), encoding="utf-8") as f:
                mode = f.read().strip()
        except FileNotFoundError:
            mode = "ok"
        if mode == "hang":
            time.sleep(3600)
            return
        status = 500 if mode == "fail" else 200
        answer = b"ok\n" if status == 200 else b"failed\n"
        self.send_response(status)
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *arguments):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
server.daemon_threads = True
print(server.server_address[1], flush=True)
server.serve_forever()
