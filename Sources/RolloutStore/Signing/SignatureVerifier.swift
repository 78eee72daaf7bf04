import Foundation
import RolloutModel

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#elseif canImport(Musl)
    import Musl
#endif

/// What a commit's signature proves, against the signers in force at that change.
public enum SignatureCheck: Equatable, Sendable {
    /// The commit carries no signature.
    case unsigned
    /// A good signature by `key` (`SHA256:...` for SSH, the OpenPGP fingerprint) of `principal`.
    case verified(principal: String, key: String)
    /// A good signature by a key no allowed signer holds at that change.
    case unknownKey(String)
    /// The signature does not verify (the commit was changed after signing, or it is not a signature).
    case bad(String)

    /// `verified`, `unsigned`, `unknown-key` or `bad`: the `status` of `--json`.
    public var status: String {
        switch self {
        case .unsigned: return "unsigned"
        case .verified: return "verified"
        case .unknownKey: return "unknown-key"
        case .bad: return "bad"
        }
    }
}

/// Checks commit signatures the way `git verify-commit` does, with the system's `ssh-keygen` and
/// `gpgv`, so its verdict is git's: SSH signatures against an allowed-signers file (`ssh-keygen -Y
/// verify -n git`), OpenPGP signatures against a keyring of the principals' `.asc` files (`gpgv`).
/// The files each set of signers needs are written once per `signers` tree, in one private
/// temporary directory removed by `close`, so checking a thousand changes builds each keyring once.
final class SignatureVerifier {
    let environment: [String: String]
    private var directory: String?
    /// `signers` tree id -> the files written for it.
    private var prepared: [ObjectID: Prepared] = [:]
    private var count = 0

    struct Prepared {
        let allowedSigners: String
        let keyring: String?
        /// OpenPGP fingerprint (primary or subkey, upper-case hex) -> principal.
        let principalsByFingerprint: [String: String]
    }

    init(environment: [String: String]) { self.environment = environment }

    deinit { close() }

    /// Removes the temporary files.
    func close() {
        if let directory { try? FileManager.default.removeItem(atPath: directory) }
        directory = nil
        prepared = [:]
    }

    /// The verdict on `signature` over `signed`, against `signers`. A key listed for several
    /// principals is checked as `preferring`'s when that is one of them (the actor the change claims).
    func check(signature: [UInt8], signed: [UInt8], signers: SignerSet, preferring: String? = nil) throws
        -> SignatureCheck
    {
        let text = String(decoding: signature, as: UTF8.self)
        let files = try prepare(signers)
        let signatureFile = try write(signature, name: "sig")
        let dataFile = try write(signed, name: "data")
        defer {
            unlink(signatureFile)
            unlink(dataFile)
        }
        if text.hasPrefix("-----BEGIN SSH SIGNATURE-----") {
            return try checkSSH(
                text, signatureFile: signatureFile, dataFile: dataFile, signers: signers, files: files,
                preferring: preferring)
        }
        if text.hasPrefix("-----BEGIN PGP SIGNATURE-----") {
            return try checkOpenPGP(signatureFile: signatureFile, dataFile: dataFile, files: files)
        }
        return .bad("not an SSH or OpenPGP signature")
    }

