import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import RolloutModel

/// Strings from the catalogs apps keep (docs/import.md): Apple String Catalogs, Android resources,
/// i18next JSON v4 and Flutter ARB, per locale, in the pack's canonical ICU form.
public enum CatalogFormat: String, CaseIterable, Sendable {
    case xcstrings, android, i18next, arb

    /// The format a path looks like: a `.xcstrings` or `.arb` file, a `res` directory with
    /// `values*/strings.xml`, a directory of `.arb` files, or a directory of i18next JSON.
    public static func detect(_ path: String) -> CatalogFormat? {
        if path.hasSuffix(".xcstrings") { return .xcstrings }
        if path.hasSuffix(".arb") { return .arb }
        if path.hasSuffix("strings.xml") { return .android }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            return path.hasSuffix(".json") ? .i18next : nil
        }
        let children = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        if children.contains(where: { $0 == "values" || $0.hasPrefix("values-") }) { return .android }
        if children.contains(where: { $0.hasSuffix(".arb") }) { return .arb }
        if children.contains(where: { $0.hasSuffix(".json") }) || children.contains(where: { (try? LocaleTag.parse($0)) != nil }) { return .i18next }
        return nil
    }
}

public struct CatalogImport: Sendable {
    public struct Skipped: Sendable, Equatable {
        public let locale: String
        public let key: String
        public let reason: String
    }

    /// Locale -> key -> text, canonical.
    public var strings: [String: [String: String]] = [:]
    public var skipped: [Skipped] = []
    /// The catalog's development language, when it says (xcstrings' sourceLanguage).
    public var sourceLocale: String?

    mutating func add(_ locale: String, _ key: String, _ text: String) { strings[locale, default: [:]][key] = text }
    mutating func skip(_ locale: String, _ key: String, _ reason: String) { skipped.append(Skipped(locale: locale, key: key, reason: reason)) }
}

public enum CatalogImporter {
    public static func read(_ path: String, format: CatalogFormat, sourceLocale: String) throws -> CatalogImport {
        switch format {
        case .xcstrings: return try xcstrings(path)
        case .android: return try android(path, sourceLocale: sourceLocale)
        case .i18next: return try i18next(path)
        case .arb: return try arb(path)
        }
    }

    static func bytes(_ path: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else { throw RolloutError.missing("\(path): no such file, or it cannot be read") }
        return [UInt8](data)
    }

    static func json(_ path: String) throws -> [String: JSONValue] {
        let value: JSONValue
        do { value = try StrictJSONParser.parse(try bytes(path)) } catch let error as JSONParseError {
            throw RolloutError.badInput("\(path):\(error.line):\(error.column): \(error.message)")
        }
        guard let object = value.objectValue else { throw RolloutError.badInput("\(path): expected a JSON object") }
        return object
    }

    static func locale(_ text: String, in path: String) throws -> String {
        do { return try LocaleTag.parse(text).description } catch {
            throw RolloutError.badInput("\(path): \"\(text)\" is not a BCP 47 locale such as tr-TR")
        }
    }

    // MARK: Apple String Catalogs

    static func xcstrings(_ path: String) throws -> CatalogImport {
        let root = try json(path)
        var result = CatalogImport()
        result.sourceLocale = try root["sourceLanguage"]?.stringValue.map { try locale($0, in: path) }
        guard let strings = root["strings"]?.objectValue else { throw RolloutError.badInput("\(path): a String Catalog has a \"strings\" object") }
        for key in strings.keys.sorted() {
            guard let entry = strings[key]?.objectValue else { continue }
            let stale = entry["extractionState"]?.stringValue == "stale"
            if entry["shouldTranslate"]?.boolValue == false { continue }
            for (name, value) in entry["localizations"]?.objectValue ?? [:] {
                let tag = try locale(name, in: path)
                if stale { result.skip(tag, key, "stale: no longer in the source code"); continue }
                guard let localization = value.objectValue else { continue }
                do {
                    if let text = try xcstringsText(localization, key: key) { result.add(tag, key, text) }
                } catch let reason as SkipReason {
                    result.skip(tag, key, reason.text)
                }
            }
        }
        return result
    }

