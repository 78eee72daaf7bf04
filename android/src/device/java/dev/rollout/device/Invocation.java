package dev.rollout.device;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The words after {@code rollout device}, read as ArgumentParser.swift reads them with DeviceCommand's option table
 * and rollout's global options: the same refusals with the same messages, in the same order.
 */
final class Invocation {
    static final String USAGE = "device --state DIR --site URL|DIR (--public-key KEY | --root-key KEY...) "
            + "--locale L --region R --app-version V [--threshold N] [--min-sequence N] [--min-keys-version N] "
            + "[--bundled DIR] [--install-id ID] [--force] [--arg NAME=VALUE]... ACTION [ARGUMENT]";

    /** The exit codes rollout help device lists (ExitCode in RolloutError.swift, from DeviceCommand's effects). */
    static final String[][] EXIT_CODES = {
        {"0", "ok", "done"},
        {"1", "check-failed", "a check said no"},
        {"64", "usage", "unknown command or option, bad argument"},
        {"65", "bad-input",
            "bad input data (a pack, CSV, policy, key; an input past its limit) or a damaged repository"},
        {"66", "missing", "a file, the repository, a pack or a locale is missing"},
        {"70", "internal", "a bug; please report it"},
        {"74", "io-error", "I/O error: the disk is full, failing or read-only"},
    };

    static final String SUMMARY =
            "run the client library as one device against a published site: what a user in TR on 4.8.1 sees";

    static final String DISCUSSION = String.join("\n", Arrays.asList(
            "ACTION is one of:",
            "  refresh [--force]        fetch and verify the site, stage the packs this device resolves to",
            "  activate                 make the staged packs active (the app does it at a safe moment)",
            "  get KEY [--arg N=V]...   the text the app shows for KEY",
            "  launch                   a process start: a staged pack becomes active; a pack that missed",
            "                           launch-succeeded in too many launches in a row is rolled back",
            "  launch-succeeded         the app's first screen is usable",
            "  status                   active, pending, previous, failed and blocked packs, and the counters",
            "  metrics crash|fallback   the counters as the CSV rollout metrics ingest reads",
            "  metrics outcome          the exposures and conversions of the experiment, as that CSV",
            "                           (outcome-METRIC: one metric's rows)",
            "  convert NAME             a conversion the app observed in this session (NAME: a metric of",
            "                           the experiment the device is in)",
            "The state directory is the device: the same --state DIR across invocations is the same phone",
            "across launches; the session a launch opens goes on until the next launch. --site takes the directory rollout publish wrote, or its https:// URL (http://",
            "only on loopback). --public-key plays an app that pins one key; --root-key one built with the root",
            "keys of the site's key list (docs/keys.md). Exit 1 when a refresh failed; the device keeps what",
            "it had. See docs/device.md."));

    /** One option: its value's name (null for a flag), whether it may be repeated, and its help. */
    private static final class Spec {
        final String name;
        final String valueName;
        final boolean repeatable;
        final String help;

        Spec(String name, String valueName, boolean repeatable, String help) {
            this.name = name;
            this.valueName = valueName;
            this.repeatable = repeatable;
            this.help = help;
        }
    }

    /** DeviceCommand.spec's options, then rollout's global ones, in the order of their tables (and of help). */
    private static final Map<String, Spec> TABLE = new LinkedHashMap<>();
    private static final List<Spec> DEVICE_OPTIONS = new ArrayList<>();
    private static final List<Spec> GLOBAL_OPTIONS = new ArrayList<>();

