import Foundation
import RolloutCrypto
import RolloutModel
import RolloutPublish
import RolloutStore

enum PublishCommands {
    /// `--public-key`: `ed25519:BASE64`, or a file holding it (as `rollout keys generate` printed
    /// it); verify-site and rollout device read it the same way.
    static func publicKeyOption(_ text: String, context: CommandContext) throws -> Ed25519.PublicKey {
        var value = text
        if !text.hasPrefix(Ed25519.publicKeyPrefix), FileManager.default.fileExists(atPath: context.absolutePath(text)) {
            value = String(decoding: try context.readFile(text, describedAs: "public key file"), as: UTF8.self).trimmingSpaces
            if value.contains("PRIVATE KEY") {
                throw RolloutError.usage("--public-key \(text) holds a private key; give the public key rollout keys generate printed (ed25519:BASE64)")
            }
        }
        guard let key = Ed25519.PublicKey(value) else {
            throw RolloutError.usage("--public-key \"\(text)\" is not an Ed25519 public key such as ed25519:BASE64")
        }
        return key
    }

    static func loadKey(_ path: String, context: CommandContext) throws -> Ed25519.PrivateKey {
        let bytes = try context.readFile(path, describedAs: "key file")
        do {
            return try Ed25519.PrivateKey.pem(String(decoding: bytes, as: UTF8.self))
        } catch let error as Ed25519.Failure {
            throw RolloutError.badInput("\(path): \(error.description); make one with rollout keys generate --out FILE")
        }
    }

    static let publish = CommandSpec(
        path: ["publish"], usage: "publish --out DIR --key FILE [--destination NAME]",
        summary: "write the signed static site devices download (index, per-locale manifests, immutable packs) and record it",
        discussion: """
            DIR can be served by any CDN. The same state gives the same bytes; files already there with
            the same bytes are not rewritten. Packs of blocked versions are removed. Publishes into one
            DIR wait for each other. A site newer than this repository's state, or published from
            another history, is refused (exit 1) and left as it is. Each publish is recorded in the
            history (and pushed) with the state it published, its index sequence and NAME (default: DIR),
            so rollout log shows when a change reached devices. Cache rules and every field: docs/manifest.md.
            """,
        options: [
            .value("out", "DIR", "the site directory"), .value("key", "FILE", "the Ed25519 private key (rollout keys generate)"),
            .value("destination", "NAME", "what the record calls the site, for example the CDN URL it is uploaded to (default: DIR)"),
        ],
        arguments: .none,
        run: { invocation, context in
            guard let out = invocation.value("out") else { throw RolloutError.usage("rollout publish needs --out DIR") }
            guard let keyPath = invocation.value("key") else { throw RolloutError.usage("rollout publish needs --key FILE (rollout keys generate --out FILE makes one)") }
            let key = try loadKey(keyPath, context: context)
            let repository = try context.repository(invocation)
            let directory = context.absolutePath(out)
            let now = try context.now()
            let outcome = try PublishOperation.publish(
                // The record is history: a credential in an upload URL never reaches it (docs/teams.md, "Credentials").
                PublishOperation.Request(directory: directory, destination: RemoteURL.redacted(invocation.value("destination") ?? directory), key: key),
                in: repository, actor: try context.actor(invocation, repository: repository), time: { now })
            let report = outcome.report
            var text = "Published \(report.locales.count) locale(s) to \(out): index sequence \(report.indexSequence); "
            text += "\(report.written.count) file(s) written (\(ByteCount.describe(report.bytesWritten))), \(report.unchanged) unchanged"
            text += report.removed.isEmpty ? ".\n" : ", \(report.removed.count) blocked pack file(s) removed.\n"
            var table = Table("LOCALE", "SEQUENCE")
            for (locale, sequence) in report.locales { table.add(locale, "\(sequence)") }
            if !report.locales.isEmpty { text += table.render(context.style(invocation)) }
            if let record = outcome.record { text += "Recorded as commit \(record.short).\n" }
            return CommandOutput(
                json: [
                    "out": .string(directory), "indexSequence": .integer(report.indexSequence),
                    "written": .array(report.written.map { .string($0) }), "unchanged": .integer(report.unchanged),
                    "removed": .array(report.removed.map { .string($0) }), "bytesWritten": .integer(report.bytesWritten),
                    "locales": .object(Dictionary(uniqueKeysWithValues: report.locales.map { ($0.locale, JSONValue.integer($0.sequence)) })),
                    "state": outcome.state.map { .string($0.hex) } ?? .null, "record": outcome.record.map { .string($0.hex) } ?? .null,
                ],
                text: text)
        })

    static let verifySite = CommandSpec(
        path: ["verify-site"], usage: "verify-site DIR --public-key KEY",
        summary: "check a published site as a device would, and against the repository when there is one",
        discussion: """
            Checks every signature, that each manifest's sequence matches the index, every pack's size,
            sha256, checksum, identity and schema, that no blocked version is listed, served or left on
            the site, and (when a repository is found, or named with --repo) that devices resolving from
            the site over a grid of regions, versions and install ids get exactly what the repository
            says. Exit 1 with every problem, each naming its file.
            """,
        options: [
            .value("public-key", "KEY", "ed25519:BASE64, as rollout keys generate printed it, or a file holding it"),
            .value("min-sequence", "N", "refuse an index older than N (the newest sequence a device already accepted)"),
        ],
        arguments: .exactly("DIR"),
        run: { invocation, context in
            guard let keyText = invocation.value("public-key") else { throw RolloutError.usage("rollout verify-site needs --public-key KEY") }
            let publicKey = try publicKeyOption(keyText, context: context)
            let directory = context.absolutePath(invocation.positionals[0])
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw RolloutError.missing("\(invocation.positionals[0]): no such site directory")
            }
            let snapshot = try context.optionalRepository(invocation)?.snapshot()
            let minimum = try invocation.value("min-sequence").map { text -> Int in
                guard let n = Int(text), n >= 0 else { throw RolloutError.usage("--min-sequence \"\(text)\" must be a whole number") }
                return n
            }
            let report = SiteVerifier(directory: directory, publicKey: publicKey).verify(against: snapshot, minimumSequence: minimum)
            let ok = report.problems.isEmpty
            var text = ok ? "site ok: " : "site has \(report.problems.count) problem(s):\n" + report.problems.map { "  \($0)\n" }.joined()
            text += "\(report.manifests) manifest(s), \(report.packs) pack(s) checked, index sequence \(report.indexSequence)"
            text += snapshot == nil ? "; no repository to compare with.\n" : "; \(report.resolutions) resolutions agree with the repository" + (ok ? ".\n" : " (until the first difference).\n")
            return CommandOutput(
                json: [
                    "ok": .bool(ok), "problems": .array(report.problems.map { .string($0) }), "manifests": .integer(report.manifests),
                    "packs": .integer(report.packs), "resolutions": .integer(report.resolutions), "indexSequence": .integer(report.indexSequence),
                    "comparedWithRepository": .bool(snapshot != nil),
                ],
                text: text, exitCode: ok ? 0 : 1)
        })
}
