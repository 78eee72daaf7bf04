import Foundation
import RolloutModel

#if canImport(FoundationXML)
    import FoundationXML
#endif

extension CatalogImporter {
    // MARK: Android resources

    /// `res/values/` is the source locale; `values-tr`, `values-tr-rTR`, `values-b+sr+Latn` the
    /// others, every `.xml` file in them read as aapt reads it. A folder whose qualifiers are not
    /// just a locale (`values-night`, `values-v21`, `values-fr-land`) or a pseudolocale is listed as
    /// left out, with the reason.
    static func android(_ path: String, sourceLocale: String) throws -> CatalogImport {
        var result = CatalogImport()
        result.sourceLocale = sourceLocale
        var folders =
            path.hasSuffix(".xml")
            ? [(locale: sourceLocale, folder: "values", files: [path])] : valuesFolders(path, sourceLocale, &result)
        // Java, and so Android, names Hebrew, Indonesian and Yiddish iw, in, ji: a device reads
        // values-iw, so where values-he says otherwise, values-iw's text is the one kept.
        // values/ first: a plural counts with the argument the source's forms count with, in every
        // locale (the app passes one count whatever the language).
        func rank(_ folder: String) -> Int { folder == "values" ? 0 : legacySpelling(folder) ? 1 : 2 }
        folders.sort { (rank($0.folder), $0.folder) < (rank($1.folder), $1.folder) }
        var sourceCounts: [String: Int] = [:]  // plural key -> the argument values/ counts with
        guard !folders.isEmpty else { throw RolloutError.missing("\(path): no values*/ folder with strings in it") }
        var readFrom: [String: [String: String]] = [:]  // locale -> key -> folder
        var plurals: [String: Set<String>] = [:]  // locale -> its keys that are plurals
        for (tag, folder, files) in folders {
            for file in files {
                let reader = AndroidStrings()
                let parser = XMLParser(data: try entitiesExpanded(file))
                parser.delegate = reader
                guard parser.parse() else {
                    throw RolloutError.unreadableXML(file, parser)
                }
                for (key, reason) in reader.skipped { result.skip(tag, key, reason) }
                for (key, value) in reader.values {
                    let text: String
                    do {
                        text = try value.icu(language: tag, countsWith: folder == "values" ? nil : sourceCounts[key])
                    } catch let refusal as PrintfRefusal {
                        result.skip(tag, key, refusal.reason)
                        continue
                    }
                    if let earlier = readFrom[tag]?[key], earlier != folder {
                        if result.strings[tag]?[key] != text {
                            result.skip(tag, key, "\(folder) differs from \(earlier), which Android reads for \(tag)")
                        }
                        continue
                    }
                    readFrom[tag, default: [:]][key] = folder
                    if case .plural = value {
                        plurals[tag, default: []].insert(key)
                        if folder == "values" { sourceCounts[key] = Placeholders.pluralArgument(text) }
                    }
                    result.add(tag, key, text)
                }
            }
        }
        dropMismatchedKinds(&result, plurals: plurals, sourceLocale: sourceLocale)
        return result
    }

    /// The file's bytes with its DOCTYPE's internal entities expanded (AndroidEntities); a file
    /// whose DOCTYPE names an external entity or expands without end is refused, with the fix.
    static func entitiesExpanded(_ file: String) throws -> Data {
        let data = Data(try bytes(file))
        do { return try AndroidEntities.expand(data) ?? data } catch let refusal as AndroidEntities.Refusal {
            throw RolloutError.badInput("\(file):\(refusal.line): \(refusal.reason)")
        }
    }

