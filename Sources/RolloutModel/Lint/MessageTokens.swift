/// A message as its syntax reads it: grapheme clusters, except that a syntax character ends the
/// cluster it starts. ICU, aapt and gen-l10n read code points, so `{1}` followed by a zero-width
/// non-joiner (Persian) is a placeholder and then a joiner, not one unknown character; as one
/// cluster, the brace would not close. RolloutClient (and MessageFormat.java, the kit's
/// formatting.json pins it) and the ARB importer split the same way.
public enum MessageTokens {
    /// The characters that are syntax in a message: braces, apostrophe, `#`, `%` and `,`.
    public static let syntax: Set<Unicode.Scalar> = ["{", "}", "'", "#", "%", ","]

    public static func split(_ text: String) -> [Character] {
        var out: [Character] = []
        for c in text {
            let scalars = c.unicodeScalars
            if scalars.count > 1, let first = scalars.first, syntax.contains(first) {
                out.append(Character(first))
                out.append(contentsOf: Array(String(String.UnicodeScalarView(scalars.dropFirst()))))
            } else {
                out.append(c)
            }
        }
        return out
    }
}
