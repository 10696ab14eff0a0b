"""The real servers, each read twice: once by the Python `mcp` client directly, once through
`mcp-veil proxy -- <server>`, with the same requests; and the round-trip checks.

Every server gets one direct and one proxied session for the whole run (a host keeps one session
per server, so tokens are the proxy's session tokens). Each scripted read is `(shape, tool, args)`;
the caller scores the pair of outputs.
"""

import json
import os
import random
from contextlib import AsyncExitStack

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from score import TOKEN, covered_texts


def text_of(result, structured: bool = True) -> str:
    """The text blocks, and the structured content as JSON (the client sees both)."""
    parts = [c.text for c in result.content if getattr(c, "type", "") == "text"]
    if structured and result.structured_content is not None:
        # an escaped newline gets a real one after it, so lines and word edges stay as in text
        dumped = json.dumps(result.structured_content, ensure_ascii=False, indent=1)
        parts.append(dumped.replace("\\n", "\\n\n"))
    return "\n".join(parts)


class Pair:
    """A direct and a proxied session to the same server command."""

    def __init__(self, veil: str, command: list, env: dict, stderr):
        self.veil, self.command, self.env, self.stderr = veil, command, env, stderr
        self.errors = []

    def pass_env(self) -> list:
        """The variables the server needs: the proxy starts servers from a clean environment."""
        return [a for name in ("MEMORY_FILE_PATH",) if name in self.env
                for a in ("--pass-env", name)]

    async def __aenter__(self):
        self.stack = AsyncExitStack()
        direct = StdioServerParameters(command=self.command[0], args=self.command[1:],
                                       env=self.env)
        proxied = StdioServerParameters(command=self.veil,
                                        args=["proxy", *self.pass_env(), "--", *self.command],
                                        env=self.env)
        self.direct = await self._open(direct)
        self.proxied = await self._open(proxied)
        return self

    async def _open(self, params):
        read, write = await self.stack.enter_async_context(stdio_client(params,
                                                                        errlog=self.stderr))
        session = await self.stack.enter_async_context(ClientSession(read, write))
        await session.initialize()
        return session

    async def __aexit__(self, *exc):
        await self.stack.aclose()

    async def call(self, session, tool: str, args: dict, label: str,
                   structured: bool = True) -> str:
        try:
            result = await session.call_tool(tool, args)
        except Exception as e:  # a protocol error: recorded, the run goes on
            self.errors.append(f"{label}: {tool}: {type(e).__name__}")
            return ""
        if result.is_error:
            self.errors.append(f"{label}: {tool}: isError")
        return text_of(result, structured)

    async def text(self, session, tool: str, args: dict, label: str) -> str:
        """The text blocks only (what a round-trip check compares)."""
        return await self.call(session, tool, args, label, structured=False)

    async def both(self, tool: str, args: dict, proxied_args: dict | None = None):
        d = await self.call(self.direct, tool, args, "direct")
        p = await self.call(self.proxied, tool, proxied_args or args, "proxied")
        # A proxied answer far shorter than the direct one lost content (an error, a server
        # that started without its data): that would hide leaks, so it is an error of the run.
        if len(d) > 200 and len(p) < 0.4 * len(d):
            self.errors.append(f"proxied: {tool}: output lost content ({len(p)} of {len(d)} bytes)")
        return d, p


def token_map(direct: str, proxied: str) -> dict:
    """covered text -> the token that covered it (first seen)."""
    out = {}
    for tok, covered, *_ in covered_texts(direct, proxied):
        if covered is not None:
            out.setdefault(covered.strip(), tok)
    return out


def _differs(got: str, want: str) -> str:
    """Which lines differ (numbers only: no value in a report line)."""
    g, w = got.split("\n"), want.split("\n")
    bad = [str(i + 1) for i in range(max(len(g), len(w)))
           if (g[i] if i < len(g) else None) != (w[i] if i < len(w) else None)]
    return "lines " + ",".join(bad) + " differ" if bad else ""


class Check:
    def __init__(self, name: str, holds: bool, detail: str = ""):
        self.name, self.holds, self.detail = name, holds, detail

    def as_dict(self):
        return {"name": self.name, "holds": self.holds, "detail": self.detail}


# ---------------------------------------------------------------------------------------------
# the four servers
# ---------------------------------------------------------------------------------------------

