#!/usr/bin/env bash
# The Android library (docs/android.md) with Debian's JDK alone: no Gradle, no network.
#   android/build.sh jar      .build/android/rollout-client-VERSION.jar, -sources.jar, .pom, and the device jar
#   android/build.sh device   the jar, then .build/android/rollout-android-device.jar alone (scripts/android-device)
#   android/build.sh test     the jar, then every JUnit 5 test (conformance kit, Wycheproof, kill points, the API
#                             levels...); JUnit options pass through (--select-class dev.rollout.client.FooTest).
#                             The output ends with JUnit's summary: "[ N tests successful ]" and "[ N tests failed ]".
#   android/build.sh bench    the jar, then bench/client-reads-jvm's classes in .build/android/bench-classes
# The library compiles with --release 11 (the bytecode Android's D8 reads, docs/android.md "Java level")
# against the Android stand-ins in src/stubs, which are never packaged. -XDstringConcat=inline: string
# concatenation as StringBuilder calls, not an invokedynamic of java.lang.invoke.StringConcatFactory (not in Android).
set -euo pipefail
cd "$(dirname "$0")"
ROOT="$(pwd)"
OUT="$(cd "$ROOT/.." && pwd)/.build/android"
VERSION="$(sed -nE 's/.*<version>([^<]+)<\/version>.*/\1/p' pom.xml | head -1)"
JUNIT=/usr/share/java/junit-platform-console-standalone.jar
mkdir -p "$OUT"

compile() { # compile DEST CLASSPATH SOURCES...
  local dest="$1" cp="$2"; shift 2
  rm -rf "$dest"; mkdir -p "$dest"
  javac --release 11 -XDstringConcat=inline -encoding UTF-8 -Xlint:all,-serial,-options -Werror -g -d "$dest" ${cp:+-cp "$cp"} "$@"
}

build_library() {
  mapfile -t stubs < <(find src/stubs/java -name '*.java' | sort)
  mapfile -t main < <(find src/main/java -name '*.java' | sort)
  if [ "${#stubs[@]}" -gt 0 ]; then compile "$OUT/stubs" "" "${stubs[@]}"; else rm -rf "$OUT/stubs"; mkdir -p "$OUT/stubs"; fi
  compile "$OUT/classes" "$OUT/stubs" "${main[@]}"
  rm -f "$OUT"/rollout-client-*.jar
  jar --create --file "$OUT/rollout-client-$VERSION.jar" -C "$OUT/classes" . -C src/main/resources .
  jar --create --file "$OUT/rollout-client-$VERSION-sources.jar" -C src/main/java .
  cp pom.xml "$OUT/rollout-client-$VERSION.pom"
}

# The device program: its own classes and the library's in one runnable jar (java -jar). Its
# dev.rollout.client.DeviceAccess reads through the library's package-private parsers, so the two trees
# are merged into one directory first (jar refuses a directory entry given twice).
build_device() {
  mapfile -t device < <(find src/device/java -name '*.java' | sort)
  [ "${#device[@]}" -gt 0 ] || return 0
  compile "$OUT/device-classes" "$OUT/classes:$OUT/stubs" "${device[@]}"
  rm -rf "$OUT/device-jar"; mkdir -p "$OUT/device-jar"
  cp -R "$OUT/classes/." "$OUT/device-jar/"
  cp -R "$OUT/device-classes/." "$OUT/device-jar/"
  jar --create --file "$OUT/rollout-android-device.jar.tmp" --main-class dev.rollout.device.AndroidDevice \
    -C "$OUT/device-jar" .
  # Renamed into place: a scripts/android-device starting meanwhile never runs half a jar.
  mv "$OUT/rollout-android-device.jar.tmp" "$OUT/rollout-android-device.jar"
}

build_jar() {
  build_library
  build_device
}

run_tests() {
  mapfile -t tests < <(find src/test/java -name '*.java' | sort)
  local cp="$OUT/classes:$OUT/stubs:$JUNIT"
  [ -d "$OUT/device-classes" ] && cp="$cp:$OUT/device-classes"
  compile "$OUT/test-classes" "$cp" "${tests[@]}"
  # Every test class, unless the options select some (JUnit refuses both at once).
  local scan=(--scan-class-path "$OUT/test-classes")
  for option in "$@"; do
    case "$option" in --select*|-c|-m|-p|-d|-f|-u|-r|-o|-i|-e) scan=() ;; esac
  done
  java -Drollout.repo="$ROOT/.." ${ROLLOUT_WYCHEPROOF:+-Drollout.wycheproof="$ROLLOUT_WYCHEPROOF"} -Drollout.classes="$OUT/classes" -jar "$JUNIT" \
    --class-path "$OUT/test-classes:$cp" "${scan[@]}" \
    --disable-banner --details=summary --details-theme=ascii "$@"
}

build_bench() {
  mapfile -t bench < <(find ../bench/client-reads-jvm -name '*.java' | sort)
  compile "$OUT/bench-classes" "$OUT/classes:$OUT/stubs" "${bench[@]}"
  echo "$OUT/bench-classes"
}

case "${1:-jar}" in
  jar) build_jar; echo "$OUT/rollout-client-$VERSION.jar" ;;
  device) build_jar; echo "$OUT/rollout-android-device.jar" ;;
  test) shift; build_jar; run_tests "$@" ;;
  bench) build_library; build_bench ;;
  *) echo "usage: android/build.sh jar|device|test [JUnit options]|bench" >&2; exit 64 ;;
esac
