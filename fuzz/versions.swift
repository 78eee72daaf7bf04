// libFuzzer target: the small text parsers of the command line and the plan: AppVersion,
// VersionRange, Percent, Region, LocaleTag, PackID, Timestamp and KeyPattern. Build and run with
// fuzz/run.sh; docs/reliability.md, "Fuzzing".
//
// The input is read as UTF-8 (invalid bytes become U+FFFD). Every parser gets the whole text; the
// text is also split at its first line feed into A and B for the checks that take two values.
// Invariants:
//   AppVersion   1 to 8 components, each 0...999_999_999; description is the text; the normalized
//                spelling parses to an equal version with the same hash; ==, < and > agree
//                (exactly one holds) and equal versions hash alike.
//   VersionRange parse throws only RolloutError.usage; the description parses back to the same set
//                of versions and the same description; a range overlaps itself; two ranges that
//                both contain a version overlap (both ways); an inclusive bound is contained.
//   Percent      0...10000 basis points; the description parses back to the same percent.
//   Region       the result is "*" or an assigned code, parses to itself, and is the input in
//                upper case (two ASCII letters).
//   LocaleTag    description is the text; every truncation parent parses.
//   PackID       the description parses back to the same id.
//   Timestamp    the description parses back to the same moment.
//   KeyPattern   matching never traps; a pattern without * or ? matches itself.
import RolloutModel

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzVersions(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let halves = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
    let a = halves[0]
    let b = halves.count > 1 ? halves[1] : ""

    for t in Set([text, a, b]) {
        checkVersion(t)
        checkPercent(t)
        checkRegion(t)
        checkLocale(t)
        checkPackID(t)
        checkTimestamp(t)
    }
    let va = checkVersion(a)
    let vb = checkVersion(b)
    if let va, let vb { checkOrder(va, vb) }
    let ra = checkRange(a)
    let rb = checkRange(b)
    _ = checkRange(text)
    if let ra, let rb {
        require(ra.overlaps(rb) == rb.overlaps(ra), "overlaps is not symmetric for \(show(a)) and \(show(b))")
        for v in [va, vb, ra.lower?.version, ra.upper?.version, rb.lower?.version, rb.upper?.version].compactMap({ $0 })
        where ra.contains(v) && rb.contains(v) {
            require(ra.overlaps(rb), "\(show(a)) and \(show(b)) both contain \(v) but do not overlap")
        }
    }
    if let ra, let vb { _ = ra.contains(vb) }
    if let pattern = KeyPattern(a) {
        _ = pattern.matches(b)
        if !a.contains("*") && !a.contains("?") {
            require(pattern.matches(a), "pattern \(show(a)) does not match itself")
        }
    }
    return 0
}

@discardableResult
private func checkVersion(_ t: String) -> AppVersion? {
    guard let v = AppVersion(t) else { return nil }
    require(
        (1...AppVersion.maximumComponents).contains(v.components.count),
        "\(show(t)) has \(v.components.count) components")
    require(
        v.components.allSatisfy { (0...AppVersion.maximumComponentValue).contains($0) },
        "\(show(t)) has a component out of range")
    require(v.description == t, "the description of \(show(t)) is \(show(v.description))")
    guard let normal = AppVersion(v.normalized) else {
        require(false, "the normalized spelling \(v.normalized) of \(show(t)) does not parse")
        return v
    }
    require(
        normal == v && normal.hashValue == v.hashValue && normal.normalized == v.normalized,
        "\(show(t)) and its normalized \(v.normalized) differ")
    require(AppVersion(components: v.components) == v, "\(show(t)) differs from its own components")
    require(AppVersion(v.family) != nil, "the family \(v.family) of \(show(t)) does not parse")
    return v
}

private func checkOrder(_ x: AppVersion, _ y: AppVersion) {
    let relations = [x < y, x == y, y < x].filter { $0 }.count
    require(relations == 1, "\(x) and \(y): <, == and > give \(x < y), \(x == y), \(y < x)")
    if x == y { require(x.hashValue == y.hashValue, "\(x) == \(y) but their hashes differ") }
    require((x <= y) == !(y < x), "<= and < disagree for \(x), \(y)")
}

@discardableResult
private func checkRange(_ t: String) -> VersionRange? {
    let r: VersionRange
    do {
        r = try VersionRange.parse(t)
    } catch let error as RolloutError {
        guard case .usage = error else {
            require(false, "VersionRange.parse threw \(error), not usage")
            return nil
        }
        return nil
    } catch {
        require(false, "VersionRange.parse threw a \(type(of: error))")
        return nil
    }
    guard let again = try? VersionRange.parse(r.description) else {
        require(false, "the description \(show(r.description)) of range \(show(t)) does not parse")
        return r
    }
    require(again.sameVersions(as: r), "range \(show(t)) and its description \(show(r.description)) differ")
    require(
        again.description == r.description,
        "range description \(show(r.description)) reads back as \(show(again.description))")
    require(r.overlaps(r), "range \(show(t)) does not overlap itself")
    if let lower = r.lower, lower.inclusive {
        require(r.contains(lower.version), "range \(show(t)) leaves out its lower bound")
    }
    if let upper = r.upper, upper.inclusive {
        require(r.contains(upper.version), "range \(show(t)) leaves out its upper bound")
    }
    if let lower = r.lower, !lower.inclusive {
        require(!r.contains(lower.version), "range \(show(t)) holds its exclusive lower bound")
    }
    if let upper = r.upper, !upper.inclusive {
        require(!r.contains(upper.version), "range \(show(t)) holds its exclusive upper bound")
    }
    return r
}

private func checkPercent(_ t: String) {
    guard let p = try? Percent.parse(t) else { return }
    require((0...10_000).contains(p.basisPoints), "percent \(show(t)) is \(p.basisPoints) basis points")
    require(
        (try? Percent.parse(p.description)) == p,
        "percent \(show(t)) prints as \(p.description), which does not read back")
}

private func checkRegion(_ t: String) {
    guard let region = try? Region.parse(t) else { return }
    require(region == Region.any || Region.assigned.contains(region), "region \(show(t)) gives \(region)")
    require((try? Region.parse(region)) == region, "region \(region) does not parse to itself")
    if region != Region.any {
        let ascii =
            t.utf8.count == 2
            && t.utf8.allSatisfy { ($0 | 0x20) >= UInt8(ascii: "a") && ($0 | 0x20) <= UInt8(ascii: "z") }
        require(
            ascii && t.uppercased() == region,
            "region \(show(t)) (\(t.utf8.count) UTF-8 bytes) is accepted as \(region)")
    }
}

private func checkLocale(_ t: String) {
    guard let tag = try? LocaleTag.parse(t) else { return }
    require(tag.description == t, "locale \(show(t)) prints as \(show(tag.description))")
    for parent in tag.truncationParents {
        require((try? LocaleTag.parse(parent)) != nil, "parent \(show(parent)) of \(show(t)) does not parse")
    }
}

private func checkPackID(_ t: String) {
    guard let id = try? PackID.parse(t) else { return }
    require(id.contentVersion >= 1, "pack id \(show(t)) has content version \(id.contentVersion)")
    require(
        (try? PackID.parse(id.description)) == id,
        "pack id \(show(t)) prints as \(show(id.description)), which does not read back")
}

private func checkTimestamp(_ t: String) {
    guard let time = Timestamp(iso8601: t) else { return }
    let again = Timestamp(iso8601: time.description)
    require(
        again == time,
        "time \(show(t)) prints as \(time.description), which reads back as \(again.map(\.description) ?? "nothing")")
}
