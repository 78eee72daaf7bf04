// A stand-in for Apple's Darwin module: Glibc under Darwin's name. With it on the search path,
// `#if canImport(Darwin)` holds, so ApplePlatformTests compiles RolloutClient with the Darwin branch
// of every platform `#if` taken. That proves nothing outside those branches leans on Glibc being the
// one imported; it does not prove that Darwin's declarations match Glibc's (docs/client.md
// "Apple platforms").
@_exported import Glibc
