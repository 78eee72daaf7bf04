import Foundation
import RolloutModel

extension CatalogImporter {
    // MARK: Apple String Catalogs

    /// A String Catalog as Xcode builds it (docs/import.md, "String Catalogs"): the development
    /// language (`sourceLanguage`) has every key, its value in any state or else the key itself
    /// (`StringCatalogText.developmentText`); a translation is taken when `translated`, and one in
    /// another state is left out and listed, so the device shows the app's own bundled text for it.
    static func xcstrings(_ path: String) throws -> CatalogImport {
        let root = try json(path)
        var result = CatalogImport()
        let source = try root["sourceLanguage"]?.stringValue.map { try locale($0, in: path) }
        result.sourceLocale = source
        guard let strings = root["strings"]?.objectValue else {
            throw RolloutError.badInput("\(path): a String Catalog has a \"strings\" object")
        }
        if let source { result.strings[source] = [:] }
        for key in strings.keys.sorted() {
            guard let entry = strings[key]?.objectValue else { continue }
            let named = (entry["localizations"]?.objectValue ?? [:]).sorted { $0.key < $1.key }
            // By canonical locale, every spelling kept (`pt_BR` and `pt-BR`): a second one that
            // says otherwise is listed by `add`, never dropped silently.
            let localizations = try named.compactMap { name, value in
                try value.objectValue.map { (try locale(name, in: path), $0) }
            }
            result.readEntry(key, entry, localizations, source: source)
        }
        return result
    }
}

extension CatalogImport {
    /// One key of a String Catalog, its localizations by canonical locale.
    fileprivate mutating func readEntry(
        _ key: String, _ entry: [String: JSONValue], _ localizations: [(String, [String: JSONValue])], source: String?
    ) {
        // Every locale the key has text in, the development language's included (its text is the
        // key when it has no value), so whatever is left out is listed for each of them.
        let locales = Set(localizations.map(\.0)).union(source.map { [$0] } ?? []).sorted()
        // A locale the catalog has is read even when all its strings are left out: it makes no
        // pack, and a refusal says its strings were left out rather than that it is missing.
        for tag in locales where strings[tag] == nil { strings[tag] = [:] }
        if entry["extractionState"]?.stringValue == "stale" {
            for tag in locales { skip(tag, key, "stale: no longer in the source code") }
            return
        }
        if entry["shouldTranslate"]?.boolValue == false {
            for tag in locales { skip(tag, key, "marked shouldTranslate false") }
            return
        }
        for (tag, localization) in localizations {
            take(tag, key) {
                tag == source
                    ? try StringCatalogText.developmentText(key: key, localization, language: tag)
                    : try StringCatalogText.icu(localization, language: tag)
            }
        }
        if let source, !localizations.contains(where: { $0.0 == source }) {
            take(source, key) { try StringCatalogText.developmentText(key: key, nil, language: source) }
        }
    }

    /// Adds the text `read` gives, or lists why there is none to take.
    private mutating func take(_ locale: String, _ key: String, _ read: () throws -> String?) {
        do {
            if let text = try read() { add(locale, key, text) }
        } catch let skip as StringCatalogText.Skip {
            self.skip(locale, key, skip.reason)
        } catch let refusal as PrintfRefusal {
            self.skip(locale, key, refusal.reason)
        } catch {
            self.skip(locale, key, "\(error)")
        }
    }
}
