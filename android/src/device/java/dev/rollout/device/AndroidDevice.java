package dev.rollout.device;

import dev.rollout.client.MetricKind;
import dev.rollout.client.PackId;
import dev.rollout.client.RefreshResult;
import dev.rollout.client.RolloutClient;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * scripts/android-device: {@code rollout device} with the Java client library (docs/device.md). The same flags,
 * actions, output and exit codes as the Swift command, so that both clients can be run side by side on one site and
 * compared byte for byte. It parses the words, starts a {@link RolloutClient} on the state directory, calls one
 * method and prints what it returned.
 */
public final class AndroidDevice {
    private AndroidDevice() {}

    /** What one invocation printed and its exit code. */
    static final class Result {
        final int exitCode;
        final String stdout;
        final String stderr;

        Result(int exitCode, String stdout, String stderr) {
            this.exitCode = exitCode;
            this.stdout = stdout;
            this.stderr = stderr;
        }
    }

    public static void main(String[] arguments) throws IOException {
        Map<String, String> environment = new HashMap<>(System.getenv());
        String cwd = Paths.get("").toAbsolutePath().toString();
        if (arguments.length == 2 && arguments[0].equals("--batch")) {
            System.exit(batch(arguments[1], environment, cwd));
        }
        DeviceSetup.Context context = new DeviceSetup.Context(cwd, environment, System.currentTimeMillis() / 1000);
        Result result = run(arguments, context, System.console() != null);
        write(System.out, result.stdout);
        write(System.err, result.stderr);
        System.exit(result.exitCode);
    }

    private static void write(OutputStream stream, String text) throws IOException {
        stream.write(text.getBytes(StandardCharsets.UTF_8));
        stream.flush();
    }

    /**
     * Many devices in one JVM, for the side-by-side tests (a JVM start per invocation would make 500 devices take
     * minutes): FILE holds one JSON object per line, {"arguments": [...], "environment": {"ROLLOUT_NOW": ...}};
     * stdout gets one compact JSON line per invocation, {"exit": N, "stdout": "...", "stderr": "..."}. Each runs
     * as its own process would: a new client on its state directory.
     */
    static int batch(String file, Map<String, String> environment, String cwd) throws IOException {
        PrintStream out = new PrintStream(System.out, false, "UTF-8");
        try (BufferedReader reader = Files.newBufferedReader(Paths.get(file), StandardCharsets.UTF_8)) {
            String line;
            while ((line = reader.readLine()) != null) {
                if (line.isEmpty()) continue;
                Map<String, Object> request = BatchJson.object(line);
                List<String> words = new ArrayList<>();
                for (Object word : (List<?>) request.get("arguments")) words.add((String) word);
                Map<String, String> env = new HashMap<>(environment);
                Object extra = request.get("environment");
                if (extra instanceof Map) {
                    for (Map.Entry<?, ?> entry : ((Map<?, ?>) extra).entrySet()) {
                        env.put((String) entry.getKey(), (String) entry.getValue());
                    }
                }
                DeviceSetup.Context context = new DeviceSetup.Context(cwd, env, System.currentTimeMillis() / 1000);
                Result result = run(words.toArray(new String[0]), context, false);
                Map<String, Object> reply = new LinkedHashMap<>();
                reply.put("exit", (long) result.exitCode);
                reply.put("stdout", result.stdout);
                reply.put("stderr", result.stderr);
                out.print(Text.compactJson(reply));
                out.print('\n');
            }
        }
        out.flush();
        return 0;
    }

