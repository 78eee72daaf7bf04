#!/usr/bin/env bash
# The Android library (docs/android.md) with Debian's JDK alone: no Gradle, no network.
#   android/build.sh jar     .build/android/rollout-client-VERSION.jar, -sources.jar, .pom, and the device jar
#   android/build.sh test    the jar, then every JUnit 5 test (conformance kit, Wycheproof, kill points...)
# The library compiles with --release 11 (the bytecode Android's D8 reads, docs/android.md "Java level")
# against the Android stand-ins in src/stubs, which are never packaged.
set -euo pipefail
cd "$(dirname "$0")"
ROOT="$(pwd)"
OUT="$ROOT/../.build/android"
VERSION="$(sed -nE 's/.*<version>([^<]+)<\/version>.*/\1/p' pom.xml | head -1)"
JUNIT=/usr/share/java/junit-platform-console-standalone.jar
mkdir -p "$OUT"

compile() { # compile DEST CLASSPATH SOURCES...
  local dest="$1" cp="$2"; shift 2
  rm -rf "$dest"; mkdir -p "$dest"
  javac --release 11 -encoding UTF-8 -Xlint:all,-serial,-options -Werror -g -d "$dest" ${cp:+-cp "$cp"} "$@"
}

build_jar() {
  mapfile -t stubs < <(find src/stubs/java -name '*.java' | sort)
  mapfile -t main < <(find src/main/java -name '*.java' | sort)
  mapfile -t device < <(find src/device/java -name '*.java' | sort)
  compile "$OUT/stubs" "" "${stubs[@]}"
  compile "$OUT/classes" "$OUT/stubs" "${main[@]}"
  rm -f "$OUT"/rollout-client-*.jar
  jar --create --file "$OUT/rollout-client-$VERSION.jar" -C "$OUT/classes" .
  jar --create --file "$OUT/rollout-client-$VERSION-sources.jar" -C src/main/java .
  cp pom.xml "$OUT/rollout-client-$VERSION.pom"
  if [ "${#device[@]}" -gt 0 ]; then
    compile "$OUT/device-classes" "$OUT/classes" "${device[@]}"
    jar --create --file "$OUT/rollout-android-device.jar" --main-class dev.rollout.device.AndroidDevice \
      -C "$OUT/device-classes" . -C "$OUT/classes" .
  fi
}

run_tests() {
  mapfile -t tests < <(find src/test/java -name '*.java' | sort)
  local cp="$OUT/classes:$OUT/stubs:$JUNIT"
  [ -d "$OUT/device-classes" ] && cp="$cp:$OUT/device-classes"
  compile "$OUT/test-classes" "$cp" "${tests[@]}"
  java -Drollout.repo="$ROOT/.." -jar "$JUNIT" --class-path "$OUT/test-classes:$cp" --scan-class-path "$OUT/test-classes" \
    --disable-banner --details=summary --details-theme=ascii "$@"
}

case "${1:-jar}" in
  jar) build_jar; echo "$OUT/rollout-client-$VERSION.jar" ;;
  test) shift; build_jar; run_tests "$@" ;;
  *) echo "usage: android/build.sh jar|test [JUnit options]" >&2; exit 64 ;;
esac
