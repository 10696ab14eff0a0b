"""Scoring: which planted values a text shows, which tokens cover what, per shape.

- A planted value is *present* in a shape when the direct output shows it, and *leaked* when the
  proxied output shows it anywhere (one occurrence in the clear is a leak, whatever else was
  tokenized). Names, handles and emails match case-insensitively with word boundaries (CJK names,
  written without spaces, match as substrings); phones, cards, IBANs and SSNs match digit-normalised
  (any separators between the digits, including no-break spaces).
- NAME_PART values (a given or family name on its own) are looked for after the full names are
  masked, so a full name counts once, as NAME. An occurrence inside a longer company, city or
  street value ("Halvorsen BA", "54182 Catherine Pine") is that value's, not the person's: it is
  no leak, by the same rule that makes a token there a false one (a span inside both counts as
  the longer one). A multi-word name that did not leak whole but has a
  part next to a token (`[NAME_3] Smith`, `[NAME_1] 小林`) is *partly covered*.
- A token's covered text comes from aligning the proxied output with the direct output (difflib,
  line by line, then on word/space/punctuation items). A token whose covered text is no planted
  personal value nor part of one is *false*, reported by the field it hit.
"""

import difflib
import re
from collections import defaultdict

TOKEN = re.compile(r"\[[A-Z][A-Z0-9_]*_[1-9][0-9]*\]")
ITEMS = re.compile(r"\[[A-Z][A-Z0-9_]*_[1-9][0-9]*\]|\w+|\s+|.", re.S)
# Combining marks Python's \w leaves out (Devanagari vowel signs, Hebrew/Arabic points).
_MARKS = "\u0300-\u036f\u0591-\u05c7\u0610-\u061a\u064b-\u065f\u0900-\u0903\u093a-\u094f\u0962\u0963"
WORD = rf"[\w{_MARKS}]"
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
DIGIT_KINDS = {"PHONE", "CARD", "IBAN", "SSN"}
SEP = r"[\s()\-./+\u00a0\u202f\u2009]{0,3}"


def digits_of(s: str) -> str:
    return "".join(ch for ch in s if ch.isdigit())


def _digit_pattern(chars: str) -> str:
    return SEP.join(re.escape(c) for c in chars)


class Matcher:
    """One compiled pattern per planted value, plus a cheap prefilter."""

    def __init__(self, value: str, kind: str):
        self.value, self.kind = value, kind
        if kind in DIGIT_KINDS:
            if kind == "IBAN":
                chars = re.sub(r"\s", "", value).upper()
            elif kind == "PHONE":
                chars = digits_of(re.split(r"\s*(?:x|ext\.?)\s*\d+$", value)[0])
            else:
                chars = digits_of(value)
            self.key = digits_of(chars)
            forms = [chars]
            if kind == "PHONE" and value.lstrip().startswith(("+", "00")):
                # the national number without the calling code also reaches a person
                forms += [chars[k:] for k in (1, 2, 3) if len(chars) - k >= 7]
            pat = "|".join(_digit_pattern(f) for f in forms)
            # an IBAN is letters and digits; a phone may go on with an extension (x123)
            edge = r"[\dA-Za-z]" if kind == "IBAN" else r"\d"
            self.pattern = re.compile(rf"(?<!{edge})(?:{pat})(?!{edge})", re.I)
        elif kind == "IP":
            self.key = value
            self.pattern = re.compile(rf"(?<![\d.]){re.escape(value)}(?!\d|\.\d)")
        elif kind == "EMAIL":
            self.key = value.lower()
            self.pattern = re.compile(rf"(?<![\w.+-]){re.escape(value)}(?![\w-])", re.I)
        elif _CJK.search(value):
            self.key = value.lower()
            self.pattern = re.compile(re.escape(value))
        else:
            self.key = value.lower()
            edge = r"[\w.@-]" if kind == "USERNAME" else WORD
            self.pattern = re.compile(rf"(?<!{edge}){re.escape(value)}(?!{edge}|@)", re.I)

    def find(self, text: str, lower: str, digits: str):
        """The first match in `text`, or None."""
        hay = digits if self.kind in DIGIT_KINDS else lower if self.kind != "IP" else text
        if self.key not in hay:
            return None
        return self.pattern.search(text)


def mask_full_names(text: str, full_matchers: list) -> str:
    for m in full_matchers:
        if m.key in text.lower():
            text = m.pattern.sub(lambda x: "\x00" * len(x.group(0)), text)
    return text


class View:
    """A text with the lowered and digit-only copies the prefilter uses."""

    def __init__(self, text: str):
        self.text, self.lower, self.digits = text, text.lower(), digits_of(text)


