import Foundation
import RolloutModel

/// `rollout device` runs in its own program, rollout-device, as git runs HTTPS in git-remote-https:
/// the device fetches sites with URLSession, and FoundationNetworking brings libcurl and its ~30
/// libraries, whose loading was most of every rollout command's start-up (docs/performance.md,
/// "Install and start-up"). rollout replaces itself with rollout-device (exec: same process id,
/// arguments, standard streams, environment, exit code and signals); rollout-device parses the same
/// words with the same command table, so what it prints is what rollout would have printed.
package enum DeviceHelper {
    package static let programName = "rollout-device"

    /// Where rollout-device is, for the running rollout at `executable`: beside it (a build directory,
    /// .build/debug/), then PREFIX/libexec/rollout/ for PREFIX/bin/rollout (make install, the tarball;
    /// docs/install.md).
    package static func candidates(executable: String) -> [String] {
        let directory = URL(fileURLWithPath: executable).deletingLastPathComponent()
        return [
            directory.appendingPathComponent(programName).path,
            directory.deletingLastPathComponent().appendingPathComponent("libexec/rollout/\(programName)").path,
        ]
    }

    /// Replaces this process with rollout-device given the same words, in the context's working
    /// directory with the context's environment (what `RolloutCLI.run` was given, not necessarily the
    /// process's own). Returns only by throwing. An in-process caller that must keep its process
    /// calls RolloutDevice itself instead.
    static func handOver(_ invocation: Invocation, context: CommandContext) throws -> CommandOutput {
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let places = candidates(executable: executable)
        guard let helper = places.first(where: { access($0, X_OK) == 0 }) else {
            throw RolloutError.missing(
                "rollout device needs the \(programName) program, which is not at \(places.joined(separator: " nor ")); "
                    + "reinstall rollout with make install or from the tarball (docs/install.md)")
        }
        guard chdir(context.workingDirectory) == 0 else {
            throw RolloutError.io(
                "cannot run \(helper) in \(context.workingDirectory): \(String(cString: strerror(errno)))")
        }
        let argv = ([helper] + invocation.arguments).map { strdup($0) } + [nil]
        let environment = context.environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        execve(helper, argv, environment)
        let reason = String(cString: strerror(errno))
        (argv + environment).forEach { free($0) }
        throw RolloutError.io("cannot run \(helper): \(reason)")
    }
}