    struct SkipReason: Error { let text: String }

    /// A localization's text: a string unit, plural variations, or substitutions (each with its own
    /// plural variations) woven into the main string.
    static func xcstringsText(_ localization: [String: JSONValue], key: String) throws -> String? {
        func unit(_ value: JSONValue?) throws -> String? {
            guard let unit = value?.objectValue?["stringUnit"]?.objectValue, let text = unit["value"]?.stringValue else { return nil }
            switch unit["state"]?.stringValue ?? "translated" {
            case "translated": return text
            case "needs_review": throw SkipReason(text: "needs review")
            case "new": throw SkipReason(text: "not translated")
            case "stale": throw SkipReason(text: "stale")
            case let other: throw SkipReason(text: "state \(other)")
            }
        }
        func pluralForms(_ variations: JSONValue?) throws -> [String: String]? {
            guard let plural = variations?.objectValue?["plural"]?.objectValue else {
                if variations?.objectValue?["device"] != nil { throw SkipReason(text: "device variations are not imported") }
                return nil
            }
            var forms: [String: String] = [:]
            for (category, value) in plural { if let text = try unit(value) { forms[category] = text } }
            return forms
        }
        var main: String
        if let text = try unit(.object(localization)) {
            main = text
        } else if let forms = try pluralForms(localization["variations"]) {
            return forms.isEmpty ? nil : Placeholders.plural(forms)
        } else {
            return nil
        }
        // `%#@files@` names a substitution: an argument with plural forms of its own.
        var tokens: [(String, String)] = []
        for (name, value) in localization["substitutions"]?.objectValue ?? [:] {
            guard let substitution = value.objectValue, let forms = try pluralForms(substitution["variations"]) else { continue }
            let argument = (substitution["argNum"]?.integerValue ?? 1) - 1
            let specifier = substitution["formatSpecifier"]?.stringValue ?? "lld"
            let written = forms.mapValues { $0.replacingOccurrences(of: "%arg", with: "%\(argument + 1)$\(specifier)") }
            let token = "\u{E000}\(tokens.count)\u{E001}"
            main = main.replacingOccurrences(of: "%#@\(name)@", with: token)
            tokens.append((token, Placeholders.plural(written)))
        }
        var text = Placeholders.canonical(main)
        for (token, plural) in tokens { text = text.replacingOccurrences(of: token, with: plural) }
        return text
    }

    // MARK: Android resources

    /// `res/values/strings.xml` is the source locale; `values-tr`, `values-tr-rTR`, `values-b+sr+Latn`
    /// the others. Other qualifiers (`values-night`, `values-v21`) are not locales and are skipped.
    static func android(_ path: String, sourceLocale: String) throws -> CatalogImport {
        var files: [(locale: String, file: String)] = []
        if path.hasSuffix(".xml") {
            files = [(sourceLocale, path)]
        } else {
            for folder in ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() {
                let file = "\(path)/\(folder)/strings.xml"
                guard FileManager.default.fileExists(atPath: file), let tag = androidLocale(folder, source: sourceLocale) else { continue }
                files.append((tag, file))
            }
        }
        guard !files.isEmpty else { throw RolloutError.missing("\(path): no values*/strings.xml in it") }
        var result = CatalogImport()
        result.sourceLocale = sourceLocale
        for (tag, file) in files {
            let reader = AndroidStrings(file: file)
            let parser = XMLParser(data: Data(try bytes(file)))
            parser.delegate = reader
            guard parser.parse() else {
                throw RolloutError.badInput("\(file):\(parser.lineNumber):\(parser.columnNumber): \(AndroidStrings.describe(parser.parserError))")
            }
            for (key, text) in reader.strings { result.add(tag, key, Placeholders.canonical(AndroidStrings.unescape(text))) }
            for (key, forms) in reader.plurals { result.add(tag, key, Placeholders.plural(forms.mapValues(AndroidStrings.unescape))) }
            for (key, reason) in reader.skipped { result.skip(tag, key, reason) }
        }
        return result
    }