    /// The `values*/` folders of a `res/` directory with their `.xml` files, each with its locale;
    /// a folder that is not a locale's is listed in `result` as left out, with the reason.
    static func valuesFolders(
        _ path: String, _ sourceLocale: String, _ result: inout CatalogImport
    ) -> [(locale: String, folder: String, files: [String])] {
        var folders: [(locale: String, folder: String, files: [String])] = []
        for folder in ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [])
        where folder == "values" || folder.hasPrefix("values-") {
            let files = ((try? FileManager.default.contentsOfDirectory(atPath: "\(path)/\(folder)")) ?? []).filter {
                $0.hasSuffix(".xml")
            }.sorted().map { "\(path)/\(folder)/\($0)" }
            switch androidLocale(folder, source: sourceLocale) {
            case .locale(let tag): folders.append((tag, folder, files))
            case .leftOut(let reason):
                if files.contains(where: holdsStrings) { result.skipFile("\(path)/\(folder)", reason) }
            }
        }
        return folders
    }

    /// A <string> and a <plurals> of one name are two resources to Android: a translation that
    /// gives the other kind translates nothing the app asks for, so it is left out.
    static func dropMismatchedKinds(_ result: inout CatalogImport, plurals: [String: Set<String>], sourceLocale: String)
    {
        guard let source = result.strings[sourceLocale] else { return }
        let sourcePlurals = plurals[sourceLocale] ?? []
        for (tag, strings) in result.strings where tag != sourceLocale {
            for key in strings.keys
            where source[key] != nil && sourcePlurals.contains(key) != (plurals[tag] ?? []).contains(key) {
                result.strings[tag]?[key] = nil
                result.skip(
                    tag, key,
                    sourcePlurals.contains(key)
                        ? "a <string> here, <plurals> in values/: Android reads values/'s plurals"
                        : "<plurals> here, a <string> in values/: Android reads values/'s string")
            }
        }
    }

    enum AndroidFolder: Equatable {
        case locale(String)
        case leftOut(String)
    }

    static func legacySpelling(_ folder: String) -> Bool {
        LocaleTag.legacyLanguages.keys.contains { folder == "values-\($0)" || folder.hasPrefix("values-\($0)-") }
    }

    /// Whether an Android resource file defines strings (a folder of colours or styles loses none).
    static func holdsStrings(_ file: String) -> Bool {
        guard let data = try? bytes(file) else { return false }  // none past --max-catalog-bytes
        let text = String(decoding: data, as: UTF8.self)
        return text.contains("<string") || text.contains("<plurals")
    }

    /// The locale of a `values-*` folder as aapt reads its qualifiers: `tr`, `tr-rTR`, `b+sr+Latn`,
    /// `b+es+419`; anything more (`-night`, `-v21`, `-land`, `-sw600dp`) is not a locale alone.
    static func androidLocale(_ folder: String, source: String) -> AndroidFolder {
        if folder == "values" { return .locale(source) }
        let qualifier = String(folder.dropFirst("values-".count))
        let tag: String?
        if qualifier.hasPrefix("b+") {
            tag = canonicalLocale(qualifier.dropFirst(2).replacingOccurrences(of: "+", with: "-"))
        } else {
            let parts = qualifier.split(separator: "-", omittingEmptySubsequences: false)
            let language = parts[0]
            let isLanguage = (2...3).contains(language.count) && language.allSatisfy { $0.isASCII && $0.isLowercase }
            let isRegion =
                parts.count == 2 && parts[1].count == 3 && parts[1].hasPrefix("r")
                && parts[1].dropFirst().allSatisfy { $0.isASCII && ($0.isUppercase || $0.isNumber) }
            guard isLanguage, parts.count == 1 || isRegion else {
                return .leftOut(
                    "\(folder): its qualifiers (\(qualifier)) are not only a locale; strings for a screen size, mode or API level are not imported"
                )
            }
            tag = canonicalLocale(parts.count == 2 ? "\(language)-\(parts[1].dropFirst())" : String(language))
        }
        guard let tag else { return .leftOut("\(folder): \(qualifier) is not a locale") }
        if tag == "und" || tag.hasPrefix("und-") {
            return .leftOut("\(folder): und is the undetermined language, which no device asks for")
        }
        if tag == "en-XA" || tag == "ar-XB" {
            return .leftOut("\(folder): a pseudolocale, which Android generates to test layouts, not a translation")
        }
        return .locale(tag)
    }

    /// The strings and plurals of one Android resource file, as aapt reads them.
    final class AndroidStrings: NSObject, XMLParserDelegate {
        /// The parser's complaint without Foundation's error domain, which tells a person nothing. The
        /// number is the parser's own (libxml2's on Linux) and differs between platforms, so it is
        /// given only to search for; the line and column say where.
        static func describe(_ error: Error?) -> String {
            guard let error = error as NSError? else { return "not well-formed XML" }
            return "not well-formed XML (XML parser error \(error.code))"
        }

        /// A value as written in the file (escapes and quotes not yet read): its text runs and the
        /// elements between them.
        enum Value {
            case string([Piece], formatted: Bool)
            case plural([String: [Piece]])

            /// The value in canonical ICU form.
            func icu(language: String, countsWith: Int? = nil) throws -> String {
                switch self {
                case .string(let pieces, formatted: false):
                    return Placeholders.literal(AndroidStrings.text(pieces))
                case .string(let pieces, formatted: true):
                    return try Placeholders.printfICU(AndroidStrings.text(pieces), dialect: .java)
                case .plural(let forms):
                    return try Placeholders.printfPlural(
                        forms.mapValues(AndroidStrings.text), dialect: .java, countsWith: countsWith, language: language
                    )
                }
            }
        }

        /// One piece of a value: text as written, or where an element inside it starts or ends. A
        /// span is an element without a namespace (`<b>`, `<annotation>`), which aapt2 keeps as
        /// style; `<xliff:g>` and other namespaced elements are not spans.
        enum Piece: Equatable {
            case text(String)
            case boundary(span: Bool)
        }

        var values: [(String, Value)] = []
        var skipped: [(String, String)] = []
        private var name: String?
        private var formatted = true
        private var quantity: String?
        private var forms: [String: [Piece]] = [:]
        private var pieces: [Piece] = []
        private var depth = 0
        private var inString = false
        private var inPlurals = false
        /// The depth of the <string> or <item> whose text is being read.
        private var textDepth = 0

        func parser(
            _ parser: XMLParser, didStartElement element: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            depth += 1
            if inString, depth > textDepth {
                pieces.append(.boundary(span: !element.contains(":")))
                return
            }
            guard depth == 2 || (depth == 3 && inPlurals && element == "item") else { return }
            switch element {
            case "string", "plurals":
                name = attributes["name"]
                formatted = attributes["formatted"] != "false"
                pieces = []
                forms = [:]
                inString = element == "string" && name != nil
                inPlurals = element == "plurals"
                textDepth = depth
                if attributes["translatable"] == "false" {
                    skipped.append((name ?? "?", "marked translatable=\"false\""))
                    name = nil
                    inString = false
                } else if let product = attributes["product"], product != "default", let key = name {
                    skipped.append(
                        (
                            key,
                            "the variant for product \"\(product)\"; a build for it is not what devices get by default"
                        ))
                    name = nil
                    inString = false
                }
            case "item" where name != nil:
                quantity = attributes["quantity"]
                pieces = []
                inString = true
                textDepth = depth
            case "string-array", "array", "integer-array":
                skipped.append((attributes["name"] ?? "?", "string arrays are not imported"))
            default:
                break
            }
        }

        private func append(_ text: String) {
            guard inString else { return }
            if case .text(let earlier) = pieces.last {
                pieces[pieces.count - 1] = .text(earlier + text)
            } else {
                pieces.append(.text(text))
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { append(string) }
        func parser(_ parser: XMLParser, foundCDATA data: Data) { append(String(decoding: data, as: UTF8.self)) }

        func parser(_ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?) {
            defer { depth -= 1 }
            if inString, depth > textDepth {
                pieces.append(.boundary(span: !element.contains(":")))
                return
            }
            switch (element, depth) {
            case ("string", 2):
                if let name { add(name, .string(pieces, formatted: formatted)) }
                name = nil
                inString = false
            case ("item", 3) where inPlurals:
                if let quantity { forms[quantity] = pieces }
                quantity = nil
                inString = false
            case ("plurals", 2):
                if let name, !forms.isEmpty { add(name, .plural(forms)) }
                name = nil
                inPlurals = false
            default:
                break
            }
        }

        /// A value that is a reference (`@string/other`) is that resource, resolved by aapt for the
        /// app: it has no text of its own to import. aapt2 looks for one in the value's text as
        /// written, trimmed of ASCII white space, unless the value has a span (then it is text).
        private func add(_ key: String, _ value: Value) {
            let raw: [[Piece]]
            switch value {
            case .string(let pieces, _): raw = [pieces]
            // In CLDR order, so the reference named is the same every run.
            case .plural(let forms): raw = Placeholders.pluralCategories(forms.keys).map { forms[$0]! }
            }
            let written = raw.filter { !$0.contains(.boundary(span: true)) }.map { pieces in
                Self.trimmed(pieces.map { if case .text(let t) = $0 { return t } else { return "" } }.joined())
            }
            if let reference = written.first(where: { $0.hasPrefix("@") || $0.hasPrefix("?") }), reference.contains("/")
            {
                skipped.append((key, "a reference to \(reference), not text"))
                return
            }
            values.append((key, value))
        }

        /// White space as aapt2 trims and collapses it: the ASCII characters C's `isspace` names. A
        /// no-break space (U+00A0, French typography's "Bonjour !"), U+202F, U+2009, U+3000 are text
        /// and are kept, as on a device.
        static func aaptSpace(_ c: Unicode.Scalar) -> Bool {
            c == " " || c == "\t" || c == "\n" || c == "\r" || c == "\u{0B}" || c == "\u{0C}"
        }

        static func trimmed(_ text: String) -> String {
            var scalars = Substring(text).unicodeScalars[...]
            while let first = scalars.first, aaptSpace(first) { scalars.removeFirst() }
            while let last = scalars.last, aaptSpace(last) { scalars.removeLast() }
            return String(scalars)
        }

        /// A value's text as aapt2 compiles it (ResourceParser::FlattenXmlSubtree, then
        /// StringBuilder::AppendText), on Unicode scalars, never on grapheme clusters (" " followed
        /// by U+0361 is a space and a combining mark):
        /// - a value without spans loses the ASCII white space at the start of its first text run
        ///   and at the end of its last, as written (before escapes are read); a value with a span
        ///   keeps both (collapsed to one space);
        /// - outside quotes, a run of ASCII white space is one space; `"` starts or ends a quoted
        ///   run (kept as written) and is itself dropped;
        /// - `\'` `\"` `\\` `\@` `\?` `\#` are the character, `\n` `\t` `\uXXXX` what they name,
        ///   `\` before anything else that thing, a `\` ending a text run nothing;
        /// - the start and end of a span end a quoted run and a run of white space, so a space on
        ///   each side of `<b>` is kept.
        /// Where aapt2 refuses the value (an apostrophe outside quotes, `\u` without four hex
        /// digits), import keeps what is written.
        static func text(_ pieces: [Piece]) -> String {
            var pieces = pieces
            if !pieces.contains(.boundary(span: true)) {
                if let first = pieces.firstIndex(where: { if case .text = $0 { true } else { false } }),
                    case .text(let run) = pieces[first]
                {
                    pieces[first] = .text(String(run.unicodeScalars.drop(while: aaptSpace)))
                }
                if let last = pieces.lastIndex(where: { if case .text = $0 { true } else { false } }),
                    case .text(let run) = pieces[last]
                {
                    let scalars = run.unicodeScalars
                    let end = scalars.lastIndex(where: { !aaptSpace($0) }).map { scalars.index(after: $0) }
                    pieces[last] = .text(String(scalars[..<(end ?? scalars.startIndex)]))
                }
            }
            var builder = TextBuilder()
            for piece in pieces {
                switch piece {
                case .text(let run): builder.append(run)
                case .boundary(span: true): builder.reset()
                case .boundary(span: false): break
                }
            }
            return String(builder.out)
        }

        /// aapt2's StringBuilder: escapes, quotes and white space, one text run at a time.
        struct TextBuilder {
            var out = String.UnicodeScalarView()
            var quoted = false
            var lastWasSpace = false

            mutating func reset() {
                quoted = false
                lastWasSpace = false
            }

            mutating func append(_ run: String) {
                var scalars = Array(run.unicodeScalars)[...]
                while let c = scalars.popFirst() {
                    if !quoted, AndroidStrings.aaptSpace(c) {
                        if !lastWasSpace { out.append(" ") }
                        lastWasSpace = true
                        continue
                    }
                    lastWasSpace = false
                    if c == "\\" {
                        guard let next = scalars.popFirst() else { break }
                        switch next {
                        case "n": out.append("\n")
                        case "t": out.append("\t")
                        case "u":
                            let hex = scalars.prefix(4)
                            let digits = String(String.UnicodeScalarView(hex))
                            if hex.count == 4, hex.allSatisfy({ $0.properties.isASCIIHexDigit }),
                                let scalar = UInt32(digits, radix: 16).flatMap(Unicode.Scalar.init)
                            {
                                out.append(scalar)
                                scalars = scalars.dropFirst(4)
                            } else {
                                out.append("u")
                            }
                        default: out.append(next)
                        }
                    } else if c == "\"" {
                        quoted.toggle()
                    } else {
                        out.append(c)
                    }
                }
            }
        }
    }
}

extension RolloutError {
    /// A strings file that XMLParser could not read, at the place it stopped.
    fileprivate static func unreadableXML(_ file: String, _ parser: XMLParser) -> RolloutError {
        .badInput(
            "\(file):\(parser.lineNumber):\(parser.columnNumber): \(CatalogImporter.AndroidStrings.describe(parser.parserError))"
        )
    }
}
