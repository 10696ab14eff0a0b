"""Data the leak benchmark plants: fake people (faker, many locales, seeded) written into a real git
repository, a sqlite database, files in the formats users' tools return, and a memory-graph plan.

Why generated: because every personal value is planted, the benchmark knows each one and its kind,
so a leak is a fact (the value reaches the client) rather than a judgement. `Truth` holds the
planted values by kind and the non-personal "clutter" values (companies, cities, streets, commit
subjects) by field, so a token that covers clutter is reported as a false token of that field.
"""

import csv
import io
import json
import os
import random
import subprocess
from dataclasses import dataclass, field

from faker import Faker

# Locales faker supports with person names (nb_NO is not one; no_NO is Norwegian Bokmål).
LOCALES = [
    "en_US", "de_DE", "fr_FR", "es_ES", "it_IT", "nl_NL", "sv_SE", "no_NO", "da_DK", "fi_FI",
    "pl_PL", "tr_TR", "pt_BR", "ja_JP", "ko_KR", "zh_CN", "hi_IN", "he_IL", "ru_RU", "ar_AA",
    "ga_IE",
]
# Surnames with an apostrophe: a restored value of this shape inside a SQL literal ends the literal.
APOSTROPHE_SURNAMES = ["O'Brien", "O'Connor", "O'Neill", "D'Angelo", "O'Reilly"]
# Family name first, no space (zh, ko) or with a space (ja), as these locales write them.
FAMILY_FIRST_NO_SPACE = {"zh_CN", "ko_KR"}
FAMILY_FIRST_SPACE = {"ja_JP"}
MAESTRO_PREFIXES = ["5018", "5020", "5038", "5893", "6304", "6759", "6761", "6762", "6763"]
FAKER_ISSUERS = ["visa16", "mastercard", "amex", "discover", "diners", "jcb15", "jcb16", "visa13",
                 "visa19"]


def luhn_complete(digits: str) -> str:
    """`digits` plus the Luhn check digit."""
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 0:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return digits + str((10 - total % 10) % 10)


@dataclass
class Person:
    pid: int
    locale: str
    first: str
    last: str
    full: str
    email: str
    phone: str
    card: str
    issuer: str
    iban: str
    ssn: str
    ip: str
    handle: str
    company: str
    city: str
    street: str


@dataclass
class Truth:
    """Every planted value: `personal[value] = kind`; `clutter[value] = field`."""

    personal: dict = field(default_factory=dict)
    # full name -> (first, last): the parts a partly covered name shows.
    name_parts: dict = field(default_factory=dict)
    clutter: dict = field(default_factory=dict)

    def plant(self, value: str, kind: str):
        value = value.strip()
        if value and value not in self.personal:
            self.personal[value] = kind

    def add_person(self, p: Person):
        self.plant(p.full, "NAME")
        self.name_parts[p.full] = (p.first, p.last)
        self.plant(p.first, "NAME_PART")
        self.plant(p.last, "NAME_PART")
        self.plant(p.email, "EMAIL")
        self.plant(p.phone, "PHONE")
        self.plant(p.card, "CARD")
        self.plant(p.iban, "IBAN")
        if p.ssn:
            self.plant(p.ssn, "SSN")
        self.plant(p.ip, "IP")
        self.plant(p.handle, "USERNAME")
        for value, what in ((p.company, "company"), (p.city, "city"), (p.street, "street")):
            self.clutter.setdefault(value, what)


def make_people(seed: int, per_locale: int, locales: list) -> list:
    rng = random.Random(seed)
    people = []
    cards = Faker("en_US")  # the issuer table of the default provider (locales differ)
    cards.seed_instance(seed)
    for li, loc in enumerate(locales):
        fake = Faker(loc)
        fake.seed_instance(seed * 1000 + li)
        for _ in range(per_locale):
            first, last = fake.first_name(), fake.last_name()
            if loc in ("ga_IE", "en_US") and rng.random() < 0.35:
                last = rng.choice(APOSTROPHE_SURNAMES)
            if loc in FAMILY_FIRST_NO_SPACE:
                full = last + first
            elif loc in FAMILY_FIRST_SPACE:
                full = f"{last} {first}"
            else:
                full = f"{first} {last}"
            handle = fake.user_name()
            if rng.random() < 0.3:
                handle = handle[:6] + str(rng.randint(2, 99))
            issuer = rng.choice(FAKER_ISSUERS + ["maestro"] * 3)
            if issuer == "maestro":
                n = rng.randint(12, 19)
                body = rng.choice(MAESTRO_PREFIXES)
                body += "".join(str(rng.randint(0, 9)) for _ in range(n - len(body) - 1))
                card = luhn_complete(body)
            else:
                card = cards.credit_card_number(issuer)
            try:
                iban = fake.iban()
            except Exception:  # a locale without a bank provider
                iban = Faker("en_GB").iban()
            people.append(Person(
                pid=len(people) + 1, locale=loc, first=first, last=last, full=full,
                email=fake.email(), phone=fake.phone_number(), card=card, issuer=issuer,
                iban=iban, ssn=fake.ssn() if loc == "en_US" else "",
                ip=fake.ipv4_public(), handle=handle,
                company=fake.company(), city=fake.city(),
                street=fake.street_address().replace("\n", ", "),
            ))
    rng.shuffle(people)
    return people


