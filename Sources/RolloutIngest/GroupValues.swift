import RolloutModel

/// The distinct values of one file's groups, each with its id (its index in the list).
struct GroupValues {
    struct TooMany: Error {
        let message: String
    }

    private(set) var days: [Int] = []
    private(set) var packs: [PackID] = []
    /// Each pack's locale id.
    private(set) var packLocales: [Int32] = []
    private(set) var locales: [String] = []
    private(set) var regions: [String] = []
    private(set) var apps: [String] = []
    private var dayIndices: [Int: Int32] = [:]
    private var packIndices: [PackID: Int32] = [:]
    private var localeIndices: [String: Int32] = [:]
    private var regionIndices: [String: Int32] = [:]
    private var appIndices: [String: Int32] = [:]

    private static func index<K: Hashable>(
        _ value: K, _ indices: inout [K: Int32], _ list: inout [K], limit: Int, what: String
    ) throws -> Int32 {
        if let known = indices[value] { return known }
        // Ids are Int32 (the meanings of spellings), and each must fit its field of the key.
        guard list.count < min(limit, Int(Int32.max)) else {
            throw TooMany(
                message: "more than \(min(limit, Int(Int32.max))) distinct \(what) in one file; "
                    + "split it into smaller files (by date, for example)")
        }
        let index = Int32(list.count)
        list.append(value)
        indices[value] = index
        return index
    }

    mutating func dayIndex(_ day: Int) throws -> Int32 {
        try GroupValues.index(day, &dayIndices, &days, limit: GroupKey.days, what: "dates")
    }
    mutating func regionIndex(_ region: String) throws -> Int32 {
        try GroupValues.index(region, &regionIndices, &regions, limit: GroupKey.regions, what: "regions")
    }
    mutating func appIndex(_ version: String) throws -> Int32 {
        try GroupValues.index(version, &appIndices, &apps, limit: GroupKey.apps, what: "app versions")
    }
    mutating func packIndex(_ pack: PackID) throws -> Int32 {
        if let known = packIndices[pack] { return known }
        let locale = try GroupValues.index(
            pack.locale, &localeIndices, &locales, limit: GroupKey.locales, what: "locales")
        let index = try GroupValues.index(pack, &packIndices, &packs, limit: GroupKey.packs, what: "packs")
        packLocales.append(locale)
        return index
    }

    func key(low: UInt64, pack: Int) -> MetricRollup.Key {
        MetricRollup.Key(
            contentVersion: packs[pack].contentVersion, region: regions[GroupKey.region(low)],
            appVersion: apps[GroupKey.app(low)])
    }
}
