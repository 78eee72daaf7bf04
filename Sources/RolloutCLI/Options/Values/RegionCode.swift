import RolloutModel

/// An ISO 3166-1 alpha-2 region, upper-cased (`tr` is `TR`), or `*` for every region (`Region.parse`).
package struct RegionCode: ArgumentValue, Hashable, Sendable {
    package let code: String

    /// `*`: a rule for every region; never a device's own region.
    package var isAny: Bool { code == Region.any }

    package static func argument(_ text: String, flag: String) throws -> RegionCode {
        RegionCode(code: try Region.parse(text))
    }
}
