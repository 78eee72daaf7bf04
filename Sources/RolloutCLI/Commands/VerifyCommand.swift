import RolloutModel
import RolloutStore

/// `rollout verify`: the repository is intact, or exactly what is wrong (docs/reliability.md).
enum VerifyCommand {
    static let spec = CommandSpec(
        path: ["verify"],
        summary: "prove the repository is intact: packs, history, trailers, plans and rollback manifests",
        discussion: """
            Re-checks every stored pack's checksum and record; that no pack, rollback manifest or
            ingest record ever changed or disappeared in the whole history; that each commit's
            Rollout-* trailers agree with the files it changed; that plans name stored packs and
            stage nothing blocked; that rollback manifests are numbered without a gap and each was
            written by a revert commit; that the key lists (keys/<n>.json) run 1, 2, 3, ... and each
            is accepted from the one before it as a device accepts it; and that every tip the reflog remembers is still in the
            history (a history rewritten behind rollout's back). First it reads every object the
            history reaches and checks each pack file against its index: a missing or damaged object
            or pack file is listed, and the checks that would read it are skipped. Stale lock files are
            listed with the command that clears them. When the repository has signers (rollout signers),
            every change's signature is checked against the signers in force at it, as git verify-commit
            does: a bad signature, a key not allowed, a signer whose roles do not allow the action, or a
            Rollout-Actor other than the signer is a problem; an unsigned change is one with
            --require-signed or the policy's signing.requireSigned. --since REF checks the signatures of
            REF..main only (a CI status check: rollout verify --since origin/main --require-signed).
            Exit 1 with every problem, each naming its commit and file.
            """,
        options: Options.self,
        arguments: .none,
        effects: [.readsRepository, .checks, .checksSignatures],
        run: { invocation, context in
            let repository = try context.repository(invocation)
            var report = try Verifier.verify(repository)
            let signatures = try report.notChecked == nil ? checkSignatures(invocation, repository) : nil
            report.problems += signatures?.problems ?? []
            return render(report, signatures)
        })

    /// The report as text and JSON; exit 1 when it lists a problem.
    static func render(_ report: Verifier.Report, _ signatures: SignatureFindings?) -> CommandOutput {
        var text = ""
        if report.isIntact {
            text += "repository intact: "
        } else {
            text += "repository damaged: \(report.problems.count) problem(s):\n"
            for problem in report.problems {
                let place = [problem.commit.map { "commit \($0)" }, problem.path].compactMap { $0 }.joined(
                    separator: " ")
                text += "  \(place.isEmpty ? "" : place + ": ")\(problem.message)\n"
            }
        }
        if let notChecked = report.notChecked {
            text += "\(notChecked).\n"
        } else {
            text +=
                "\(report.commits) commit(s), \(report.packs) pack(s), \(report.plans) plan(s), \(report.rollbacks) rollback manifest(s), \(report.keyLists > 0 ? "\(report.keyLists) key list version(s), " : "")\(report.reflogEntries) reflog entr\(report.reflogEntries == 1 ? "y" : "ies") checked.\n"
        }
        if let signatures { text += signatures.summary }
        for lock in report.locks {
            text +=
                "stale lock? \(lock.path) exists; if no rollout or git command is running, clear it with: \(lock.clear)\n"
        }
        let json: [String: JSONValue] = [
            "ok": .bool(report.isIntact),
            "problems": .array(
                report.problems.map { problem in
                    .object([
                        "commit": problem.commit.map { .string($0) } ?? .null,
                        "path": problem.path.map { .string($0) } ?? .null,
                        "message": .string(problem.message),
                    ])
                }),
            "locks": .array(
                report.locks.map { .object(["path": .string($0.path), "clear": .string($0.clear)]) }),
            "commits": .integer(report.commits), "packs": .integer(report.packs),
            "plans": .integer(report.plans),
            "rollbacks": .integer(report.rollbacks), "keyLists": .integer(report.keyLists),
            "reflogEntries": .integer(report.reflogEntries),
            "notChecked": report.notChecked.map { .string($0) } ?? .null,
        ]
        return CommandOutput(
            json: .object(json.merging(signatures.map { ["signatures": $0.json] } ?? [:]) { a, _ in a }),
            text: text, exitCode: report.isIntact ? 0 : 1)
    }

    struct Options: OptionGroup {
        let requireSigned = Flag("require-signed", "an unsigned change is a problem too")
        let since = Option<String>("since", "REF", "check the signatures of the changes after REF only")

        static let declared = Options()
    }

    /// What the signature checks found, and the lines and JSON that say so.
    struct SignatureFindings {
        var problems: [Verifier.Problem] = []
        var checked = 0
        var verified = 0
        var unsigned = 0
        var since: String?

