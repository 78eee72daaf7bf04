/// The `signing` section of policy.json (docs/policy.md, "Signing"): whether every change must be
/// signed by an allowed signer, and which changes need a second person's approval. Absent, the
/// policy reads and prints as before the section existed, with every rule off.
public struct SigningPolicy: Equatable, Sendable {
    /// Which changes need an approver besides the signer who proposed them. A model only here:
    /// what enforces it (approve, the hook) reads these fields.
    public struct Approval: Equatable, Sendable {
        /// A promote to a share above this needs an approver; nil: no promote does.
        public var promoteAbove: Percent? = nil
        public var complete = false
        /// A pack that adds, changes or removes a protected key (policy `protectedKeys`).
        public var protectedKeys = false
        public var policy = false
        public var keys = false
        public var signers = false

        public init() {}

        public var isOff: Bool { self == Approval() }
    }

    /// An unsigned change is a problem for `rollout verify` (as `--require-signed` makes it).
    public var requireSigned = false
    public var approval = Approval()

    public init(requireSigned: Bool = false, approval: Approval = Approval()) {
        self.requireSigned = requireSigned
        self.approval = approval
    }

    /// Every rule off: what a policy without the section means.
    public var isOff: Bool { self == SigningPolicy() }

    static func parse(_ value: JSONValue, source: String) throws -> SigningPolicy {
        var reader = try ObjectReader(value, path: source)
        var signing = SigningPolicy()
        signing.requireSigned = try reader.bool("requireSigned", default: false)
        if let approval = try reader.object("approval") {
            var r = try ObjectReader(approval, path: "\(source).approval")
            signing.approval.promoteAbove = try r.percent("promoteAbove")
            signing.approval.complete = try r.bool("complete", default: false)
            signing.approval.protectedKeys = try r.bool("protectedKeys", default: false)
            signing.approval.policy = try r.bool("policy", default: false)
            signing.approval.keys = try r.bool("keys", default: false)
            signing.approval.signers = try r.bool("signers", default: false)
            try r.finish()
        }
        try reader.finish()
        return signing
    }

    var jsonValue: JSONValue {
        var approval: [String: JSONValue] = [
            "complete": .bool(self.approval.complete), "protectedKeys": .bool(self.approval.protectedKeys),
            "policy": .bool(self.approval.policy), "keys": .bool(self.approval.keys),
            "signers": .bool(self.approval.signers),
        ]
        if let above = self.approval.promoteAbove {
            approval["promoteAbove"] = .number(JSONNumber(Double(above.basisPoints) / 100))
        }
        return ["requireSigned": .bool(requireSigned), "approval": .object(approval)]
    }
}

extension ObjectReader {
    mutating func bool(_ name: String, default value: Bool) throws -> Bool {
        markSeen(name)
        guard let raw = object[name] else { return value }
        guard case .bool(let flag) = raw else {
            throw RolloutError.badInput("\(path): \"\(name)\" must be true or false, found \(raw.kindName)")
        }
        return flag
    }

    /// A share written as a number of percent (10, 0.5), from 0 to 100 in steps of 0.01; nil when absent.
    mutating func percent(_ name: String) throws -> Percent? {
        markSeen(name)
        guard let raw = object[name] else { return nil }
        guard case .number(let n) = raw, n.value >= 0, n.value <= 100,
            (n.value * 100).rounded() == n.value * 100
        else {
            let found = {
                if case .number(let n) = raw { return JSONWriter.formatNumber(n.value) } else { return raw.kindName }
            }()
            throw RolloutError.badInput(
                "\(path): \"\(name)\" must be a percent from 0 to 100 in steps of 0.01 (for example 10), found \(found)"
            )
        }
        return Percent(basisPoints: Int((n.value * 100).rounded()))
    }
}