    func checkSSH(
        _ text: String, signatureFile: String, dataFile: String, signers: SignerSet, files: Prepared,
        preferring: String?
    ) throws -> SignatureCheck {
        guard let key = Self.sshSignatureKey(text) else { return .bad("a damaged SSH signature") }
        let fingerprint = AllowedSigner.fingerprint(key)
        let holders = signers.allowed.filter { $0.key == key }.flatMap(\.principals)
        guard let principal = holders.first(where: { $0.lowercased() == preferring?.lowercased() }) ?? holders.first
        else {
            let check = try runWithInput(
                ["ssh-keygen", "-Y", "check-novalidate", "-n", "git", "-s", signatureFile], input: dataFile)
            return check.status == 0 ? .unknownKey(fingerprint) : .bad(Self.firstLine(check.stderr))
        }
        // As git: the key's valid-after and valid-before are judged at the time the commit names.
        let time = Self.committerTime(dataFile).map { ["-Overify-time=\($0)"] } ?? []
        let verify = try runWithInput(
            [
                "ssh-keygen", "-Y", "verify", "-f", files.allowedSigners, "-I", principal, "-n", "git", "-s",
                signatureFile,
            ] + time, input: dataFile)
        if verify.status == 0 { return .verified(principal: principal, key: fingerprint) }
        // The key is listed but not for git, or not at this time: a good signature that is not allowed.
        let check = try runWithInput(
            ["ssh-keygen", "-Y", "check-novalidate", "-n", "git", "-s", signatureFile], input: dataFile)
        return check.status == 0 ? .unknownKey(fingerprint) : .bad(Self.firstLine(verify.stderr))
    }

    func checkOpenPGP(signatureFile: String, dataFile: String, files: Prepared) throws -> SignatureCheck {
        guard let keyring = files.keyring else {
            let result = try run(["gpgv", "--homedir", try scratch(), "--status-fd", "1", signatureFile, dataFile])
            return Self.openPGPVerdict(result.stdout, principals: [:])
        }
        let result = try run([
            "gpgv", "--homedir", try scratch(), "--keyring", keyring, "--status-fd", "1", signatureFile, dataFile,
        ])
        return Self.openPGPVerdict(result.stdout, principals: files.principalsByFingerprint)
    }

    /// gpgv's status lines read as a verdict: VALIDSIG names the key (and its primary key, the
    /// eleventh field), ERRSIG with NO_PUBKEY a key not in the keyring, BADSIG a changed commit.
    static func openPGPVerdict(_ status: String, principals: [String: String]) -> SignatureCheck {
        let lines = status.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        if let valid = lines.first(where: { $0.count > 2 && $0[1] == "VALIDSIG" }) {
            let fingerprints = [valid[2]] + (valid.count > 11 ? [valid[11]] : [])
            for fingerprint in fingerprints {
                if let principal = principals[fingerprint.uppercased()] {
                    return .verified(principal: principal, key: fingerprint.uppercased())
                }
            }
            return .unknownKey(valid[2].uppercased())
        }
        if let missing = lines.first(where: { $0.count > 2 && ($0[1] == "ERRSIG" || $0[1] == "NO_PUBKEY") }) {
            return missing[1] == "ERRSIG" && missing.count > 7 && missing[7] != "9"
                ? .bad("gpgv cannot check it (error \(missing[7]))")
                : .unknownKey((missing.count > 8 && missing[8] != "-" ? missing[8] : missing[2]).uppercased())
        }
        if lines.contains(where: { $0.count > 1 && $0[1] == "BADSIG" }) { return .bad("BAD signature") }
        return .bad("gpgv found no good signature")
    }

    /// The public key blob inside an armored SSHSIG signature (PROTOCOL.sshsig: "SSHSIG", a version,
    /// then the key as an SSH string).
    static func sshSignatureKey(_ armored: String) -> [UInt8]? {
        let body = armored.split(whereSeparator: \.isNewline).filter { !$0.hasPrefix("-----") }.joined()
        guard let blob = Data(base64Encoded: body).map(Array.init), blob.count > 14,
            blob[0..<6] == Array("SSHSIG".utf8)[...]
        else { return nil }
        let length = blob[10..<14].reduce(0) { $0 << 8 | Int($1) }
        guard blob.count >= 14 + length else { return nil }
        return Array(blob[14..<(14 + length)])
    }

    /// The committer time of the signed commit object in `file`, as ssh-keygen reads a UTC time
    /// (`20261201090000Z`); nil when the object names none.
    static func committerTime(_ file: String) -> String? {
        guard let data = FileManager.default.contents(atPath: file) else { return nil }
        let header = String(decoding: data.prefix { $0 != 0 }, as: UTF8.self).components(separatedBy: "\n\n")[0]
        guard let line = header.split(separator: "\n").last(where: { $0.hasPrefix("committer ") }) else { return nil }
        let fields = line.split(separator: " ")
        guard fields.count >= 2, let seconds = Int64(fields[fields.count - 2]), seconds >= 0 else { return nil }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMddHHmmss"
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds))) + "Z"
    }

    static func firstLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).first.map(String.init) ?? "the signature does not verify"
    }
}