async def run_git(pair: Pair, repo: str, hashes: list, n_show: int, score, rng: random.Random):
    checks = []
    log_args = {"repo_path": repo, "max_count": 10000}
    d, p = await pair.both("git_log", log_args)
    score("git/git_log/log", d, p)
    for h in rng.sample(hashes, min(n_show, len(hashes))):
        score("git/git_show/commit", *await pair.both("git_show",
                                                      {"repo_path": repo, "revision": h}))
    score("git/git_show/blob AUTHORS", *await pair.both(
        "git_show", {"repo_path": repo, "revision": "HEAD:AUTHORS"}))
    score("git/git_diff/diff", *await pair.both(
        "git_diff", {"repo_path": repo, "target": hashes[len(hashes) // 2]}))
    again = await pair.call(pair.proxied, "git_log", log_args, "proxied")
    checks.append(Check("git: git_log read twice in a session gives the same output",
                        bool(p) and again == p))
    return checks


async def run_sqlite(pair: Pair, people: list, page: int, score):
    checks = []
    first_page = None
    for off in range(0, len(people), page):
        q = {"query": f"SELECT * FROM customers ORDER BY id LIMIT {page} OFFSET {off}"}
        d, p = await pair.both("read_query", q)
        first_page = first_page or (q, p)
        score("sqlite/read_query/rows (python repr)", d, p)
    score("sqlite/read_query/concatenated name", *await pair.both("read_query", {
        "query": "SELECT first_name || ' ' || last_name AS name, email, phone FROM customers "
                 "ORDER BY id"}))
    again = await pair.call(pair.proxied, "read_query", first_page[0], "proxied")
    checks.append(Check("sqlite: the same query twice in a session gives the same output",
                        bool(first_page[1]) and again == first_page[1]))

    async def insert_check(candidates, label):
        """Through the proxy: read a customer's name (tokens), INSERT a note quoting the tokens
        in a SQL string literal; directly: the note holds the real name."""
        for person in candidates[:5]:
            q = {"query": f"SELECT first_name, last_name FROM customers WHERE id = {person.pid}"}
            d, p = await pair.both("read_query", q)
            tm = token_map(d, p)
            tf, tl = tm.get(person.first), tm.get(person.last)
            if tf and tl:
                body = f"Call {tf} {tl} back"
                break
            q = {"query": "SELECT first_name || ' ' || last_name AS name FROM customers "
                          f"WHERE id = {person.pid}"}
            d, p = await pair.both("read_query", q)
            tfull = token_map(d, p).get(person.full)
            if tfull:
                body = f"Call {tfull} back"
                break
        else:
            return Check(label, False, "no candidate's name was tokenized (they leaked)")
        await pair.call(pair.proxied, "write_query",
                        {"query": f"INSERT INTO notes (body) VALUES ('{body}')"}, "proxied")
        stored = await pair.call(pair.direct, "read_query",
                                 {"query": "SELECT body FROM notes ORDER BY id"}, "direct")
        want = f"Call {person.first} {person.last} back"
        return Check(label, want in stored, "" if want in stored else "row missing or not "
                     "restored")

    plain = [x for x in people if "'" not in x.full and x.locale == "en_US"]
    quoted = [x for x in people if "'" in x.last]
    checks.append(await insert_check(plain, "sqlite: INSERT with name tokens stores the real "
                                            "name"))
    checks.append(await insert_check(quoted, "sqlite: INSERT with name tokens stores the real "
                                             "name, an O'-surname inside the literal"))
    return checks


async def run_files(pair: Pair, folder: str, files: dict, people: list, score):
    checks = []
    outputs = {}
    for name, fmt in files.items():
        if fmt == "directory-listing":
            d, p = await pair.both("list_directory", {"path": os.path.join(folder, name)})
            score(f"filesystem/list_directory/{fmt}", d, p)
            continue
        d, p = await pair.both("read_text_file", {"path": os.path.join(folder, name)})
        outputs[name] = (d, p)
        score(f"filesystem/read_text_file/{fmt}", d, p)
    again = await pair.call(pair.proxied, "read_text_file",
                            {"path": os.path.join(folder, "customers.md")}, "proxied")
    checks.append(Check("filesystem: a file read twice in a session gives the same output",
                        bool(outputs["customers.md"][1]) and again == outputs["customers.md"][1]))

    # the model writes a note with the tokens it saw in the Google contacts export
    d, p = outputs["contacts_google.csv"]
    tm = token_map(d, p)
    target = None
    for person in people:
        t = [tm.get(v) for v in (person.first, person.last, person.email, person.full)]
        if all(t) and person.full in d:
            target = (person, t)
            break
    name_a = "filesystem: write_file with tokens stores the real values"
    name_b = "filesystem: the written file read back shows the tokens the model wrote"
    name_c = "filesystem: a full-name token written and read back is the same token"
    if not target:
        for n in (name_a, name_b, name_c):
            checks.append(Check(n, False, "no contact row with every value tokenized"))
        return checks
    person, (tf, tl, te, tfull) = target
    note = f"Dear {tf} {tl},\nplease confirm {te}.\nCc: {tfull}\n"
    real = f"Dear {person.first} {person.last},\nplease confirm {person.email}.\nCc: {person.full}\n"
    path = os.path.join(folder, "note.txt")
    await pair.call(pair.proxied, "write_file", {"path": path, "content": note}, "proxied")
    stored = await pair.text(pair.direct, "read_text_file", {"path": path}, "direct")
    checks.append(Check(name_a, stored == real, _differs(stored, real)))
    back = await pair.text(pair.proxied, "read_text_file", {"path": path}, "proxied")
    first_lines = "\n".join(back.split("\n")[:2])
    checks.append(Check(name_b, first_lines == "\n".join(note.split("\n")[:2]),
                        "" if first_lines == "\n".join(note.split("\n")[:2])
                        else "read back: " + " ".join(TOKEN.findall(first_lines))
                        + " / wrote: " + f"{tf} {tl} {te}"))
    checks.append(Check(name_c, f"Cc: {tfull}" in back))
    return checks


async def run_memory(pair: Pair, people: list, entities: list, relations: list, score):
    checks = []
    await pair.call(pair.direct, "create_entities", {"entities": entities}, "direct")
    await pair.call(pair.direct, "create_relations", {"relations": relations}, "direct")
    d_graph, p_graph = await pair.both("read_graph", {})
    score("memory/read_graph/graph", d_graph, p_graph)
    again = await pair.call(pair.proxied, "read_graph", {}, "proxied")
    checks.append(Check("memory: read_graph twice in a session gives the same output",
                        bool(p_graph) and again == p_graph))
    for city in sorted({p.city for p in people})[:3]:
        score("memory/search_nodes/graph", *await pair.both("search_nodes", {"query": city}))
    tm = token_map(d_graph, p_graph)
    chosen = [p for p in people if tm.get(p.full)][:2]
    if chosen:
        real = [p.full for p in chosen]
        score("memory/open_nodes/graph", *await pair.both(
            "open_nodes", {"names": real}, {"names": [tm[n] for n in real]}))
    # the model writes with tokens: an observation on a known person and a new entity
    target = next((p for p in people if tm.get(p.full) and tm.get(p.email)), None)
    name_a = "memory: create_entities/add_observations with tokens store the real values"
    name_b = "memory: the written entities read back show the tokens the model wrote"
    if not target:
        checks += [Check(n, False, "no person with name and email tokenized") for n in
                   (name_a, name_b)]
        return checks
    tn, te = tm[target.full], tm[target.email]
    await pair.call(pair.proxied, "add_observations", {"observations": [
        {"entityName": tn, "contents": [f"Prefers email at {te}"]}]}, "proxied")
    await pair.call(pair.proxied, "create_entities", {"entities": [
        {"name": f"Follow-up call {tn}", "entityType": "task",
         "observations": [f"Call {tn} at {te}"]}]}, "proxied")
    stored = await pair.call(pair.direct, "open_nodes", {
        "names": [target.full, f"Follow-up call {target.full}"]}, "direct")
    ok = (f"Prefers email at {target.email}" in stored
          and f"Call {target.full} at {target.email}" in stored)
    checks.append(Check(name_a, ok))
    back = await pair.call(pair.proxied, "open_nodes", {
        "names": [tn, f"Follow-up call {tn}"]}, "proxied")
    ok = f"Prefers email at {te}" in back and f"Call {tn} at {te}" in back
    checks.append(Check(name_b, ok))
    return checks
