import Foundation
import RolloutCLI
import RolloutClient
import RolloutModel

/// `rollout device`'s work: the real client library as one device (docs/device.md). It runs in the
/// rollout-device program (RolloutCLI's DeviceHelper says why), with the command table of rollout
/// in which `device` does this.
public enum RolloutDevice {
    /// rollout's commands, `device` running here.
    public static var commands: [CommandSpec] {
        allCommands.map { $0.path == DeviceCommand.spec.path ? $0.running(run) : $0 }
    }

    /// Parses the device and the action, runs the action on a `RolloutClient`, renders what it returned.
    static func run(_ invocation: Invocation, context: CommandContext) throws -> CommandOutput {
        let action = try DeviceAction.parse(invocation)
        let device = try DeviceSetup.parse(invocation, context: context)
        let (client, problems) = device.client(countsLaunch: action == .launch)
        // `launch` opens the session that later invocations (get, convert) go on in.
        if !invocation.json {
            for problem in problems { context.diagnostics("warning: --bundled: \(problem.oneLine)\n") }
        }
        let outcome = action.run(on: client)
        // The process ends here, as an app's does in the background: what it counted is kept.
        _ = client.saveCounters()
        var output = outcome.output(client: client, style: context.style(invocation))
        if case .status = outcome, case .object(var json) = output.json {
            json["bundledProblems"] = .array(problems.map { .string($0) })
            output.json = .object(json)
        }
        return output
    }
}

extension DeviceAction {
    /// Runs the action on the device. Nothing here throws: the client never fails loudly, and what
    /// went wrong is in its results.
    func run(on client: RolloutClient) -> DeviceOutcome {
        switch self {
        case .refresh(let force):
            return .refreshed(waitFor { await client.refresh(force: force) })
        case .activate:
            return .activated(client.activatePending())
        case .get(let key, let arguments):
            return .text(key: key, client.string(key, arguments))
        case .launch:
            // Constructing the client with countsLaunch was the launch; the app records the session.
            client.recordSession()
            return .launched
        case .launchSucceeded:
            return .launchSucceeded(confirmed: client.markLaunchSucceeded())
        case .status:
            return .status
        case .metrics(let kind):
            return .metrics(kind, client.metricsCSV(kind))
        case .outcomes:
            return .outcomes(client.outcomeCSV())
        case .convert(let metric):
            return .converted(metric, counted: client.recordConversion(metric))
        }
    }
}

/// Runs async client work to its end from the synchronous command layer.
func waitFor<T: Sendable>(_ operation: @escaping @Sendable () async -> T) -> T {
    let box = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        box.value = await operation()
        done.signal()
    }
    done.wait()
    return box.value!
}

/// `waitFor`'s result. `@unchecked Sendable`: the task writes `value` once, before `done.signal()`;
/// the caller reads it after `done.wait()`, which orders the two.
private final class ResultBox<T>: @unchecked Sendable {
    var value: T?
}
