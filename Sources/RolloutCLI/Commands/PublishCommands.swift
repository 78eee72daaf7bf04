import Foundation
import RolloutCrypto
import RolloutModel
import RolloutPublish
import RolloutStore

package enum PublishCommands {
    /// `--public-key` (or `--root-key`): `ed25519:BASE64`, or a file holding it (as `rollout keys
    /// generate` or `rollout keys init` printed it); verify-site and rollout device read it the same way.
    static func publicKeyOption(_ text: String, context: CommandContext, option: String = "public-key") throws
        -> Ed25519.PublicKey
    {
        var value = text
        if !text.hasPrefix(Ed25519.publicKeyPrefix), FileManager.default.fileExists(atPath: context.absolutePath(text))
        {
            value =
                String(decoding: try context.readFile(text, describedAs: "public key file"), as: UTF8.self)
                .trimmingSpaces
            if value.contains("PRIVATE KEY") {
                throw RolloutError.usage(
                    "--\(option) \(text) holds a private key; give the public key rollout printed (ed25519:BASE64)")
            }
        }
        guard let key = Ed25519.PublicKey(value) else {
            throw RolloutError.usage("--\(option) \"\(text)\" is not an Ed25519 public key such as ed25519:BASE64")
        }
        return key
    }

    /// The options that say which keys a site is checked with: verify-site's and rollout device's, so
    /// that both read them by one rule (`siteTrust`).
    package protocol TrustOptions: OptionGroup {
        var publicKey: Option<Path> { get }
        var rootKey: Option<Path> { get }
        var threshold: Option<Int> { get }
        var minKeysVersion: Option<Int> { get }
    }

    /// What verify-site checks as: one pinned key (`--public-key`), or root keys (`--root-key`,
    /// `--threshold`), never both.
    package static func siteTrust(_ invocation: Invocation, _ options: some TrustOptions, context: CommandContext)
        throws -> SiteVerifier.Trust
    {
        let rootTexts = try invocation.values(options.rootKey).map(\.text)
        switch (try invocation.value(options.publicKey)?.text, rootTexts.isEmpty) {
        case (.some, false):
            throw .bothTrustKinds
        case (.some(let text), true):
            for option in [options.threshold, options.minKeysVersion] where invocation.given(option) {
                throw RolloutError.usage("\(option.flag) goes with --root-key")
            }
            return .pinned(try publicKeyOption(text, context: context))
        case (.none, true):
            throw .noTrustKind
        case (.none, false):
            let keys = try rootTexts.map { try publicKeyOption($0, context: context, option: "root-key") }
            let count = Set(keys.map(\.keyID)).count
            let threshold = try invocation.value(options.threshold) ?? 1
            guard threshold <= count else {
                throw RolloutError.usage(
                    "--threshold \(threshold) needs at least \(threshold) different --root-key, \(count) given")
            }
            return .roots(KeyList.Roots(keys: keys, threshold: threshold))
        }
    }

    static func loadKey(_ path: String, context: CommandContext) throws -> Ed25519.PrivateKey {
        let bytes = try context.readFile(path, describedAs: "key file")
        do {
            return try Ed25519.PrivateKey.pem(String(decoding: bytes, as: UTF8.self))
        } catch let error as Ed25519.Failure {
            throw RolloutError.badInput("\(path): \(error.description); make one with rollout keys generate --out FILE")
        }
    }

    struct PublishOptions: OptionGroup {
        let out = Option<Path>("out", "DIR", "the site directory").required()
        let key = Option<Path>(
            "key", "FILE",
            "the Ed25519 private key: a publishing key of the key list, or the one key (rollout keys generate)"
        ).required()
        let expires = Option.duration(
            "expires", "DURATION",
            "devices stop accepting the index after DURATION (30m, 12h, 7d, 2w); default 7d with a key list, never without"
        )
        let legacyKey = Option<Path>(
            "legacy-key", "FILE", "sign the .sig files apps that pin one key verify with FILE instead of --key")
        let destination = Option<String>(
            "destination", "NAME",
            "what the record calls the site, for example the CDN URL it is uploaded to (default: DIR)")
        let dryRun = Flag(
            "dry-run", "print which files of DIR would be added, changed and removed, with sizes; write nothing")

        static let declared = PublishOptions()
    }

    struct VerifySiteOptions: TrustOptions {
        let rootKey = Option<Path>(
            "root-key", "KEY",
            "a root key the app built in: ed25519:BASE64, as rollout keys init printed it, or a file holding it",
            repeatable: true
        ).oneOf("trust")
        let threshold = Option.count(
            "threshold", "N", "how many of the --root-key keys must sign the key list (default 1)", minimum: 1)
        let publicKey = Option<Path>(
            "public-key", "KEY",
            "the one key an app pins: ed25519:BASE64, as rollout keys generate printed it, or a file holding it"
        ).oneOf("trust")
        let minSequence = Option.count(
            "min-sequence", "N",
            "refuse an index older than N (with --root-key: the minimum built into the app; with --public-key: the newest a device accepted)",
            minimum: 0)
        let minKeysVersion = Option.count(
            "min-keys-version", "N",
            "with --root-key: refuse a keys.json older than version N, the minimum keys version built into the app (RolloutClient.Trust minimumKeysVersion)",
            minimum: 0)

        static let declared = VerifySiteOptions()
    }

    static let publish = CommandSpec(
        path: ["publish"],
        summary:
            "write the signed static site devices download (index, per-locale manifests, immutable packs) and record it",
        discussion: """
            DIR can be served by any CDN. The same state gives the same bytes; files already there with
            the same bytes are not rewritten. Packs of blocked versions are removed. Publishes into one
            DIR wait for each other. A site newer than this repository's state, or published from
            another history, is refused (exit 1) and left as it is. Each publish is recorded in the
            history (and pushed) with the state it published, its index sequence and NAME (default: DIR),
            so rollout log shows when a change reached devices. Cache rules and every field: docs/manifest.md.
            When the repository has a key list (rollout keys init), FILE must be one of its publishing
            keys, unrevoked and unexpired (exit 65 otherwise, nothing written); the site then carries
            the key list and a .sigs beside the index and every manifest, and the index expires after
            DURATION (default 7d): publish on a schedule to keep it fresh. Keys: docs/keys.md.
            --dry-run runs the same checks and prints each file of DIR the publish would add, change or
            remove, with its size, and the record it would commit; it takes no lock and writes nothing,
            neither DIR nor the repository.
            """,
        options: PublishOptions.self,
        arguments: .none,
        effects: [.readsFiles, .writesFiles, .recordsChange, .checks],
        run: { invocation, context in
            let options = PublishOptions.declared
            guard let out = try invocation.value(options.out)?.text else {
                throw RolloutError.usage("rollout publish needs --out DIR")
            }
            guard let keyPath = try invocation.value(options.key)?.text else {
                throw RolloutError.usage(
                    "rollout publish needs --key FILE (rollout keys generate --out FILE makes one)")
            }
            let lifetime = try invocation.value(options.expires)
            let key = try loadKey(keyPath, context: context)
            let legacyKey = try invocation.value(options.legacyKey).map { try loadKey($0.text, context: context) }
            let repository = try context.repository(invocation)
            repository.dryRun = invocation.flag(options.dryRun)
            let directory = context.absolutePath(out)
            let now = try context.now()
            // The record is history: a credential in an upload URL never reaches it (docs/teams.md, "Credentials").
            let destination = RemoteURL.redacted(invocation.value(options.destination) ?? directory)
            let actor = try context.actor(invocation, repository: repository)
            let outcome = try PublishOperation.publish(
                PublishOperation.Request(
                    directory: directory, destination: destination, key: key, legacyKey: legacyKey, lifetime: lifetime),
                in: repository, actor: actor, time: { now })
            // A dry run stops before anything is announced: nothing happened.
            if let preview = outcome.preview {
                return wouldPublish(outcome, preview, out: out, actor: actor, style: context.style(invocation))
            }
            Notifier.announce(
                outcome, destination: destination, repository: repository, actor: actor.description, now: now,
                context: context)
            warnIfExpiring(outcome.signingKey, now: now, context: context)
            return published(outcome, out: out, directory: directory, style: context.style(invocation))
        })

    /// What `publish` prints: the files written, the locales' sequences, the key and the record.
    static func published(_ outcome: PublishOperation.Outcome, out: String, directory: String, style: Style)
        -> CommandOutput
    {
        let report = outcome.report
        var text = "Published \(report.locales.count) locale(s) to \(out): index sequence \(report.indexSequence); "
        text +=
            "\(report.written.count) file(s) written (\(ByteCount.describe(report.bytesWritten))), \(report.unchanged) unchanged"
        text += report.removed.isEmpty ? ".\n" : ", \(report.removed.count) blocked pack file(s) removed.\n"
        var table = Table("LOCALE", "SEQUENCE")
        for (locale, sequence) in report.locales { table.add(locale, "\(sequence)") }
        if !report.locales.isEmpty { text += table.render(style) }
        if let signing = outcome.signingKey, let version = report.keysVersion {
            text += "Signed with publishing key \(signing.id) of key list version \(version).\n"
        }
        if let expires = report.indexExpires {
            text += "The index expires at \(expires): publish again before then.\n"
        }
        if let record = outcome.record { text += "Recorded as commit \(record.short).\n" }
        return CommandOutput(
            json: [
                "out": .string(directory), "indexSequence": .integer(report.indexSequence),
                "indexExpires": report.indexExpires.map { .string($0.description) } ?? .null,
                "keysVersion": report.keysVersion.map { .integer($0) } ?? .null,
                "publishingKey": outcome.signingKey.map { .string($0.id) } ?? .null,
                "written": .array(report.written.map { .string($0) }), "unchanged": .integer(report.unchanged),
                "removed": .array(report.removed.map { .string($0) }),
                "bytesWritten": .integer(report.bytesWritten),
                "locales": .object(
                    Dictionary(
                        uniqueKeysWithValues: report.locales.map { ($0.locale, JSONValue.integer($0.sequence)) })),
                "state": outcome.state.map { .string($0.hex) } ?? .null,
                "record": outcome.record.map { .string($0.hex) } ?? .null,
            ],
            text: text)
    }

    /// What `publish --dry-run` prints: each file of the site that would change, with its size, and
    /// the record the publish would commit.
    static func wouldPublish(
        _ outcome: PublishOperation.Outcome, _ preview: Publisher.Preview, out: String, actor: Actor, style: Style
    ) -> CommandOutput {
        let report = outcome.report
        var text =
            "Dry run: publishing \(report.locales.count) locale(s) to \(out): index sequence \(report.indexSequence); "
        text +=
            "\(preview.added.count) file(s) to add, \(preview.changed.count) to change, \(preview.removed.count) to remove, \(preview.unchanged) unchanged.\n"
        var table = Table("CHANGE", "FILE", "BYTES")
        for file in preview.added { table.add("add", file.path, "\(file.bytes)") }
        for file in preview.changed { table.add("change", file.path, "\(file.before) -> \(file.bytes)") }
        for file in preview.removed { table.add("remove", file.path, "\(file.bytes)") }
        if !(preview.added.isEmpty && preview.changed.isEmpty && preview.removed.isEmpty) {
            text += table.render(style)
        }
        text += DryRun.text(outcome.wouldRecord, actor: actor) + DryRun.nothingWritten
        func files(_ list: [(path: String, bytes: Int)]) -> JSONValue {
            .array(list.map { ["path": .string($0.path), "bytes": .integer($0.bytes)] })
        }
        return CommandOutput(
            json: [
                "dryRun": true, "indexSequence": .integer(report.indexSequence),
                "locales": .object(
                    Dictionary(uniqueKeysWithValues: report.locales.map { ($0.locale, JSONValue.integer($0.sequence)) })
                ),
                "added": files(preview.added),
                "changed": .array(
                    preview.changed.map {
                        ["path": .string($0.path), "bytesBefore": .integer($0.before), "bytes": .integer($0.bytes)]
                    }),
                "removed": files(preview.removed), "unchanged": .integer(preview.unchanged),
                "state": outcome.state.map { .string($0.hex) } ?? .null,
                "wouldRecord": DryRun.json(outcome.wouldRecord, actor: actor),
            ],
            text: text)
    }

    static let verifySite = CommandSpec(
        path: ["verify-site"],
        summary: "check a published site as a device would, and against the repository when there is one",
        discussion: """
            Checks every signature, that each manifest's sequence matches the index, every pack's size,
            sha256, checksum, identity and schema, that no blocked version is listed, served or left on
            the site, and (when a repository is found, or named with --repo) that devices resolving from
            the site over a grid of regions, versions and install ids get exactly what the repository
            says. Exit 1 with every problem, each naming its file.
            With --root-key, checks as an app that built those root keys in (docs/keys.md): keys.json
            signed by N of them (walking keys/<n>.json when the roots changed), the index and every
            manifest signed by a listed, unrevoked, unexpired publishing key, the index unexpired, and
            prints the chain it trusted (naming the keys/<n>.json it walked). Every keys/<n>.json that
            keys.json's rootChanges names must be on the site (and, with a repository, be its bytes):
            apps built with older roots walk them. --min-keys-version N refuses a keys.json older than
            version N, as an app with that minimum built in does. With --public-key, as an app that pins one key (the .sig files).
            """,
        options: VerifySiteOptions.self,
        arguments: .exactly("DIR"),
        effects: [.readsFiles, .readsRepository, .checks],
        run: { invocation, context in
            let options = VerifySiteOptions.declared
            let trust = try siteTrust(invocation, options, context: context)
            let directory = context.absolutePath(invocation.positionals[0])
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue
            else {
                throw RolloutError.missing("\(invocation.positionals[0]): no such site directory")
            }
            let snapshot = try context.optionalRepository(invocation)?.snapshot()
            let minimum = try invocation.value(options.minSequence)
            let minimumKeysVersion = try invocation.value(options.minKeysVersion) ?? 0
            let report = SiteVerifier(directory: directory, trust: trust, now: try context.now()).verify(
                against: snapshot, minimumSequence: minimum, minimumKeysVersion: minimumKeysVersion)
            let ok = report.problems.isEmpty
            let problems = report.problems.map(sentence)
            var text =
                ok ? "site ok: " : "site has \(problems.count) problem(s):\n" + problems.map { "  \($0)\n" }.joined()
            text +=
                "\(report.manifests) manifest(s), \(report.packs) pack(s) checked, index sequence \(report.indexSequence)"
            text +=
                snapshot == nil
                ? "; no repository to compare with.\n"
                : "; \(report.resolutions) resolutions agree with the repository"
                    + (ok ? ".\n" : " (until the first difference).\n")
            if let chain = report.trust { text += "trust: " + trustLine(chain) + "\n" }
            return CommandOutput(
                json: [
                    "ok": .bool(ok), "problems": .array(problems.map { .string($0) }),
                    "manifests": .integer(report.manifests),
                    "packs": .integer(report.packs), "resolutions": .integer(report.resolutions),
                    "indexSequence": .integer(report.indexSequence),
                    "comparedWithRepository": .bool(snapshot != nil), "trust": report.trust.map(trustJSON) ?? .null,
                ],
                text: text, exitCode: ok ? 0 : 1)
        })

    /// `roots A, B (2 of 2) -> keys/3.json -> keys.json version 4 -> publishing key P (expires T) -> index sequence 5 (expires T)`:
    /// as far as the device got.
    /// A problem `site verify` found, with the option that fixes it where there is one.
    static func sentence(_ problem: SiteVerifier.Problem) -> String {
        switch problem {
        case .said(let text): return text
        case .legacySignatureUnlisted(let path, let keysVersion):
            return
                "\(SiteLayout.signature(of: path)): not a signature by a publishing key of keys.json version \(keysVersion): apps that pin one key refuse \(path). Publish with --legacy-key set to the key they pin, listed in the key list (rollout keys init --adopt)"
        }
    }

    static func trustLine(_ chain: SiteVerifier.TrustChain) -> String {
        var steps = [
            "roots \(chain.roots.ids.joined(separator: ", ")) (\(chain.roots.threshold) of \(chain.roots.keys.count))"
        ]
        steps += chain.rotations.map { SiteLayout.keys(version: $0) }
        steps.append("\(SiteLayout.keys) version \(chain.keysVersion)")
        if let key = chain.publishingKey {
            steps.append("publishing key \(key)" + (chain.publishingKeyExpires.map { " (expires \($0))" } ?? ""))
        }
        if let sequence = chain.indexSequence {
            steps.append(
                "index sequence \(sequence)" + (chain.indexExpires.map { " (expires \($0))" } ?? " (no expiry)"))
        }
        return steps.joined(separator: " -> ")
    }

    static func trustJSON(_ chain: SiteVerifier.TrustChain) -> JSONValue {
        func time(_ t: Timestamp?) -> JSONValue { t.map { .string($0.description) } ?? .null }
        return [
            "roots": .array(chain.roots.ids.map { .string($0) }), "threshold": .integer(chain.roots.threshold),
            "rotations": .array(chain.rotations.map { .integer($0) }), "keysVersion": .integer(chain.keysVersion),
            "publishingKey": chain.publishingKey.map { .string($0) } ?? .null,
            "publishingKeyExpires": time(chain.publishingKeyExpires),
            "indexSequence": chain.indexSequence.map { .integer($0) } ?? .null,
            "indexExpires": time(chain.indexExpires),
        ]
    }
}