    static {
        device("state", "DIR", false,
                "the device's cache directory, created if missing; reuse it to keep the same device");
        device("site", "URL|DIR", false,
                "the published site: a directory, or the URL of the site or of its index.json");
        device("public-key", "KEY", false,
                "the one key the app pins: ed25519:BASE64, as rollout keys generate printed it, or a file holding it");
        device("root-key", "KEY", true,
                "a root key the app builds in, as rollout keys init printed it, or a file holding it");
        device("threshold", "N", false, "how many of the --root-key keys must sign a key list (default 1)");
        device("min-sequence", "N", false,
                "the oldest index sequence the app accepts, even on a fresh install (default 0)");
        device("min-keys-version", "N", false,
                "with --root-key: the oldest key list version the app accepts, even on a fresh install (default 0)");
        device("bundled", "DIR", false,
                "the app's bundled strings: LOCALE.json files (key to string) or *.lproj folders");
        device("locale", "L", false, "the device's locale, for example tr-TR");
        device("region", "R", false, "the device's ISO 3166-1 region, for example TR");
        device("app-version", "V", false, "the app's marketing version, for example 4.8.1");
        device("install-id", "ID", false,
                "the id that places the device in percent rollouts (default: a random one kept in --state)");
        device("force", null, false, "refresh: ignore the minimum interval between refreshes");
        device("arg", "NAME=VALUE", true, "get: a placeholder's value");
        global("repo", "DIR",
                "the pack repository (default: ROLLOUT_REPO, else found from the working directory like git)");
        global("json", null, "print one JSON document on stdout; errors go to stderr as JSON");
        global("actor", "NAME",
                "who is making the change (default: ROLLOUT_ACTOR, else git config user.name and user.email)");
        global("offline", null, "keep the change in this repository even if it has a remote; rollout sync pushes it "
                + "later (also ROLLOUT_OFFLINE=1)");
        global("sign", null,
                "sign the change commit with git's signing key, whatever git config commit.gpgSign says (docs/audit.md)");
        global("no-sign", null, "do not sign the change commit, whatever git config commit.gpgSign says");
        global("no-color", null, "never colour the output (NO_COLOR in the environment does the same)");
        global("help", null, "show help for the command");
    }

    private static void device(String name, String valueName, boolean repeatable, String help) {
        Spec spec = new Spec(name, valueName, repeatable, help);
        TABLE.put(name, spec);
        DEVICE_OPTIONS.add(spec);
    }

    private static void global(String name, String valueName, String help) {
        Spec spec = new Spec(name, valueName, false, help);
        TABLE.put(name, spec);
        GLOBAL_OPTIONS.add(spec);
    }

    final List<String> positionals = new ArrayList<>();
    private final Map<String, List<String>> values = new LinkedHashMap<>();
    private final Set<String> flags = new HashSet<>();
    /** {@code --help} or {@code -h} was given: help, and nothing else. */
    boolean help;

    boolean flag(String name) {
        return flags.contains(name);
    }

    /** The last value of an option, or null. */
    String value(String name) {
        List<String> all = values.get(name);
        return all == null ? null : all.get(all.size() - 1);
    }

    List<String> values(String name) {
        List<String> all = values.get(name);
        return all == null ? new ArrayList<>() : all;
    }

    boolean json() {
        return flag("json");
    }

    static Invocation parse(String[] arguments) throws DeviceError {
        Invocation invocation = new Invocation();
        boolean optionsEnded = false;
        int index = 0;
        while (index < arguments.length) {
            String argument = arguments[index++];
            if (optionsEnded || !argument.startsWith("-") || argument.equals("-")) {
                invocation.positionals.add(argument);
                continue;
            }
            if (argument.equals("--")) {
                optionsEnded = true;
                continue;
            }
            if (argument.equals("-h")) {
                invocation.help = true;
                return invocation;
            }
            if (!argument.startsWith("--")) {
                throw DeviceError.usage("unknown option " + argument
                        + " for rollout device; options are spelled --name");
            }
            String name = argument.substring(2);
            String inline = null;
            int equals = name.indexOf('=');
            if (equals >= 0) {
                inline = name.substring(equals + 1);
                name = name.substring(0, equals);
            }
            Spec spec = TABLE.get(name);
            if (spec == null) {
                throw DeviceError.usage("unknown option --" + name + " for rollout device"
                        + Text.suggestion(name, TABLE.keySet(), "--") + "; see rollout help device");
            }
            if (name.equals("help")) {
                invocation.help = true;
                return invocation;
            }
            if (spec.valueName == null) {
                if (inline != null) throw DeviceError.usage("option --" + name + " takes no value");
                invocation.flags.add(name);
                continue;
            }
            String value;
            if (inline != null) {
                value = inline;
            } else {
                if (index >= arguments.length) {
                    throw DeviceError.usage("option --" + name + " needs a value (" + spec.valueName + ")");
                }
                value = arguments[index++];
            }
            if (!spec.repeatable && invocation.values.containsKey(name)) {
                throw DeviceError.usage("option --" + name + " is given twice");
            }
            // An unset shell variable must never stand for a default: an empty value is refused.
            if (Text.trimSpaces(value).isEmpty()) {
                String shown = value.isEmpty() ? "" : " (\"" + value + "\" is only spaces)";
                throw DeviceError.usage("option --" + name + " is empty" + shown + "; give " + spec.valueName
                        + " or leave the option out");
            }
            invocation.values.computeIfAbsent(name, k -> new ArrayList<>()).add(value);
        }
        int count = invocation.positionals.size();
        if (count < 1) throw DeviceError.usage("rollout device needs ACTION; usage: rollout " + USAGE);
        if (count > 2) {
            throw DeviceError.usage("rollout device takes at most 2 arguments, got " + count + ": "
                    + String.join(" ", invocation.positionals) + "; usage: rollout " + USAGE);
        }
        return invocation;
    }

