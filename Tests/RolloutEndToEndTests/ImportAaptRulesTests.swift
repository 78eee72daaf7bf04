import Foundation
import RolloutModel
import XCTest

@testable import RolloutClient

/// aapt2's reading of strings.xml, written from its rules and kept apart from the importer's code
/// (Sources/RolloutImport): the reference the import tests hold the device's text to. The XML layer
/// is expat's (internal entities expanded, their text read as XML; CDATA is text), then
/// ResourceParser::FlattenXmlSubtree (elements without a namespace are spans, `<xliff:g>` is not;
/// without a span, ASCII white space is trimmed from the start of the first text run and the end of
/// the last, before escapes), then StringBuilder::AppendText on Unicode scalars (ASCII white space
/// outside quotes collapses to one space; `"` toggles quoting; `\` escapes; the start and end of a
/// span end quoting and a white space run).
enum Aapt2Reference {
    enum Value: Equatable {
        case string(String)
        /// `formatted="false"`: shown as it is, never formatted.
        case literal(String)
        case plural([String: String])
    }

    /// The `<string>`s and `<plurals>` of one file that a default build's getString reads (not a
    /// reference, not another product's); nil for a value aapt2 refuses.
    static func values(_ file: String) throws -> [String: Value?] {
        var scanner = XMLScanner(Array(try String(contentsOfFile: file, encoding: .utf8).unicodeScalars))
        let events = try scanner.document()
        var out: [String: Value?] = [:]
        var k = 0
        var depth = 0
        while k < events.count {
            let event = events[k]
            k += 1
            switch event {
            case .start(let element, let attributes):
                depth += 1
                guard depth == 2, let name = attributes["name"] else { continue }
                if let product = attributes["product"], product != "default" { continue }
                let inner = subtree(events, &k)
                depth -= 1
                if element == "string" {
                    out[name] = flatten(inner).map(attributes["formatted"] == "false" ? Value.literal : Value.string)
                } else if element == "plurals" {
                    var forms: [String: String] = [:]
                    var j = 0
                    while j < inner.count {
                        if case .start("item", let item) = inner[j] {
                            j += 1
                            forms[item["quantity"] ?? "?"] = flatten(subtree(inner, &j)) ?? "\u{FFFD}"
                        } else {
                            j += 1
                        }
                    }
                    out[name] = .plural(forms)
                }
            case .end: depth -= 1
            case .text: break
            }
        }
        return out
    }

    /// The events inside the element just started, and past its end.
    private static func subtree(_ events: [XMLScanner.Event], _ k: inout Int) -> [XMLScanner.Event] {
        var level = 1
        var inner: [XMLScanner.Event] = []
        while k < events.count {
            let event = events[k]
            k += 1
            if case .start = event { level += 1 }
            if case .end = event {
                level -= 1
                if level == 0 { break }
            }
            inner.append(event)
        }
        return inner
    }

    static func isSpace(_ c: Unicode.Scalar) -> Bool { c.isASCII && " \t\n\r\u{0B}\u{0C}".unicodeScalars.contains(c) }

    /// One element's text as aapt2 compiles it; nil where aapt2 refuses it (or it is a reference).
    static func flatten(_ events: [XMLScanner.Event]) -> String? {
        // Text runs between element boundaries; `reset[i]`: a span starts or ends before run i.
        var runs: [[Unicode.Scalar]] = [[]]
        var reset: [Bool] = [false]
        var styled = false
        var raw: [Unicode.Scalar] = []
        for event in events {
            switch event {
            case .text(let text):
                runs[runs.count - 1] += text.unicodeScalars
                raw += text.unicodeScalars
            case .start(let name, _), .end(let name):
                let span = !name.contains(":")
                styled = styled || span
                runs.append([])
                reset.append(span)
            }
        }
        if !styled {
            let written = String(String.UnicodeScalarView(raw.drop(while: isSpace)))
            if written.hasPrefix("@") || written.hasPrefix("?") { return nil }
            if let first = runs.firstIndex(where: { !$0.isEmpty }) {
                runs[first] = Array(runs[first].drop(while: isSpace))
            }
            if let last = runs.lastIndex(where: { !$0.isEmpty }) {
                while let end = runs[last].last, isSpace(end) { runs[last].removeLast() }
            }
        }
        return build(runs, reset)
    }

