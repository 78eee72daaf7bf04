import Foundation
import RolloutModel

/// The strings an app ships in its bundle, read from the catalogs the app already has, in one call
/// at launch (docs/client.md, "Bundled strings"): locale -> key -> text in the form packs use (ICU
/// MessageFormat, as `rollout pack import` writes it), so a pack and the bundle take the same
/// arguments for a key.
///
/// Loading never fails and never stops at a bad file: whatever cannot be read is listed in
/// `problems` (file, key, why) and everything else is loaded.
public struct BundledStrings: Equatable, Sendable {
    /// Something the loader left out, and why.
    public struct Problem: Equatable, Sendable, CustomStringConvertible {
        /// The file, relative to what was loaded (`tr.lproj/Localizable.strings`).
        public let file: String
        /// The key, when only that key was left out; nil when the whole file was.
        public let key: String?
        public let reason: String

        public init(file: String, key: String? = nil, reason: String) {
            self.file = file
            self.key = key
            self.reason = reason
        }

        public var description: String { key.map { "\(file): \($0): \(reason)" } ?? "\(file): \(reason)" }
    }

    /// Locale (canonical BCP 47: `pt-BR`, `zh-Hans`) -> key -> text.
    public private(set) var strings: [String: [String: String]]
    public private(set) var problems: [Problem] = []

    /// Strings the app already holds, taken as they are.
    public init(_ strings: [String: [String: String]] = [:]) {
        self.strings = strings
    }

    /// The locales that have strings, sorted.
    public var locales: [String] { strings.keys.sorted() }

    public subscript(locale: String) -> [String: String]? { strings[locale] }

    /// The table `locale` reads: its own, else that of its nearest shorter form, as iOS picks
    /// `en.lproj` for a device in en-US (`zh-Hant-TW` reads `zh-Hant`, then `zh`).
    public func table(for locale: String) -> [String: String]? {
        if let own = strings[locale] { return own }
        guard let tag = try? LocaleTag.parse(locale) else { return nil }
        return tag.truncationParents.lazy.compactMap { strings[$0] }.first
    }

    /// The text of `key` for `locale`, from `table(for:)`; nil when missing or empty.
    public func text(_ key: String, locale: String) -> String? {
        guard let value = table(for: locale)?[key], !value.isEmpty else { return nil }
        return value
    }

    /// The tables keyed by `locales` as well, each filled from `table(for:)` when the bundle has
    /// no table of that exact name: what a lookup by exact locale needs.
    public func expanded(for locales: [String]) -> [String: [String: String]] {
        var result = strings
        for locale in locales where result[locale] == nil {
            result[locale] = table(for: locale)
        }
        return result
    }

    // MARK: - Building

    /// Adds `text` unless `locale` already has `key` from an earlier file (`pt_BR.lproj` and
    /// `pt-BR.lproj` both present): the first is kept, and a different second is listed.
    /// Adds text a catalog reader converted to the pack form, every `%` in which is text: written so
    /// the pack shows it as itself (`PackPrintf.literalPercents`, the importer's rule).
    mutating func addConverted(_ locale: String, _ key: String, _ text: String, file: String) {
        add(locale, key, PackPrintf.literalPercents(text), file: file)
    }

    mutating func add(_ locale: String, _ key: String, _ text: String, file: String) {
        if let first = strings[locale]?[key] {
            if first != text {
                problem(file, key, "\(locale) has this key from an earlier file already: the first is kept")
            }
            return
        }
        strings[locale, default: [:]][key] = text
    }

    mutating func problem(_ file: String, _ key: String?, _ reason: String) {
        problems.append(Problem(file: file, key: key, reason: reason))
    }

    mutating func problem(_ file: String, _ reason: String) { problem(file, nil, reason) }

    /// Another load's strings and problems, its keys under the ones already here.
    mutating func absorb(_ other: BundledStrings, locale rename: ((String) -> String)? = nil) {
        problems += other.problems
        for (locale, table) in other.strings {
            let target = rename?(locale) ?? locale
            strings[target] = (strings[target] ?? [:]).merging(table) { mine, _ in mine }
        }
    }
}
