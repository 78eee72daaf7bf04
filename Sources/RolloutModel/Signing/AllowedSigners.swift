import Foundation
import RolloutCrypto

/// One line of an allowed-signers file in git's format (man ssh-keygen, "ALLOWED SIGNERS"):
/// `principals [options] keytype base64 [comment]`, as `signers/allowed_signers` holds them and
/// `git -c gpg.ssh.allowedSignersFile=F verify-commit` reads them. rollout writes
/// `ana@example.com namespaces="git" ssh-ed25519 AAAA... [comment]`.
public struct AllowedSigner: Equatable, Sendable {
    /// The principals, comma-separated in the file: for rollout, one email each.
    public var principals: [String]
    /// The options as written (`namespaces="git"`, `valid-after="20260101"`), in order.
    public var options: [String]
    public var keyType: String
    /// The public key blob, as the base64 field decodes.
    public var key: [UInt8]
    public var comment: String?

    public init(principals: [String], options: [String], keyType: String, key: [UInt8], comment: String? = nil) {
        self.principals = principals
        self.options = options
        self.keyType = keyType
        self.key = key
        self.comment = comment
    }

    /// The key types ssh-keygen signs with; the field after the options is one of them.
    public static let keyTypes: Set<String> = [
        "ssh-ed25519", "ssh-rsa", "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521",
        "sk-ssh-ed25519@openssh.com", "sk-ecdsa-sha2-nistp256@openssh.com",
    ]

    /// `SHA256:` and the unpadded base64 of the key blob's SHA-256, as `ssh-keygen -lf` prints it.
    public var fingerprint: String { Self.fingerprint(key) }

    public static func fingerprint(_ blob: [UInt8]) -> String {
        "SHA256:" + Data(SHA256.digest(blob)).base64EncodedString().replacingOccurrences(of: "=", with: "")
    }

    /// The line as rollout writes it.
    public var line: String {
        ([principals.joined(separator: ",")] + (options.isEmpty ? [] : [options.joined(separator: ",")])
            + [keyType, Data(key).base64EncodedString()] + (comment.map { [$0] } ?? [])).joined(separator: " ")
    }

    /// The line `principal` gets for the public key file text `publicKey` (`ssh-ed25519 AAAA... comment`).
    public static func line(principal: String, publicKey text: String, file: String) throws -> AllowedSigner {
        let trimmed = text.split(whereSeparator: \.isNewline).first.map(String.init)?.trimmingSpaces ?? ""
        var signer = try parse(line: "\(principal) \(trimmed)", file: file, number: 1)
        signer.options = ["namespaces=\"git\""]
        return signer
    }

    /// Every signer of an allowed-signers file; blank lines and `#` comments are skipped. A line that
    /// is not one refuses the file, naming `file` and the line.
    public static func parse(file text: String, named file: String) throws -> [AllowedSigner] {
        var signers: [AllowedSigner] = []
        for (index, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = String(raw).trimmingSpaces
            if line.isEmpty || line.hasPrefix("#") { continue }
            signers.append(try parse(line: line, file: file, number: index + 1))
        }
        return signers
    }

    /// One line (not blank, not a comment).
    public static func parse(line: String, file: String, number: Int) throws -> AllowedSigner {
        func bad(_ why: SignerRefusal.BadLine) -> SignerRefusal { .badAllowedSigner(file: file, line: number, why) }
        guard let fields = fieldsOf(line) else { throw bad(.unclosedQuote) }
        guard fields.count >= 2 else { throw bad(.noKey) }
        let principals = fields[0].split(separator: ",").map(String.init)
        var next = 1
        var options: [String] = []
        // Not a key type and not an option (options have `=`, but for cert-authority): a key type we do not know.
        if !keyTypes.contains(fields[1]) && !fields[1].contains("=") && fields[1].lowercased() != "cert-authority" {
            throw bad(.unknownKeyType(fields[1]))
        }
        if !keyTypes.contains(fields[1]) {
            options = optionsOf(fields[1])
            if options.contains(where: { $0.lowercased() == "cert-authority" }) { throw bad(.certificateAuthority) }
            if let unknown = options.first(where: { !Self.isKnownOption($0) }) { throw bad(.unknownOption(unknown)) }
            next = 2
        }
        guard fields.count > next + 1 else { throw bad(.noKey) }
        let type = fields[next]
        guard keyTypes.contains(type) else { throw bad(.unknownKeyType(type)) }
        guard let blob = Data(base64Encoded: fields[next + 1]).map(Array.init), Self.blobType(blob) == type else {
            throw bad(.badKey(type))
        }
        let comment = fields.count > next + 2 ? fields[(next + 2)...].joined(separator: " ") : nil
        return AllowedSigner(principals: principals, options: options, keyType: type, key: blob, comment: comment)
    }

    static func isKnownOption(_ option: String) -> Bool {
        let name = option.prefix { $0 != "=" }.lowercased()
        return ["namespaces", "valid-after", "valid-before"].contains(name) && option.contains("=")
    }

    /// The first string of an SSH key blob: its key type.
    static func blobType(_ blob: [UInt8]) -> String? {
        guard blob.count >= 4 else { return nil }
        let length = blob[0..<4].reduce(0) { $0 << 8 | Int($1) }
        guard length > 0, blob.count >= 4 + length else { return nil }
        return String(bytes: blob[4..<(4 + length)], encoding: .utf8)
    }

    /// The line split on spaces outside double quotes; a quote left open is a bad line.
    static func fieldsOf(_ line: String) -> [String]? {
        var fields: [String] = []
        var current = ""
        var quoted = false
        for character in line {
            if character == "\"" { quoted.toggle() }
            if !quoted && (character == " " || character == "\t") {
                if !current.isEmpty { fields.append(current) }
                current = ""
            } else {
                current.append(character)
            }
        }
        if !current.isEmpty { fields.append(current) }
        return quoted ? nil : fields
    }

    /// The options field split on commas outside double quotes.
    static func optionsOf(_ field: String) -> [String] {
        var options: [String] = []
        var current = ""
        var quoted = false
        for character in field {
            if character == "\"" { quoted.toggle() }
            if !quoted && character == "," {
                options.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        options.append(current)
        return options
    }
}