    /// StringBuilder::AppendText over the runs, a span's start or end (`reset`) ending quoting and
    /// a white space run; nil where aapt2 refuses the text.
    static func build(_ runs: [[Unicode.Scalar]], _ reset: [Bool]) -> String? {
        var out = String.UnicodeScalarView()
        var quote = false
        var space = false
        for (run, resets) in zip(runs, reset) {
            if resets { (quote, space) = (false, false) }
            var i = 0
            while i < run.count {
                let c = run[i]
                i += 1
                if !quote, isSpace(c) {
                    if !space { out.append(" ") }
                    space = true
                    continue
                }
                space = false
                if c == "\\" {
                    guard i < run.count else { break }
                    let e = run[i]
                    i += 1
                    switch e {
                    case "t": out.append("\t")
                    case "n": out.append("\n")
                    case "u":
                        let hex = String(String.UnicodeScalarView(run[i..<min(run.count, i + 4)]))
                        guard hex.count == 4, let v = UInt32(hex, radix: 16), let s = Unicode.Scalar(v) else {
                            return nil
                        }
                        out.append(s)
                        i += 4
                    default: out.append(e)
                    }
                } else if c == "\"" {
                    quote.toggle()
                } else if c == "'" && !quote {
                    return nil  // "unescaped apostrophe in string"
                } else {
                    out.append(c)
                }
            }
        }
        return String(out)
    }

    /// The XML of a resource file as expat reports it: elements, and text with references read
    /// (internal entities' text read as XML in place). Comments and processing instructions vanish.
    struct XMLScanner {
        enum Event {
            case start(String, [String: String])
            case end(String)
            case text(String)
        }
        struct Failure: Error { let message: String }

        var s: [Unicode.Scalar]
        var i = 0
        var entities: [String: [Unicode.Scalar]] = [:]
        var expanded = 0

        init(_ s: [Unicode.Scalar]) { self.s = s }

        func at(_ p: String, _ k: Int) -> Bool {
            let p = Array(p.unicodeScalars)
            return k + p.count <= s.count && Array(s[k..<(k + p.count)]) == p
        }

        mutating func upTo(_ end: String) -> [Unicode.Scalar] {
            let start = i
            while i < s.count, !at(end, i) { i += 1 }
            defer { i = min(s.count, i + end.unicodeScalars.count) }
            return Array(s[start..<i])
        }

        mutating func word() -> String {
            let start = i
            while i < s.count, !Aapt2Reference.isSpace(s[i]), !"=/>[]\"';&".unicodeScalars.contains(s[i]) { i += 1 }
            return String(String.UnicodeScalarView(s[start..<i]))
        }

        mutating func spaces() { while i < s.count, Aapt2Reference.isSpace(s[i]) { i += 1 } }

        mutating func document() throws -> [Event] {
            var events: [Event] = []
            while i < s.count {
                if at("<?", i) {
                    _ = upTo("?>")
                } else if at("<!--", i) {
                    _ = upTo("-->")
                } else if at("<!DOCTYPE", i) {
                    try doctype()
                } else {
                    try content(&events, depth: 0)
                }
            }
            return events
        }

        mutating func doctype() throws {
            i += 9
            while i < s.count, s[i] != "[", s[i] != ">" { i += 1 }
            guard i < s.count, s[i] == "[" else { throw Failure(message: "an external DTD") }
            i += 1
            while true {
                spaces()
                guard i < s.count else { throw Failure(message: "open DOCTYPE") }
                if s[i] == "]" { break }
                if at("<!ENTITY", i) {
                    i += 8
                    spaces()
                    let name = word()
                    spaces()
                    guard s[i] == "\"" || s[i] == "'" else { throw Failure(message: "external entity \(name)") }
                    let quote = s[i]
                    i += 1
                    let literal = upTo(String(quote))
                    var value: [Unicode.Scalar] = []
                    var k = 0
                    while k < literal.count {
                        if literal[k] == "&", k + 1 < literal.count, literal[k + 1] == "#",
                            let semi = literal[k...].firstIndex(of: ";")
                        {
                            value.append(Self.character(String(String.UnicodeScalarView(literal[(k + 2)..<semi]))))
                            k = semi + 1
                        } else {
                            value.append(literal[k])
                            k += 1
                        }
                    }
                    if entities[name] == nil { entities[name] = value }
                }
                _ = upTo(">")
            }
            _ = upTo(">")
        }

        static func character(_ digits: String) -> Unicode.Scalar {
            let v = digits.hasPrefix("x") ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits)
            return v.flatMap(Unicode.Scalar.init) ?? "\u{FFFD}"
        }

