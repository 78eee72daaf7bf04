import Foundation
import XCTest

/// A credential a user types into a URL is never printed and never written to history
/// (docs/teams.md, "Credentials"): the remote's URL, and a publish destination such as an upload URL.
final class CredentialRedactionTests: XCTestCase {
    private let token = "ghs_redactMe0123456789"

    /// Every file under the repository but `config`, where git keeps a URL as it was given.
    private func filesHolding(_ secret: String, under root: String) throws -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: root)
        var found: [String] = []
        while let relative = enumerator?.nextObject() as? String {
            let path = root + "/" + relative
            var isDirectory: ObjCBool = false
            guard relative != "config", FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory),
                !isDirectory.boolValue
            else { continue }
            if let data = FileManager.default.contents(atPath: path), data.range(of: Data(secret.utf8)) != nil {
                found.append(relative)
            }
        }
        return found
    }

    func testATokenInARemoteURLIsKeptInConfigOnlyAndNeverPrinted() throws {
        let w = try Workspace()
        try w.initWithExamples()
        let url = "https://x-access-token:\(token)@git.example.com/mobile/packs.git"
        let added = try w.rollout("remote", "add", "origin", url)
        XCTAssertEqual(added.status, 0, added.output)
        XCTAssertTrue(
            added.stdout.contains("Added remote origin https://git.example.com/mobile/packs.git"), added.stdout)
        XCTAssertTrue(added.stdout.contains("The URL holds a credential"), added.stdout)
        let again = try w.rollout("remote", "add", "origin", url, "--json")
        XCTAssertEqual(again.status, 64, again.output)
        let listed = try w.rollout("remote", "list", "--json")
        XCTAssertTrue(listed.stdout.contains("https://git.example.com/mobile/packs.git"), listed.stdout)
        for result in [added, again, listed] { XCTAssertFalse(result.output.contains(token), result.output) }
        XCTAssertEqual(try filesHolding(token, under: w.repository), [])
        XCTAssertTrue(
            try String(contentsOfFile: w.repository + "/config", encoding: .utf8).contains(token),
            "git keeps the URL as given")
    }

    func testAPublishDestinationNeverCarriesACredentialIntoHistory() throws {
        let w = try Workspace()
        try w.initWithExamples()
        XCTAssertEqual(try w.rollout("promote", "tr-TR@17", "--to", "100%").status, 0)
        XCTAssertEqual(try w.rollout("keys", "generate", "--out", w.scratch.path("signing.key")).status, 0)
        let published = try w.rollout(
            "publish", "--out", w.scratch.path("site"), "--key", w.scratch.path("signing.key"),
            "--destination", "https://uploader:\(token)@cdn.example.com/strings")
        XCTAssertEqual(published.status, 0, published.output)
        let log = try w.rollout("log", "--json")
        XCTAssertEqual(log.status, 0, log.output)
        XCTAssertTrue(log.stdout.contains("https://cdn.example.com/strings"), log.stdout)
        for result in [published, log] { XCTAssertFalse(result.output.contains(token), result.output) }
        XCTAssertEqual(try filesHolding(token, under: w.repository), [])
        XCTAssertEqual(try filesHolding(token, under: w.scratch.path("site")), [])
    }
}