    static func androidLocale(_ folder: String, source: String) -> String? {
        if folder == "values" { return source }
        guard folder.hasPrefix("values-") else { return nil }
        let qualifier = String(folder.dropFirst(7))
        if qualifier.hasPrefix("b+") {
            return try? LocaleTag.parse(qualifier.dropFirst(2).replacingOccurrences(of: "+", with: "-")).description
        }
        let parts = qualifier.split(separator: "-")
        guard let language = parts.first, language.count == 2 || language.count == 3, language.allSatisfy({ $0.isLowercase }) else { return nil }
        var tag = String(language)
        if parts.count > 1, parts[1].hasPrefix("r"), parts[1].count == 3 { tag += "-" + parts[1].dropFirst() }
        return try? LocaleTag.parse(tag).description
    }

    final class AndroidStrings: NSObject, XMLParserDelegate {
        /// The parser's complaint without Foundation's error domain, which tells a person nothing. The
        /// number is the parser's own (libxml2's on Linux) and differs between platforms, so it is
        /// given only to search for; the line and column say where.
        static func describe(_ error: Error?) -> String {
            guard let error = error as NSError? else { return "not well-formed XML" }
            return "not well-formed XML (XML parser error \(error.code))"
        }

        let file: String
        var strings: [(String, String)] = []
        var plurals: [(String, [String: String])] = []
        var skipped: [(String, String)] = []
        private var name: String?
        private var quantity: String?
        private var forms: [String: String] = [:]
        private var text = ""
        private var depth = 0
        private var inString = false

        init(file: String) { self.file = file }

        func parser(_ parser: XMLParser, didStartElement element: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
            depth += 1
            switch element {
            case "string" where depth == 2:
                name = attributes["name"]
                if attributes["translatable"] == "false" { skipped.append((name ?? "?", "marked translatable=\"false\"")); name = nil }
                text = ""
                inString = name != nil
            case "plurals" where depth == 2:
                name = attributes["name"]
                forms = [:]
            case "item" where depth == 3 && name != nil:
                quantity = attributes["quantity"]
                text = ""
                inString = true
            case "string-array" where depth == 2:
                skipped.append((attributes["name"] ?? "?", "string arrays are not imported"))
            default:
                break  // <xliff:g> and other inline markup: their text is part of the string
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { if inString { text += string } }
        func parser(_ parser: XMLParser, foundCDATA data: Data) { if inString { text += String(decoding: data, as: UTF8.self) } }

        func parser(_ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?) {
            defer { depth -= 1 }
            switch element {
            case "string" where depth == 2:
                if let name { strings.append((name, text)) }
                name = nil
                inString = false
            case "item" where depth == 3:
                if let quantity { forms[quantity] = text }
                quantity = nil
                inString = false
            case "plurals" where depth == 2:
                if let name, !forms.isEmpty { plurals.append((name, forms)) }
                name = nil
            default:
                break
            }
        }

        /// Android's escapes: a value in double quotes keeps its spaces; \' \" \\ \n \t \@ \? and \uXXXX.
        static func unescape(_ raw: String) -> String {
            var value = raw
            let quoted = value.count >= 2 && value.hasPrefix("\"") && value.hasSuffix("\"")
            if quoted {
                value = String(value.dropFirst().dropLast())
            } else {
                value = value.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }).joined(separator: " ")
            }
            var out = ""
            var characters = Array(value)[...]
            while let c = characters.popFirst() {
                guard c == "\\", let next = characters.popFirst() else {
                    if c != "\"" || quoted { out.append(c) }
                    continue
                }
                switch next {
                case "n": out.append("\n")
                case "t": out.append("\t")
                case "u":
                    let hex = String(characters.prefix(4))
                    if hex.count == 4, let scalar = UInt32(hex, radix: 16).flatMap(Unicode.Scalar.init) {
                        out.unicodeScalars.append(scalar)
                        characters = characters.dropFirst(4)
                    } else {
                        out.append("u")
                    }
                default: out.append(next)
                }
            }
            return out
        }
    }

