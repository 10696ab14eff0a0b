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
import sys

from run import open_session


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    path, cmd = sys.argv[1], sys.argv[2:]
    p, request = open_session(cmd, "proxy_read.py")
    if path != "-":
        reply, line = request(3, "tools/call", {"name": "read", "arguments": {"path": path}})
        if "result" not in reply:
            sys.exit(f"the proxy refused the read of {path}: {reply.get('error')}")
        print(len(reply["result"]["content"][0]["text"]), hashlib.sha1(line).hexdigest()[:8])
    p.stdin.close()
    p.wait()


if __name__ == "__main__":
    main()
