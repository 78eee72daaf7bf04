# rollout: the commands that work on a fresh Debian machine with only the Swift toolchain.
#   make demo      installs what is missing, builds, and runs the README's walk through in build/demo
#   make docs-update  runs every console block of README.md and docs/ and rewrites their outputs (review the diff)
#   make test      installs what is missing, builds, checks the format, and runs every test (the Android library's
#                  and the release tarball's too)
#   make android   the Android library's jar, sources jar and pom under .build/android (docs/android.md)
#   make format    formats every Swift file as .swift-format says
#   make install   a release rollout (Swift runtime linked in) and its completions under PREFIX
#   make dist      dist/rollout-<version>-linux-<arch>.tar.gz and its .sha256 (docs/install.md)
#   make bench     every benchmark under bench/ at a small size, each goal's ratio at the end
#   make coverage  line coverage per target, the spawned rollout's included (docs/architecture.md)
#   make tsan      the client's and the store's tests under ThreadSanitizer (docs/architecture.md, "Concurrency")

SHELL := /bin/bash
# libxml2-dev, libicu-dev, liblzma-dev: the archives `make dist`/`make install` link into the release
# binary (docs/install.md); libcurl4: FoundationNetworking (the client's URLSession transport); python3: the loopback HTTP
# server the client test fetches a real site from and the smart-HTTP git server the remote tests push
# through; openssh-server: the sshd the remote tests start on loopback (docs/teams.md); openjdk-17-jdk-headless and
# junit5: the Android library (android/, docs/android.md) and its tests; python3-pip: the Wycheproof vectors
# (scripts/test-vectors.sh); openssl: the docs check rollout's keys and signatures with a tool that is not rollout
# (docs/keys.md, docs/manifest.md), and those pages run in make test; chromium: the report rendered at 1280 and
# 375 px in make test (docs/report.md).
DEBIAN_PACKAGES := libgit2-dev libssl-dev zlib1g-dev libxml2-dev libicu-dev liblzma-dev pkg-config git libcurl4 python3 python3-babel \
  python3-pip openssh-server openssh-client openjdk-17-jdk-headless junit5 openssl chromium
SWIFT_BUILD_FLAGS ?=
export SWIFT_BUILD_FLAGS
PREFIX ?= /usr/local
DESTDIR ?=

.PHONY: all deps build release demo test format lint coverage tsan install uninstall dist bench bench-startup bench-pack-add clean docs android android-test

all: build

