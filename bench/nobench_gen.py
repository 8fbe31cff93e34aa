#!/usr/bin/env python3
"""NoBench data generator (the rules of the original nobench_gendata.py).

For object seed s in 0..N-1, enc(x) = base32 of Python's bin(x) string and
h = (s + N/2) % N:

    str1 enc(s), str2 enc(h), num s, bool s%2==1,
    dyn1 s (enc(s) when s%20==0), dyn2 s | enc(s) | bool by s%3,
    nested_arr s%8 words drawn Zipf-like from bench/words.txt,
    nested_obj {"str": enc(h), "num": h},
    sparse_XX0..XX9 with XX = s%100, each enc(s%11),
    thousandth s%1000.

Objects are written shuffled, as JSON lines, to DIR/main.jsonl; DIR/extra.jsonl
holds seeds N .. N+N/1000-1 (for Q12); DIR/words.json counts, per word, the
objects of main.jsonl containing it (Q8 picks words by it).  Output is a
function of N and the seed only.

    python3 bench/nobench_gen.py N DIR [--seed K]
"""
import argparse
import base64
import json
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def enc(x):
    return base64.b32encode(bin(x).encode()).decode()


def load_words():
    with open(os.path.join(HERE, "words.txt")) as f:
        return [w.strip() for w in f if w.strip() and not w.startswith("#")]


def zipf_sampler(rng, nwords):
    """Word ranks with probability proportional to 1/rank."""
    weights = 1.0 / np.arange(1, nwords + 1)
    cdf = np.cumsum(weights / weights.sum())

    def draw(k):
        return np.minimum(np.searchsorted(cdf, rng.random(k)), nwords - 1)
    return draw


def object_text(s, n, words, ranks, sparse_values):
    """One object as JSON text.  Every string is base32 or [a-z]: no escaping."""
    h = (s + n // 2) % n
    e = enc(s)
    dyn1 = '"%s"' % e if s % 20 == 0 else str(s)
    r3 = s % 3
    dyn2 = str(s) if r3 == 2 else ('"%s"' % e if r3 == 1 else
                                   ("true" if s % 2 == 1 else "false"))
    arr = ", ".join('"%s"' % words[r] for r in ranks.tolist())
    base = (s % 100) * 10
    sv = sparse_values[s % 11]
    sparse = ", ".join('"sparse_%03d": "%s"' % (base + i, sv) for i in range(10))
    return ('{"str1": "%s", "str2": "%s", "num": %d, "bool": %s, "dyn1": %s, '
            '"dyn2": %s, "nested_arr": [%s], "nested_obj": {"str": "%s", '
            '"num": %d}, %s, "thousandth": %d}'
            % (e, enc(h), s, "true" if s % 2 == 1 else "false", dyn1, dyn2,
               arr, enc(h), h, sparse, s % 1000))


def generate(n, outdir, seed=1, progress=True):
    os.makedirs(outdir, exist_ok=True)
    words = load_words()
    rng = np.random.default_rng([seed, n])
    draw = zipf_sampler(rng, len(words))
    n_extra = max(1, n // 1000)
    seeds = np.arange(n + n_extra)
    ranks = draw(int(np.sum(seeds % 8)))
    offsets = np.concatenate(([0], np.cumsum(seeds % 8)))
    order = rng.permutation(n)
    # objects containing each word: distinct (object, word) pairs, counted
    owner = np.repeat(seeds[:n], seeds[:n] % 8)
    pairs = np.unique(owner * len(words) + ranks[:offsets[n]])
    doc_freq = np.bincount(pairs % len(words), minlength=len(words))
    sparse_values = [enc(v) for v in range(11)]
    start = time.monotonic()

    with open(os.path.join(outdir, "main.jsonl"), "w") as out:
        for i, s in enumerate(order):
            s = int(s)
            out.write(object_text(s, n, words, ranks[offsets[s]:offsets[s + 1]],
                                  sparse_values))
            out.write("\n")
            if progress and i % 100000 == 99999:
                print("  generated %d of %d objects (%.0f s)"
                      % (i + 1, n, time.monotonic() - start), flush=True)
    with open(os.path.join(outdir, "extra.jsonl"), "w") as out:
        for s in range(n, n + n_extra):
            out.write(object_text(s, n, words, ranks[offsets[s]:offsets[s + 1]],
                                  sparse_values))
            out.write("\n")
    with open(os.path.join(outdir, "words.json"), "w") as out:
        json.dump({w: int(c) for w, c in zip(words, doc_freq) if c}, out)
    with open(os.path.join(outdir, "DONE"), "w") as out:
        out.write("%d %d\n" % (n, seed))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("n", type=int)
    ap.add_argument("dir")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if args.n < 2:
        sys.exit("N must be at least 2")
    generate(args.n, args.dir, args.seed)


if __name__ == "__main__":
    main()
