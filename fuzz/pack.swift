// libFuzzer target: the pack parser (PackParser.parse over StrictJSONParser), the JCS writer, the
// checksum, the linter and PackDiff. Build and run with fuzz/run.sh; docs/reliability.md, "Fuzzing".
//
// Invariants checked on every input:
//   JSON   a document the strict parser accepts has a canonical form (RFC 8785) and a pretty form
//          that both parse back to an equal value, and the canonical form is a fixed point.
//   pack   parse throws only RolloutError.badInput; a pack accepted with its checksum verified is
//          accepted without verification too, with the same content; its checksum is well formed
//          and equals any checksum the file declared; its stored bytes parse back (checksum
//          verified) to the same stored bytes; its canonical bytes are a JSON fixed point; its id
//          prints as a PackID that parses back to the same id.
//   lint   PackLinter runs standalone and against a history (a previous version of the same
//          locale, a fallback pack, sometimes a fallback cycle) without trapping, and every
//          finding names the pack; PackDiff of a pack with itself is empty.
import RolloutModel

private let referenceStrings: [String: String] = [
    "checkout.pay": "{amount} öde",
    "files.count": "{count, plural, one {# dosya} other {# dosya}}",
    "cart.items": "Sepetinde %d ürün var",
    "legal.terms": "Koşullar",
    "home.title": "Ana sayfa {{name}}",
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPack(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = inputBytes(data, size)
    checkJSON(bytes)
    checkPack(bytes)
    return 0
}

private func checkJSON(_ bytes: [UInt8]) {
    guard let value = try? StrictJSONParser.parse(bytes) else { return }
    let canonical = JSONWriter.canonical(value)
    let again: JSONValue
    do { again = try StrictJSONParser.parse(canonical) } catch {
        require(false, "the canonical form \(show(canonical)) does not parse: \(error)")
        return
    }
    require(again == value, "the canonical form \(show(canonical)) parses to a different value")
    require(JSONWriter.canonical(again) == canonical, "the canonical form \(show(canonical)) is not a fixed point")
    let pretty = JSONWriter.pretty(value)
    require(
        (try? StrictJSONParser.parse(pretty)) == value,
        "the pretty form \(show(pretty)) does not parse back to the same value")
}

private func checkPack(_ bytes: [UInt8]) {
    let parsed: ParsedPack
    do {
        parsed = try PackParser.parse(bytes, source: "fuzz.json")
    } catch let error as RolloutError {
        guard case .badInput = error else {
            require(false, "PackParser threw \(error), not badInput")
            return
        }
        return
    } catch {
        require(false, "PackParser threw a \(type(of: error)): \(error)")
        return
    }
    let pack = parsed.pack
    let stored = pack.storedBytes

    let unverified = try? PackParser.parse(bytes, source: "fuzz.json", verifyChecksum: false)
    require(
        unverified?.pack.storedBytes == stored, "a pack accepted with its checksum is refused or different without it")

    let checksum = pack.checksum
    require(PackParser.isWellFormedChecksum(checksum), "checksum \(checksum) is not well formed")
    if let declared = parsed.declaredChecksum {
        require(declared == checksum, "declared \(declared) accepted for content hashing to \(checksum)")
    }
    require(parsed.byteCount == bytes.count, "byteCount \(parsed.byteCount) for \(bytes.count) bytes")

    do {
        let again = try PackParser.parse(stored, source: "stored.json", maximumBytes: Int.max)
        require(
            again.declaredChecksum == checksum,
            "stored bytes declare \(again.declaredChecksum ?? "nothing"), not \(checksum)")
        require(again.pack.storedBytes == stored, "stored bytes are not a fixed point: \(show(stored))")
        require(again.pack == pack, "stored bytes parse to a different pack")
    } catch {
        require(false, "the pack's own stored bytes \(show(stored)) do not parse: \(error)")
    }

    let canonical = pack.canonicalBytes
    require(
        (try? StrictJSONParser.parse(canonical)).map(JSONWriter.canonical) == canonical,
        "canonical bytes are not a fixed point")

    require(
        (try? PackID.parse(pack.id.description)) == pack.id, "pack id \(show(pack.id.description)) does not parse back")

    lint(pack)
}

private func lint(_ pack: Pack) {
    func named(_ findings: [LintFinding]) {
        for finding in findings {
            require(finding.pack == pack.id, "a lint finding of \(pack.id) names \(finding.pack)")
            _ = JSONWriter.canonical(finding.jsonValue)
        }
    }
    do {
        named(try PackLinter(policy: Policy(), catalog: MemoryCatalog(), hasHistory: false).lint([pack]))

        var history: [Pack] = []
        if pack.contentVersion > 1 {
            history.append(
                Pack(
                    locale: pack.locale, contentVersion: pack.contentVersion - 1,
                    minAppVersion: AppVersion(components: [4, 8]),
                    fallbackLocale: pack.fallbackLocale, strings: referenceStrings))
        }
        if let fallback = pack.fallbackLocale {
            // Every other content version, the fallback points back: a cycle the linter must report, not follow.
            history.append(
                Pack(
                    locale: fallback, contentVersion: 1, minAppVersion: AppVersion(components: [1]),
                    fallbackLocale: pack.contentVersion % 2 == 0 ? pack.locale : nil, strings: referenceStrings))
        }
        let catalog = MemoryCatalog(history)
        let withHistory = try PackLinter(policy: Policy(requiredKeys: ["home.title"]), catalog: catalog).lint([pack])
        named(withHistory)
        if let previous = history.first, previous.locale == pack.locale {
            let diff = PackDiff(from: previous, to: pack)
            _ = JSONWriter.canonical(diff.jsonValue)
        }
    } catch {
        require(false, "lint threw \(error) over an in-memory catalog")
    }
    require(PackDiff(from: pack, to: pack).isEmpty, "PackDiff of a pack with itself is not empty")
}