    // MARK: i18next JSON v4

    /// `locales/<lng>/<namespace>.json` (keys prefixed with the namespace unless it is
    /// `translation`) or `locales/<lng>.json`. Nested objects join with ".". `_zero`..`_other`
    /// suffixes are plural forms of `count`; `{{name}}` becomes `{name}`.
    static func i18next(_ path: String) throws -> CatalogImport {
        var files: [(locale: String, prefix: String, file: String)] = []
        var isDirectory: ObjCBool = false
        FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        if !isDirectory.boolValue {
            let stem = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
            files = [(try locale(stem, in: path), "", path)]
        } else {
            for entry in ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() {
                let full = "\(path)/\(entry)"
                if entry.hasSuffix(".json") {
                    files.append((try locale(String(entry.dropLast(5)), in: full), "", full))
                } else if let tag = try? LocaleTag.parse(entry).description {
                    for file in ((try? FileManager.default.contentsOfDirectory(atPath: full)) ?? []).sorted() where file.hasSuffix(".json") {
                        let namespace = String(file.dropLast(5))
                        files.append((tag, namespace == "translation" ? "" : namespace + ".", "\(full)/\(file)"))
                    }
                }
            }
        }
        guard !files.isEmpty else { throw RolloutError.missing("\(path): no i18next JSON files in it") }
        var result = CatalogImport()
        let categories = ["zero", "one", "two", "few", "many", "other"]
        for (tag, prefix, file) in files {
            var flat: [String: String] = [:]
            func walk(_ value: JSONValue, _ key: String) {
                if let object = value.objectValue {
                    for (name, child) in object { walk(child, key.isEmpty ? name : "\(key).\(name)") }
                } else if let text = value.stringValue {
                    flat[key] = text
                } else {
                    result.skip(tag, prefix + key, "not a string (arrays and numbers are not imported)")
                }
            }
            walk(.object(try json(file)), "")
            var plurals: [String: [String: String]] = [:]
            for (key, text) in flat {
                if let category = categories.first(where: { key.hasSuffix("_" + $0) }) {
                    plurals[String(key.dropLast(category.count + 1)), default: [:]][category] = text
                } else {
                    result.add(tag, prefix + key, Placeholders.templates(text))
                }
            }
            for (key, forms) in plurals {
                result.add(tag, prefix + key, forms["other"] == nil ? Placeholders.templates(forms.values.first!) : Placeholders.plural(forms, namedArgument: "count"))
            }
        }
        return result
    }

    // MARK: Flutter ARB

    /// `app_en.arb`, `app_tr_TR.arb` (or `@@locale` inside): values are ICU already; `@key` and
    /// `@@` entries are metadata.
    static func arb(_ path: String) throws -> CatalogImport {
        var isDirectory: ObjCBool = false
        FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        let files = isDirectory.boolValue
            ? ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).filter { $0.hasSuffix(".arb") }.sorted().map { "\(path)/\($0)" }
            : [path]
        guard !files.isEmpty else { throw RolloutError.missing("\(path): no .arb files in it") }
        var result = CatalogImport()
        for file in files {
            let object = try json(file)
            let stem = ((file as NSString).lastPathComponent as NSString).deletingPathExtension
            let suffix = stem.split(separator: "_").dropFirst().joined(separator: "-")
            guard let name = object["@@locale"]?.stringValue ?? (suffix.isEmpty ? nil : suffix) else {
                throw RolloutError.badInput("\(file): no @@locale and no locale in the file name (app_tr_TR.arb)")
            }
            let tag = try locale(name.replacingOccurrences(of: "_", with: "-"), in: file)
            for (key, value) in object where !key.hasPrefix("@") {
                guard let text = value.stringValue else { result.skip(tag, key, "not a string"); continue }
                if object["@\(key)"]?.objectValue?["x-state"]?.stringValue == "needs-review" { result.skip(tag, key, "needs review"); continue }
                result.add(tag, key, Placeholders.templates(text))
            }
        }
        return result
    }
}
