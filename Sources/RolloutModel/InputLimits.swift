/// Every limit rollout puts on what it is handed, in one table (docs/reliability.md, "Input
/// limits"): each is enforced in one place, named here, and refused with a message that gives the
/// size found and the limit, never the whole text. Limits a policy or a flag can raise say which.
public enum InputLimits {
    // MARK: identifiers, checked where they are parsed

    /// A locale tag (`LocaleTag.parse`: packs, `fallbackLocale`, arguments, the metrics CSV's
    /// locale column). RFC 5646 asks for 35 characters at least; 64 holds every tag with a script,
    /// a region and several variants.
    public static let localeBytes = 64
    /// A string key in a pack (`PackLinter.keyProblem`): longer than any key Xcode or Android writes.
    public static let keyBytes = 4096
    /// An app version (`AppVersion.init`): up to `AppVersion.maximumComponents` numbers.
    public static let appVersionBytes = 80
    /// An app-version range (`VersionRange.parse`): two bounds of `appVersionBytes` with their operators.
    public static let versionRangeBytes = 2 * appVersionBytes + 8
    /// Who acts, as `--actor` or `ROLLOUT_ACTOR` gives it (`CommandContext.actor`): it goes into
    /// every commit and plan the command writes.
    public static let actorBytes = 256
    /// A device's install id (`resolve --install-id`): the client makes 36-character UUIDs.
    public static let installIDBytes = 256
    /// `--reason` (every command that takes it, checked as the parser reads it: `Option.reason` in
    /// RolloutCLI): it goes
    /// into a commit of the shared history, and `rollout log` shows it.
    public static let reasonBytes = 4096
    /// `keys revoke --reason`: it goes into the key list every device downloads, for good.
    public static let keyListReasonBytes = 200

    /// The shares of a `--ramp` (`PlanCommands.parseRamp`): more steps than any schedule needs.
    public static let rampSteps = 100

    // MARK: durations (`TimeSpan.read`, read by RolloutCLI's `Option.duration`)

    /// `--expires` (keys, publish) and `--overlap` (keys): adding it to any time a
    /// `Timestamp` can write still gives a writable time.
    public static let longestDuration: Int64 = TimeSpan.maximumSeconds
    /// `promote --every`: a ramp step of more than a year is not a schedule.
    public static let longestRampStep: Int64 = 365 * 86_400

    // MARK: files

    /// A catalog `pack import` reads (a String Catalog, a strings.xml, an i18next or ARB file): refused
    /// from its size before it is read; `--max-catalog-bytes` raises it.
    public static let catalogBytes = 64 << 20
    /// The most `--max-catalog-bytes` can give: a catalog is held in memory several times over.
    public static let catalogBytesCeiling = 1 << 30
    /// The characters entity references may add to one strings.xml (`AndroidEntities`): each
    /// reference is a copy of its text, so a few nested ones expand to gigabytes ("billion laughs").
    public static let xmlEntityCharacters = 1 << 20

    // MARK: messages

    /// How much of one word of a user's text an error message quotes (`shortenedWords`): a word of
    /// 5,000 characters shows as its first 200 and `… (5000 characters)`.
    public static let echoCharacters = 200

    /// `text` as a message quotes it: whole when it is at most `echoCharacters` long, else its first
    /// `echoCharacters` characters and how long it was.
    public static func echo(_ text: String) -> String {
        var index = text.startIndex
        var count = 0
        while index < text.endIndex, count < echoCharacters {
            text.formIndex(after: &index)
            count += 1
        }
        guard index < text.endIndex else { return text }
        return "\(text[..<index])… (\(text.count) characters)"
    }

    /// A message with every run of more than `echoCharacters` characters without white space cut by
    /// `echo`: the one place a rendered error (text or `--json`) is kept readable, whatever argument,
    /// file name or field it quotes. Run credential redaction before this, on the whole text.
    public static func shortenedWords(_ message: String) -> String {
        // The common case: nothing long enough to cut, returned as is without copying.
        var run = 0
        var long = false
        for character in message {
            run = character.isWhitespace ? 0 : run + 1
            if run > echoCharacters + 1 {
                long = true
                break
            }
        }
        guard long else { return message }
        var out = ""
        var word = ""
        for character in message {
            if character.isWhitespace {
                out += echoWord(word)
                out.append(character)
                word = ""
            } else {
                word.append(character)
            }
        }
        return out + echoWord(word)
    }

    /// `echo` of a word without the quotes and punctuation around it, which stay: `"aaa… (5000 characters)":`.
    private static func echoWord(_ word: String) -> String {
        let opening = word.prefix { "\"'([{".contains($0) }
        let rest = word.dropFirst(opening.count)
        let closing = String(rest.reversed().prefix { "\"')]},.:;".contains($0) }.reversed())
        let core = String(rest.dropLast(closing.count))
        // One more character is the "…" of a word `echo` already cut.
        guard core.count > echoCharacters + 1 else { return word }
        return opening + echo(core) + closing
    }

    /// Nil when `text` is at most `limit` UTF-8 bytes; else why it is refused, for a message that
    /// names what it is: `locale is 60000 bytes, over the limit of 64`.
    public static func tooLong(_ what: String, _ text: String, limit: Int) -> String? {
        let bytes = text.utf8.count
        guard bytes > limit else { return nil }
        return "\(what) is \(bytes) bytes, over the limit of \(limit)"
    }
}
