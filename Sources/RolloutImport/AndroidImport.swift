import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import RolloutModel

extension CatalogImporter {
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
            return canonicalLocale(qualifier.dropFirst(2).replacingOccurrences(of: "+", with: "-"))
        }
        let parts = qualifier.split(separator: "-")
        guard let language = parts.first, language.count == 2 || language.count == 3, language.allSatisfy({ $0.isLowercase }) else { return nil }
        var tag = String(language)
        if parts.count > 1, parts[1].hasPrefix("r"), parts[1].count == 3 { tag += "-" + parts[1].dropFirst() }
        return canonicalLocale(tag)
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
}
