#!/usr/bin/env python3
"""Replace winners of a built-in table with those of a newer `scantune export`.

    scripts/builtin_replace.py runtime/builtin/h100_sm90.json new.json [more.json ...]

`scantune import` keeps the faster of two winners by their stored times, which were
measured in different runs. A re-search that ran into an empty database instead duels
its winner against the dispatcher's choice (the table's entry) in the same run, so its
winner replaces the table's entry of that (model, type, op, op_hash, kind, size) outright.
The new runs, their devices (matched by UUID) and baselines come along, with ids
renumbered; the file is rewritten in the export's layout (sorted keys, 2-space indent).
"""
import json
import sys


def adopt(rows, new_rows, identity, fix=lambda row: row):
    """Appends the new rows whose `identity` field `rows` lacks, with fresh ids; returns
    each new row's id in `rows`."""
    ids = {}
    known = {r[identity]: r["id"] for r in rows}
    for r in new_rows:
        if r[identity] in known:
            ids[r["id"]] = known[r[identity]]
            continue
        ids[r["id"]] = max(x["id"] for x in rows) + 1
        rows.append(dict(fix(r), id=ids[r["id"]]))
    return ids


def upsert(rows, new_rows, fields):
    """Replaces the rows of `rows` that match a new row on `fields`, appends the others;
    returns (replaced rows whose policy changed, appended rows)."""
    key = lambda r: tuple(r[f] for f in fields)
    index = {key(r): i for i, r in enumerate(rows)}
    changed = added = 0
    for r in new_rows:
        if key(r) in index:
            changed += rows[index[key(r)]].get("policy") != r.get("policy")
            rows[index[key(r)]] = r
        else:
            index[key(r)] = len(rows)
            rows.append(r)
            added += 1
    return changed, added


def main(table_path, new_paths):
    table = json.load(open(table_path))
    for path in new_paths:
        new = json.load(open(path))
        if new.get("format") != table.get("format"):
            sys.exit(f"{path}: not a scantune export")
        if new.get("measurements"):
            sys.exit(f"{path}: export it with --no-measurements")
        device_ids = adopt(table["devices"], new["devices"], "uuid")
        run_ids = adopt(table["runs"], new["runs"], "uid",
                        lambda r: dict(r, device=device_ids[r["device"]]))
        best = [dict(e, device=device_ids[e["device"]], run=run_ids[e["run"]])
                for e in new["best"]]
        baselines = [dict(b, device=device_ids[b["device"]], run=run_ids.get(b["run"], b["run"]))
                     for b in new["baselines"]]
        replaced, added = upsert(table["best"], best, ("model", "type", "op", "op_hash", "kind",
                                                       "size"))
        upsert(table["baselines"], baselines, ("baseline", "type", "op", "op_hash", "kind",
                                               "size", "device"))
        print(f"{path}: {replaced} winners changed, {added} added, "
              f"{len(new['best']) - replaced - added} kept")
    with open(table_path, "w") as f:
        json.dump(table, f, indent=2, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2:])