        /// A reference's text (the five XML entities, character references, and declared entities
        /// whose text is read as XML into `events`).
        mutating func reference(_ events: inout [Event], depth: Int) throws {
            let name = String(String.UnicodeScalarView(upTo(";")).dropFirst())
            let predefined: [String: String] = ["lt": "<", "gt": ">", "amp": "&", "apos": "'", "quot": "\""]
            if let text = predefined[name] {
                events.append(.text(text))
            } else if name.hasPrefix("#") {
                events.append(.text(String(Self.character(String(name.dropFirst())))))
            } else if let replacement = entities[name] {
                guard depth < 16 else { throw Failure(message: "entities nest too deep") }
                expanded += replacement.count
                guard expanded < 1 << 20 else { throw Failure(message: "billion laughs") }
                var inner = XMLScanner(replacement)
                inner.entities = entities
                inner.expanded = expanded
                while inner.i < inner.s.count { try inner.content(&events, depth: depth + 1) }
                expanded = inner.expanded
            } else {
                throw Failure(message: "undefined entity \(name)")
            }
        }

        /// One piece of content: markup, a reference or a character.
        mutating func content(_ events: inout [Event], depth: Int) throws {
            if at("<!--", i) {
                _ = upTo("-->")
            } else if at("<![CDATA[", i) {
                i += 9
                events.append(.text(String(String.UnicodeScalarView(upTo("]]>")))))
            } else if at("<?", i) {
                _ = upTo("?>")
            } else if at("</", i) {
                i += 2
                events.append(.end(word()))
                _ = upTo(">")
            } else if s[i] == "<" {
                i += 1
                let name = word()
                var attributes: [String: String] = [:]
                while true {
                    spaces()
                    if at("/>", i) {
                        i += 2
                        events += [.start(name, attributes), .end(name)]
                        return
                    }
                    if s[i] == ">" {
                        i += 1
                        events.append(.start(name, attributes))
                        return
                    }
                    let attribute = word()
                    spaces()
                    i += 1  // =
                    spaces()
                    let quote = s[i]
                    i += 1
                    var value = XMLScanner(upTo(String(quote)))
                    value.entities = entities
                    var parts: [Event] = []
                    while value.i < value.s.count { try value.content(&parts, depth: depth + 1) }
                    attributes[attribute] = parts.map { if case .text(let t) = $0 { t } else { "" } }.joined()
                }
            } else if s[i] == "&" {
                try reference(&events, depth: depth)
            } else {
                let start = i
                while i < s.count, s[i] != "<", s[i] != "&" { i += 1 }
                // XML reads a line break as written \r\n or \r as \n.
                let text = String(String.UnicodeScalarView(s[start..<i])).replacingOccurrences(of: "\r\n", with: "\n")
                events.append(.text(text))
            }
        }
    }

    /// The locale a `values*` folder is for, as a pack names it; nil for a folder with other
    /// qualifiers (those are left out, and listed).
    static func locale(_ folder: String, source: String) -> String? {
        if folder == "values" { return source }
        let legacy = ["iw": "he", "in": "id", "ji": "yi"]
        let parts = folder.split(separator: "-").dropFirst().map(String.init)
        if parts.first?.hasPrefix("b+") == true {
            return parts[0].dropFirst(2).split(separator: "+").map(String.init).joined(separator: "-")
        }
        guard let language = parts.first, (2...3).contains(language.count), language.allSatisfy(\.isLowercase) else {
            return nil
        }
        if parts.count == 1 { return legacy[language] ?? language }
        guard parts.count == 2, parts[1].count == 3, parts[1].hasPrefix("r"), parts[1] != "rXA", parts[1] != "rXB"
        else { return nil }
        return "\(legacy[language] ?? language)-\(parts[1].dropFirst())"
    }
}

/// aapt2's rules for strings.xml (Tests/Fixtures/import/android-aapt, expected.json: what Android's
/// getString returns for each key), checked three ways: the reference renderer against the expected
/// text, the imported text on a device against it, and, for every string of every Android fixture,
/// the device's text against the reference's (docs/import.md, "Android": "aapt2 rule -> rollout rule").
final class ImportAaptRulesTests: XCTestCase {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/import")
    static let aapt = fixtures.appendingPathComponent("android-aapt")

