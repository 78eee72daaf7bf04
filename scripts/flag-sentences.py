#!/usr/bin/env python3
"""No library target words a step in the command line's terms (docs/architecture.md, "Refusals"):
a string literal under Sources/<Target>/ that names one of rollout's own options (`--to`,
`--allow-removed-keys`, ...) is a sentence that belongs in RolloutCLI, which words each refusal and
finding with its next step. The options are read from their declarations in Sources/RolloutCLI, so a
new flag is covered the day it is declared. A line that names one on purpose (a reflog message
recording the command that made it) says why in a `// Flag: reason` comment on that line or the one
above.

Usage: scripts/flag-sentences.py [SOURCES]   exit 1 with each line listed when one is found."""
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else "Sources"
# Targets that are command lines of their own (their flags are theirs) or not Swift.
OWN_FLAGS = {"RolloutCLI", "rollout", "rollout-device", "RolloutDevice", "Transcripts", "transcripts", "embed-template"}
DECLARATION = re.compile(r'\b(?:Flag|ListOption|Option)(?:<[^>()]*>)?(?:\.[a-z]+)?\(\s*"([a-z0-9][a-z0-9-]*)"', re.S)


def swift_files(folder):
    for base, _, names in os.walk(folder):
        for name in sorted(names):
            if name.endswith(".swift"):
                yield os.path.join(base, name)


names = set()
for path in swift_files(os.path.join(root, "RolloutCLI")):
    names.update(DECLARATION.findall(open(path, encoding="utf-8").read()))
if not names:
    sys.exit("flag-sentences: no option declarations found under %s/RolloutCLI" % root)
NAMED = re.compile(r'"[^"\n]*--(%s)(?![a-z0-9-])' % "|".join(sorted(map(re.escape, names), key=len, reverse=True)))

found = []
for target in sorted(os.listdir(root)):
    if target in OWN_FLAGS or not os.path.isdir(os.path.join(root, target)):
        continue
    for path in swift_files(os.path.join(root, target)):
        lines = open(path, encoding="utf-8").read().split("\n")
        for number, line in enumerate(lines, 1):
            if line.lstrip().startswith("//") or not NAMED.search(line):
                continue
            if "// Flag:" in line or (number > 1 and "// Flag:" in lines[number - 2]):
                continue
            found.append("%s:%d: names --%s: %s" % (path, number, NAMED.search(line).group(1), line.strip()))
for line in found:
    print(line)
if found:
    print("flag-sentences: library targets return data; word the step in Sources/RolloutCLI (Refusals.swift)", file=sys.stderr)
sys.exit(1 if found else 0)
