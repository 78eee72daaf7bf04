import RolloutModel
import XCTest

/// The allowed-signers lines, the roles document and the policy's signing section (docs/audit.md,
/// "Who made each change: verified signers"; docs/policy.md, "Signing").
final class SignerModelTests: XCTestCase {
    /// An ed25519 key made by ssh-keygen, and the fingerprint `ssh-keygen -lf` prints for it.
    let key = "AAAAC3NzaC1lZDI1NTE5AAAAIO9kKJ+vqpAq1ULlP+G3XkVvJZ6gr1oyVaxdWeuTziep"
    let fingerprint = "SHA256:Dpg6AHyjEZQ8ddg+N/akNQG4gNQPUIEvFp3HxXNr8x4"

    func refusal(_ line: String) -> SignerRefusal? {
        do {
            _ = try AllowedSigner.parse(file: "# signers\n\n" + line + "\n", named: "signers/allowed_signers")
            return nil
        } catch let refusal as SignerRefusal {
            return refusal
        } catch {
            XCTFail("\(error)")
            return nil
        }
    }

    func testALineReadsAsGitWritesItAndPrintsBackTheSame() throws {
        let line = "ana@example.com namespaces=\"git\" ssh-ed25519 \(key) ana laptop"
        let signers = try AllowedSigner.parse(file: line + "\n", named: "f")
        XCTAssertEqual(signers.count, 1)
        XCTAssertEqual(signers[0].principals, ["ana@example.com"])
        XCTAssertEqual(signers[0].options, ["namespaces=\"git\""])
        XCTAssertEqual(signers[0].keyType, "ssh-ed25519")
        XCTAssertEqual(signers[0].comment, "ana laptop")
        XCTAssertEqual(signers[0].fingerprint, fingerprint, "as ssh-keygen -lf prints it")
        XCTAssertEqual(signers[0].line, line)
        let several = try AllowedSigner.parse(
            file: "a@x,b@x namespaces=\"git,file\",valid-after=\"20260101\" ssh-ed25519 \(key)\n", named: "f")
        XCTAssertEqual(several[0].principals, ["a@x", "b@x"])
        XCTAssertEqual(several[0].options, ["namespaces=\"git,file\"", "valid-after=\"20260101\""])
        XCTAssertNil(several[0].comment)
    }

    func testAPublicKeyFileBecomesALineForGit() throws {
        let signer = try AllowedSigner.line(
            principal: "ana@example.com", publicKey: "ssh-ed25519 \(key) ana\n", file: "ana.pub")
        XCTAssertEqual(signer.line, "ana@example.com namespaces=\"git\" ssh-ed25519 \(key) ana")
    }

    func testABadLineIsRefusedWithItsFileAndLine() {
        let file = "signers/allowed_signers"
        XCTAssertEqual(
            refusal("ana@x cert-authority ssh-ed25519 \(key)"),
            .badAllowedSigner(file: file, line: 3, .certificateAuthority))
        XCTAssertEqual(refusal("ana@x"), .badAllowedSigner(file: file, line: 3, .noKey))
        XCTAssertEqual(
            refusal("ana@x ssh-dss \(key)"), .badAllowedSigner(file: file, line: 3, .unknownKeyType("ssh-dss")))
        XCTAssertEqual(
            refusal("ana@x no-touch-required=\"1\" ssh-ed25519 \(key)"),
            .badAllowedSigner(file: file, line: 3, .unknownOption("no-touch-required=\"1\"")))
        XCTAssertEqual(
            refusal("ana@x namespaces=\"git\" ssh-dss \(key)"),
            .badAllowedSigner(file: file, line: 3, .unknownKeyType("ssh-dss")))
        XCTAssertEqual(
            refusal("ana@x ssh-rsa \(key)"), .badAllowedSigner(file: file, line: 3, .badKey("ssh-rsa")),
            "an ed25519 blob under another type")
        XCTAssertEqual(refusal("ana@x ssh-ed25519 !!!"), .badAllowedSigner(file: file, line: 3, .badKey("ssh-ed25519")))
        XCTAssertEqual(
            refusal("ana@x namespaces=\"git ssh-ed25519 \(key)"), .badAllowedSigner(file: file, line: 3, .unclosedQuote)
        )
    }