    /// locale -> key -> the text getString returns (a plural: quantity -> text).
    static func expected() throws -> [String: [String: Aapt2Reference.Value]] {
        let json = try JSONSerialization.jsonObject(
            with: Data(contentsOf: aapt.appendingPathComponent("expected.json")))
        var out: [String: [String: Aapt2Reference.Value]] = [:]
        for (locale, keys) in try XCTUnwrap(json as? [String: [String: Any]]) {
            for (key, value) in keys {
                if let text = value as? String {
                    out[locale, default: [:]][key] = .string(text)
                } else {
                    out[locale, default: [:]][key] = .plural(try XCTUnwrap(value as? [String: String]))
                }
            }
        }
        return out
    }

    func testTheReferenceReadsTheFixtureAsExpected() throws {
        for (locale, keys) in try Self.expected() {
            let folder = locale == "en" ? "values" : "values-\(locale)"
            let read = try Aapt2Reference.values(Self.aapt.appendingPathComponent("res/\(folder)/strings.xml").path)
            XCTAssertEqual(read.count, keys.count, locale)
            for (key, value) in keys { XCTAssertEqual(read[key], value, "\(locale) \(key)") }
        }
    }

    /// Each rule's string, imported, shows on a device what getString shows (formatted as Java's
    /// String.format does): entities, non-ASCII spaces kept, combining marks and ZWNJ after a space,
    /// spaces at span edges, trimming only without spans, ZWNJ after a placeholder.
    func testImportedTextShowsWhatGetStringShows() throws {
        let (w, report) = try importCatalog(Self.aapt.appendingPathComponent("res").path, ["--source-locale", "en"])
        XCTAssertEqual(skippedEntries(report), [], "nothing in the fixture is left out")
        var checked = 0
        for (locale, keys) in try Self.expected() {
            let pack = try packStrings(w, "\(locale)@1")
            for (key, value) in keys {
                checked += try assertShows(pack[key], value, language: locale, "\(locale) \(key)")
            }
        }
        XCTAssertEqual(checked, 44)
    }

    /// getQuantityString(id, count, args): the count picks the form and the forms show it as an
    /// integer, so the plural counts with the `other` form's first integer (`%1$d`), not the `one`
    /// form's first number (`%2$.2f`, the size), as wikipedia's reading-list summary has it.
    func testAPluralCountsWithTheIntegerItsFormsShow() throws {
        let (w, report) = try importCatalog(Self.aapt.appendingPathComponent("res").path, ["--source-locale", "en"])
        XCTAssertEqual(skippedEntries(report), [])
        let stored = try XCTUnwrap(try packStrings(w, "en@1")["reading_list_summary"])
        XCTAssertEqual(
            stored, "{0, plural, one {1 article, {1, number, ::.00} MB} other {# articles, {1, number, ::.00} MB}}")
        let forms = ["one": "1 article, %2$.2f MB", "other": "%1$d articles, %2$.2f MB"]
        for n in [0, 1, 2, 5, 21] {
            let args = ["\(n)", "2.5"]
            XCTAssertEqual(
                deviceText(stored, args, language: "en"),
                referencePrintf(forms[n == 1 ? "one" : "other"]!, args, java: true), "\(n)")
        }
        XCTAssertEqual(deviceText(stored, ["5", "2.5"], language: "en"), "5 articles, 2.50 MB")
    }

    /// `getQuantityString(R.plurals.offline, pages.size, offline, pages.size)`: the count is the
    /// second argument, which the `one` form writes as the digit 1 (wikipedia's reading-list
    /// detail). The plural counts with it, in every locale, whatever the translation's forms show.
    func testAPluralCountsWithTheArgumentItsOneFormWritesOut() throws {
        let w = try Workspace()
        XCTAssertEqual(try w.rollout("init").status, 0)
        let forms = [
            "values": [
                "one": "%1$d of 1 article available offline", "other": "%1$d of %2$d articles available offline",
            ],
            "values-de": ["one": "%1$d von %2$d Artikel offline", "other": "%1$d von %2$d Artikeln offline"],
        ]
        for (folder, plural) in forms {
            _ = try w.scratch.write(
                "res/\(folder)/strings.xml",
                "<resources><plurals name=\"offline\">"
                    + plural.sorted { $0.key < $1.key }.map { "<item quantity=\"\($0.key)\">\($0.value)</item>" }
                    .joined() + "</plurals></resources>")
        }
        let result = try w.rollout(
            "pack", "import", w.scratch.path("res"), "--content-version", "1", "--min-app-version", "4.0",
            "--source-locale",
            "en")
        XCTAssertEqual(result.status, 0, result.output)
        for (locale, folder) in [("en", "values"), ("de", "values-de")] {
            let stored = try XCTUnwrap(try packStrings(w, "\(locale)@1")["offline"])
            XCTAssertTrue(stored.hasPrefix("{1, plural,"), "\(locale) counts with %2$d: \(stored)")
            for (offline, total) in [(1, 5), (0, 1), (1, 1), (3, 21)] {
                let args = ["\(offline)", "\(total)"]
                let category = MessageFormat.pluralCategory(total, language: locale)
                XCTAssertEqual(
                    deviceText(stored, args, language: locale),
                    referencePrintf(forms[folder]![category] ?? forms[folder]!["other"]!, args, java: true),
                    "\(locale) \(offline) of \(total)")
            }
        }
    }