def values_in(view: View, matchers: list):
    return {m.value: m for m in matchers if m.find(view.text, view.lower, view.digits)}


# ---------------------------------------------------------------------------------------------
# alignment
# ---------------------------------------------------------------------------------------------

def covered_texts(direct: str, proxied: str):
    """[(token, covered, direct line, start, end)] for every token occurrence in `proxied`;
    `covered` is the direct text the token stands for (None when nothing aligns with it)."""
    out = []
    dl, pl = direct.split("\n"), proxied.split("\n")
    sm = difflib.SequenceMatcher(None, dl, pl, autojunk=False)
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op == "equal":
            continue
        if op == "replace" and i2 - i1 == j2 - j1:
            pairs = [(dl[i1 + k], pl[j1 + k]) for k in range(i2 - i1)]
        else:
            pairs = [("\n".join(dl[i1:i2]), "\n".join(pl[j1:j2]))]
        for d, p in pairs:
            for dd, pp, off in _chunks(d, p):
                for t, c, _, x, y in _align_line(dd, pp):
                    out.append((t, c, d, x + off, y + off) if c is not None else (t, None, d, 0, 0))
    return out


ROW_BREAK = re.compile(r"(?<=[}\]]),\s*(?=[{\[])")


def _chunks(d: str, p: str):
    """A long line (a Python repr or one-line JSON of many rows) split into its rows on both sides
    when they have as many, so the alignment stays linear; else the line whole."""
    if len(d) < 2000:
        return [(d, p, 0)]
    dr, pr = _split_keep(d), _split_keep(p)
    if len(dr) != len(pr):
        return [(d, p, 0)]
    return [(a, b, off) for (a, off), (b, _) in zip(dr, pr)]


def _split_keep(line: str):
    out, start = [], 0
    for m in ROW_BREAK.finditer(line):
        out.append((line[start:m.start()], start))
        start = m.start()
    out.append((line[start:], start))
    return out


def _align_line(d: str, p: str):
    pi = ITEMS.findall(p)
    if not any(TOKEN.fullmatch(x) for x in pi):
        return []
    di = ITEMS.findall(d)
    offs = [0]
    for x in di:
        offs.append(offs[-1] + len(x))
    res = []
    # past a few thousand items, popular items (spaces, quotes) are junk or difflib goes quadratic
    sm = difflib.SequenceMatcher(None, di, pi, autojunk=len(di) > 3000)
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        toks = [x for x in pi[j1:j2] if TOKEN.fullmatch(x)]
        if not toks:
            continue
        if op != "replace":
            res.extend((t, None, d, 0, 0) for t in toks)
            continue
        a, b = offs[i1], offs[i2]
        if len(toks) > 1:
            # several tokens in one replaced run: split the direct run on the proxied run's
            # literal pieces when they are there, else give each token the whole run
            spans = _split_run(d[a:b], pi[j1:j2])
            if spans and len(spans) == len(toks):
                res.extend((t, d[a + s:a + e], d, a + s, a + e) for t, (s, e) in zip(toks, spans))
                continue
        res.extend((t, d[a:b], d, a, b) for t in toks)
    return res


def _split_run(direct_run: str, proxied_items: list):
    pattern = ""
    for x in proxied_items:
        pattern += "(.+?)" if TOKEN.fullmatch(x) else re.escape(x)
    m = re.fullmatch(pattern, direct_run, re.S)
    return [m.span(k) for k in range(1, m.lastindex + 1)] if m and m.lastindex else None


def field_hint(line: str, start: int, covered: str) -> str:
    """The field a false token hit when no clutter value names it: the key or column label
    before it on its line, or the shape of the text."""
    c = covered.strip()
    if re.fullmatch(r"[0-9a-f]{7,40}", c):
        return "hash"
    if re.search(r"\d{4}-\d\d-\d\d|\d\d:\d\d", c):
        return "date/time"
    if re.fullmatch(r"[\d\s.,:+-]+", c):
        return "number"
    m = re.search(r"([A-Za-z_][\w.-]{0,30})['\"]?\s*[:=]\s*['\"]?$", line[max(0, start - 40):start])
    return "key:" + m.group(1).strip().lower() if m else "text"