/// verify-site's refusals of its trust flags, named (an extension of Error, so that `throw .name(...)` finds them).
extension Error where Self == RolloutError {
    fileprivate static var bothTrustKinds: RolloutError {
        .usage(
            "--public-key and --root-key are alternatives: check as an app that pins one key, or as one that built in root keys"
        )
    }

    fileprivate static var noTrustKind: RolloutError {
        .usage(
            "rollout verify-site needs --root-key KEY (an app on a key list) or --public-key KEY (an app that pins one key)"
        )
    }
}

extension PublishCommands {
    /// Warns on stderr when the publishing key expires within the warning period.
    fileprivate static func warnIfExpiring(
        _ signing: PublishOperation.SigningKey?, now: Timestamp, context: CommandContext
    ) {
        guard let signing, signing.expiresSoon else { return }
        let days = (signing.expires.seconds - now.seconds) / 86_400
        context.diagnostics(PublishCommands.expiringKeyWarning(signing, days: days).oneLine + "\n")
    }

    /// The warning publish gives when its publishing key expires within the warning period.
    fileprivate static func expiringKeyWarning(_ signing: PublishOperation.SigningKey, days: Int64) -> String {
        "warning: publishing key \(signing.id) expires at \(signing.expires) (in \(days) day(s)); make its successor now with rollout keys rotate --root FILE --overlap 14d"
    }
}
