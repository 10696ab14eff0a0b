"""Sends one `read` of FILE through an MCP proxy command, as `run.py --through-proxy` does, and
prints the text's length and the sha1 of the reply line (to compare two builds' output).

For instruction counts, run the proxy under callgrind, with FILE `-` for a session with no call
(the start-up and handshake to subtract):

    python3 benches/refcorpus/proxy_read.py /tmp/refcorpus/mcp_contacts.json valgrind \\
        --tool=callgrind --callgrind-out-file=/tmp/read.cg target/release/mcp-veil proxy \\
        --name files -- python3 benches/refcorpus/file_server.py
    callgrind_annotate /tmp/read.cg | grep 'PROGRAM TOTALS'
"""
import hashlib
import json
import subprocess
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    path, cmd = sys.argv[1], sys.argv[2:]
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL)

    def request(i, method, params):
        p.stdin.write((json.dumps({"jsonrpc": "2.0", "id": i, "method": method,
                                   "params": params}) + "\n").encode())
        p.stdin.flush()
        while True:
            line = p.stdout.readline()
            msg = json.loads(line)
            if msg.get("id") == i:
                return msg, line

    request(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                              "clientInfo": {"name": "proxy_read.py", "version": "1"}})
    p.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    p.stdin.flush()
    request(2, "tools/list", {})
    if path != "-":
        reply, line = request(3, "tools/call", {"name": "read", "arguments": {"path": path}})
        if "result" not in reply:
            sys.exit(f"the proxy refused the read of {path}: {reply.get('error')}")
        print(len(reply["result"]["content"][0]["text"]), hashlib.sha1(line).hexdigest()[:8])
    p.stdin.close()
    p.wait()


if __name__ == "__main__":
    main()
