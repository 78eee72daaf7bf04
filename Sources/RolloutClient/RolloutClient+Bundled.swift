import Foundation

extension RolloutClient {
    /// A client given the bundled strings as a dictionary (locale -> key -> text) the app already
    /// holds; `BundledStrings(bundle: .main)` reads them from the app's own catalogs instead.
    public convenience init(
        bundled: [String: [String: String]], cacheDirectory: URL, manifestURL: URL, publicKey: String,
        appVersion: String,
        region: String, locale: String, options: Options = Options()
    ) {
        self.init(
            bundled: BundledStrings(bundled), cacheDirectory: cacheDirectory, manifestURL: manifestURL,
            publicKey: publicKey,
            appVersion: appVersion, region: region, locale: locale, options: options)
    }

    /// The same, for an app on a key list (`init(bundled:cacheDirectory:manifestURL:trust:...)`).
    public convenience init(
        bundled: [String: [String: String]], cacheDirectory: URL, manifestURL: URL, trust: Trust, appVersion: String,
        region: String, locale: String, options: Options = Options()
    ) {
        self.init(
            bundled: BundledStrings(bundled), cacheDirectory: cacheDirectory, manifestURL: manifestURL, trust: trust,
            appVersion: appVersion, region: region, locale: locale, options: options)
    }
}
