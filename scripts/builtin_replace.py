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


def main(table_path, new_paths):
    table = json.load(open(table_path))
    for path in new_paths:
        new = json.load(open(path))
        if new.get("format") != table.get("format"):
            sys.exit(f"{path}: not a scantune export")
        if new.get("measurements"):
            sys.exit(f"{path}: export it with --no-measurements")
        device_ids = {}
        by_uuid = {d["uuid"]: d["id"] for d in table["devices"]}
        for d in new["devices"]:
            if d["uuid"] in by_uuid:
                device_ids[d["id"]] = by_uuid[d["uuid"]]
                continue
            device_ids[d["id"]] = max(x["id"] for x in table["devices"]) + 1
            table["devices"].append(dict(d, id=device_ids[d["id"]]))
        run_ids = {}
        known_runs = {r["uid"]: r["id"] for r in table["runs"]}
        for r in new["runs"]:
            if r["uid"] in known_runs:
                run_ids[r["id"]] = known_runs[r["uid"]]
                continue
            run_ids[r["id"]] = max(x["id"] for x in table["runs"]) + 1
            table["runs"].append(dict(r, id=run_ids[r["id"]], device=device_ids[r["device"]]))

        def key(e):
            return (e["model"], e["type"], e["op"], e["op_hash"], e["kind"], e["size"])

        index = {key(e): i for i, e in enumerate(table["best"])}
        replaced = added = 0
        for e in new["best"]:
            e = dict(e, device=device_ids[e["device"]], run=run_ids[e["run"]])
            if key(e) in index:
                old = table["best"][index[key(e)]]
                replaced += old["policy"] != e["policy"]
                table["best"][index[key(e)]] = e
            else:
                index[key(e)] = len(table["best"])
                table["best"].append(e)
                added += 1
        bkey = lambda b: (b["baseline"], b["type"], b["op"], b["op_hash"], b["kind"], b["size"],
                          b["device"])
        bindex = {bkey(b): i for i, b in enumerate(table["baselines"])}
        for b in new["baselines"]:
            b = dict(b, device=device_ids[b["device"]], run=run_ids.get(b["run"], b["run"]))
            if bkey(b) in bindex:
                table["baselines"][bindex[bkey(b)]] = b
            else:
                table["baselines"].append(b)
        print(f"{path}: {replaced} winners changed, {added} added, "
              f"{len(new['best']) - replaced - added} kept")
    with open(table_path, "w") as f:
        json.dump(table, f, indent=2, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2:])
