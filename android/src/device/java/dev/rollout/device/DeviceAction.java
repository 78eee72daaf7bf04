package dev.rollout.device;

import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What rollout device is asked to do, checked before the device starts (DeviceCommand.swift's DeviceAction). */
final class DeviceAction {
    enum Kind { REFRESH, ACTIVATE, GET, LAUNCH, LAUNCH_SUCCEEDED, STATUS, METRICS }

    static final List<String> NAMES = Arrays.asList("refresh", "activate", "get", "launch", "launch-succeeded",
            "status", "metrics");

    final Kind kind;
    final boolean force;
    /** get: the key and the {@code --arg} values; metrics: the kind's name (crash, fallback). */
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
                if (argument == null || !(argument.equals("crash") || argument.equals("fallback"))) {
                    String given = argument == null ? "" : ", not \"" + argument + "\"";
                    throw DeviceError.usage("rollout device metrics needs crash or fallback" + given);
                }
                return new DeviceAction(Kind.METRICS, false, argument, new LinkedHashMap<>());
            default:
                throw DeviceError.usage("unknown device action \"" + name + "\""
                        + Text.suggestion(name, new HashSet<>(NAMES), "") + "; choose " + String.join(", ", NAMES));
        }
        if (argument != null) {
            throw DeviceError.usage("rollout device " + name + " takes no argument, got \"" + argument + "\"");
        }
        return new DeviceAction(kind, invocation.flag("force"), null, new LinkedHashMap<>());
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