class Occurrences:
    """Where the planted values of one direct line are: personal values (those present in the
    shape) and clutter values (companies, cities, streets, commit subjects)."""

    def __init__(self, line: str, matchers: list, clutter: dict):
        low, dig = line.lower(), digits_of(line)
        self.personal = []
        for m in matchers:
            hay = dig if m.kind in DIGIT_KINDS else low if m.kind != "IP" else line
            if m.key in hay:
                self.personal += [(x.start(), x.end()) for x in m.pattern.finditer(line)]
        self.clutter = []
        for value, what in clutter.items():
            i = line.find(value)
            while i >= 0:
                self.clutter.append((i, i + len(value), what))
                i = line.find(value, i + 1)

    def judge(self, start: int, end: int):
        """None when the span is (part of) a personal value, else the clutter field it hit
        ("" when none). A span inside both counts as the longer one: a surname inside a longer
        company name is the company's."""
        p = max((b - a for a, b in self.personal if a < end and start < b), default=0)
        c = max(((b - a, w) for a, b, w in self.clutter if a < end and start < b),
                default=(0, ""))
        if p and p >= c[0]:
            return None
        return c[1]


# ---------------------------------------------------------------------------------------------
# per-shape tallies
# ---------------------------------------------------------------------------------------------

class Tally:
    """Per (shape, kind): present / leaked / partly; per shape: tokens, false tokens by field."""

    def __init__(self, truth):
        self.truth = truth
        every = [Matcher(v, k) for v, k in truth.personal.items()]
        # every planted value tells a true token from a false one; short name parts are left
        # out of the leak counts (one CJK character matches inside other words far too often)
        self.judges = every
        self.matchers = [m for m in every if not (m.kind == "NAME_PART" and _too_short(m.value))]
        self.full = [m for m in self.matchers if m.kind == "NAME"]
        self.rest = [m for m in self.matchers if m.kind != "NAME"]
        self.present = defaultdict(dict)   # shape -> {value: kind}
        self.leaked = defaultdict(dict)    # shape -> {value: context}
        self.partly = defaultdict(set)     # shape -> {full name}
        self.tokens = defaultdict(int)     # shape -> count
        self.false = defaultdict(list)     # shape -> [(token, covered, field)]
        self.unaligned = defaultdict(int)

    def add(self, shape: str, direct: str, proxied: str):
        dv, pv = View(direct), View(proxied)
        found = values_in(dv, self.full)
        dmask = View(mask_full_names(direct, list(found.values())))
        found.update(values_in(dmask, self.rest))
        leaked_full = {v: m for v, m in found.items()
                       if m.kind == "NAME" and m.find(pv.text, pv.lower, pv.digits)}
        pmask = View(mask_full_names(proxied, [m for m in self.full if m.value in found]))
        for value, m in found.items():
            self.present[shape][value] = m.kind
            view = pv if m.kind == "NAME" else pmask
            hit = m.find(view.text, view.lower, view.digits)
            if hit and m.kind == "NAME_PART":
                hit = next((h for h in m.pattern.finditer(view.text)
                            if not self._inside_clutter(proxied, h.start(), h.end())), None)
            if hit:
                a, b = max(0, hit.start() - 60), min(len(proxied), hit.end() + 60)
                self.leaked[shape].setdefault(value, proxied[a:b])
            elif m.kind == "NAME" and value not in leaked_full:
                parts = self.truth.name_parts.get(value, ())
                for part in parts:
                    if len(part) < 2:
                        continue
                    near = (rf"\[[A-Z_]+_\d+\][\s,]*{re.escape(part)}(?!\w)|"
                            rf"(?<!\w){re.escape(part)}[\s,]*\[[A-Z_]+_\d+\]")
                    if re.search(near, proxied, re.I):
                        self.partly[shape].add(value)
                        break
        occ = {}
        low, dig = direct.lower(), digits_of(direct)
        present = [m for m in self.judges
                   if m.key in (dig if m.kind in DIGIT_KINDS else low if m.kind != "IP" else direct)]
        for token, covered, line, a, b in covered_texts(direct, proxied):
            self.tokens[shape] += 1
            if covered is None:
                self.unaligned[shape] += 1
                continue
            if line not in occ:
                occ[line] = Occurrences(line, present, self.truth.clutter)
            verdict = occ[line].judge(a, b)
            if verdict is not None:
                self.false[shape].append((token, covered, verdict or field_hint(line, a, covered)))


    def _inside_clutter(self, text: str, start: int, end: int) -> bool:
        """Whether `start..end` of `text` lies inside a longer company, city or street value."""
        for value, what in self.truth.clutter.items():
            if what not in PLACES_AND_ORGS or len(value) <= end - start:
                continue
            i = text.find(value, max(0, end - len(value)))
            while 0 <= i <= start:
                if i + len(value) >= end:
                    return True
                i = text.find(value, i + 1)
        return False


PLACES_AND_ORGS = {"company", "city", "street"}


def _too_short(v: str) -> bool:
    # one CJK character or a two-letter Latin part match inside other words far too often
    return len(v) < 2 or (len(v) < 3 and not _CJK.search(v))
