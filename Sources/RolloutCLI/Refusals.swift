import RolloutImport
import RolloutIngest
import RolloutModel
import RolloutReport

/// Every refusal of the library targets, worded: the one place a `Refusal` becomes the sentence a
/// person reads, with its next step in the command line's own words (flags, commands). A refusal
/// type with no wording here is a bug the tests catch (`RefusalWordingTests`).
enum Refusals {
    /// `error` as the `RolloutError` a person reads: a refusal worded here, a `RolloutError` as it is,
    /// anything else nil.
    static func worded(_ error: any Error) -> RolloutError? {
        if let error = error as? RolloutError { return error }
        guard let refusal = error as? any Refusal else { return nil }
        return RolloutError(refusal.kind, message(refusal))
    }

    /// What a person reads for `error`, whatever it is: for lists of per-item failures (guard's
    /// locales) that go on after one.
    static func message(of error: any Error) -> String { worded(error)?.message ?? "\(error)" }

    static func message(_ refusal: any Refusal) -> String {
        switch refusal {
        case let refusal as PromoteRefusal: return promote(refusal)
        case let refusal as RevertRefusal: return revert(refusal)
        case let refusal as IngestRefusal: return ingest(refusal)
        case let refusal as ImportRefusal: return importing(refusal)
        case let refusal as ReportRefusal: return report(refusal)
        default: return "refused: \(refusal)"
        }
    }

    // MARK: promote

    static func promote(_ refusal: PromoteRefusal) -> String {
        switch refusal {
        case .blocked(let id, let nextFree):
            return
                "\(id) is blocked: it was reverted and no device may get it again. Publish the fix as a new version (\(id.locale)@\(nextFree) or later)"
        case .olderThanBaseline(let id, let baseline):
            return
                "\(id) is older than the baseline \(id.locale)@\(baseline); to go back, use rollout revert \(id.locale) --to \(id.contentVersion)"
        case .alreadyBaseline(let id):
            return "\(id) is already the baseline: every device that can run it has it"
        case .loweringWithoutReason(let id):
            return "lowering the share of \(id) takes devices back off it; say why with --reason TEXT"
        case .otherCandidateStaged(let locale, let candidate, let staged):
            return
                "\(locale)@\(candidate) is still staged (\(staged)). Finish it first with rollout promote \(locale)@\(candidate) --to 100%, or take it back with rollout revert \(locale)"
        case .underKillSwitch(let id):
            return
                "the kill switch of \(id.locale) is on: every device uses its bundled strings, so a staged share would reach nobody. Turn it off by completing a pack: rollout promote \(id) --to 100%"
        case .ruleNeverApplies(let dead, let winner, let tooOld, let id, let minAppVersion):
            let minApp = "below \(id)'s minAppVersion \(minAppVersion)"
            var why =
                winner.map { "the rule for \($0.target) (\($0.share)) already decides those devices" }
                ?? "every device it would reach is \(minApp)"
            if winner != nil && tooOld { why += ", and the rest are \(minApp)" }
            return
                "a rule for \(dead.target) would never apply: \(why). Use targeting that does not overlap it, or change the share of the rule that decides"
        }
    }

    // MARK: revert

    static func revert(_ refusal: RevertRefusal) -> String {
        switch refusal {
        case .notATarget(let text, let locale):
            return "--to \"\(text)\" is not a content version (16, or \(locale)@16) or bundled"
        case .targetOfAnotherLocale(let text, let id, let locale):
            return "--to \(text) is a \(id.locale) pack; reverting \(locale) needs a \(locale) version"
        case .segmentWithTarget:
            return "--segment takes devices back to the baseline; it cannot be combined with --to"
        case .nothingStagedToWithdraw(let locale, let segment):
            return
                "nothing is staged for \(locale), so there is nothing to take back from \(segment); to go back everywhere, run rollout revert \(locale)"
        case .nothingPromoted(let locale):
            return "nothing was ever promoted for \(locale): devices already use their bundled strings"
        case .noEarlierBaseline(let locale, let baseline):
            return
                "\(locale)@\(baseline) is the only good baseline \(locale) has had: there is no earlier one to go back to. Use --to bundled for the kill switch, or promote a fix"
        case .targetBlocked(let locale, let version):
            return "\(locale)@\(version) is blocked: a revert cannot go back to a version that was itself reverted"
        case .targetNotEarlier(let locale, let version):
            return
                "\(locale)@\(version) is not earlier than what devices receive now; to move forward, use rollout promote"
        }
    }

    // MARK: metrics ingest and retract

