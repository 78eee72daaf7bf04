import Foundation
import RolloutModel
import RolloutStore

public enum RolloutCLI {
    public static let version = "0.1.0"

    /// The process entry point: run, print, exit with the documented code. `commands`: what each
    /// command does; rollout-device passes the table with `rollout device`'s real work in it.
    public static func main(commands: [CommandSpec] = allCommands) -> Never {
        let context = CommandContext.live()
        let result = run(Array(CommandLine.arguments.dropFirst()), context: context, commands: commands)
        FileHandle.standardOutput.write(Data(result.stdout.utf8))
        FileHandle.standardError.write(Data(result.stderr.utf8))
        exit(result.exitCode)
    }

    public struct Result {
        public var exitCode: Int32
        public var stdout: String
        public var stderr: String
        /// The command that ran, when the words named one: what the exit code is checked against
        /// (the codes its help lists, `CommandSpec.exitCodes`).
        public var command: CommandSpec? = nil
    }

    /// Parses, runs one command, and turns its outcome into an exit code: the only place that does.
    public static func run(_ arguments: [String], context: CommandContext, commands: [CommandSpec] = allCommands)
        -> Result
    {
        // The user's git config is the one of the context's HOME, not only in a process of its own.
        GitConfigSearchPath.use(context.environment)
        // What the completion scripts call: candidates, one per line, never an error.
        if arguments.first == "__complete" {
            let candidates = CompletionCommand.candidates(Array(arguments.dropFirst()), context: context)
            return Result(exitCode: 0, stdout: candidates.map { $0 + "\n" }.joined(), stderr: "")
        }
        let parser = ArgumentParser(commands: commands)
        var command: CommandSpec? = nil
        var result = outcome(of: arguments, parser: parser, context: context, ran: &command)
        result.command = command
        return result
    }

    /// The command the leading words of `arguments` name, if any, without running it: what a test
    /// checks a process's exit code against (the codes its help lists).
    public static func command(namedBy arguments: [String], commands: [CommandSpec] = allCommands) -> CommandSpec? {
        guard case .command(let words) = ArgumentParser(commands: commands).leadingWords(arguments) else { return nil }
        return commands.first { $0.path == words.path }
    }

    /// Parses and runs; `ran` is the command, once the words named one.
    static func outcome(
        of arguments: [String], parser: ArgumentParser, context: CommandContext, ran: inout CommandSpec?
    )
        -> Result
    {
        let json = arguments.contains("--json")
        do {
            switch try parser.parse(arguments) {
            case .help(let path):
                let style = context.style(nil)
                let output = try HelpCommand.render(path, style: style)
                return Result(
                    exitCode: 0, stdout: json ? JSONWriter.prettyString(output.json) : style.terminal(output.text),
                    stderr: "")
            case .version(let json):
                let output = HelpCommand.versionOutput()
                return Result(
                    exitCode: 0,
                    stdout: json ? JSONWriter.prettyString(output.json) : context.style(nil).terminal(output.text),
                    stderr: "")
            case .run(let invocation):
                ran = invocation.command
                let output: CommandOutput
                do {
                    output = try invocation.command.run(invocation, context)
                } catch let made as ProposalMade {
                    output = ApprovalCommands.proposed(made, style: context.style(invocation))
                }
                // The one place human output is rendered: escaped by construction (Style.terminal).
                let stdout =
                    invocation.json
                    ? JSONWriter.prettyString(output.json) : context.style(invocation).terminal(output.text)
                return Result(exitCode: output.exitCode, stdout: stdout, stderr: "")
            }
        } catch let error as RolloutError {
            return failure(error, json: json, style: context.style(nil))
        } catch let error as OptionError {
            return failure(error.error, option: error.option, json: json, style: context.style(nil))
        } catch let refusal as any Refusal {
            return failure(Refusals.worded(refusal)!, json: json, style: context.style(nil))
        } catch let error as GitError {
            // A full or failing disk under the repository is an I/O error (74), anything else a bug.
            return failure(error.rolloutError, json: json, style: context.style(nil))
        } catch {
            return failure(unexpected(error), json: json, style: context.style(nil))
        }
    }

    /// An error nothing turned into a `RolloutError`: a file error from Foundation is an I/O error
    /// naming its path and cause (never its error domain); anything else is a bug.
    static func unexpected(_ error: Error) -> RolloutError {
        let info = (error as NSError).userInfo
        if RolloutError.posixCode(of: error) != nil,
            let path = info[NSFilePathErrorKey] as? String ?? (info[NSURLErrorKey] as? URL)?.path
        {
            return RolloutError.fileFailure("read or write", path, error: error)
        }
        return .internal("unexpected error: \(error)")
    }

    /// `option`: the option the failure is about, which `--json` names beside the message.
    static func failure(_ error: RolloutError, option: String? = nil, json: Bool, style: Style) -> Result {
        // The last line of defence for docs/teams.md's "no credential is printed": whatever an error
        // quotes (a URL, git's or a server's words), no URL in it keeps its userinfo.
        let error = error.withMessage { RemoteURL.redactingURLs(in: $0) }
            // Then no argument is echoed whole (docs/reliability.md, "Input limits").
            .withMessage(InputLimits.shortenedWords)
        let text: String
        if json {
            var document: [String: JSONValue] = ["code": .string(error.code), "message": .string(error.message)]
            if let option { document["option"] = .string(InputLimits.shortenedWords(option)) }
            text = JSONWriter.prettyString(["error": .object(document)])
        } else {
            var message = "rollout: \(error.message)\n"
            if case .internal = error {
                message += "rollout: this is a bug; please report it with the command you ran\n"
            }
            text = style.terminal(message)
        }
        return Result(exitCode: error.exitCode, stdout: "", stderr: text)
    }
}
