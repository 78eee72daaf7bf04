package dev.rollout.device;

import dev.rollout.client.BundledStrings;
import dev.rollout.client.DeviceAccess;
import dev.rollout.client.RolloutClient;
import dev.rollout.client.Trust;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The device rollout device plays, from its flags (DeviceSetup.swift): checked here so that a typo is a usage error
 * naming the flag, never a device that quietly matches nothing.
 */
final class DeviceSetup {
    /** The process's surroundings: its working directory, environment and clock, given so a batch can vary them. */
    static final class Context {
        final String workingDirectory;
        final Map<String, String> environment;
        final long systemSeconds;

        Context(String workingDirectory, Map<String, String> environment, long systemSeconds) {
            this.workingDirectory = workingDirectory;
            this.environment = environment;
            this.systemSeconds = systemSeconds;
        }

        /** CommandContext.now(): ROLLOUT_NOW, else the wall clock. */
        long now() throws DeviceError {
            String text = environment.get("ROLLOUT_NOW");
            if (text != null && !text.isEmpty()) {
                Long time = DeviceAccess.parseTimestamp(text);
                if (time == null || time < 0) {
                    throw DeviceError.usage(
                            "ROLLOUT_NOW=" + text + " is not an ISO 8601 time such as 2026-11-30T09:00:00Z");
                }
                return time;
            }
            return systemSeconds;
        }

        /** CommandContext.absolutePath: relative to the working directory, "." and ".." resolved. */
        String absolutePath(String path) {
            if (path.startsWith("/")) return path;
            return Paths.get(workingDirectory).resolve(path).normalize().toString();
        }
    }

    File stateDirectory;
    URI manifestUrl;
    /** An app that pins one key (then {@code roots} is null), or one built with root keys. */
    String pinnedKey;
    Trust roots;
    long minimumIndexSequence;
    File bundledDirectory;
    String locale;
    String region;
    String appVersion;
    String installId;
    long now;

    static DeviceSetup parse(Invocation invocation, Context context) throws DeviceError {
        DeviceSetup setup = new DeviceSetup();
        String stateText = required(invocation, "state");
        File state = new File(context.absolutePath(stateText));
        if (state.exists() && !state.isDirectory()) {
            throw DeviceError.usage(
                    "--state " + stateText + " is a file; give the device's directory (created if missing)");
        }
        setup.stateDirectory = state;
        setup.manifestUrl = site(required(invocation, "site"), context);
        setup.keys(invocation, context);
        Long minimum = countOption(invocation, "min-sequence", 0);
        setup.minimumIndexSequence = minimum == null ? 0 : minimum;
        String bundled = invocation.value("bundled");
        if (bundled != null) {
            File directory = new File(context.absolutePath(bundled));
            if (!directory.isDirectory()) throw DeviceError.missing("--bundled " + bundled + ": no such directory");
            setup.bundledDirectory = directory;
        }
        setup.locale = Names.locale(required(invocation, "locale"));
        setup.region = Names.region(required(invocation, "region"));
        String appVersion = required(invocation, "app-version");
        if (!DeviceAccess.isAppVersion(appVersion)) {
            throw DeviceError.usage("--app-version \"" + appVersion + "\" is not a numeric app version such as 4.8.1");
        }
        setup.appVersion = appVersion;
        setup.installId = invocation.value("install-id");
        setup.now = context.now();
        return setup;
    }

    private static String required(Invocation invocation, String name) throws DeviceError {
        String value = invocation.value(name);
        if (value == null) {
            throw DeviceError.usage("rollout device needs --" + name + " " + Invocation.valueName(name)
                    + "; see rollout help device");
        }
        return value;
    }

    /** PublishCommands.countOption: a whole number of at least {@code minimum}, or null when not given. */
    static Long countOption(Invocation invocation, String name, long minimum) throws DeviceError {
        String text = invocation.value(name);
        if (text == null) return null;
        long n;
        try {
            n = Long.parseLong(text);
        } catch (NumberFormatException e) {
            n = Long.MIN_VALUE;
        }
        if (n < minimum) {
            throw DeviceError.usage("--" + name + " \"" + text + "\" must be a whole number of at least " + minimum);
        }
        return n;
    }

