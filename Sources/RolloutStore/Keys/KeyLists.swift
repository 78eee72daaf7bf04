import RolloutModel

/// The signed key lists the repository holds (docs/keys.md, "Where each key lives"): read by
/// `rollout keys`, `publish` (which copies them into the site) and `verify`.
extension Snapshot {
    /// The versions of the stored key lists, oldest first; empty for a repository on one key.
    public func keyListVersions() throws -> [Int] {
        try directory(StateLayout.keysDirectory).compactMap { entry in
            entry.isTree ? nil : StateLayout.contentVersion(fromFileName: entry.name)
        }.sorted()
    }

    /// The key list of `version` as stored: its bytes and its signatures, named as a site names them.
    public func signedKeyList(_ version: Int) throws -> SignedFile {
        guard let bytes = try file(StateLayout.keyList(version)),
            let signatures = try file(StateLayout.keyListSignatures(version))
        else {
            throw RolloutError.keyListMissing(version)
        }
        return SignedFile(path: StateLayout.keyList(version), bytes: bytes, signatures: signatures)
    }

    /// The newest key list and its signatures, or nil when the repository has none (sites signed
    /// with one key, docs/keys.md "Moving a live app").
    public func currentKeyList() throws -> (list: KeyList, file: SignedFile)? {
        guard let version = try keyListVersions().last else { return nil }
        let file = try signedKeyList(version)
        do {
            return (try KeyList.parse(file.bytes, source: file.path), file)
        } catch let error as RolloutError {
            throw RolloutError.keyListDamaged(error)
        }
    }
}

extension RolloutError {
    fileprivate static func keyListMissing(_ version: Int) -> RolloutError {
        .internal(
            "\(StateLayout.keyList(version)) or its signatures are missing from the repository; check it with rollout verify"
        )
    }

    fileprivate static func keyListDamaged(_ error: RolloutError) -> RolloutError {
        .internal("\(error.message); the stored key list is damaged, check it with rollout verify")
    }
}
