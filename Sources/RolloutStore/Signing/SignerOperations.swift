import RolloutModel

/// What `signers add` or `signers remove` did: the set after it.
public struct SignerChange: Sendable {
    public let principal: String
    public let roles: [SignerRole]
    public let signers: SignerSet
}

/// Changes to who may sign (docs/audit.md, "Who made each change: verified signers"): each is one
/// `signers` commit writing `signers/`. The set always keeps an admin: the first signer added must
/// be one, and the last one cannot be removed, or nobody could ever change the set again.
public enum SignerOperations {
    /// Gives `principal` the key (an SSH public key line, or an armored OpenPGP key) and `roles`;
    /// a principal already in the set keeps its other keys and gets `roles` in place of its old ones.
    public static func add(
        _ principal: String, sshKey: AllowedSigner?, openPGPKey: [UInt8]?, roles: [SignerRole],
        in repository: PackRepository, reason: String? = nil, actor: Actor, time: @escaping () -> Timestamp
    ) throws -> PackRepository.Applied<SignerChange> {
        try checkPrincipal(principal)
        return try repository.apply(actor: actor, time: time) { snapshot in
            let old = try snapshot.signers()
            var set = old
            if old.roster.admins.isEmpty && !roles.contains(.admin) { throw SignerRefusal.firstWithoutAdmin(principal) }
            if old.roster.admins == [principal] && !roles.contains(.admin) { throw SignerRefusal.lastAdmin(principal) }
            if var key = sshKey, !set.sshKeys(of: principal).contains(where: { $0.key == key.key }) {
                key.principals = [principal]
                set.allowed.append(key)
            }
            if let openPGPKey { set.openPGP[principal] = openPGPKey }
            set.roster.principals[principal] = roles
            let change = Change(
                summary: "signers add \(principal) as \(roles.map(\.rawValue).joined(separator: ","))",
                trailers: [(.action, ChangeAction.signers.rawValue)] + (reason.map { [(.reason, $0)] } ?? []),
                writes: changedFiles(from: old, to: set))
            return (change, SignerChange(principal: principal, roles: roles, signers: set))
        }
    }

    /// Takes `principal` out: its key lines, its OpenPGP key and its roles.
    public static func remove(
        _ principal: String, in repository: PackRepository, reason: String? = nil, actor: Actor,
        time: @escaping () -> Timestamp
    ) throws -> PackRepository.Applied<SignerChange> {
        try repository.apply(actor: actor, time: time) { snapshot in
            let old = try snapshot.signers()
            guard old.principals.contains(principal) else {
                throw SignerRefusal.noSuchSigner(principal, signers: old.principals)
            }
            if old.roster.admins == [principal] { throw SignerRefusal.lastAdmin(principal) }
            var set = old
            set.allowed = old.allowed.compactMap { line in
                var line = line
                line.principals.removeAll { $0 == principal }
                return line.principals.isEmpty ? nil : line
            }
            set.openPGP[principal] = nil
            set.roster.principals[principal] = nil
            let change = Change(
                summary: "signers remove \(principal)",
                trailers: [(.action, ChangeAction.signers.rawValue)] + (reason.map { [(.reason, $0)] } ?? []),
                writes: changedFiles(from: old, to: set),
                removals: old.openPGP[principal] == nil ? [] : [StateLayout.openPGPSigner(principal)])
            return (change, SignerChange(principal: principal, roles: [], signers: set))
        }
    }

    /// The files of `new` that differ from `old`'s.
    static func changedFiles(from old: SignerSet, to new: SignerSet) -> [(path: String, bytes: [UInt8])] {
        let before = Dictionary(old.files.map { ($0.path, $0.bytes) }, uniquingKeysWith: { a, _ in a })
        return new.files.filter { before[$0.path] != $0.bytes }
    }

    /// An email address with no space, comma or quote: what git's allowed-signers principal and a
    /// file name under `signers/openpgp/` can both hold, and what an actor's email is compared with.
    /// Checked first, before the key is read: the key's line is parsed with the principal in it.
    public static func checkPrincipal(_ principal: String) throws {
        let parts = principal.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty, principal.utf8.count <= 254,
            principal.unicodeScalars.allSatisfy({
                $0.value > 0x20 && $0.value < 0x7F && !",\"/\\*?!".unicodeScalars.contains($0)
            })
        else { throw SignerRefusal.badPrincipal(principal) }
    }
}