    /** RolloutCLI.run for the device command: parse, run, render; errors as rollout prints them. */
    static Result run(String[] arguments, DeviceSetup.Context context, boolean terminal) {
        boolean json = false;
        for (String argument : arguments) json |= argument.equals("--json");
        StringBuilder diagnostics = new StringBuilder();
        try {
            Invocation invocation = Invocation.parse(arguments);
            String noColor = context.environment.get("NO_COLOR");
            // CommandContext.style: help is styled before the words are read, so --no-color does not reach it.
            boolean colour = terminal && (noColor == null || noColor.isEmpty())
                    && !"dumb".equals(context.environment.get("TERM"));
            if (invocation.help) {
                // As rollout's help: --json anywhere among the words asks for the document.
                return new Result(0, json ? Text.prettyJson(Invocation.helpJson())
                        : Text.escape(Invocation.helpText(colour), true), "");
            }
            boolean bold = colour && !invocation.flag("no-color");
            DeviceReport.Output output = perform(invocation, context, bold, diagnostics);
            String stdout = invocation.json() ? Text.prettyJson(output.json) : Text.escape(output.text, true);
            return new Result(output.exitCode, stdout, diagnostics.toString());
        } catch (DeviceError error) {
            return failure(error, json, diagnostics);
        } catch (RuntimeException error) {
            return failure(DeviceError.internal("unexpected error: " + error), json, diagnostics);
        }
    }

    private static Result failure(DeviceError error, boolean json, StringBuilder diagnostics) {
        String text;
        if (json) {
            Map<String, Object> inner = new LinkedHashMap<>();
            inner.put("code", error.code);
            inner.put("message", error.getMessage());
            Map<String, Object> document = new LinkedHashMap<>();
            document.put("error", inner);
            text = Text.prettyJson(document);
        } else {
            text = "rollout: " + error.getMessage() + "\n";
            if (error.exitCode == 70) text += "rollout: this is a bug; please report it with the command you ran\n";
            text = Text.escape(text, true);
        }
        return new Result(error.exitCode, "", diagnostics + text);
    }

    /** RolloutDevice.run: the action, on a client started on the state directory, then what it returned. */
    private static DeviceReport.Output perform(Invocation invocation, DeviceSetup.Context context, boolean bold,
            StringBuilder diagnostics) throws DeviceError {
        DeviceAction action = DeviceAction.parse(invocation);
        DeviceSetup device = DeviceSetup.parse(invocation, context);
        List<String> problems = new ArrayList<>();
        RolloutClient client = device.client(action.kind == DeviceAction.Kind.LAUNCH, problems);
        if (!invocation.json()) {
            for (String problem : problems) {
                diagnostics.append("warning: --bundled: ").append(Text.oneLine(problem)).append('\n');
            }
        }
        RefreshResult refreshed = null;
        List<PackId> activated = null;
        String text = null;
        MetricKind kind = "crash".equals(action.argument) ? MetricKind.CRASH : MetricKind.FALLBACK;
        boolean counted = false;
        switch (action.kind) {
            case REFRESH: refreshed = client.refresh(action.force); break;
            case ACTIVATE: activated = client.activatePending(); break;
            case GET: text = client.string(action.argument, action.arguments); break;
            // Starting the client with countsLaunch was the launch; the app records the session.
            case LAUNCH: client.recordSession(); break;
            case LAUNCH_SUCCEEDED: activated = client.markLaunchSucceeded(); break;
            case METRICS:
                // An outcome kind (outcome-METRIC) is that metric's rows of the outcome CSV, as Swift's metricsCSV.
                text = action.argument.startsWith(DeviceAction.OUTCOME_PREFIX)
                        ? client.outcomeCsv(action.argument.substring(DeviceAction.OUTCOME_PREFIX.length()))
                        : client.metricsCsv(kind);
                break;
            case OUTCOMES: text = client.outcomeCsv(); break;
            case CONVERT: counted = client.recordConversion(action.argument); break;
            case STATUS: default: break;
        }
        // The process ends here, as an app's does in the background: what it counted is kept (and status shows it).
        client.saveCounters();
        switch (action.kind) {
            case REFRESH: return DeviceReport.refreshed(refreshed, client);
            case ACTIVATE: return DeviceReport.activated(activated);
            case GET: return DeviceReport.text(action.argument, text, client);
            case LAUNCH: return DeviceReport.launched(client);
            case LAUNCH_SUCCEEDED: return DeviceReport.launchSucceeded(activated, client); // what it confirmed
            case METRICS: return DeviceReport.metrics(action.argument, text);
            case OUTCOMES: return DeviceReport.metrics("outcome", text);
            case CONVERT: return DeviceReport.converted(action.argument, counted, client.status().experiment());
            case STATUS: default: return DeviceReport.status(client, bold, problems);
        }
    }
}
