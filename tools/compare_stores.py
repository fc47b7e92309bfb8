#!/usr/bin/env python3
# Usage: tools/compare_stores.py A/runs.sqlite B/runs.sqlite (the quickstart before and after a
# refactoring: docs/testing.md, "Bit for bit").
# Compares two run stores' numbers: every metric point (run name, key, step, tokens, value), every
# evaluation row and every mixer snapshot, by run name; timing keys (tokens_per_s, memory) and
# wall times are left out. Prints the counts and the first differences.
import sqlite3, sys
def load(path):
    c = sqlite3.connect(path)
    names = {i: n for i, n in c.execute("select id, name from runs where kind='train'")}
    keys = {i: n for i, n in c.execute("select id, name from metric_keys")}
    m = {}
    for r, k, s, t, v in c.execute("select run_id, key_id, step, tokens, value from metrics"):
        if r not in names: continue
        key = keys[k]
        if 'tokens_per_s' in key or 'memory' in key or key.endswith('/seconds'): continue
        m[(names[r], key, s)] = (t, v)
    e = {}
    for r, s, task, L, met, v in c.execute("select run_id, step, task, seq_len, metric, value from evals"):
        if r in names: e[(names[r], s, task, L, met)] = v
    x = {}
    for r, s, w in c.execute("select run_id, step, weights from mixer_snapshots"):
        if r in names: x[(names[r], s)] = bytes(w)
    return m, e, x
a, b = load(sys.argv[1]), load(sys.argv[2])
for what, da, db in zip(("metric points", "eval rows", "mixer snapshots"), a, b):
    same = sum(1 for k in da if k in db and da[k] == db[k])
    diff = [k for k in da if k in db and da[k] != db[k]]
    print(f"{what}: {len(da)} vs {len(db)}, identical {same}, different {len(diff)}, only in one {len(set(da) ^ set(db))}")
    for k in diff[:5]: print("  differs:", k, da[k], db[k])
