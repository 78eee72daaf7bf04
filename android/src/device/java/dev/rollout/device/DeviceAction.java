package dev.rollout.device;

import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What rollout device is asked to do, checked before the device starts (DeviceCommand.swift's DeviceAction). */
final class DeviceAction {
    enum Kind { REFRESH, ACTIVATE, GET, LAUNCH, LAUNCH_SUCCEEDED, STATUS, METRICS, OUTCOMES, CONVERT }

    static final List<String> NAMES = Arrays.asList("refresh", "activate", "get", "launch", "launch-succeeded",
            "status", "metrics", "convert");

    final Kind kind;
    final boolean force;
    /**
     * get: the key and the {@code --arg} values; metrics: the kind's name (crash, fallback, outcome-METRIC); convert:
     * the metric.
     */
    final String argument;
    final Map<String, String> arguments;

    private DeviceAction(Kind kind, boolean force, String argument, Map<String, String> arguments) {
        this.kind = kind;
        this.force = force;
        this.argument = argument;
        this.arguments = arguments;
    }

    static DeviceAction parse(Invocation invocation) throws DeviceError {
        String name = invocation.positionals.get(0);
        String argument = invocation.positionals.size() > 1 ? invocation.positionals.get(1) : null;
        if (invocation.flag("force") && !name.equals("refresh")) {
            throw DeviceError.usage("--force goes with rollout device refresh, not " + name);
        }
        if (!invocation.values("arg").isEmpty() && !name.equals("get")) {
            throw DeviceError.usage("--arg goes with rollout device get KEY, not " + name);
        }
        Kind kind;
        switch (name) {
            case "refresh": kind = Kind.REFRESH; break;
            case "activate": kind = Kind.ACTIVATE; break;
            case "launch": kind = Kind.LAUNCH; break;
            case "launch-succeeded": kind = Kind.LAUNCH_SUCCEEDED; break;
            case "status": kind = Kind.STATUS; break;
            case "get":
                if (argument == null) {
                    throw DeviceError.usage(
                            "rollout device get needs KEY; usage: rollout device ... get KEY [--arg NAME=VALUE]...");
                }
                return new DeviceAction(Kind.GET, false, argument, arguments(invocation.values("arg")));
            case "metrics":
                if ("outcome".equals(argument)) return new DeviceAction(Kind.OUTCOMES, false, argument, new LinkedHashMap<>());
                if (argument == null || !(argument.equals("crash") || argument.equals("fallback")
                        || (argument.startsWith(OUTCOME_PREFIX)
                                && isValidMetric(argument.substring(OUTCOME_PREFIX.length()))))) {
                    String given = argument == null ? "" : ", not \"" + argument + "\"";
                    throw DeviceError.usage("rollout device metrics needs crash, fallback or outcome" + given);
                }
                return new DeviceAction(Kind.METRICS, false, argument, new LinkedHashMap<>());
            case "convert":
                if (argument == null || !isValidMetric(argument)) {
                    String given = argument == null ? "" : "; \"" + argument + "\" is not one";
                    throw DeviceError.usage(
                            "rollout device convert needs a metric NAME (lowercase letters, digits and _)" + given);
                }
                return new DeviceAction(Kind.CONVERT, false, argument, new LinkedHashMap<>());
            default:
                throw DeviceError.usage("unknown device action \"" + name + "\""
                        + Text.suggestion(name, new HashSet<>(NAMES), "") + "; choose " + String.join(", ", NAMES));
        }
        if (argument != null) {
            throw DeviceError.usage("rollout device " + name + " takes no argument, got \"" + argument + "\"");
        }
        return new DeviceAction(kind, invocation.flag("force"), null, new LinkedHashMap<>());
    }

    /** The prefix of an outcome kind, {@code outcome-METRIC} (MetricKind.outcomePrefix). */
    static final String OUTCOME_PREFIX = "outcome-";

    /**
     * Plan.Experiment.isValidMetric: 1 to 40 lowercase ASCII letters, digits and {@code _}, starting with a letter.
     */
    static boolean isValidMetric(String name) {
        byte[] bytes = name.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        if (bytes.length == 0 || bytes.length > 40 || bytes[0] < 'a' || bytes[0] > 'z') return false;
        for (byte b : bytes) {
            if (!((b >= 'a' && b <= 'z') || (b >= '0' && b <= '9') || b == '_')) return false;
        }
        return true;
    }

    /** {@code --arg NAME=VALUE}, each name once; the value may hold {@code =} and may be empty. */
    static Map<String, String> arguments(List<String> values) throws DeviceError {
        Map<String, String> result = new LinkedHashMap<>();
        for (String value : values) {
            int equals = value.indexOf('=');
            if (equals <= 0) {
                throw DeviceError.usage("--arg \"" + value + "\" is not NAME=VALUE, for example --arg name=Ayşe");
            }
            String name = value.substring(0, equals);
            if (result.containsKey(name)) throw DeviceError.usage("--arg " + name + " is given twice");
            result.put(name, value.substring(equals + 1));
        }
        return result;
    }
}
