import RolloutImport
import RolloutModel

/// One of a fixed set of names (`--format xcstrings`, `--i18next-format icu`): an enum's raw values.
/// Completion offers them.
package protocol Choice: ArgumentValue, CaseIterable, RawRepresentable where RawValue == String {}

extension Choice {
    package static func argument(_ text: String, flag: String) throws -> Self {
        guard let choice = Self(rawValue: text) else {
            throw RolloutError.usage(
                "\(flag) \"\(text)\" is not one of \(allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return choice
    }

    package static var completion: ValueCompletion { .words(allCases.map(\.rawValue)) }
}

/// `pack import --format`.
extension CatalogFormat: Choice {}

/// `pack import --i18next-format`.
extension I18nextFormat: Choice {}
