import RolloutModel
import RolloutStore

/// `rollout hook pre-receive`: the server's own check of every push (docs/teams.md, "Enforcing on
/// the server"). git runs it in the server's bare repository before it moves any ref; a non-zero
/// exit refuses the whole push, and what it writes is shown to the pusher as `remote: ...`.
enum HookCommand {
    static let preReceive = CommandSpec(
        path: ["hook", "pre-receive"],
        summary: "a git server's pre-receive hook: refuse a push that rollout verify would find wrong",
        discussion: """
            Install it in the server's bare repository as hooks/pre-receive, a script of two lines:
            #!/bin/sh and exec rollout hook pre-receive. git runs it before it moves any ref, with
            one OLD NEW REF line per ref on standard input, in the repository (GIT_DIR, or the
            working directory; --repo DIR names another), with the pushed objects still in
            quarantine (GIT_OBJECT_DIRECTORY, GIT_ALTERNATE_OBJECT_DIRECTORIES), which it reads.
            refs/heads/main may not be deleted nor rewritten (a force push, a merge), and every
            commit a push adds to it, oldest first along first parents, must pass the checks
            rollout verify runs on each commit: its Rollout-* trailers agree with the files it
            changed, it changes no file that never changes once written, it touches only the
            files its action may, each pack it adds parses, is the pack its path names and matches
            its record, and each plan it writes parses and gives only packs stored and not
            blocked. Each commit's signature is audited as rollout verify audits it, against the
            signers in force at it, when the repository has signers: a bad signature, a key not
            allowed, a role that may not make the change or a forged Rollout-Actor is refused; an
            unsigned change too with --require-signed, or when the policy's signing.requireSigned
            says so at the server's tip or the pushed one. A proposal
            (refs/rollout/proposals/*) must be one change on main's history that passes the same
            checks, signed by a signer who may make it; deleting one passes. The server's repository needs no rollout.format: a
            plain git init --bare that rollout pushes to. Every other ref passes. Each refused
            commit is one line on stderr, rollout: refused COMMIT: why, which git shows the pusher;
            then git refuses the whole push and changes nothing.
            """,
        options: Options.self,
        arguments: .none,
        effects: [.readsRepository, .checks, .checksSignatures],
        exitNotes: [.checkFailed: "the push is refused; each reason is a line on stderr, which git shows the pusher"],
        run: { invocation, context in
            guard !context.stdinIsTerminal else { throw RolloutError.usage(.notRunByGit) }
            let updates = try readUpdates(context.standardInput())
            let repository = try PackRepository.openPushed(
                try gitDirectory(invocation, context), objectDirectories: objectDirectories(context))
            let outcome = try PushCheck.check(
                repository, updates: updates, requireSigned: invocation.flag(Options.declared.requireSigned))
            if !invocation.json {
                for line in refusalLines(outcome) { context.diagnostics("rollout: \(line.oneLine)\n") }
            }
            return CommandOutput(json: json(outcome), text: "", exitCode: outcome.refused.isEmpty ? 0 : 1)
        })

    struct Options: OptionGroup {
        let requireSigned = Flag(
            "require-signed", "refuse an unsigned change too, whatever the repository's policy says")

        static let declared = Options()
    }