    /** DeviceSetup.keys and PublishCommands.siteTrust: one pinned key, or root keys with their threshold. */
    private void keys(Invocation invocation, Context context) throws DeviceError {
        String pinned = invocation.value("public-key");
        List<String> rootTexts = invocation.values("root-key");
        if (pinned == null && rootTexts.isEmpty()) {
            throw DeviceError.usage("rollout device needs --root-key KEY (an app on a key list) or --public-key KEY "
                    + "(an app that pins one key); see rollout help device");
        }
        Long minimumKeysVersion = countOption(invocation, "min-keys-version", 0);
        if (pinned != null && !rootTexts.isEmpty()) {
            throw DeviceError.usage("--public-key and --root-key are alternatives: check as an app that pins one key, "
                    + "or as one that built in root keys");
        }
        if (pinned != null) {
            for (String flag : Arrays.asList("threshold", "min-keys-version")) {
                if (invocation.value(flag) != null) throw DeviceError.usage("--" + flag + " goes with --root-key");
            }
            pinnedKey = publicKeyOption(pinned, context, "public-key");
            return;
        }
        Map<String, String> byId = new TreeMap<>();
        for (String text : rootTexts) {
            String key = publicKeyOption(text, context, "root-key");
            byId.putIfAbsent(DeviceAccess.publicKeyId(key), key);
        }
        Long threshold = countOption(invocation, "threshold", 1);
        long needed = threshold == null ? 1 : threshold;
        if (needed > byId.size()) {
            throw DeviceError.usage("--threshold " + needed + " needs at least " + needed + " different --root-key, "
                    + byId.size() + " given");
        }
        roots = new Trust(new ArrayList<>(byId.values()), (int) needed, null,
                minimumKeysVersion == null ? 0 : (int) Math.min(Integer.MAX_VALUE, minimumKeysVersion));
    }

    /** PublishCommands.publicKeyOption: {@code ed25519:BASE64}, or a file holding it; never a private key. */
    private static String publicKeyOption(String text, Context context, String option) throws DeviceError {
        String value = text;
        Path path = Paths.get(context.absolutePath(text));
        if (!text.startsWith("ed25519:") && Files.exists(path)) {
            try {
                value = Text.trimSpaces(new String(Files.readAllBytes(path), StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw DeviceError.io(text + ": the public key file cannot be read (" + e.getMessage() + ")");
            }
            if (value.contains("PRIVATE KEY")) {
                throw DeviceError.usage("--" + option + " " + text
                        + " holds a private key; give the public key rollout printed (ed25519:BASE64)");
            }
        }
        if (DeviceAccess.publicKeyId(value) == null) {
            throw DeviceError.usage(
                    "--" + option + " \"" + text + "\" is not an Ed25519 public key such as ed25519:BASE64");
        }
        return value;
    }

    /**
     * A directory is read through {@code file:} URLs; a URL names the site's directory or its index.json. The client
     * decides which URLs it accepts: an http: URL to another host fails the refresh, with its reason.
     */
    static URI site(String text, Context context) throws DeviceError {
        int separator = text.indexOf("://");
        if (separator >= 0) {
            String scheme = text.substring(0, separator).toLowerCase(Locale.ROOT);
            URI url = null;
            try {
                url = new URI(text);
            } catch (URISyntaxException e) {
                url = null;
            }
            if (!(scheme.equals("https") || scheme.equals("http") || scheme.equals("file")) || url == null
                    || (url.getHost() == null && !scheme.equals("file"))) {
                throw DeviceError.usage("--site " + text + " is not an https:// URL or a directory");
            }
            String path = url.getRawPath() == null ? "" : url.getRawPath();
            if (path.endsWith(".json")) return url;
            String joined = path.endsWith("/") ? path + "index.json" : path + "/index.json";
            try {
                return new URI(url.getScheme(), url.getRawAuthority(), null, null, null).resolve(joined);
            } catch (URISyntaxException e) {
                throw DeviceError.usage("--site " + text + " is not an https:// URL or a directory");
            }
        }
        File file = new File(context.absolutePath(text));
        if (!file.exists()) {
            throw DeviceError.missing("--site " + text
                    + ": no such directory; give the directory rollout publish --out wrote, or the site's URL");
        }
        return file.isDirectory() ? new File(file, "index.json").toURI() : file.toURI();
    }

    /**
     * The device, started: {@code countsLaunch} only for launch, so that looking at a device (get, status) is not a
     * process start that could roll a pack back. {@code problems} receives what could not be read of the bundled
     * strings (the device runs without those texts, as the app would).
     */
    RolloutClient client(boolean countsLaunch, List<String> problems) {
        RolloutClient.Options options = RolloutClient.Options.builder()
                .installId(installId)
                .countsLaunch(countsLaunch)
                // One phone across invocations: a get or convert belongs to the session the last launch opened.
                .continuesSession(true)
                .minimumIndexSequence(minimumIndexSequence)
                .clock(Clock.fixed(Instant.ofEpochSecond(now), ZoneOffset.UTC))
                .build();
        BundledStrings bundled = bundledDirectory == null
                ? BundledStrings.empty() : BundledStrings.fromJsonDirectory(bundledDirectory);
        for (BundledStrings.Problem problem : bundled.problems()) problems.add(problem.toString());
        if (roots != null) {
            return new RolloutClient(bundled, stateDirectory, manifestUrl, roots, appVersion, region, locale, options);
        }
        return new RolloutClient(bundled, stateDirectory, manifestUrl, pinnedKey, appVersion, region, locale, options);
    }
}
