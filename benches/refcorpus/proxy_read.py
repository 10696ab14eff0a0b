"""Sends one `read` of FILE through an MCP proxy command, as `run.py --through-proxy` does, and
prints the text's length and the sha1 of the reply line (to compare two builds' output).

For instruction counts, run the proxy under callgrind, with FILE `-` for a session with no call
(the start-up and handshake to subtract):

    python3 benches/refcorpus/proxy_read.py /tmp/refcorpus/mcp_contacts.json valgrind \\
        --tool=callgrind --callgrind-out-file=/tmp/read.cg target/release/mcp-veil proxy \\
        --name files -- python3 benches/refcorpus/file_server.py
    callgrind_annotate /tmp/read.cg | grep 'PROGRAM TOTALS'

With `--times N` before FILE, reads it N times in the one session and prints, for each read,
the proxy's on-CPU milliseconds and its minor page faults (`/proc/PID/stat`): a fresh proxy's
first large result against the later ones, which reuse its memory.

    python3 benches/refcorpus/proxy_read.py --times 6 /tmp/refcorpus/prose.txt \\
        target/release/mcp-veil proxy --name files -- python3 benches/refcorpus/file_server.py
"""
import hashlib
import sys

from run import open_session, proxy_cpu_ns


def minor_faults(pid):
    """Minor page faults of process `pid` so far (field 10 of `/proc/PID/stat`)."""
    with open(f"/proc/{pid}/stat") as f:
        # The command name, field 2, is in parentheses and may hold spaces.
        return int(f.read().rsplit(")", 1)[1].split()[7])


def main():
    args = sys.argv[1:]
    times = 1
    if args[:1] == ["--times"] and len(args) > 1 and args[1].isdigit():
        times, args = int(args[1]), args[2:]
    if len(args) < 2 or times < 1:
        sys.exit(__doc__)
    path, cmd = args[0], args[1:]
    p, request = open_session(cmd, "proxy_read.py")
    if path != "-":
        for i in range(times):
            cpu, faults = proxy_cpu_ns(p.pid), minor_faults(p.pid)
            reply, line = request(3 + i, "tools/call", {"name": "read", "arguments": {"path": path}})
            if "result" not in reply:
                sys.exit(f"the proxy refused the read of {path}: {reply.get('error')}")
            if i == 0:
                print(len(reply["result"]["content"][0]["text"]), hashlib.sha1(line).hexdigest()[:8])
            if times > 1:
                print(f"read {i + 1}: {(proxy_cpu_ns(p.pid) - cpu) / 1e6:.1f} ms on-CPU, "
                      f"{minor_faults(p.pid) - faults} minor faults")
    p.stdin.close()
    p.wait()


if __name__ == "__main__":
    main()