extension SignatureVerifier {
    /// The files for `signers`, written the first time its tree is seen.
    func prepare(_ signers: SignerSet) throws -> Prepared {
        if let id = signers.treeID, let files = prepared[id] { return files }
        count += 1
        let allowed = try write(signers.allowedSignersFile, name: "allowed-\(count)")
        var keyring: String? = nil
        var byFingerprint: [String: String] = [:]
        if !signers.openPGP.isEmpty {
            let home = try scratch()
            var keys: [UInt8] = []
            for (principal, armored) in signers.openPGP.sorted(by: { $0.key < $1.key }) {
                let file = try write(armored, name: "key-\(count)-\(principal).asc")
                for fingerprint in try Self.openPGPFingerprints(file, home: home, environment: environment) {
                    byFingerprint[fingerprint] = byFingerprint[fingerprint] ?? principal
                }
                let binary = file + ".gpg"
                _ = try run(["gpg", "--homedir", home, "--batch", "--yes", "-o", binary, "--dearmor", file])
                keys += (try? Array(Data(contentsOf: URL(fileURLWithPath: binary)))) ?? []
            }
            keyring = try write(keys, name: "keyring-\(count).gpg")
        }
        let files = Prepared(allowedSigners: allowed, keyring: keyring, principalsByFingerprint: byFingerprint)
        if let id = signers.treeID { prepared[id] = files }
        return files
    }

    /// The fingerprints (primary key and subkeys) of the keys in an armored file, upper-case hex.
    static func openPGPFingerprints(_ file: String, home: String, environment: [String: String]) throws -> [String] {
        let result = try Subprocess.run(
            ["gpg", "--homedir", home, "--batch", "--with-colons", "--import-options", "show-only", "--import", file],
            environment: environment)
        return result.stdout.split(separator: "\n").filter { $0.hasPrefix("fpr:") }.compactMap {
            $0.split(separator: ":", omittingEmptySubsequences: false).dropFirst(9).first.map { $0.uppercased() }
        }
    }

    /// The private directory of this verifier's files (mode 0700), made on first use.
    func scratch() throws -> String {
        if let directory { return directory }
        let base = environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array("\(base)/rollout-signers-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw RolloutError.io("cannot create a temporary directory in \(base): \(String(cString: strerror(errno)))")
        }
        directory = String(cString: made)
        return directory!
    }

    func write(_ bytes: [UInt8], name: String) throws -> String {
        let path = "\(try scratch())/\(name)"
        do {
            try Data(bytes).write(to: URL(fileURLWithPath: path))
        } catch {
            throw RolloutError.io("cannot write \(path): \(error.localizedDescription)")
        }
        return path
    }

    func run(_ arguments: [String]) throws -> Subprocess.Result {
        do {
            return try Subprocess.run(arguments, environment: environment)
        } catch let failure as Subprocess.LaunchFailure {
            throw RolloutError.unavailable(
                failure.notFound ? "\(arguments[0]) is not installed: checking signatures needs it" : failure.reason)
        }
    }

    /// `arguments` with `input` on stdin, as git hands ssh-keygen the signed bytes (through sh, as
    /// `Subprocess` gives its programs /dev/null).
    func runWithInput(_ arguments: [String], input: String) throws -> Subprocess.Result {
        let result = try run(["/bin/sh", "-c", "input=$1; shift; exec \"$@\" < \"$input\"", "sh", input] + arguments)
        // 127: sh found no such program, which a verdict must not be taken from.
        if result.status == 127 {
            throw RolloutError.unavailable("\(arguments[0]) is not installed: checking signatures needs it")
        }
        return result
    }
}
