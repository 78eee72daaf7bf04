import Foundation
import XCTest

@testable import RolloutClient

/// What every import test does (docs/import.md): `rollout pack import PATH` into a new repository,
/// content version 1 and minAppVersion 4.0, with `extra` flags; it must exit 0. Returns the
/// workspace and the `--json` report.
func importCatalog(_ path: String, _ extra: [String] = [], file: StaticString = #filePath, line: UInt = #line) throws
    -> (Workspace, [String: Any])
{
    let w = try Workspace()
    XCTAssertEqual(try w.rollout("init").status, 0, file: file, line: line)
    let result = try w.rollout(
        ["pack", "import", path, "--content-version", "1", "--min-app-version", "4.0", "--json"] + extra)
    XCTAssertEqual(result.status, 0, result.output, file: file, line: line)
    return (w, try w.json(result, file: file, line: line))
}

/// The strings of a stored pack.
func packStrings(_ w: Workspace, _ id: String) throws -> [String: String] {
    let shown = try w.json(try w.rollout("pack", "show", id, "--strings", "--json"))
    return try XCTUnwrap(shown["strings"] as? [String: String], "\(shown)")
}

/// The strings an import's `--json` report says it left out, as "locale key: reason", sorted.
func skippedEntries(_ report: [String: Any]) -> [String] {
    (report["skipped"] as? [[String: String]] ?? []).map { "\($0["locale"]!) \($0["key"]!): \($0["reason"]!)" }.sorted()
}

/// What a device shows for an imported string, its arguments named "0", "1", ... as the pack's.
func deviceText(_ text: String?, _ args: [String], language: String) -> String? {
    text.map {
        MessageFormat.format(
            $0, Dictionary(uniqueKeysWithValues: args.enumerated().map { ("\($0.offset)", $0.element) }),
            language: language)
    }
}

/// A reference printf, written to the platforms' rules, that import tests compare the device's
/// rendering with: Java's `String.format` (`java`: `%n` is a line break) and Foundation's
/// `String(format:)` (length modifiers, and Xcode's substitutions: `%#@name@` takes the next
/// argument unless its substitution names one, `argNum`, and picks that count's form, where `%arg`
/// or an unnumbered conversion is that argument). Conversions: `%%`, `%s`, `%@`, `%d`, `%lld`,
/// `%.Nf`, numbered (`%2$s`) or in order. Decimals in `language`'s form, as `getString(id, args)`
/// and `String(localized:)` write them in the app's locale.
func referencePrintf(
    _ format: String, _ args: [String], java: Bool = false, language: String = "en",
    substitutions: [String: (argNum: Int?, forms: [String: String])] = [:],
    category: (Int) -> String = { $0 == 1 ? "one" : "other" }
) -> String {
    var out = ""
    // One Unicode scalar at a time, as printf reads it: `%2$s` then U+200C is a conversion, though
    // Swift groups the `s` and the U+200C into one Character.
    var s = format.unicodeScalars.map(Character.init)[...]
    var next = 0
    while let c = s.popFirst() {
        guard c == "%", let first = s.first else {
            out.append(c)
            continue
        }
        if first == "%" {
            s.removeFirst()
            out += "%"
            continue
        }
        if java && first == "n" {
            s.removeFirst()
            out += "\n"
            continue
        }
        var index: Int? = nil
        let digits = String(s.prefix { $0.isNumber })
        if !digits.isEmpty, s.dropFirst(digits.count).first == "$" {
            index = Int(digits)! - 1
            s = s.dropFirst(digits.count + 1)
        }
        if !java, s.first == "#" {
            let name = String(s.dropFirst(2).prefix { $0 != "@" })
            s = s.dropFirst(name.count + 3)
            let substitution = substitutions[name]!
            let argument = substitution.argNum.map { $0 - 1 } ?? index ?? next
            if index == nil { next += 1 }
            let form = substitution.forms[category(Int(args[argument])!)] ?? substitution.forms["other"]!
            out += referencePrintf(
                form.replacingOccurrences(of: "%arg", with: "%\(argument + 1)$lld").replacingOccurrences(
                    of: "%lld", with: "%\(argument + 1)$lld"), args, language: language)
            continue
        }
        var precision: Int? = nil
        if s.first == "." {
            let p = String(s.dropFirst().prefix { $0.isNumber })
            precision = Int(p)
            s = s.dropFirst(p.count + 1)
        }
        while !java, let l = s.first, "lqh".contains(l) { s.removeFirst() }
        let conversion = s.removeFirst()
        let argument = args[index ?? next]
        if index == nil { next += 1 }
        // printf's %f: no grouping, the locale's decimal separator.
        let decimal = String(
            format: "%.\(precision ?? 6)f", locale: Locale(identifier: "en_US_POSIX"), Double(argument) ?? 0
        )
        .replacingOccurrences(of: ".", with: Locale(identifier: language).decimalSeparator ?? ".")
        out += conversion == "f" ? decimal : argument
    }
    return out
}

/// The fixture files `selected` picks that lie in none of `folders` (paths under
/// Tests/Fixtures/import): a fixture a property test over those folders would not read.
func fixtureFiles(outside folders: [String], _ selected: (String) -> Bool) -> [String] {
    let enumerator = FileManager.default.enumerator(atPath: ImportTests.fixtures)
    var outside: [String] = []
    while let file = enumerator?.nextObject() as? String {
        guard selected(file), !folders.contains(where: { file.hasPrefix($0 + "/") }) else { continue }
        outside.append(file)
    }
    return outside
}

/// One fixture folder imported for a property test: the workspace, what was left out (each
/// "FOLDER locale key: reason", the folder's own path taken out of the reasons), and the packs made.
func importForProperty(_ folder: String, _ flags: [String]) throws -> (
    workspace: Workspace, leftOut: [String], packs: Set<String>
) {
    let root = ImportTests.fixtures + "/" + folder
    let (w, report) = try importCatalog(root, flags)
    let leftOut = skippedEntries(report).map { "\(folder) " + $0.replacingOccurrences(of: root + "/", with: "") }
    let packs = Set((report["added"] as? [[String: Any]] ?? []).compactMap { $0["pack"] as? String })
    return (w, leftOut, packs)
}
