#!/usr/bin/env python3
"""Summarises a bench/pack-add run: summarize.py META.tsv TIMES.tsv RESULT.txt

Prints the summary, writes it and every per-version time to RESULT.txt, and ends with one GOAL line
per goal: storage (the repository as rollout left it over its size after git gc --aggressive on a
copy, at most 1.5x) and time (mean of the last 100 rollout adds over the mean of the first 100, at
most 1.5x). Exits 1 when a goal fails at full size (1,000 versions or more). Standard library only.
"""

import statistics
import sys

LIMIT = 1.5
STORAGE_LIMIT = 1.5
WINDOW = 100
FULL_SIZE = 1000


def ms(us):
    return "%.1f ms" % (us / 1000.0)


def mib(n):
    return "%.1f MiB" % (n / 1048576.0)


def main(meta_path, times_path, result_path):
    meta = {}
    with open(meta_path, encoding="utf-8") as handle:
        for line in handle:
            key, _, value = line.rstrip("\n").partition("\t")
            meta[key] = value
    rows = []
    with open(times_path, encoding="utf-8") as handle:
        next(handle)
        for line in handle:
            v, r, g = line.split()
            rows.append((int(v), int(r), int(g)))
    n = len(rows)
    if n < 2:
        print("summarize.py: need at least 2 versions", file=sys.stderr)
        return 2
    # With fewer than 200 versions (quick runs) the windows are the first and last halves.
    window = min(WINDOW, n // 2)
    rollout = [r for _, r, _ in rows]
    git = [g for _, _, g in rows]
    ratios = [r / g for _, r, g in rows]

    def stats(values):
        first, last = values[:window], values[-window:]
        return statistics.mean(first), statistics.mean(last), statistics.mean(last) / statistics.mean(first)

    r_first, r_last, r_flat = stats(rollout)
    g_first, g_last, g_flat = stats(git)
    x_first, x_last, _ = stats(ratios)
    passed = r_flat <= LIMIT
    median = statistics.median(rollout)
    slow = [r for r in rollout if r > 2 * median]

    loose = int(meta["rollout_repo_bytes"])
    packed = int(meta["rollout_gc_bytes"])
    peer = int(meta["peer_repo_bytes"])
    peer_gc = int(meta["peer_gc_bytes"])

    lines = []
    add = lines.append
    add("bench/pack-add  %s" % meta["date"])
    add("command   %s" % meta["command"])
    add("machine   %s cores, %s, %s, %s" % (meta["nproc"], meta["cpu"], meta["memory"], meta["kernel"]))
    add("software  %s; %s; %s; source %s" % (meta["rollout"], meta["git"], meta["python"], meta["commit"]))
    add("workload  %s versions of a %s-key tr-TR pack (%s bytes), %s of the values changed per version;"
        % (meta["versions"], meta["keys"], meta["pack_bytes"], meta["change"]))
    add("          en-US@1 (the fallback, same keys) added first: %s" % ms(int(meta["rollout_en_us_add_us"])))
    add("peer      plain git, same file, same path, in the same run: hash-object -w, update-index,")
    add("          write-tree, commit-tree, update-ref (5 processes per version)")
    add("")
    add("time per add                    first %-4d  last %-4d  last/first" % (window, window))
    add("  rollout pack add            %10s  %10s  %6.2fx  %s (limit %.1fx)"
        % (ms(r_first), ms(r_last), r_flat, "PASS" if passed else "FAIL", LIMIT))
    add("  git plumbing peer           %10s  %10s  %6.2fx" % (ms(g_first), ms(g_last), g_flat))
    add("  rollout/git (per version)   %9.1fx  %9.1fx" % (x_first, x_last))
    add("  all %d versions: rollout mean %s (median %s, max %s), git mean %s; rollout/git %.1fx"
        % (n, ms(statistics.mean(rollout)), ms(median), ms(max(rollout)),
           ms(statistics.mean(git)), statistics.mean(rollout) / statistics.mean(git)))
    add("  adds over 2x the median (those that packed): %d, mean %s, %.1f%% of all rollout time"
        % (len(slow), ms(statistics.mean(slow)) if slow else "-", 100.0 * sum(slow) / sum(rollout)))
    add("")
    add("repository size on disk (du -sb)")
    add("  rollout repository, as left        %10s  %12d B  (%s packs of %s, %s loose objects of %s, %s commits)"
        % (mib(loose), loose, meta["rollout_repo_packs"], mib(int(meta["rollout_repo_pack_bytes"])),
           meta["rollout_repo_loose_objects"], mib(int(meta["rollout_repo_loose_bytes"])), meta["rollout_commits"]))
    add("  same, copy after git gc --aggressive %8s  %12d B  loose/gc %.1fx  (gc took %s s)"
        % (mib(packed), packed, loose / packed, meta["rollout_gc_seconds"]))
    add("  git peer repository, as left       %10s  %12d B  rollout/peer %.2fx" % (mib(peer), peer, loose / peer))
    add("  git peer, copy after gc --aggressive %8s  %12d B  rollout-gc/peer-gc %.2fx"
        % (mib(peer_gc), peer_gc, packed / peer_gc))
    add("")
    add("objects by type (count, bytes on disk)")
    add("  rollout  %s" % meta["rollout_loose_by_type"])
    add("  peer     %s" % meta["peer_loose_by_type"])
    add("  largest locale tree at the end: rollout packs/tr-TR/0 %s B (at most 999 versions), peer packs/tr-TR %s B (grows with every version)"
        % (meta["rollout_locale_tree_bytes"], meta["peer_locale_tree_bytes"]))
    storage = loose / packed
    stored = storage <= STORAGE_LIMIT
    add("")
    add("GOAL pack-add storage: %.2fx (goal <= %.1fx): %s" % (storage, STORAGE_LIMIT, "pass" if stored else "FAIL"))
    add("GOAL pack-add time flat: %.2fx (goal <= %.1fx): %s" % (r_flat, LIMIT, "pass" if passed else "FAIL"))
    summary = "\n".join(lines)
    print(summary)

    with open(result_path, "w", encoding="utf-8") as out:
        out.write(summary + "\n\nversion\trollout_us\tgit_us\trollout/git\n")
        for (v, r, g), x in zip(rows, ratios):
            out.write("%d\t%d\t%d\t%.2f\n" % (v, r, g, x))
    full = int(meta["versions"]) >= FULL_SIZE
    return 0 if (passed and stored) or not full else 1


if __name__ == "__main__":
    if len(sys.argv) != 4:
        print(__doc__.split("\n")[0], file=sys.stderr)
        sys.exit(2)
    sys.exit(main(*sys.argv[1:]))
