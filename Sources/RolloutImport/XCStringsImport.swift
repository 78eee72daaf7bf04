import Foundation
import RolloutModel

extension CatalogImporter {
    // MARK: Apple String Catalogs

    static func xcstrings(_ path: String) throws -> CatalogImport {
        let root = try json(path)
        var result = CatalogImport()
        let source = try root["sourceLanguage"]?.stringValue.map { try locale($0, in: path) }
        result.sourceLocale = source
        guard let strings = root["strings"]?.objectValue else {
            throw RolloutError.badInput("\(path): a String Catalog has a \"strings\" object")
        }
        for key in strings.keys.sorted() {
            guard let entry = strings[key]?.objectValue else { continue }
            let stale = entry["extractionState"]?.stringValue == "stale"
            let localizations = entry["localizations"]?.objectValue ?? [:]
            if entry["shouldTranslate"]?.boolValue == false {
                if let source { result.skip(source, key, "marked shouldTranslate false") }
                continue
            }
            if let source, !stale, !localizations.keys.contains(where: { (try? locale($0, in: path)) == source }) {
                result.skip(source, key, "no \(source) value: the key is the text the app shows")
            }
            for (name, value) in localizations {
                let tag = try locale(name, in: path)
                if stale {
                    result.skip(tag, key, "stale: no longer in the source code")
                    continue
                }
                guard let localization = value.objectValue else { continue }
                do {
                    if let text = try StringCatalogText.icu(localization, language: tag) { result.add(tag, key, text) }
                } catch let skip as StringCatalogText.Skip {
                    result.skip(tag, key, skip.reason)
                } catch let refusal as PrintfRefusal {
                    result.skip(tag, key, refusal.reason)
                }
            }
        }
        return result
    }
}
