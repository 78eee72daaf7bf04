import RolloutModel

/// One app version: numeric components such as `4.8.1` (`AppVersion.init`).
extension AppVersion: ArgumentValue {
    package static func argument(_ text: String, flag: String) throws -> AppVersion {
        guard let version = AppVersion(text) else {
            throw RolloutError.usage("\(flag) \"\(text)\" is not a numeric app version such as 4.8.1")
        }
        return version
    }
}