    func testTheRolesDocumentIsReadStrictly() throws {
        let roster = try SignerRoster.parse(
            Array(#"{"signersVersion": 1, "principals": {"ana@x": ["release", "admin"], "bot@x": ["bot"]}}"#.utf8),
            source: "signers/roles.json")
        XCTAssertEqual(roster.roles(of: "ana@x"), [.admin, .release])
        XCTAssertEqual(roster.admins, ["ana@x"])
        XCTAssertEqual(try SignerRoster.parse(JSONWriter.pretty(roster.jsonValue), source: "r"), roster)
        func why(_ text: String) -> SignerRefusal? {
            do {
                _ = try SignerRoster.parse(Array(text.utf8), source: "signers/roles.json")
                return nil
            } catch { return error as? SignerRefusal }
        }
        XCTAssertEqual(
            why(#"{"signersVersion": 1, "principals": {"a@x": ["root"]}}"#),
            .badRoles(
                file: "signers/roles.json", "a@x: unknown role \"root\" (roles: admin, release, approver, bot)"))
        XCTAssertEqual(
            why(#"{"signersVersion": 1, "principals": {}, "admins": []}"#),
            .badRoles(file: "signers/roles.json", "unknown field \"admins\" (known: principals, signersVersion)"))
        XCTAssertEqual(
            why(#"{"signersVersion": 2, "principals": {}}"#),
            .badRoles(file: "signers/roles.json", "signersVersion must be 1"))
        XCTAssertEqual(try SignerRole.parseList("release,admin,release"), [.admin, .release])
        XCTAssertThrowsError(try SignerRole.parseList("admin,")) {
            XCTAssertEqual($0 as? SignerRefusal, .unknownRole(""))
        }
    }

    func testTheSigningSectionReadsPrintsAndRefusesUnknownFields() throws {
        let plain = try Policy.parse(Array("{}".utf8), source: "policy.json")
        XCTAssertEqual(plain.signing, SigningPolicy())
        XCTAssertNil(plain.jsonValue.objectValue?["signing"], "a policy without the section prints as before")
        let text = #"""
            {"signing": {"requireSigned": true, "approval": {"promoteAbove": 10, "complete": true, "signers": true}}}
            """#
        let policy = try Policy.parse(Array(text.utf8), source: "policy.json")
        XCTAssertTrue(policy.signing.requireSigned)
        XCTAssertEqual(policy.signing.approval.promoteAbove, Percent(basisPoints: 1000))
        XCTAssertTrue(policy.signing.approval.complete)
        XCTAssertTrue(policy.signing.approval.signers)
        XCTAssertFalse(policy.signing.approval.keys)
        XCTAssertEqual(try Policy.parse(JSONWriter.pretty(policy.jsonValue), source: "p"), policy)
        func message(_ signing: String) -> String {
            do {
                _ = try Policy.parse(Array(#"{"signing": \#(signing)}"#.utf8), source: "policy.json")
                return "accepted"
            } catch let error as RolloutError { return error.message } catch { return "\(error)" }
        }
        XCTAssertEqual(
            message(#"{"requireSigend": true}"#),
            "policy.json: signing: unknown field \"requireSigend\" (known: approval, requireSigned)")
        XCTAssertEqual(
            message(#"{"approval": {"promoteAbove": 150}}"#),
            "policy.json: signing.approval: \"promoteAbove\" must be a percent from 0 to 100 in steps of 0.01 (for example 10), found 150"
        )
        XCTAssertEqual(
            message(#"{"requireSigned": "yes"}"#),
            "policy.json: signing: \"requireSigned\" must be true or false, found a string")
    }
}
