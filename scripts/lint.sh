#!/usr/bin/env bash
# The checks `make test` runs before the tests (docs/architecture.md, "Code layout"): every Swift
# file is formatted as .swift-format says (`swift format lint --strict`: a formatting difference or
# a rule finding fails), and no function body under Sources/ is over 60 lines without a `// Long:`
# reason (scripts/function-lengths.py), and no library target words a sentence that names one of
# rollout's options (scripts/flag-sentences.py). To fix formatting: `make format`.
set -uo pipefail
cd "$(dirname "$0")/.."

mapfile -t files < <(find Package.swift Plugins Sources Tests bench fuzz -name '*.swift' -not -path '*/.build/*' | sort)
status=0
if ! swift format lint --strict --parallel "${files[@]}"; then
    echo "lint: swift format found the differences above; run make format and commit what it changes" >&2
    status=1
fi
if ! python3 scripts/function-lengths.py Sources; then
    echo "lint: split the functions above into named steps, or give a // Long: reason above the declaration" >&2
    status=1
fi
if ! python3 scripts/flag-sentences.py Sources; then
    status=1
fi
exit $status
