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
    static final String USAGE = "device --state DIR --site URL|DIR (--public-key KEY | --root-key KEY... "
            + "[--threshold N]) [--min-sequence N] [--bundled DIR] --locale L --region R --app-version V "
            + "[--install-id ID] ACTION [ARGUMENT]";

    /** One option: its value's name in help (null for a flag) and whether it may be repeated. */
    private static final class Spec {
        final String valueName;
        final boolean repeatable;

        Spec(String valueName, boolean repeatable) {
            this.valueName = valueName;
            this.repeatable = repeatable;
        }
    }

    /** DeviceCommand.spec's options, then rollout's global ones, in the order of their tables. */
    private static final Map<String, Spec> TABLE = new LinkedHashMap<>();

    static {
        value("state", "DIR", false);
        value("site", "URL|DIR", false);
        value("public-key", "KEY", false);
        value("root-key", "KEY", true);
        value("threshold", "N", false);
        value("min-sequence", "N", false);
        value("min-keys-version", "N", false);
        value("bundled", "DIR", false);
        value("locale", "L", false);
        value("region", "R", false);
        value("app-version", "V", false);
        value("install-id", "ID", false);
        value("force", null, false);
        value("arg", "NAME=VALUE", true);
        value("repo", "DIR", false);
        value("json", null, false);
        value("actor", "NAME", false);
        value("offline", null, false);
        value("no-color", null, false);
        value("help", null, false);
    }

    private static void value(String name, String valueName, boolean repeatable) {
        TABLE.put(name, new Spec(valueName, repeatable));
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

    /** What {@code --help} prints: the command's usage and its actions. */
    static final String HELP = String.join("\n", Arrays.asList(
            "usage: rollout " + USAGE,
            "",
            "Run the client library as one device against a published site (the Android client; docs/device.md).",
            "",
            "ACTION is one of:",
            "  refresh [--force]        fetch and verify the site, stage the packs this device resolves to",
            "  activate                 make the staged packs active (the app does it at a safe moment)",
            "  get KEY [--arg N=V]...   the text the app shows for KEY",
            "  launch                   a process start: a staged pack becomes active; a pack that missed",
            "                           launch-succeeded in too many launches in a row is rolled back",
            "  launch-succeeded         the app's first screen is usable",
            "  status                   active, pending, previous, failed and blocked packs, and the counters",
            "  metrics crash|fallback   the counters as the CSV rollout metrics ingest reads",
            "")) + "\n";
}