    /// A `<plurals>` whose items are references is left out naming its first form's reference in
    /// CLDR order, the same every run (it named whichever form a dictionary gave first).
    func testAPluralOfReferencesIsLeftOutNamingTheSameReferenceEveryRun() throws {
        let w = try Workspace()
        XCTAssertEqual(try w.rollout("init").status, 0)
        _ = try w.scratch.write(
            "res/values/strings.xml",
            """
            <resources><string name="b1">byte</string><string name="b2">bytes</string><string name="b3">bytes</string>
            <plurals name="bytes"><item quantity="other">@string/b2</item><item quantity="one">@string/b1</item>
            <item quantity="few">@string/b3</item></plurals></resources>
            """)
        for _ in 0..<4 {
            let result = try w.rollout(
                "pack", "import", w.scratch.path("res"), "--content-version", "1", "--min-app-version", "4.0",
                "--dry-run", "--json")
            XCTAssertEqual(
                skippedEntries(try w.json(result)).filter { $0.hasPrefix("en-US bytes") },
                ["en-US bytes: a reference to @string/b1, not text"])
        }
    }

    /// The property: for every string of every Android fixture, what a device shows through
    /// RolloutClient is what the app shows (the reference's text, formatted as Java does).
    func testEveryAndroidFixtureStringShowsThePlatformText() throws {
        let folders = try FileManager.default.contentsOfDirectory(atPath: Self.fixtures.path).filter {
            FileManager.default.fileExists(atPath: Self.fixtures.appendingPathComponent("\($0)/res/values").path)
        }.sorted()
        XCTAssertEqual(folders, ["android", "android-aapt", "android-shapes"])
        var checked = 0
        for folder in folders {
            let res = Self.fixtures.appendingPathComponent("\(folder)/res")
            let (w, _) = try importCatalog(res.path, ["--source-locale", "en"])
            for values in try FileManager.default.contentsOfDirectory(atPath: res.path).sorted() {
                guard let locale = Aapt2Reference.locale(values, source: "en"),
                    let pack = try? packStrings(w, "\(locale)@1")
                else { continue }
                for (key, value) in try Aapt2Reference.values(res.appendingPathComponent("\(values)/strings.xml").path)
                {
                    guard let value, let stored = pack[key] else { continue }
                    checked += try assertShows(stored, value, language: locale, "\(folder)/\(values) \(key)")
                }
            }
        }
        XCTAssertGreaterThan(checked, 60)
    }