# Installs missing Debian packages with apt-get (as root, or through sudo when it is there).
deps:
	@missing=""; \
	for p in $(DEBIAN_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing Debian packages:$$missing"; \
	  if [ "$$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null; \
	fi

build: deps
	swift build $(SWIFT_BUILD_FLAGS)
	./android/build.sh jar >/dev/null

# The Android library (docs/android.md): .build/android/rollout-client-VERSION.jar, its -sources.jar and .pom,
# and the jar scripts/android-device runs. android-test runs its JUnit tests alone.
android: deps
	./android/build.sh jar

android-test: deps
	ROLLOUT_WYCHEPROOF="$$(./scripts/test-vectors.sh)" ./android/build.sh test

release: deps
	swift build -c release $(SWIFT_BUILD_FLAGS)

# The README's walk through, run as a transcript (docs/architecture.md, "Docs are tests"): each command and
# what it printed; it stops if anything differs from the page. build/demo keeps the repository and report.html.
demo: build
	@bin="$$(swift build $(SWIFT_BUILD_FLAGS) --show-bin-path)"; mkdir -p build; \
	  "$$bin/transcripts" play README.md --keep build/demo --bin "$$bin" && \
	  echo "build/demo: the repository (.rollout) and the report (report.html) of the walk through"

# Every console block of README.md and docs/*.md run again, their outputs rewritten in place from two real runs
# (placeholders where the runs differ in an id or a key). PAGES picks some: make docs-update PAGES=docs/keys.md.
# docs-check compares without writing, as make test does.
PAGES ?=
docs-update: build
	@bin="$$(swift build $(SWIFT_BUILD_FLAGS) --show-bin-path)"; "$$bin/transcripts" update $(PAGES) --bin "$$bin"

docs-check: build
	@bin="$$(swift build $(SWIFT_BUILD_FLAGS) --show-bin-path)"; "$$bin/transcripts" check $(PAGES) --bin "$$bin"

# First scripts/lint.sh: the tree formatted as .swift-format says, and no function over 60 lines without
# a reason (docs/architecture.md, "Code layout"), counted as one test. Then the Android library's JUnit tests
# (android/build.sh test; each counted). Then every Swift test, all XCTest, TEST_JOBS test processes at a time
# (scripts/swift-tests.sh; docs/architecture.md, "Test suite"), whose closing line counts them. Then the release
# tarball is built and run with the toolchain hidden (scripts/dist-test.sh), counted as one more test: built
# with -Onone, as what it checks (the layout, the static Swift runtime, Debian-only libraries, running without the
# toolchain) comes from the release link and not from the optimizer, which took 3 of make test's 12 minutes
# (make dist builds with -O as ever). The last line adds them up.
# One more test process than cores: about a third of a test process's time is spent waiting (on the
# rollout, git and JVM processes it starts, on loopback servers), so a third process fills the gaps
# (docs/architecture.md, "Test suite": 339 s against 416 s on 2 cores).
TEST_JOBS ?= $(shell echo $$(( $$(nproc) + 1 )))
test: build
	./scripts/lint.sh; lint_status=$$?; \
	export ROLLOUT_WYCHEPROOF="$$(./scripts/test-vectors.sh)"; \
	./android/build.sh test 2>&1 | tee .build/android-test.log; \
	android_status=$${PIPESTATUS[0]}; \
	android_passed=$$(sed -nE 's/^\[ *([0-9]+) tests successful.*/\1/p' .build/android-test.log | tail -1); \
	android_failed=$$(sed -nE 's/^\[ *([0-9]+) tests failed.*/\1/p' .build/android-test.log | tail -1); \
	if [ -z "$$android_passed" ]; then android_passed=0; android_failed=1; fi; \
	if [ $$android_status -ne 0 ] && [ "$$android_failed" = 0 ]; then android_failed=1; fi; \
	JOBS=$(TEST_JOBS) ./scripts/swift-tests.sh 2>&1 | tee .build/test.log; \
	status=$${PIPESTATUS[0]}; \
	tarball=$$(SWIFT_BUILD_FLAGS="$$SWIFT_BUILD_FLAGS -Xswiftc -Onone" ./scripts/dist.sh) && ./scripts/dist-test.sh "$$tarball"; \
	dist_status=$$?; \
	summary=$$(grep -E "^[[:space:]]*Executed [0-9]+ tests?, [0-9]+ failed" .build/test.log | tail -1); \
	if [ -n "$$summary" ]; then \
	  total=$$(( $$(sed -E 's/.*Executed ([0-9]+) tests?.*/\1/' <<<"$$summary") + 2 + android_passed + android_failed )); \
	  failed=$$(( $$(sed -E 's/.*, ([0-9]+) failed.*/\1/' <<<"$$summary") + (dist_status != 0) + (lint_status != 0) + android_failed )); \
	  echo "tests: $$((total - failed)) passed, $$failed failed"; \
	fi; \
	[ $$status -eq 0 ] && [ $$dist_status -eq 0 ] && [ $$lint_status -eq 0 ] && [ $$android_status -eq 0 ]

# The tree as .swift-format formats it (docs/architecture.md, "Code layout"); make test checks it.
format:
	swift format format --in-place --parallel $$(find Package.swift Plugins Sources Tests bench fuzz -name '*.swift' -not -path '*/.build/*')

lint:
	./scripts/lint.sh

# Line coverage per target, counting what the spawned rollout and rollout-device run (scripts/coverage.sh,
# docs/architecture.md "Test coverage"); builds on its own scratch path, so `make test` is untouched.
# Every test, TEST_JOBS processes at a time as in make test; FILTER picks tests as swift test --filter
# does, in one swift test: make coverage FILTER='PackCommandTests|ImportTests'.
FILTER ?=
coverage: deps
	JOBS=$(TEST_JOBS) ./scripts/coverage.sh $(if $(FILTER),--filter '$(FILTER)')

# The client's and the store's tests under ThreadSanitizer (docs/architecture.md, "Concurrency"), and the
# end-to-end client tests that run threads against a real site (not ClientTests and ClientTrustTests, whose
# kill-at-every-byte tests take 20 minutes under the sanitizer). Built on its own scratch path, so `make test`
# is untouched; a data race it sees fails the run. TSAN_FILTER picks other tests as swift test --filter does.
TSAN_FILTER ?= RolloutClientTests|RolloutStoreTests|RolloutEndToEndTests\.(ClientRound|ClientReview|CounterDurability|CrashLoop)Tests/
tsan: deps
	swift build --build-tests --sanitize=thread --scratch-path .build/tsan $(SWIFT_BUILD_FLAGS)
	swift test --skip-build --disable-swift-testing --sanitize=thread --scratch-path .build/tsan \
	  --filter '$(TSAN_FILTER)'

# The release binary with the Swift runtime linked statically (scripts/dist-build.sh), its bash, zsh
# and fish completions and its docs, under $(DESTDIR)$(PREFIX) (docs/install.md).
install: deps
	bin=$$(./scripts/dist-build.sh) && ./scripts/install-tree.sh "$$bin" "$(DESTDIR)$(PREFIX)"

uninstall:
	rm -f "$(DESTDIR)$(PREFIX)/bin/rollout" "$(DESTDIR)$(PREFIX)/libexec/rollout/rollout-device" "$(DESTDIR)$(PREFIX)/share/bash-completion/completions/rollout" \
	  "$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_rollout" "$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/rollout.fish"
	rm -rf "$(DESTDIR)$(PREFIX)/share/doc/rollout"
	rmdir "$(DESTDIR)$(PREFIX)/libexec/rollout" 2>/dev/null || true

dist: deps
	./scripts/dist.sh

# Every bench at a small size, a few minutes; full sizes and figures: docs/performance.md.
bench: deps
	./bench/all.sh

bench-startup: deps
	./bench/startup/run.sh

bench-pack-add: release
	./bench/pack-add/run.sh "$$(swift build -c release --show-bin-path)/rollout"

clean:
	rm -rf .build

# DocC documentation of RolloutClient, the library an app embeds (docs/client.md), as a static site in
# .build/docs/RolloutClient.doccarchive. SwiftPM's docc plugin is not a dependency: the client is built
# on its own scratch path (the main build keeps its flags) with its symbol graph, then docc converts
# the catalog. Broken links fail the build.
DOCC ?= docc
DOCS_SCRATCH := .build/docc
docs: deps
	swift build --scratch-path $(DOCS_SCRATCH) --target RolloutClient $(SWIFT_BUILD_FLAGS) \
	  -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc $(CURDIR)/$(DOCS_SCRATCH)/symbol-graphs
	rm -rf $(DOCS_SCRATCH)/client-graphs .build/docs/RolloutClient.doccarchive
	mkdir -p $(DOCS_SCRATCH)/client-graphs .build/docs
	cp $(DOCS_SCRATCH)/symbol-graphs/RolloutClient*.symbols.json $(DOCS_SCRATCH)/client-graphs/
	$(DOCC) convert Sources/RolloutClient/RolloutClient.docc --additional-symbol-graph-dir $(DOCS_SCRATCH)/client-graphs \
	  --output-path .build/docs/RolloutClient.doccarchive --fallback-display-name RolloutClient \
	  --fallback-bundle-identifier rollout.RolloutClient --warnings-as-errors
	@echo ".build/docs/RolloutClient.doccarchive (serve it with any static web server: python3 -m http.server -d .build/docs/RolloutClient.doccarchive, then /documentation/rolloutclient)"

# The walk through's report rendered by headless Chromium (Debian's chromium) to build/demo/report.png.
.PHONY: report-png docs-update docs-check
report-png: build
	@bin="$$(swift build $(SWIFT_BUILD_FLAGS) --show-bin-path)"; mkdir -p build; \
	  "$$bin/transcripts" play README.md --keep build/demo --bin "$$bin" >/dev/null
	@chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=900,2600 --screenshot=build/demo/report.png "file://$$(pwd)/build/demo/report.html" 2>/dev/null
	@echo "build/demo/report.png"

# libFuzzer targets (fuzz/, docs/reliability.md "Fuzzing"): builds them with swiftc outside .build
# and runs each for FUZZ_SECONDS (default 600); FUZZ_TARGETS picks some of pack csv versions manifest.
FUZZ_SECONDS ?= 600
FUZZ_TARGETS ?=
.PHONY: fuzz
fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) ./fuzz/run.sh $(FUZZ_TARGETS)
