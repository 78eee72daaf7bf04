import Foundation
import RolloutModel

extension CatalogImporter {
    // MARK: Flutter ARB

    /// `app_en.arb`, `app_tr_TR.arb` (or `@@locale` inside): values are ICU already; `@key` and
    /// `@@` entries are metadata.
    static func arb(_ path: String, useEscaping: Bool?) throws -> CatalogImport {
        var isDirectory: ObjCBool = false
        _ = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
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
                // Flutter's gen-l10n reads ARB without ICU escaping unless l10n.yaml turns it on: an
                // apostrophe there is the character itself (docs/import.md, "Apostrophes").
                result.add(tag, key, text.replacingOccurrences(of: "'", with: "''"))
            }
        }
        return result
    }
}
