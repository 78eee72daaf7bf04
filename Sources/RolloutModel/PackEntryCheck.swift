import RolloutCrypto

/// A pack file against the manifest entry that lists it: the checks a device makes on every pack
/// before it stores or uses it (docs/client.md, "Start-up": what "verifies" means), and that
/// `rollout verify-site` makes on every pack of a site, so that a site it passes is one devices
/// take. What only a device knows (its app version, the packs it blocked or gave up) stays with
/// the client.
///
/// The problems come in the order a device checks them: a device refuses the pack for the first,
/// while the site verifier reports them all. A file whose size or digest differs, or that does
/// not parse, has that one problem and no more.
public struct PackEntryCheck: Sendable {
    public enum Problem: Equatable, Sendable {
        /// The file's size or SHA-256 is not the entry's.
        case sizeOrDigest
        /// The entry's schemaVersion is not one the reader understands.
        case entrySchema(Int)
        /// The file is not a well-formed pack: the parser's error, naming the source.
        case unreadable(RolloutError)
        /// The pack's checksum, or the one its file declares (`nil`: none), is not the entry's.
        case checksum(declared: String?, actual: String)
        /// The pack says it is another pack than the entry's, or in a schema the reader does not
        /// understand.
        case identity(PackID, schemaVersion: Int)
    }

    /// The pack, when the file parsed.
    public let parsed: ParsedPack?
    public let problems: [Problem]

    /// `bytes` as the entry for `id` lists it; `source` names the file in a parse error;
    /// `schemaVersions` are those the reader understands.
    public init(
        _ bytes: [UInt8], entry: LocaleManifest.PackEntry, id: PackID, source: String,
        schemaVersions: Set<Int> = Pack.supportedSchemaVersions
    ) {
        guard bytes.count == entry.bytes, SHA256.hex(bytes) == entry.sha256 else {
            self.init(parsed: nil, problems: [.sizeOrDigest])
            return
        }
        var problems: [Problem] = []
        if !schemaVersions.contains(entry.schemaVersion) { problems.append(.entrySchema(entry.schemaVersion)) }
        let parsed: ParsedPack
        do {
            parsed = try PackParser.parse(bytes, source: source, maximumBytes: Int.max)
        } catch {
            self.init(parsed: nil, problems: problems + [.unreadable(PackEntryCheck.rolloutError(error))])
            return
        }
        let pack = parsed.pack
        if parsed.declaredChecksum != entry.checksum || pack.checksum != entry.checksum {
            problems.append(.checksum(declared: parsed.declaredChecksum, actual: pack.checksum))
        }
        if pack.id != id || !schemaVersions.contains(pack.schemaVersion) {
            problems.append(.identity(pack.id, schemaVersion: pack.schemaVersion))
        }
        self.init(parsed: parsed, problems: problems)
    }

    private init(parsed: ParsedPack?, problems: [Problem]) {
        self.parsed = parsed
        self.problems = problems
    }

    /// The parser throws only `RolloutError`; anything else is carried as bad input with its text.
    private static func rolloutError(_ error: any Error) -> RolloutError {
        (error as? RolloutError) ?? .badInput("\(error)")
    }
}