def card_shape(card: str, rng: random.Random) -> str:
    """A card number as people write it: plain, in groups of four with spaces or dashes."""
    style = rng.random()
    if style < 0.5:
        return card
    sep = " " if style < 0.8 else "-"
    return sep.join(card[i:i + 4] for i in range(0, len(card), 4))


def phone_shape(phone: str, rng: random.Random) -> str:
    """Sometimes grouped with a no-break or narrow no-break space (as word processors do)."""
    r = rng.random()
    if r < 0.1:
        return phone.replace(" ", "\u00a0")
    if r < 0.15:
        return phone.replace(" ", "\u202f")
    return phone


# ---------------------------------------------------------------------------------------------
# git
# ---------------------------------------------------------------------------------------------

def make_git(root: str, people: list, commits: int, rng: random.Random, truth: Truth):
    """A real repository: `git commit` with authors (some one-word handles), committers and
    trailers. Returns the repository path and the commit hashes, oldest first."""
    repo = os.path.join(root, "repo")
    os.makedirs(repo)
    fake = Faker("en_US")
    fake.seed_instance(rng.randint(0, 10**9))
    base_env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    base_env.update(HOME=root, GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL="/dev/null")

    def git(*args):
        subprocess.run(["git", "-C", repo, *args], check=True, env=base_env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    git("init", "-q", "-b", "main")
    hashes = []
    t0 = 1_760_000_000
    authors_file = []
    for i in range(commits):
        a = rng.choice(people)
        c = a if rng.random() < 0.6 else rng.choice(people)
        use_handle = rng.random() < 0.25
        author_name = a.handle if use_handle else a.full
        subject = fake.sentence(nb_words=6).rstrip(".")
        truth.clutter.setdefault(subject, "commit subject")
        body = [subject, ""]
        if rng.random() < 0.3:
            r = rng.choice(people)
            body += [f"Reported by {r.full} in the support queue.", ""]
        trailers = [f"Signed-off-by: {a.full} <{a.email}>"]
        if rng.random() < 0.35:
            co = rng.choice(people)
            trailers.append(f"Co-authored-by: {co.full} <{co.email}>")
        if rng.random() < 0.35:
            rv = rng.choice(people)
            trailers.append(f"Reviewed-by: {rv.full} <{rv.email}>")
        if rng.random() < 0.15:
            trailers.append(f"Reported-by: {rng.choice(people).handle}")
        message = "\n".join(body + trailers) + "\n"
        if i % 3 == 0:
            authors_file.append(f"{a.full} <{a.email}>")
            path = os.path.join(repo, "AUTHORS")
            with open(path, "w", encoding="utf-8") as f:
                f.write("\n".join(authors_file) + "\n")
        else:
            path = os.path.join(repo, f"src/mod{i % 7}.txt")
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "a", encoding="utf-8") as f:
                f.write(f"{subject}\n")
        git("add", "-A")
        date = f"@{t0 + i * 3600} +0000"
        env = dict(base_env, GIT_AUTHOR_NAME=author_name, GIT_AUTHOR_EMAIL=a.email,
                   GIT_AUTHOR_DATE=date, GIT_COMMITTER_NAME=c.full,
                   GIT_COMMITTER_EMAIL=c.email, GIT_COMMITTER_DATE=date)
        subprocess.run(["git", "-C", repo, "commit", "-q", "-F", "-"], input=message.encode(),
                       check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        out = subprocess.run(["git", "-C", repo, "rev-parse", "HEAD"], check=True, env=base_env,
                             capture_output=True, text=True)
        hashes.append(out.stdout.strip())
    return repo, hashes


# ---------------------------------------------------------------------------------------------
# sqlite
# ---------------------------------------------------------------------------------------------

CUSTOMER_COLUMNS = ["id", "first_name", "last_name", "email", "phone", "card_number", "iban",
                    "ssn", "username", "last_login_ip", "company", "street", "city"]


def make_sqlite(path: str, people: list, rng: random.Random):
    import sqlite3

    db = sqlite3.connect(path)
    db.execute(
        "CREATE TABLE customers (id INTEGER PRIMARY KEY, first_name TEXT, last_name TEXT, "
        "email TEXT, phone TEXT, card_number TEXT, iban TEXT, ssn TEXT, username TEXT, "
        "last_login_ip TEXT, company TEXT, street TEXT, city TEXT)")
    db.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
    for p in people:
        db.execute("INSERT INTO customers VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)", (
            p.pid, p.first, p.last, p.email, p.phone, card_shape(p.card, rng), p.iban,
            p.ssn or None, p.handle, p.ip, p.company, p.street, p.city))
    db.commit()
    db.close()


# ---------------------------------------------------------------------------------------------
# files (read through server-filesystem)
# ---------------------------------------------------------------------------------------------

def _csv(rows, header=None) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    if header:
        w.writerow(header)
    w.writerows(rows)
    return buf.getvalue()


def _ascii_table(header, rows, style: str) -> str:
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    cell = lambda r: " | ".join(str(x).ljust(w) for x, w in zip(r, widths))  # noqa: E731
    if style == "psql":
        sep = "-+-".join("-" * w for w in widths)
        lines = [" " + cell(header), "-" + sep + "-"] + [" " + cell(r) for r in rows]
        lines.append(f"({len(rows)} rows)")
    else:
        bar = "+" + "+".join("-" * (w + 2) for w in widths) + "+"
        lines = [bar, "| " + cell(header) + " |", bar] + ["| " + cell(r) + " |" for r in rows]
        lines += [bar, f"{len(rows)} rows in set (0.00 sec)"]
    return "\n".join(lines) + "\n"


def make_files(folder: str, people: list, rng: random.Random, per_file: int) -> dict:
    """Writes the files; returns {relative path: format name}."""
    os.makedirs(folder)
    files = {}

    def pick():
        return rng.sample(people, min(per_file, len(people)))

    def put(name, fmt, text):
        with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
            f.write(text)
        files[name] = fmt

    ps = pick()
    put("contacts_google.csv", "csv-google", _csv(
        [[p.full, p.first, p.last, p.handle, "* Home", p.email, "Mobile", phone_shape(p.phone, rng),
          p.company, p.city] for p in ps],
        ["Name", "Given Name", "Family Name", "Nickname", "E-mail 1 - Type", "E-mail 1 - Value",
         "Phone 1 - Type", "Phone 1 - Value", "Organization 1 - Name", "Address 1 - City"]))
    ps = pick()
    put("contacts_outlook.csv", "csv-outlook", _csv(
        [[p.first, "", p.last, p.email, p.phone, p.company, p.street, p.city] for p in ps],
        ["First Name", "Middle Name", "Last Name", "E-mail Address", "Mobile Phone", "Company",
         "Business Street", "Business City"]))
    ps = pick()
    put("contacts_noheader.csv", "csv-headerless",
        _csv([[p.full, p.email, p.phone, p.city] for p in ps]))
    ps = pick()
    msgs = []
    for i, p in enumerate(ps):
        to = rng.choice(people)
        cc = rng.choice(people)
        msgs.append(
            f"From {p.email} Mon Nov 30 09:{i % 60:02d}:00 2026\n"
            f"From: {p.full} <{p.email}>\nTo: {to.full} <{to.email}>\n"
            f"Cc: {cc.full} <{cc.email}>\nReply-To: {p.email}\n"
            f"Date: Mon, 30 Nov 2026 09:{i % 60:02d}:00 +0000\n"
            f"Subject: Invoice for {p.company}\n\n"
            f"Hi {to.first},\n\nplease charge card {card_shape(p.card, rng)} for the order and "
            f"call me on {phone_shape(p.phone, rng)}.\n\nBest regards,\n{p.full}\n{p.company}\n")
    put("inbox.mbox", "mbox", "\n".join(msgs))
    ps = pick()
    put("contacts.vcf", "vcard", "".join(
        f"BEGIN:VCARD\nVERSION:3.0\nFN:{p.full}\nN:{p.last};{p.first};;;\nEMAIL;TYPE=INTERNET:"
        f"{p.email}\nTEL;TYPE=CELL:{p.phone}\nORG:{p.company}\nADR;TYPE=HOME:;;{p.street};"
        f"{p.city};;;\nNICKNAME:{p.handle}\nEND:VCARD\n" for p in ps))
    ps = pick()
    events = []
    for i in range(0, len(ps) - 2, 3):
        o, a1, a2 = ps[i:i + 3]
        events.append(
            f"BEGIN:VEVENT\nUID:evt-{i}@bench\nDTSTART:20261201T{9 + i % 8:02d}0000Z\n"
            f"SUMMARY:Review with {o.company}\nORGANIZER;CN={o.full}:mailto:{o.email}\n"
            f"ATTENDEE;CN={a1.full};ROLE=REQ-PARTICIPANT:mailto:{a1.email}\n"
            f"ATTENDEE;CN={a2.full};ROLE=OPT-PARTICIPANT:mailto:{a2.email}\n"
            f"LOCATION:{o.city}\nEND:VEVENT\n")
    put("meetings.ics", "icalendar",
        "BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//bench//EN\n" + "".join(events) + "END:VCALENDAR\n")
    header = ["Name", "Email", "Phone", "Company", "City"]
    ps = pick()
    put("customers.html", "html-table",
        "<table>\n<tr>" + "".join(f"<th>{h}</th>" for h in header) + "</tr>\n" + "".join(
            "<tr>" + "".join(f"<td>{x}</td>" for x in (p.full, p.email, p.phone, p.company,
                                                       p.city)) + "</tr>\n" for p in ps)
        + "</table>\n")
    ps = pick()
    put("customers.md", "markdown-table",
        "| " + " | ".join(header) + " |\n|" + "---|" * len(header) + "\n" + "".join(
            f"| {p.full} | {p.email} | {p.phone} | {p.company} | {p.city} |\n" for p in ps))
    ps = pick()
    put("customers_psql.txt", "psql-table", _ascii_table(
        ["first_name", "last_name", "email", "phone", "city"],
        [[p.first, p.last, p.email, p.phone, p.city] for p in ps], "psql"))
    ps = pick()
    put("customers_mysql.txt", "mysql-table", _ascii_table(
        ["name", "email", "card", "city"],
        [[p.full, p.email, card_shape(p.card, rng), p.city] for p in ps], "mysql"))
    ps = pick()
    put("people.yaml", "yaml", "people:\n" + "".join(
        f"  - name: {json.dumps(p.full, ensure_ascii=False)}\n    email: {p.email}\n"
        f"    phone: {json.dumps(p.phone, ensure_ascii=False)}\n    iban: {p.iban}\n"
        f"    handle: {p.handle}\n    company: {json.dumps(p.company, ensure_ascii=False)}\n"
        for p in ps))
    ps = pick()
    put("export.json", "json-export", json.dumps({"contacts": [
        {"firstName": p.first, "lastName": p.last, "email": p.email, "phone": p.phone,
         "card": p.card, "iban": p.iban, "ip": p.ip, "company": p.company, "city": p.city}
        for p in ps]}, ensure_ascii=False, indent=2) + "\n")
    ps = pick()
    log = []
    for i, p in enumerate(ps):
        ts = f"2026-11-30T10:{i % 60:02d}:{(i * 7) % 60:02d}Z"
        log.append(f"{ts} INFO  auth: login ok user={p.handle} email={p.email} ip={p.ip}")
        log.append(f"{ts} WARN  billing: card declined for {p.full} ({card_shape(p.card, rng)})")
        if p.ssn:
            log.append(f"{ts} DEBUG kyc: verified ssn={p.ssn} for user {p.handle}")
        log.append(f"{ts} INFO  crm: updated contact {p.full} phone={p.phone}")
    put("app.log", "log", "\n".join(log) + "\n")
    inv = os.path.join(folder, "invoices")
    os.makedirs(inv)
    for p in pick():
        open(os.path.join(inv, f"{p.email}.pdf"), "w").close()
        open(os.path.join(inv, f"Invoice - {p.full}.pdf"), "w").close()
    files["invoices"] = "directory-listing"
    return files


# ---------------------------------------------------------------------------------------------
# memory graph (server-memory)
# ---------------------------------------------------------------------------------------------

def memory_plan(people: list, rng: random.Random):
    """Entities (people with observations, companies) and relations to create."""
    entities, relations, companies = [], [], {}
    for p in people:
        entities.append({"name": p.full, "entityType": "person", "observations": [
            f"Email: {p.email}", f"Phone: {p.phone}", f"Works at {p.company} in {p.city}",
            f"Goes by @{p.handle} on chat", f"Card on file {card_shape(p.card, rng)}"]})
        companies.setdefault(p.company, {"name": p.company, "entityType": "organization",
                                         "observations": [f"Based in {p.city}"]})
        relations.append({"from": p.full, "to": p.company, "relationType": "works_at"})
        other = rng.choice(people)
        if other is not p:
            relations.append({"from": p.full, "to": other.full, "relationType": "knows"})
    return entities + list(companies.values()), relations
