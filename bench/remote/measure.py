"""The driver of bench/remote/run.sh: see its header. Usage: measure.py ROLLOUT_BINARY ROOT RUNS"""

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

BIN, ROOT, RUNS = sys.argv[1], sys.argv[2], int(sys.argv[3])
WORK = tempfile.mkdtemp(prefix="rollout-bench-remote.")
HOME = os.path.join(WORK, "home")
os.makedirs(HOME)
ENV = {
    "PATH": os.environ["PATH"], "HOME": HOME, "GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0",
    "ROLLOUT_ACTOR": "Bench <bench@example.com>", "LC_ALL": "C",
    "GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "bench@example.com", "GIT_COMMITTER_NAME": "Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
}
problems = []


def run(args, env=None, cwd=WORK, check=True):
    result = subprocess.run(args, cwd=cwd, env={**ENV, **(env or {})}, capture_output=True, text=True)
    if check and result.returncode != 0:
        sys.exit(f"measure.py: {' '.join(args)} exited {result.returncode}: {result.stderr}")
    return result


def timed(args, env=None, expect=0):
    started = time.perf_counter()
    result = run(args, env, check=False)
    elapsed = (time.perf_counter() - started) * 1000
    if result.returncode != expect:
        problems.append(f"{' '.join(args[:4])}... exited {result.returncode}, expected {expect}: {result.stderr.strip()[:300]}")
    return elapsed


def git(*args, env=None):
    return run(["git", *args], env).stdout.strip()


# The shared repository: the example packs, served by the test's HTTP server with a pre-receive hook
# that refuses every user but the bot and counts its runs.
server_root = os.path.join(WORK, "server")
shared = os.path.join(server_root, "shared.git")
run([BIN, "init", shared])
packs = sorted(os.path.join(ROOT, "examples/packs", name) for name in os.listdir(os.path.join(ROOT, "examples/packs")))
run([BIN, "--repo", shared, "pack", "add", *packs])
run([BIN, "--repo", shared, "promote", "tr-TR@17", "--to", "100%"])
runs_file = os.path.join(WORK, "hook-runs")
hook = os.path.join(shared, "hooks", "pre-receive")
with open(hook, "w") as handle:
    handle.write(f"""#!/bin/sh
echo run >> '{runs_file}'
cat >/dev/null
[ "$REMOTE_USER" = bot ] && exit 0
echo "main is protected: only the rollout bot may push"
exit 1
""")
os.chmod(hook, 0o755)
config = os.path.join(WORK, "server.json")
with open(config, "w") as handle:
    json.dump({"root": server_root, "log": os.path.join(WORK, "requests.log"), "mode": "private",
               "users": {"bot": "bot-secret", "alice": "alice-secret"}, "port": 0}, handle)
server = subprocess.Popen(["python3", os.path.join(ROOT, "Tests/Fixtures/servers/git-http-server.py"), config],
                          stdout=subprocess.PIPE, text=True)
