import Foundation
import RolloutModel
import RolloutStore

/// Shared repositories on a git server: remote add/list, clone, sync (docs/teams.md).
enum RemoteCommands {
    struct SyncOptions: OptionGroup {
        let discardLocal = Flag("discard-local", "take the remote's state; the local-only changes are set aside")

        static let declared = SyncOptions()
    }

    static let add = CommandSpec(
        path: ["remote", "add"],
        summary: "add a git remote; the first one becomes the remote every change is pushed to",
        discussion: """
            URL is anything git clone takes: a path, file://, git://, ssh (git@host:path) or
            https. rollout runs git for every fetch and push, so credential helpers, GIT_ASKPASS,
            http.extraheader, ssh config and keys work as they do for git. Once a repository has
            its remote, every change is applied on the remote's tip and pushed, re-applied if
            another writer was faster; --offline keeps a change local until rollout sync. A
            credential written in the URL stays in the repository's config, as git keeps it, and is
            never printed; a credential helper keeps it out of files.
            """,
        options: NoOptions.self,
        arguments: .exactly("NAME", "URL"),
        effects: [.readsRepository, .touchesRemote],
        run: { invocation, context in
            let repository = try context.repository(invocation)
            let (name, given) = (invocation.positionals[0], invocation.positionals[1])
            let url = PackRepositoryURL.normalize(given, context)
            let primary = try repository.addRemote(name, url: url)
            let shown = RemoteURL.redacted(url)
            var text =
                "Added remote \(name) \(shown)"
                + (primary ? "; changes are now pushed there (rollout sync pushes what is already here).\n" : ".\n")
            text += credentialNote(url, repository)
            return CommandOutput(
                json: ["name": .string(name), "url": .string(shown), "pushTarget": .bool(primary)], text: text)
        })

    static let list = CommandSpec(
        path: ["remote", "list"], summary: "the remotes, and which one changes are pushed to",
        discussion: "", options: NoOptions.self, arguments: .none,
        effects: .readsRepository,
        run: { invocation, context in
            let repository = try context.repository(invocation)
            let primary = try repository.syncRemote()
            let remotes = try repository.remotes().map { ($0.name, RemoteURL.redacted($0.url)) }
            let text =
                remotes.isEmpty
                ? "No remotes; changes stay in this repository.\n"
                : remotes.map {
                    "\($0.0.oneLine)  \($0.1.oneLine)\($0.0 == primary ? "  (changes are pushed here)" : "")\n"
                }.joined()
            return CommandOutput(
                json: [
                    "remotes": .array(
                        remotes.map {
                            ["name": .string($0.0), "url": .string($0.1), "pushTarget": .bool($0.0 == primary)]
                        })
                ], text: text)
        })

    static let clone = CommandSpec(
        path: ["clone"], summary: "make a local repository from a shared one; the shared one becomes origin",
        discussion: """
            DIR defaults to .rollout in the working directory, where discovery finds it. An
            interrupted clone (Ctrl-C, SIGTERM) leaves nothing behind, as git clone does; a
            credential written in the URL is kept in the new repository's config and never printed.
            """,
        options: NoOptions.self,
        arguments: .init(names: ["URL", "DIR"], minimum: 1, maximum: 2),
        effects: [.touchesRemote, .writesFiles],
        run: { invocation, context in
            let url = PackRepositoryURL.normalize(invocation.positionals[0], context)
            let directory = context.absolutePath(
                invocation.positionals.count > 1 ? invocation.positionals[1] : ".rollout")
            // Interrupted, the clone leaves nothing (CloneInterruption).
            let interruption = CloneInterruption(path: directory)
            let cloned = Result {
                try PackRepository.clone(url: url, into: directory) {
                    $0.gitEnvironment = context.environment
                    $0.stdinIsTerminal = context.stdinIsTerminal
                }
            }
            interruption.finish()
            let repository = try cloned.get()
            let tip = try repository.snapshot().commit
            return CommandOutput(
                json: [
                    "path": .string(repository.path), "origin": .string(RemoteURL.redacted(url)),
                    "commit": tip.map { .string($0.hex) } ?? .null,
                ],
                text:
                    "Cloned \(RemoteURL.redacted(url)) into \(repository.path) (at \(tip?.short ?? "?")); changes made here are pushed to origin.\n"
                    + credentialNote(url, repository))
        })

    static let sync = CommandSpec(
        path: ["sync"], summary: "bring this repository up to date with its remote, and push what was done offline",
        discussion: """
            Offline changes are pushed as they are when the remote did not move, and replayed on the
            remote's newer changes when they touch different files (another locale's plan, new
            packs). When both sides changed the same file, nothing is done and the two changes are
            named, exit 76 (diverged: a person decides; retrying cannot help). --discard-local
            takes the remote's state and keeps the local changes only under
            refs/rollout/discarded/, for the record.
            """,
        options: SyncOptions.self,
        arguments: .none,
        effects: [.readsRepository, .touchesRemote],
        run: { invocation, context in
            let repository = try context.repository(invocation)
            if invocation.flag(SyncOptions.declared.discardLocal) {
                let dropped = try repository.discardLocal()
                return CommandOutput(
                    json: ["discarded": .integer(dropped)],
                    text: dropped == 0
                        ? "Nothing to discard; up to date.\n"
                        : "Set aside \(dropped) local change(s) under refs/rollout/discarded/; this repository now matches its remote.\n"
                )
            }
            let outcome = try repository.sync()
            var text: String
            if outcome.pulled == 0 && outcome.pushed == 0 {
                text = "Up to date with \(outcome.remote).\n"
            } else {
                text = ""
                if outcome.pulled > 0 { text += "Pulled \(outcome.pulled) change(s) from \(outcome.remote).\n" }
                if outcome.pushed > 0 {
                    text +=
                        "Pushed \(outcome.pushed) change(s) to \(outcome.remote)"
                        + (outcome.replayed > 0 ? ", replayed on its newer changes.\n" : ".\n")
                }
            }
            return CommandOutput(
                json: [
                    "remote": .string(outcome.remote), "pulled": .integer(outcome.pulled),
                    "pushed": .integer(outcome.pushed), "replayed": .integer(outcome.replayed),
                ],
                text: text)
        })
}

/// Where a credential written in a remote's URL is kept, said by every command that stores one
/// (remote add, clone); empty when the URL holds none.
private func credentialNote(_ url: String, _ repository: PackRepository) -> String {
    guard !RemoteURL.credentials(in: url).isEmpty else { return "" }
    return
        "The URL holds a credential: it is kept in \(repository.path)/config, as git keeps it, and never printed. A credential helper keeps it out of files (docs/teams.md, \"Credentials\").\n"
}

enum PackRepositoryURL {
    /// A relative local path is made absolute, so the remote still works from another directory.
    static func normalize(_ url: String, _ context: CommandContext) -> String {
        guard PackRepository.isLocalPath(url), !url.hasPrefix("file://") else { return url }
        return context.absolutePath(url)
    }
}
