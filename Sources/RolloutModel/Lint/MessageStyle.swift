/// How a pack string's apostrophes and percent signs read: one rule for lint and for
/// RolloutClient, so what lint passes is what a device shows (docs/pack-format.md, "Message syntax").
///
/// - A string with a `{{name}}` template is in the seed's template form (seed 002): an apostrophe
///   is itself (`l'{{app}}`), as it was before packs held ICU.
/// - Any other string reads apostrophes as ICU's default mode does (`''` is one apostrophe; `'`
///   before `{`, `}` or a plural's `#` quotes), which is how every importer writes literal text.
/// - A string with an ICU argument (`{0}`, `{name}`, `{n, plural, ...}`) holds no printf: a `%` in
///   it is text (`{0, number}%ige`, `{percent}%-ot`). Printf (`%d`, `%1$@`) is read only in strings
///   without ICU arguments, as hand-written packs use it.
public struct MessageStyle: Equatable, Sendable {
    public let icuApostrophes: Bool
    public let printf: Bool

    public init(_ text: String) {
        let scalars = Array(text.unicodeScalars)
        var templates = false
        var arguments = false
        var i = 0
        while i < scalars.count {
            guard scalars[i] == "{" else {
                i += 1
                continue
            }
            if i + 1 < scalars.count, scalars[i + 1] == "{" {
                // `{{ name }}`: a template when a name and `}}` follow.
                var j = i + 2
                while j < scalars.count, scalars[j] == " " { j += 1 }
                let start = j
                while j < scalars.count, MessageStyle.isNameScalar(scalars[j]) { j += 1 }
                let named = j > start
                while j < scalars.count, scalars[j] == " " { j += 1 }
                if named, j + 1 < scalars.count, scalars[j] == "}", scalars[j + 1] == "}" {
                    templates = true
                    i = j + 2
                    continue
                }
                i += 2
                continue
            }
            var j = i + 1
            while j < scalars.count, scalars[j] == " " { j += 1 }
            // An ICU argument starts with a name or a number; a quoted '{' is preceded by an apostrophe.
            if j < scalars.count, MessageStyle.isNameScalar(scalars[j]), i == 0 || scalars[i - 1] != "'" {
                arguments = true
            }
            i += 1
        }
        icuApostrophes = !templates
        printf = !arguments
    }

    static func isNameScalar(_ c: Unicode.Scalar) -> Bool {
        c.properties.isAlphabetic || ("0"..."9").contains(c) || c == "_" || c == "." || c == "-"
    }
}