    /// Asserts the device's text of `stored` is Java's String.format of the platform's `value` with
    /// the same arguments (a plural: the form each count's category picks); returns how many
    /// renderings it compared.
    @discardableResult
    private func assertShows(
        _ stored: String?, _ value: Aapt2Reference.Value, language: String, _ what: String,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> Int {
        let stored = try XCTUnwrap(stored, "\(what) was not imported", file: file, line: line)
        switch value {
        case .string(let text):
            let args = ["7", "42", "3"]
            // getString(id) shows a string with no conversion as written; getString(id, args) formats.
            let shown =
                text.range(of: #"%(\d+\$)?(\.\d+)?[sdfn%]"#, options: .regularExpression) == nil
                ? text : referencePrintf(text, args, java: true, language: language)
            XCTAssertEqual(
                deviceText(stored, args, language: language), shown, "\(what): stored as \(stored)", file: file,
                line: line)
            return 1
        case .literal(let text):
            XCTAssertEqual(
                deviceText(stored, [], language: language), text, "\(what): stored as \(stored)", file: file, line: line
            )
            return 1
        case .plural(let forms):
            var compared = 0
            for n in [0, 1, 2, 3, 5, 11, 22, 100] {
                let category = PluralRules.category(for: "\(n)", language: language)?.rawValue ?? "other"
                guard let form = forms[category] ?? forms["other"] else { continue }
                let args = Array(repeating: "\(n)", count: 3)
                XCTAssertEqual(
                    deviceText(stored, args, language: language),
                    referencePrintf(form, args, java: true, language: language),
                    "\(what) for \(n): stored as \(stored)",
                    file: file, line: line)
                compared += 1
            }
            return compared
        }
    }

    /// printf and literal text are read as Unicode scalars: Swift groups `s` + U+200C (ZWNJ) and
    /// `{` + U+0301 into one Character each, which neither Java's printf nor ICU does.
    func testPlaceholdersAndBracesAreReadAsScalars() throws {
        XCTAssertEqual(
            try Placeholders.printfICU("%2$s\u{200C}ها از %1$s", dialect: .java), "{1}\u{200C}ها از {0}",
            "a placeholder followed by a ZWNJ is an argument")
        XCTAssertEqual(try Placeholders.printfICU("%1$d\u{0301}", dialect: .java), "{0, number}\u{0301}")
        XCTAssertEqual(Placeholders.literal("{\u{0301}x}"), "'{'\u{0301}x'}'", "a brace with a mark after it is quoted")
    }

    // MARK: entities aapt2 never reads, and expansions without end

    private func importRefused(_ strings: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let w = try Workspace()
        XCTAssertEqual(try w.rollout("init").status, 0)
        let values = w.scratch.path("res/values")
        try FileManager.default.createDirectory(atPath: values, withIntermediateDirectories: true)
        try Data(strings.utf8).write(to: URL(fileURLWithPath: "\(values)/strings.xml"))
        let result = try w.rollout(
            [
                "pack", "import", w.scratch.path("res"), "--source-locale", "en", "--content-version", "1",
                "--min-app-version", "4.0", "--skip-invalid",
            ])
        XCTAssertNotEqual(result.status, 0, result.output, file: file, line: line)
        return result.output
    }

    func testAnExternalEntityIsRefusedAndNeverRead() throws {
        let secret = FileManager.default.temporaryDirectory.appendingPathComponent("aapt-secret-\(UUID().uuidString)")
        try Data("TOP-SECRET-TOKEN".utf8).write(to: secret)
        defer { try? FileManager.default.removeItem(at: secret) }
        for declaration in [
            "<!ENTITY leak SYSTEM \"file://\(secret.path)\">",
            "<!ENTITY leak PUBLIC \"-//x\" \"file://\(secret.path)\">",
        ] {
            let output = try importRefused(
                "<?xml version=\"1.0\"?>\n<!DOCTYPE resources [\n\(declaration)\n]>\n"
                    + "<resources><string name=\"a\">&leak;</string></resources>")
            XCTAssertTrue(output.contains("strings.xml:3: the external entity leak"), output)
            XCTAssertTrue(output.contains("<!ENTITY leak \"text\">"), "the message names the fix: \(output)")
            XCTAssertFalse(output.contains("TOP-SECRET"), output)
        }
        let dtd = try importRefused(
            "<!DOCTYPE resources SYSTEM \"file://\(secret.path)\">\n<resources><string name=\"a\">x</string></resources>"
        )
        XCTAssertTrue(dtd.contains("an external DTD"), dtd)
        let parameter = try importRefused(
            "<!DOCTYPE resources [<!ENTITY % p SYSTEM \"file://\(secret.path)\"> %p;]>\n<resources/>")
        XCTAssertTrue(parameter.contains("a parameter entity"), parameter)
    }

    func testEntitiesThatExpandWithoutEndAreRefused() throws {
        var laughs = "<!ENTITY l0 \"lol\">"
        for k in 1...9 { laughs += "<!ENTITY l\(k) \"" + String(repeating: "&l\(k - 1);", count: 10) + "\">" }
        let output = try importRefused(
            "<!DOCTYPE resources [\(laughs)]>\n<resources><string name=\"a\">&l9;</string></resources>")
        XCTAssertTrue(output.contains("expand to more than 1048576 characters"), output)
        let loop = try importRefused(
            "<!DOCTYPE resources [<!ENTITY a \"&b;\"><!ENTITY b \"&a;\">]>\n<resources><string name=\"k\">&a;</string></resources>"
        )
        XCTAssertTrue(loop.contains("refers to itself"), loop)
        let undeclared = try importRefused(
            "<!DOCTYPE resources []>\n<resources><string name=\"k\">&nbsp;</string></resources>")
        XCTAssertTrue(undeclared.contains("strings.xml:2: &nbsp; is not declared"), undeclared)
    }
}
