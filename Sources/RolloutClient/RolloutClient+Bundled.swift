import Foundation

extension RolloutClient {
    /// A client whose bundled strings are the app's own catalogs, loaded with `BundledStrings`
    /// (`BundledStrings(bundle: .main)` at launch). A locale the bundle has no table of its own for
    /// reads its shorter form's (`en-US` reads `en.lproj`), as iOS does.
    public convenience init(
        bundled: BundledStrings, cacheDirectory: URL, manifestURL: URL, publicKey: String, appVersion: String, region: String,
        locale: String, options: Options = Options()
    ) {
        self.init(
            bundled: bundled.expanded(for: [locale, options.defaultLocale]), cacheDirectory: cacheDirectory, manifestURL: manifestURL,
            publicKey: publicKey, appVersion: appVersion, region: region, locale: locale, options: options)
    }
}