    static func ingest(_ refusal: IngestRefusal) -> String {
        switch refusal {
        case .gzipTextOverLimit(let file, let text, let limit):
            return "\(file): the gzip data expands to more than \(limit) bytes of text (\(ByteCount.describe(limit))), "
                + "the most metrics ingest inflates; it was refused after \(text) bytes. If the export really is that large, "
                + "raise --max-gzip-text (docs/metrics.md, \"Gzip input\"); nothing was ingested"
        case .gzipRatioOverLimit(let file, let text, let consumed, let limit):
            return "\(file): the gzip data expands more than \(limit) times (\(text) bytes of text "
                + "from the first \(consumed) bytes of the file): a decompression bomb, not a CSV export, "
                + "which compresses 4 to 20 times; it was refused before inflating the rest. If the export really is "
                + "that repetitive, raise --max-gzip-ratio (docs/metrics.md, \"Gzip input\"); nothing was ingested"
        case .headerLacks(let place, let missing, let found, let kind):
            let (total, events) = kind.columns
            return
                "\(place): the header lacks \(missing.joined(separator: ", ")) (found: \(found.joined(separator: ", "))); "
                + "a \(kind.rawValue) CSV needs date, locale, pack, region, app_version, \(total), \(events); "
                + "--map NAME=COLUMN renames"
        case .invalidRows(let file, let shown, let count, let rows):
            let listed = shown.map { "  \(file):\($0.line): \($0.message)" }.joined(separator: "\n")
            let more = count > shown.count ? "\n  ... and \(count - shown.count) more" : ""
            return
                "\(file): \(count) of \(rows) rows are invalid; nothing was ingested (--skip-invalid keeps the good rows):\n\(listed)\(more)"
        case .ingestedAsBothKinds(let source):
            return "\(source) was ingested as both crash and fallback; say which to retract with --kind"
        case .notADigest(let source, let minimumPrefix):
            return "\(source) is neither a file nor a digest: give the ingested file, or its digest as sha256:HEX "
                + "(at least \(minimumPrefix) lowercase hex digits; rollout log shows it)"
        case .noSuchIngest(let source, let kind):
            return "\(source): no file with this digest was ingested\(kind.map { " as \($0.rawValue)" } ?? ""); "
                + "rollout log lists the ingests with their digests"
        case .damagedProvenance(let path):
            return "\(path) is damaged: not a provenance record; check the repository with rollout verify"
        }
    }

    // MARK: import

    static func importing(_ refusal: ImportRefusal) -> String {
        /// The locales that fall back to the source locale, as the sentences count them.
        func fallingBack(_ dependents: [String]) -> String {
            "\(dependents.count) locale(s) (\(dependents.prefix(5).joined(separator: ", ")))"
        }
        switch refusal {
        case .catalogTooLarge(let path, let bytes, let limit):
            return
                "\(path): the catalog file is \(bytes) bytes, over the limit of \(limit) (\(ByteCount.describe(limit))); "
                + "raise it with --max-catalog-bytes (at most \(ByteCount.describe(InputLimits.catalogBytesCeiling)))"
        case .localesMatchNone(let catalog, let asked, let has):
            return
                "\(catalog): --locale \(asked.joined(separator: ", ")) matches no locale of the catalog; it has \(has.isEmpty ? "none" : has.joined(separator: ", "))"
        case .catalogHasNoStrings(let catalog):
            return "\(catalog): no locale has a string to import: the catalog has none (check PATH and --format)"
        case .sourceLocaleNotInCatalog(let catalog, let source, let has, let dependents):
            return
                "\(catalog): the source locale \(source) is not in the catalog and has no stored pack: name the catalog's development language with --source-locale L (it has \(has.joined(separator: ", "))); \(fallingBack(dependents)) would fall back to \(source)"
        case .sourceLocaleNotImported(let catalog, let source, let dependents):
            return
                "\(catalog): the source locale \(source) has no stored pack and is not imported: add --locale \(source) (or import it first); \(fallingBack(dependents)) fall back to it"
        case .sourceLocaleLeftOut(let catalog, let source, let dependents):
            return
                "\(catalog): every string of the source locale \(source) was left out, so it makes no pack, and it has no stored pack: fix its strings in the catalog (listed below), or name another development language with --source-locale L; \(fallingBack(dependents)) fall back to it"
        case .noMinAppVersion(let locale):
            return
                "\(locale) has no stored pack to take minAppVersion from: give --min-app-version V (the oldest app version these strings suit)"
        }
    }

    // MARK: report

    static func report(_ refusal: ReportRefusal) -> String {
        switch refusal {
        case .nothingPromoted(let locale):
            return
                "nothing was ever promoted for \(locale): there is no rollout to report on yet (rollout promote \(locale)@N --to 10% starts one)"
        }
    }
}