    /// The updates git wrote, one `OLD NEW REF` a line.
    static func readUpdates(_ input: [UInt8]) throws -> [PushCheck.RefUpdate] {
        let lines = String(decoding: input, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        return try lines.enumerated().compactMap { index, line in
            if line.isEmpty { return nil }
            guard let update = PushCheck.RefUpdate(line: line) else {
                throw RolloutError.usage(.notAnUpdate(String(line.prefix(120)), line: index + 1))
            }
            return update
        }
    }

    /// The repository git runs the hook in: --repo DIR, else GIT_DIR, else the working directory
    /// (git runs a bare repository's hooks there). ROLLOUT_REPO is not read: a server's environment
    /// may carry one for other commands.
    static func gitDirectory(_ invocation: Invocation, _ context: CommandContext) throws -> String {
        if let explicit = try invocation.value(GlobalOptions.all.repo)?.text {
            return context.absolutePath(explicit)
        }
        if let directory = context.environment["GIT_DIR"], !directory.isEmpty {
            return context.absolutePath(directory)
        }
        return context.workingDirectory
    }

    /// Where receive-pack keeps the pushed objects until the hook accepts them (its quarantine),
    /// and the alternates it names; each read after the repository's own objects.
    static func objectDirectories(_ context: CommandContext) -> [String] {
        let quarantine = [context.environment["GIT_OBJECT_DIRECTORY"]].compactMap { $0 }
        let alternates = (context.environment["GIT_ALTERNATE_OBJECT_DIRECTORIES"] ?? "").split(separator: ":").map(
            String.init)
        return (quarantine + alternates).filter { !$0.isEmpty }.map(context.absolutePath)
    }

    /// One line per refused commit (its problems joined), or per refused deletion or rewrite,
    /// then what happens to the push.
    static func refusalLines(_ outcome: PushCheck.Outcome) -> [String] {
        var lines: [String] = []
        for refusal in outcome.refused {
            // One line per commit, in the order each first appears, whichever check found what.
            var commits: [(commit: String, reasons: [String])] = []
            for problem in refusal.problems {
                let (commit, path, why) = worded(problem, ref: refusal.ref)
                let reason = (path.map { "\($0): " } ?? "") + why
                if let index = commits.firstIndex(where: { $0.commit == commit }) {
                    commits[index].reasons.append(reason)
                } else {
                    commits.append((commit, [reason]))
                }
            }
            lines += commits.map { "refused \($0.commit): \($0.reasons.joined(separator: "; "))" }
        }
        if !lines.isEmpty { lines.append(closingLine(outcome)) }
        return lines
    }

    /// What happens to the push, and what the server takes: when a signature is what it refused,
    /// that a change must be signed by whom it claims, who may make it.
    static func closingLine(_ outcome: PushCheck.Outcome) -> String {
        let aboutSignatures = outcome.refused.flatMap(\.problems).contains { problem in
            switch problem {
            case .signature, .proposalOffHistory: return true
            case .deletesStateRef, .rewritesHistory, .notACommit, .commit: return false
            }
        }
        if aboutSignatures {
            return
                "the push is refused; the server is unchanged. Each change must be signed by an allowed signer who may make it, as the actor it names (rollout verify --require-signed runs the same checks)"
        }
        return
            "the push is refused; the server is unchanged. Only changes rollout makes may reach \(StateLayout.stateRef) (rollout verify runs the same checks)"
    }

    /// What a problem is about (a commit, or the deletion of a ref), the file if it is about one,
    /// and why the push is refused.
    static func worded(_ problem: PushCheck.Problem, ref: String) -> (about: String, path: String?, why: String) {
        switch problem {
        case .deletesStateRef:
            return ("deleting \(ref)", nil, "it holds every change and the audit log; no push may delete it")
        case .rewritesHistory(let old, let new):
            return (
                new.short, nil,
                "it does not continue \(ref) at \(old.short) (a force push, or a merge); rollout's history only grows"
            )
        case .notACommit(let id):
            return (id.short, nil, "it is not a commit; \(ref) holds only rollout's commits")
        case .commit(let found):
            return (found.commit ?? "?", found.path, found.message)
        case .signature(let commit, let problem):
            return (commit.short, nil, SignatureWords.problem(problem))
        case .proposalOffHistory(let commit):
            return (
                commit.short, nil,
                "a proposal starts from a change of \(StateLayout.stateRef), and its parent is not one"
            )
        }
    }

    static func json(_ outcome: PushCheck.Outcome) -> JSONValue {
        [
            "ok": .bool(outcome.refused.isEmpty),
            "checkedCommits": .integer(outcome.checkedCommits),
            "refused": .array(
                outcome.refused.map { refusal in
                    [
                        "ref": .string(refusal.ref),
                        "problems": .array(
                            refusal.problems.map { problem in
                                let (about, path, why) = worded(problem, ref: refusal.ref)
                                return [
                                    "about": .string(about), "path": path.map { .string($0) } ?? .null,
                                    "message": .string(why),
                                ]
                            }),
                    ]
                }),
        ]
    }
}

extension String {
    fileprivate static let notRunByGit =
        "rollout hook pre-receive reads the ref updates git writes to a pre-receive hook on standard input; install it as hooks/pre-receive of the server's repository (rollout help hook pre-receive)"

    fileprivate static func notAnUpdate(_ line: String, line number: Int) -> String {
        "line \(number) of standard input is not OLD NEW REF, as git writes it to a pre-receive hook: \(line.oneLine)"
    }
}