        var summary: String {
            "\(checked) signature(s) checked\(since.map { " since \($0)" } ?? ""): \(verified) verified, \(unsigned) unsigned.\n"
        }

        var json: JSONValue {
            [
                "checked": .integer(checked), "verified": .integer(verified), "unsigned": .integer(unsigned),
                "since": since.map { .string($0) } ?? .null,
            ]
        }
    }

    /// The signature audit of the history (or of `--since REF..main`), when the repository has
    /// signers or signing is required; nil when neither.
    static func checkSignatures(_ invocation: Invocation, _ repository: PackRepository) throws -> SignatureFindings? {
        let options = Options.declared
        let snapshot = try repository.snapshot()
        guard let tip = snapshot.commit else { return nil }
        let policyRequires = try snapshot.policy().signing.requireSigned
        let required = invocation.flag(options.requireSigned) || policyRequires
        let since = invocation.value(options.since)
        guard try required || since != nil || repository.hadSigners(through: tip) else { return nil }
        let base = try since.map { try repository.snapshot(at: $0).commit }
        var findings = SignatureFindings(since: since)
        do {
            _ = try snapshot.signers()
        } catch let refusal as SignerRefusal {
            findings.problems.append(Verifier.Problem(commit: tip.short, path: nil, message: Refusals.message(refusal)))
        }
        for audit in try repository.signatureAudits(from: base ?? nil, to: tip, requireSigned: required) {
            findings.checked += 1
            if case .verified = audit.signature { findings.verified += 1 }
            if audit.signature == .unsigned { findings.unsigned += 1 }
            for problem in audit.problems {
                findings.problems.append(
                    Verifier.Problem(commit: audit.commit.short, path: nil, message: SignatureWords.problem(problem)))
            }
        }
        return findings
    }
}

/// How signature verdicts and problems read, in `rollout verify` and `rollout log`.
enum SignatureWords {
    static func problem(_ problem: SignatureProblem) -> String {
        switch problem {
        case .unsigned: return "is not signed, and signing is required"
        case .unknownKey(let key): return "is signed by \(key), a key no allowed signer held at this change"
        case .bad(let why): return "has a bad signature (\(why)): the commit was changed after it was signed"
        case .roleNotAllowed(let principal, let roles, let action):
            return
                "is a \(action) signed by \(principal), whose roles (\(roles.isEmpty ? "none" : roles.map(\.rawValue).joined(separator: ", "))) may not sign it"
        case .actorMismatch(let claimed, let principal):
            return "claims Rollout-Actor \(claimed), but \(principal) signed it: a forged actor"
        case .damagedSigners(let refusal):
            return "cannot be checked: the signers in force at it are damaged (\(Refusals.message(refusal)))"
        case .needsApproval(let action, let covered):
            return "is a \(action) the policy asks an approver for (\(rule(covered))), and nobody approved it"
        case .selfApproval(let principal):
            return "is approved by \(principal), who proposed it: \(principal) cannot approve their own change"
        case .approverNotAllowed(let principal, let roles):
            return
                "is approved by \(principal), whose roles (\(roles.isEmpty ? "none" : roles.map(\.rawValue).joined(separator: ", "))) do not include approver"
        case .badProposal(let commit, let inner):
            return "approves proposal \(commit), which \(Self.problem(inner))"
        }
    }

    /// The change an approval rule covers, as the policy's words say it.
    static func rule(_ rule: ApprovalRule) -> String {
        switch rule {
        case .promoteAbove(let share): return "a promote above \(share)"
        case .complete: return "completing a rollout"
        case .protectedKeys(let keys):
            return
                "a pack that changes protected keys (\(keys.prefix(5).joined(separator: ", "))\(keys.count > 5 ? ", ..." : ""))"
        case .policy: return "a policy change"
        case .keys: return "a key change"
        case .signers: return "a change to the signers"
        }
    }

    /// `{status, principal, key, problems, proposer, approver}` of `--json`.
    static func json(_ audit: ChangeAudit) -> JSONValue {
        var principal: JSONValue = .null
        var key: JSONValue = .null
        switch audit.signature {
        case .verified(let who, let fingerprint): (principal, key) = (.string(who), .string(fingerprint))
        case .unknownKey(let fingerprint): key = .string(fingerprint)
        case .unsigned, .bad: break
        }
        return [
            "status": .string(audit.signature.status), "principal": principal, "key": key,
            "problems": .array(audit.problems.map { .string(problem($0)) }),
            // An approved change: the proposal's verified signer and the approver who signed the merge.
            "proposer": audit.proposer.map { .string($0) } ?? .null,
            "approver": audit.approver.map { .string($0) } ?? .null,
        ]
    }
}
