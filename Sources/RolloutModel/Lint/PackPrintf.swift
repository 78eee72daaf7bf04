/// The pack's printf, read one way by lint and by both clients (docs/pack-format.md, "Message
/// syntax"), so that what lint passes is what a device shows: `%%` is one percent sign; a
/// specifier is `%[N$][#0][width][.precision][hlLqjzt]conversion` with a conversion apps pass UI
/// text through (`@ d D i u U f F s S`); any other `%` is text (`50% off`, `100%ekstra`). Read as
/// Unicode scalars, as the platforms' printf reads it: `%2$s` followed by a zero-width non-joiner
/// is a specifier. Only strings without ICU arguments are read as printf (`MessageStyle`).
public enum PackPrintf {
    public enum Token: Equatable, Sendable {
        /// `%%`: one percent sign.
        case percent
        /// A specifier: its written 1-based position, if any, and its conversion with `i`, `u`,
        /// `D` and `U` folded into `d`.
        case specifier(position: Int?, conversion: Unicode.Scalar)
    }

    /// The scalars a specifier is made of after its `%`: when gathering scalars to read, one
    /// outside this set ends any specifier.
    public static let alphabet: Set<Unicode.Scalar> = Set("0123456789$#.hlLqjzt@dDiuUfFsS%".unicodeScalars)

    /// What the `%` at `start` of `s` starts, and the index just after it; nil when it is text.
    public static func read(_ s: [Unicode.Scalar], at start: Int) -> (token: Token, end: Int)? {
        guard start + 1 < s.count, s[start] == "%" else { return nil }
        if s[start + 1] == "%" { return (.percent, start + 2) }
        var i = start + 1
        func digits() -> String {
            var text = ""
            while i < s.count, ("0"..."9").contains(s[i]) {
                text.unicodeScalars.append(s[i])
                i += 1
            }
            return text
        }
        var position: Int?
        let lead = digits()
        if !lead.isEmpty, i < s.count, s[i] == "$" {
            // A position too large for an Int is no argument an app passes: the `%` is text.
            guard let number = Int(lead) else { return nil }
            position = number
            i += 1
        } else {
            i = start + 1
        }
        // Zero-padding and width (%02d) only: a '-', '+' or space after '%' is far more often
        // text ("50% off", i18next's "{{percent}}%-ot") than a flag a UI string needs.
        while i < s.count, s[i] == "#" || s[i] == "0" { i += 1 }
        _ = digits()
        if i < s.count, s[i] == "." {
            i += 1
            _ = digits()
        }
        while i < s.count, "hlLqjzt".unicodeScalars.contains(s[i]) { i += 1 }
        guard i < s.count, "@dDiuUfFsS".unicodeScalars.contains(s[i]) else { return nil }
        let conversion: Unicode.Scalar = "iuDU".unicodeScalars.contains(s[i]) ? "d" : s[i]
        return (.specifier(position: position, conversion: conversion), i + 1)
    }

    /// `text`, all of whose percent signs are text, written so that the pack shows each as itself:
    /// in a string read as printf, every `%` that would start `%%` or a specifier is doubled
    /// (`%b %-d, %I:%M:%S %p` -> `%%b %-d, %I:%M:%%S %p`), the others kept as typed (`50% off`).
    /// A string with ICU arguments reads no printf, so it is returned as it is. Every importer
    /// writes literal percent signs through this (docs/import.md, "Percent signs").
    public static func literalPercents(_ text: String) -> String {
        guard text.unicodeScalars.contains("%"), MessageStyle(text).printf else { return text }
        let s = Array(text.unicodeScalars)
        var out = String.UnicodeScalarView()
        for i in s.indices {
            out.append(s[i])
            if s[i] == "%", read(s, at: i) != nil { out.append("%") }
        }
        return String(out)
    }
}
