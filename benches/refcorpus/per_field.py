"""Instructions per value of each field of a JSON tool result (a list of records), by callgrind.

For each key of the records, writes the same records with that key alone, runs `BIN redact` on
it under callgrind, and subtracts the run on as many empty records: what one value of that field
costs, from the walk to its written token. The whole document, less the empty records, is the
last row: the fields' sum falls short of it by what records cost together (a name recalled in
another record's notes, a second scan).

    python3 benches/refcorpus/per_field.py target/release/mcp-veil /tmp/refcorpus/mcp_contacts.json

Callgrind counts do not depend on the machine's load, so one run of each is enough. Time per
instruction is not the same everywhere (see benches/README.md, "Time is not instructions").
"""
import json
import os
import re
import subprocess
import sys
import tempfile


def instructions(veil, path):
    """Instructions of `veil redact < path`, whole process."""
    with tempfile.NamedTemporaryFile(suffix=".cg") as out, open(path, "rb") as stdin:
        run = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out.name}", veil, "redact"],
            stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=True)
    found = re.search(rb"refs:\s+([\d,]+)", run.stderr)
    if not found:
        sys.exit(f"no instruction count from callgrind for {path}")
    return int(found.group(1).replace(b",", b""))


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    veil, doc = sys.argv[1], sys.argv[2]
    with open(doc, encoding="utf-8") as f:
        records = json.load(f)
    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        sys.exit(f"{doc} is not a list of records")
    keys = list(dict.fromkeys(k for r in records for k in r))
    with tempfile.TemporaryDirectory() as tmp:
        def written(name, recs):
            path = os.path.join(tmp, name)
            with open(path, "w", encoding="utf-8") as f:
                json.dump(recs, f, indent=2)
            return path

        base = instructions(veil, written("empty.json", [{} for _ in records]))
        total = instructions(veil, doc) - base
        print(f"{len(records)} records; {total / len(records):,.0f} instructions a record "
              f"(the whole document less {len(records)} empty records)\n")
        print(f"{'field':<16}{'values':>8}{'bytes':>8}{'instr/value':>13}{'share':>8}")
        rows = []
        for k in keys:
            recs = [{k: r[k]} for r in records if k in r]
            lens = [len(json.dumps(r[k], ensure_ascii=False)) for r in records if k in r]
            spent = instructions(veil, written(f"{len(rows)}.json", recs)) - base
            rows.append((k, len(recs), sum(lens) / len(lens), spent))
        for k, n, mean, spent in rows:
            print(f"{k:<16}{n:>8}{mean:>8.0f}{spent / n:>13,.0f}{spent / total:>8.1%}")
        summed = sum(r[3] for r in rows)
        print(f"{'(sum of fields)':<16}{'':>8}{'':>8}{summed / len(records):>13,.0f}"
              f"{summed / total:>8.1%}")


if __name__ == "__main__":
    main()
