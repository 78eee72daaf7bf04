import Foundation
import XCTest
@testable import RolloutClient

/// What every import test does (docs/import.md): `rollout pack import PATH` into a new repository,
/// content version 1 and minAppVersion 4.0, with `extra` flags; it must exit 0. Returns the
/// workspace and the `--json` report.
func importCatalog(_ path: String, _ extra: [String] = [], file: StaticString = #filePath, line: UInt = #line) throws -> (Workspace, [String: Any]) {
    let w = try Workspace()
    XCTAssertEqual(try w.rollout("init").status, 0, file: file, line: line)
    let result = try w.rollout(["pack", "import", path, "--content-version", "1", "--min-app-version", "4.0", "--json"] + extra)
    XCTAssertEqual(result.status, 0, result.output, file: file, line: line)
    return (w, try w.json(result, file: file, line: line))
}

/// The strings of a stored pack.
func packStrings(_ w: Workspace, _ id: String) throws -> [String: String] {
    let shown = try w.json(try w.rollout("pack", "show", id, "--strings", "--json"))
    return try XCTUnwrap(shown["strings"] as? [String: String], "\(shown)")
}

/// What a device shows for an imported string, its arguments named "0", "1", ... as the pack's.
func deviceText(_ text: String?, _ args: [String], language: String) -> String? {
    text.map { MessageFormat.format($0, Dictionary(uniqueKeysWithValues: args.enumerated().map { ("\($0.offset)", $0.element) }), language: language) }
}