    /** The value-name of a device option, as its missing-flag message names it. */
    static String valueName(String name) {
        Spec spec = TABLE.get(name);
        return spec == null || spec.valueName == null ? "VALUE" : spec.valueName;
    }

    /** What {@code --help} prints (HelpCommand.detail): usage, summary, actions and both option tables. */
    static String helpText(boolean bold) {
        String usage = bold ? "\u001B[1mUsage:\u001B[0m" : "Usage:";
        String options = bold ? "\u001B[1mOptions:\u001B[0m" : "Options:";
        String global = bold ? "\u001B[1mOptions for every command:\u001B[0m" : "Options for every command:";
        String exits = bold ? "\u001B[1mExit codes:\u001B[0m" : "Exit codes:";
        return usage + " rollout " + USAGE + "\n\n" + SUMMARY + "\n\n" + DISCUSSION + "\n\n" + options + "\n"
                + optionLines(DEVICE_OPTIONS) + "\n" + global + "\n" + optionLines(GLOBAL_OPTIONS) + "\n" + exits
                + "\n" + exitCodeLines();
    }

    /** HelpCommand.exitCodeLines: code, name and meaning in columns. */
    private static String exitCodeLines() {
        int width = 0;
        for (String[] code : EXIT_CODES) width = Math.max(width, code[1].length());
        StringBuilder out = new StringBuilder();
        for (String[] code : EXIT_CODES) {
            out.append("  ").append(code[0]);
            for (int pad = code[0].length(); pad < 4; pad++) out.append(' ');
            out.append(code[1]);
            for (int pad = code[1].length(); pad < width; pad++) out.append(' ');
            out.append("  ").append(code[2]).append('\n');
        }
        return out.toString();
    }

    /** The same with --json: exit codes, name, usage, summary and every option's help. */
    static Map<String, Object> helpJson() {
        Map<String, Object> json = new LinkedHashMap<>();
        List<Object> exitCodes = new ArrayList<>();
        for (String[] code : EXIT_CODES) {
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("code", Integer.parseInt(code[0]));
            entry.put("meaning", code[2]);
            entry.put("name", code[1]);
            exitCodes.add(entry);
        }
        json.put("exitCodes", exitCodes);
        json.put("name", "device");
        json.put("usage", USAGE);
        json.put("summary", SUMMARY);
        List<Object> options = new ArrayList<>();
        for (Spec spec : TABLE.values()) {
            Map<String, Object> option = new LinkedHashMap<>();
            option.put("name", "--" + spec.name);
            option.put("help", spec.help);
            options.add(option);
        }
        json.put("options", options);
        return json;
    }

    private static String optionLines(List<Spec> specs) {
        List<String> labels = new ArrayList<>();
        int width = 0;
        for (Spec spec : specs) {
            String label = "--" + spec.name + (spec.valueName == null ? "" : " " + spec.valueName);
            labels.add(label);
            width = Math.max(width, label.length());
        }
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < specs.size(); i++) {
            out.append("  ").append(labels.get(i));
            for (int pad = labels.get(i).length(); pad < width; pad++) out.append(' ');
            out.append("  ").append(specs.get(i).help).append(specs.get(i).repeatable ? " (repeatable)" : "")
                    .append('\n');
        }
        return out.toString();
    }
}