try:
    port = int(server.stdout.readline())
    base = f"http://127.0.0.1:{port}/shared.git"

    def helper(user, password):
        # An inline credential helper from the environment, as docs/teams.md's recipe.
        return {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "credential.helper",
                "GIT_CONFIG_VALUE_0": f"!f() {{ echo username={user}; echo password={password}; }}; f"}

    bot = helper("bot", "bot-secret")
    # Copies without the hook: one used with no remote, one served from a local path.
    local_only, path_shared = os.path.join(WORK, "local-only"), os.path.join(WORK, "path-shared.git")
    for copy in [local_only, path_shared]:
        shutil.copytree(shared, copy)
        os.remove(os.path.join(copy, "hooks", "pre-receive"))
    run([BIN, "clone", path_shared, os.path.join(WORK, "path-clone")])
    run([BIN, "clone", base, os.path.join(WORK, "http-clone")], bot)
    # The peer: a plain git clone that fetches and pushes one new commit per run.
    peer = os.path.join(WORK, "peer.git")
    git("clone", "--bare", "-q", base, peer, env=bot)

    times = {name: [] for name in ["none", "path", "http", "peer", "clone-wrong", "git-clone-wrong", "hook", "git-push-hook"]}
    for index in range(RUNS):
        change = ["promote", "tr-TR@18", "--to", "10%", "--force", "--reason", f"bench {index}"] if index % 2 == 0 else \
            ["revert", "tr-TR", "--no-block", "--reason", f"bench {index}"]
        times["none"].append(timed([BIN, "--repo", local_only, *change]))
        times["path"].append(timed([BIN, "--repo", os.path.join(WORK, "path-clone"), *change]))
        times["http"].append(timed([BIN, "--repo", os.path.join(WORK, "http-clone"), *change], bot))

        def peer_change():
            git("--git-dir", peer, "fetch", "-q", "origin", "+refs/heads/main:refs/heads/main", env=bot)
            tip = git("--git-dir", peer, "rev-parse", "refs/heads/main")
            tree = git("--git-dir", peer, "rev-parse", "refs/heads/main^{tree}")
            commit = git("--git-dir", peer, "commit-tree", tree, "-p", tip, "-m", f"peer {index}", env=bot)
            git("--git-dir", peer, "push", "-q", f"--force-with-lease=refs/heads/main:{tip}", "origin", f"{commit}:refs/heads/main", env=bot)
        started = time.perf_counter()
        peer_change()
        times["peer"].append((time.perf_counter() - started) * 1000)
        # Wrong credentials, at clone: rollout against git.
        wrong = helper("bot", "not-the-password")
        times["clone-wrong"].append(timed([BIN, "clone", base, os.path.join(WORK, f"wrong-{index}")], wrong, expect=77))
        times["git-clone-wrong"].append(timed(["git", "clone", "-q", "--bare", base, os.path.join(WORK, f"git-wrong-{index}")], wrong, expect=128))

    # A hook refusal: alice is a known user the hook refuses.
    alice = helper("alice", "alice-secret")
    alice_clone = os.path.join(WORK, "alice-clone")
    run([BIN, "clone", base, alice_clone], alice)
    alice_peer = os.path.join(WORK, "alice-peer.git")
    git("clone", "--bare", "-q", base, alice_peer, env=alice)
    open(runs_file, "w").close()
    for index in range(RUNS):
        times["hook"].append(timed([BIN, "--repo", alice_clone, "promote", "tr-TR@18", "--to", "20%", "--force", "--reason", "refused"], alice, expect=77))
        git("--git-dir", alice_peer, "fetch", "-q", "origin", "+refs/heads/main:refs/heads/main", env=alice)
        tip = git("--git-dir", alice_peer, "rev-parse", "refs/heads/main")
        commit = git("--git-dir", alice_peer, "commit-tree", git("--git-dir", alice_peer, "rev-parse", "refs/heads/main^{tree}"), "-p", tip, "-m", "x", env=alice)
        times["git-push-hook"].append(timed(["git", "--git-dir", alice_peer, "push", "-q", "origin", f"{commit}:refs/heads/main"], alice, expect=1))
    hook_runs = sum(1 for _ in open(runs_file))
    if hook_runs != 2 * RUNS:
        problems.append(f"the hook ran {hook_runs} times for {2 * RUNS} refused pushes: a refusal was retried")
finally:
    server.kill()
    server.wait()

median = {name: statistics.median(values) for name, values in times.items()}
print(f"bench/remote  {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}  {run([BIN, '--version']).stdout.strip()}")
print(f"machine: {os.cpu_count()} cores, load before start: {open('/proc/loadavg').read().split()[0]}; {RUNS} runs each, interleaved; medians in ms")
print()
print("one change (promote or revert), by where the shared repository is:")
print(f"  no remote                          {median['none']:8.1f}")
print(f"  remote on a local path             {median['path']:8.1f}   +{median['path'] - median['none']:.1f} over no remote")
print(f"  remote over HTTP, Basic auth       {median['http']:8.1f}   +{median['http'] - median['none']:.1f} over no remote")
print(f"  peer: git fetch + commit + push    {median['peer']:8.1f}   rollout's HTTP overhead is {(median['http'] - median['none']) / median['peer']:.2f}x the peer")
print()
print("time to fail, permanent failures (exit 77, never retried):")
print(f"  rollout clone, wrong password      {median['clone-wrong']:8.1f}   {median['clone-wrong'] / median['git-clone-wrong']:.2f}x git clone ({median['git-clone-wrong']:.1f})")
print(f"  rollout promote, hook refuses      {median['hook']:8.1f}   {median['hook'] / median['git-push-hook']:.2f}x git push alone ({median['git-push-hook']:.1f})")
print(f"  hook runs: {hook_runs} for {2 * RUNS} refused pushes (rollout's and git's)")
# docs/performance.md states measured figures for these, not goals.
print()
print(f"INFO remote HTTP share of a change / git fetch + commit + push: {(median['http'] - median['none']) / median['peer']:.2f}x")
print(f"INFO remote clone, wrong password / git clone: {median['clone-wrong'] / median['git-clone-wrong']:.2f}x")
print(f"INFO remote promote refused by a hook / git push: {median['hook'] / median['git-push-hook']:.2f}x")
shutil.rmtree(WORK, ignore_errors=True)
if problems:
    print()
    print("PROBLEMS:")
    for problem in problems:
        print(f"  {problem}")
    sys.exit(1)
