import RolloutModel

/// The signers in force at one state (`signers/` of its tree): the allowed-signers lines, each
/// principal's roles, and the armored OpenPGP keys of principals who sign with gpg.
public struct SignerSet: Sendable {
    public var allowed: [AllowedSigner] = []
    public var roster = SignerRoster()
    /// Principal -> the bytes of `signers/openpgp/<principal>.asc`.
    public var openPGP: [String: [UInt8]] = [:]
    /// The git id of the `signers` tree it was read from: equal ids, equal sets (the verifier's cache key).
    public var treeID: ObjectID?

    public init() {}

    public var isEmpty: Bool { allowed.isEmpty && openPGP.isEmpty && roster.principals.isEmpty }

    /// Every principal named by a key line, an OpenPGP file or the roles, sorted.
    public var principals: [String] {
        Array(Set(allowed.flatMap(\.principals) + openPGP.keys + roster.principals.keys)).sorted()
    }

    /// The SSH key lines of `principal`.
    public func sshKeys(of principal: String) -> [AllowedSigner] {
        allowed.filter { $0.principals.contains(principal) }
    }

    /// The allowed_signers file as rollout writes it.
    public var allowedSignersFile: [UInt8] { Array(allowed.map { $0.line + "\n" }.joined().utf8) }

    /// The files of `signers/` for this set: what a signers change writes (empty files are removed).
    public var files: [(path: String, bytes: [UInt8])] {
        var files: [(String, [UInt8])] = [
            (StateLayout.allowedSigners, allowedSignersFile),
            (StateLayout.signerRoles, JSONWriter.pretty(roster.jsonValue)),
        ]
        for (principal, bytes) in openPGP.sorted(by: { $0.key < $1.key }) {
            files.append((StateLayout.openPGPSigner(principal), bytes))
        }
        return files
    }
}

extension Snapshot {
    /// The signers in force at this state; an empty set when it has no `signers/`. A damaged
    /// allowed_signers line or roles.json refuses with the file and line (`SignerRefusal`).
    public func signers() throws -> SignerSet {
        var set = SignerSet()
        guard let tree, let entry = try repository.treeEntry(tree, path: StateLayout.signersDirectory), entry.isTree
        else { return set }
        set.treeID = entry.id
        if let bytes = try file(StateLayout.allowedSigners) {
            set.allowed = try AllowedSigner.parse(
                file: String(decoding: bytes, as: UTF8.self), named: StateLayout.allowedSigners)
        }
        if let bytes = try file(StateLayout.signerRoles) {
            set.roster = try SignerRoster.parse(bytes, source: StateLayout.signerRoles)
        }
        for item in try directory(StateLayout.openPGPSignersDirectory) where !item.isTree && item.name.hasSuffix(".asc")
        {
            set.openPGP[String(item.name.dropLast(4))] = try read(item)
        }
        return set
    }
}
