"""Sends N sequential tools/call requests through an MCP proxy command and prints p50/p99.

For instruction counts per call, run the proxy under callgrind with N = 0 and N = 200 and take
the difference of the totals divided by 200 (callgrind counts do not depend on machine load):

    python3 benches/refcorpus/proxy_calls.py 200 10k valgrind --tool=callgrind \\
        --callgrind-out-file=/tmp/p200.cg target/release/mcp-veil proxy -- \\
        target/release/examples/echo_server
    grep summary /tmp/p200.cg

SIZE is echo_server's `size` argument (`small` or `10k`).
"""
import json
import subprocess
import sys
import time


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    n, size, cmd = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def round_trip(msg):
        p.stdin.write((json.dumps(msg) + "\n").encode())
        p.stdin.flush()
        return p.stdout.readline()

    round_trip({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                           "clientInfo": {"name": "bench", "version": "1"}}})
    p.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    p.stdin.flush()
    times = []
    for i in range(n):
        start = time.perf_counter()
        round_trip({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
                    "params": {"name": "lookup", "arguments": {"size": size}}})
        times.append(time.perf_counter() - start)
    p.stdin.close()
    p.wait()
    if times:
        times.sort()
        print("%d calls: p50 %.0f us, p99 %.0f us" % (
            n, times[len(times) // 2] * 1e6, times[int(len(times) * 0.99)] * 1e6))


if __name__ == "__main__":
    main()
