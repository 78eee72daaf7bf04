import Foundation
import RolloutModel
import XCTest

/// Issue 31, item 8 and the limits table (docs/reliability.md, "Input limits"): identifiers bounded
/// where they are parsed, errors that never echo a long argument whole, one duration grammar, and
/// the hostile inputs of the minor list. Each refusal: a clear message, the documented exit code,
/// the repository as it was.
final class InputLimitTests: XCTestCase {
    private func timed(_ body: () throws -> RunResult) rethrows -> (RunResult, TimeInterval) {
        let start = Date()
        let result = try body()
        return (result, Date().timeIntervalSince(start))
    }

    private func pack(locale: String, fallback: String? = nil, contentVersion: Int = 19) -> String {
        let fallbackField = fallback.map { #""fallbackLocale": "\#($0)", "# } ?? ""
        return
            #"{"locale": "\#(locale)", \#(fallbackField)"schemaVersion": 2, "contentVersion": \#(contentVersion), "minAppVersion": "4.8.0", "strings": {"home.title": "x"}}"#
    }

    /// A 60,000-character locale hung `pack lint` for 35 s (in the pack, in `fallbackLocale`); a
    /// 20,000-character one took `status` 8 s: the error quoting it went through a quadratic
    /// search for URLs. Now each is refused at once, for its length, quoting 200 characters.
    func testALongLocaleIsRefusedAtOnceInAPackItsFallbackAndAnArgument() throws {
        let w = try Workspace()
        try w.initWithExamples()
        let tip = try w.stateTip()
        let long = String(repeating: "a", count: 60_000)
        let inPack = try w.scratch.write("long.json", pack(locale: long))
        let inFallback = try w.scratch.write("fallback.json", pack(locale: "tr-TR", fallback: long))
        for (file, arguments) in [
            (inPack, ["pack", "lint", inPack]), (inFallback, ["pack", "lint", inFallback]),
            (inPack, ["pack", "add", inPack]),
        ] {
            let (result, seconds) = try timed { try w.rollout(arguments) }
            XCTAssertEqual(result.status, 65, result.output)
            XCTAssertLessThan(seconds, 3, "\(arguments[1]) \(file)")
            XCTAssertTrue(result.stderr.contains("a locale is 60000 bytes, over the limit of 64"), result.stderr)
            XCTAssertTrue(result.stderr.contains(file), "names the file: \(result.stderr)")
            XCTAssertLessThan(result.stderr.count, 1_000, "the locale is not echoed whole")
        }
        for arguments in [
            ["status", long], ["pack", "show", long + "@1"],
            [
                "resolve", "--locale", long, "--region", "TR",
                "--app-version", "4.8", "--install-id", "x",
            ],
        ] {
            let (result, seconds) = try timed { try w.rollout(arguments) }
            XCTAssertEqual(result.status, 64, result.output)
            XCTAssertLessThan(seconds, 3, arguments[0])
            XCTAssertTrue(result.stderr.contains("over the limit of 64"), result.stderr)
            XCTAssertLessThan(result.stderr.count, 1_000)
        }
        XCTAssertEqual(try w.stateTip(), tip)
    }

    /// The metrics CSV's locale column goes through the same locale reader.
    func testALongLocaleInAMetricsCSVIsRefusedAtOnce() throws {
        let w = try Workspace()
        try w.initWithExamples()
        let tip = try w.stateTip()
        let long = String(repeating: "a", count: 60_000)
        let csv = try w.scratch.write(
            "crashes.csv", "date,locale,pack,region,app_version,sessions,crashes\n2026-11-28,\(long),18,TR,4.8.1,10,1\n"
        )
        let (result, seconds) = try timed { try w.rollout("metrics", "ingest", "--kind", "crash", csv) }
        XCTAssertEqual(result.status, 65, result.output)
        XCTAssertLessThan(seconds, 3)
        XCTAssertLessThan(result.stderr.count, 2_000, result.stderr)
        XCTAssertEqual(try w.stateTip(), tip)
    }

    /// An argument of 5,000 characters is quoted as its first 200 and its length, in text and in
    /// `--json`; one of 200 is quoted whole.
    func testAnErrorQuotesAtMostTwoHundredCharactersOfAnArgument() throws {
        let w = try Workspace()
        try w.initWithExamples()
        let five = String(repeating: "Z", count: 5_000)
        let refused = try w.rollout("promote", "tr-TR@18", "--to", "10%", "--region", five)
        XCTAssertEqual(refused.status, 64, refused.output)
        XCTAssertTrue(
            refused.stderr.contains(String(repeating: "Z", count: 200) + "… (5000 characters)"), refused.stderr)
        XCTAssertFalse(refused.stderr.contains(String(repeating: "Z", count: 201)))
        let json = try w.rollout("promote", "tr-TR@18", "--to", "10%", "--region", five, "--json")
        XCTAssertEqual(json.status, 64)
        XCTAssertTrue(json.stderr.contains("… (5000 characters)"), json.stderr)
        XCTAssertLessThan(json.stderr.count, 600, json.stderr)

        let two = String(repeating: "Z", count: 200)
        let whole = try w.rollout("promote", "tr-TR@18", "--to", "10%", "--region", two)
        XCTAssertEqual(whole.status, 64)
        XCTAssertTrue(whole.stderr.contains("\"\(two)\""), whole.stderr)
    }

    /// The actor and a device's install id: at the limit read, one byte past it refused (64).
    func testTheActorAndTheInstallIDAreReadUpToTheirLimits() throws {
        let w = try Workspace()
        try w.initWithExamples()
        let tip = try w.stateTip()
        let promote = ["promote", "tr-TR@18", "--to", "5%", "--actor"]
        let longActor = try w.rollout(promote + [String(repeating: "a", count: 257)])
        XCTAssertEqual(longActor.status, 64, longActor.output)
        XCTAssertTrue(
            longActor.stderr.contains("--actor: the actor is 257 bytes, over the limit of 256"), longActor.stderr)
        let fromEnvironment = try w.rollout(
            ["promote", "tr-TR@18", "--to", "5%"], env: ["ROLLOUT_ACTOR": String(repeating: "a", count: 257)])
        XCTAssertEqual(fromEnvironment.status, 64, fromEnvironment.output)
        XCTAssertTrue(fromEnvironment.stderr.contains("ROLLOUT_ACTOR: the actor is 257 bytes"), fromEnvironment.stderr)
        XCTAssertEqual(try w.stateTip(), tip)
        let atLimit = try w.rollout(promote + [String(repeating: "a", count: 256)])
        XCTAssertEqual(atLimit.status, 0, atLimit.output)

        let resolve = ["resolve", "--locale", "tr-TR", "--region", "TR", "--app-version", "4.8.1", "--install-id"]
        let idAtLimit = try w.rollout(resolve + [String(repeating: "i", count: 256)])
        XCTAssertEqual(idAtLimit.status, 0, idAtLimit.output)
        let longID = try w.rollout(resolve + [String(repeating: "i", count: 257)])
        XCTAssertEqual(longID.status, 64, longID.output)
        XCTAssertTrue(longID.stderr.contains("--install-id is 257 bytes, over the limit of 256"), longID.stderr)
    }

    /// A lint finding quotes at most 200 characters of a key (keys may be 4096 bytes long).
    func testALintFindingQuotesALongKeyShortened() throws {
        let w = try Workspace()
        try w.initWithExamples()
        let key = String(repeating: "k", count: 5_000)
        let file = try w.scratch.write(
            "keys.json",
            #"{"locale": "tr-TR", "schemaVersion": 2, "contentVersion": 19, "minAppVersion": "4.8.0", "strings": {"\#(key)": "x"}}"#
        )
        let lint = try w.rollout("pack", "lint", file)
        XCTAssertTrue(lint.output.contains("key is 5000 bytes, over the limit of 4096"), lint.output)
        XCTAssertTrue(lint.output.contains(String(repeating: "k", count: 200) + "… (5000 characters)"), lint.output)
        XCTAssertFalse(lint.output.contains(String(repeating: "k", count: 201)), lint.output)
    }

    /// `--every` reads durations as `--expires` does (2w works), each up to its own limit.
    func testEveryTakesTheDurationGrammarOfExpiresUpToAYear() throws {
        let w = try Workspace()
        try w.initWithExamples()
        let tip = try w.stateTip()
        for (every, message) in [
            ("53w", "--every \"53w\" is longer than the limit of 365 days"),
            ("366d", "--every \"366d\" is longer than the limit of 365 days"),
            ("3600", "(a number needs its unit)"), ("2x", "is not a duration"),
        ] {
            let refused = try w.rollout("promote", "tr-TR@18", "--ramp", "1,5", "--every", every)
            XCTAssertEqual(refused.status, 64, refused.output)
            XCTAssertTrue(refused.stderr.contains(message), "\(every): \(refused.stderr)")
        }
        XCTAssertEqual(try w.stateTip(), tip)
        let atLimit = try w.rollout("promote", "tr-TR@18", "--ramp", "1,5", "--every", "365d", "--dry-run")
        XCTAssertEqual(atLimit.status, 0, atLimit.output)
        let weeks = try w.rollout("promote", "tr-TR@18", "--ramp", "1,5", "--every", "2w", "--json")
        XCTAssertEqual(weeks.status, 0, weeks.output)
        let plan = try XCTUnwrap(try w.json(weeks)["plan"] as? [String: Any])
        XCTAssertEqual((plan["ramp"] as? [String: Any])?["every"] as? Int, 1_209_600)
    }

    /// `--expires 99999999d` is too long, not "not a duration".
    func testATooLongExpiryIsSaidToBeTooLong() throws {
        let w = try Workspace()
        let refused = try w.rollout("keys", "init", "--out", w.scratch.path("keys"), "--expires", "99999999d")
        XCTAssertEqual(refused.status, 64, refused.output)
        XCTAssertTrue(
            refused.stderr.contains("--expires \"99999999d\" is longer than the limit of 36600 days"), refused.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: w.scratch.path("keys")))
    }

    /// A ramp that starts at 0% stages the pack to no device: refused, whatever `--to` says.
    func testARampFromZeroIsRefused() throws {
        let w = try Workspace()
        try w.initWithExamples()
        let tip = try w.stateTip()
        for extra in [["--to", "0%"], []] {
            let refused = try w.rollout(["promote", "tr-TR@18", "--ramp", "0,100"] + extra)
            XCTAssertEqual(refused.status, 64, refused.output)
            XCTAssertTrue(refused.stderr.contains("--ramp \"0,100\" starts at 0%"), refused.stderr)
        }
        XCTAssertEqual(try w.stateTip(), tip)
        XCTAssertEqual(try w.rollout("promote", "tr-TR@18", "--ramp", "0.01,100", "--dry-run").status, 0)
        // At most 100 steps.
        func steps(_ count: Int) -> String { (1...count).map { "0.\($0 < 10 ? "0" : "")\($0)" }.joined(separator: ",") }
        let hundred = (1...99).map { "\($0)" }.joined(separator: ",") + ",100"
        XCTAssertEqual(try w.rollout("promote", "tr-TR@18", "--ramp", hundred, "--dry-run").status, 0)
        let tooMany = try w.rollout("promote", "tr-TR@18", "--ramp", steps(99) + ",1,2", "--dry-run")
        XCTAssertEqual(tooMany.status, 64, tooMany.output)
        XCTAssertTrue(tooMany.stderr.contains("--ramp has 101 steps, over the limit of 100"), tooMany.stderr)
    }

    func testAHugeContentVersionAndAUTF16PackAreNamedForWhatTheyAre() throws {
        let w = try Workspace()
        try w.initWithExamples()
        let huge = try w.scratch.write(
            "huge.json", pack(locale: "tr-TR").replacingOccurrences(of: "19", with: "9223372036854775807"))
        let refused = try w.rollout("pack", "add", huge)
        XCTAssertEqual(refused.status, 65, refused.output)
        XCTAssertTrue(
            refused.stderr.contains("\"contentVersion\" must be between 1 and 1000000000, found 9223372036854775807"),
            refused.stderr)

        let wide = try w.scratch.write("wide.json", pack(locale: "tr-TR").data(using: .utf16)!)
        let utf16 = try w.rollout("pack", "lint", wide)
        XCTAssertEqual(utf16.status, 65, utf16.output)
        XCTAssertTrue(utf16.stderr.contains("the file is UTF-16"), utf16.stderr)
        XCTAssertTrue(utf16.stderr.contains("save it as UTF-8"), utf16.stderr)
    }

    // MARK: pack import

    private func strings(_ body: String, declaration: String = #"<?xml version="1.0" encoding="utf-8"?>"#) -> String {
        "\(declaration)\n\(body)\n<resources><string name=\"a\">x&e;y</string></resources>\n"
    }

    private func importAndroid(_ w: Workspace, _ name: String, _ data: Data, _ extra: [String] = []) throws
        -> RunResult
    {
        let folder = w.scratch.path(name)
        try w.scratch.write("\(name)/values/strings.xml", data)
        return try w.rollout(
            [
                "pack", "import", folder, "--format", "android", "--source-locale", "en-US", "--content-version", "1",
                "--min-app-version", "4.0",
            ] + extra)
    }

    /// A DOCTYPE is read only in UTF-8, as the Android client reads it: in a UTF-16 strings.xml an
    /// external entity came out silently empty and a "billion laughs" was "XML parser error 89"; now
    /// each is refused, with the fix. A UTF-16 file without one is read as before.
    func testADoctypeOutsideUTF8IsRefusedNeverLeftToTheXMLParser() throws {
        let w = try Workspace()
        XCTAssertEqual(try w.rollout("init").status, 0)
        let tip = try w.stateTip()
        let utf16 = #"<?xml version="1.0" encoding="utf-16"?>"#
        let xxe = strings(#"<!DOCTYPE resources [<!ENTITY e SYSTEM "file:///etc/hostname">]>"#, declaration: utf16)
        let laughs =
            "<!DOCTYPE resources [<!ENTITY l0 \"ha\">"
            + (1...9).map { i in "<!ENTITY l\(i) \"\(String(repeating: "&l\(i - 1);", count: 10))\">" }.joined()
            + "<!ENTITY e \"&l9;\">]>"
        let bomb = strings(laughs, declaration: utf16)
        for (name, text) in [("xxe", xxe), ("laughs", bomb)] {
            for encoding in [String.Encoding.utf16, .utf16LittleEndian, .utf16BigEndian] {
                let refused = try importAndroid(w, "\(name)\(encoding.rawValue)", text.data(using: encoding)!)
                XCTAssertEqual(refused.status, 65, refused.output)
                XCTAssertTrue(
                    refused.stderr.contains(
                        "strings.xml:1: the file is UTF-16 and declares a DOCTYPE, which is read only in UTF-8"),
                    refused.stderr)
                XCTAssertTrue(refused.stderr.contains("save the file as UTF-8"), refused.stderr)
            }
        }
        // In UTF-8 the same files are refused for what they hold.
        XCTAssertTrue(
            try importAndroid(w, "xxe8", Data(xxe.replacingOccurrences(of: "utf-16", with: "utf-8").utf8)).stderr
                .contains("the external entity e (SYSTEM \"file:///etc/hostname\") is not read"))
        XCTAssertTrue(
            try importAndroid(w, "laughs8", Data(bomb.replacingOccurrences(of: "utf-16", with: "utf-8").utf8)).stderr
                .contains("billion laughs"))
        // Latin-1 bytes that are not UTF-8, with a DOCTYPE; UTF-32 (NUL bytes): refused too.
        let latin = strings(
            #"<!DOCTYPE resources [<!ENTITY e "é">]>"#, declaration: #"<?xml version="1.0" encoding="ISO-8859-1"?>"#)
        let latin1 = try importAndroid(w, "latin", latin.data(using: .isoLatin1)!)
        XCTAssertEqual(latin1.status, 65, latin1.output)
        XCTAssertTrue(latin1.stderr.contains("neither UTF-8 nor UTF-16 and declares a DOCTYPE"), latin1.stderr)
        let utf32 = try importAndroid(w, "utf32", xxe.data(using: .utf32LittleEndian)!)
        XCTAssertEqual(utf32.status, 65, utf32.output)
        XCTAssertTrue(utf32.stderr.contains("NUL bytes"), utf32.stderr)
        XCTAssertEqual(try w.stateTip(), tip)

        // Without a DOCTYPE, a UTF-16 file is read as it declares itself.
        let plain = "\(utf16)\n<resources><string name=\"a\">xğy</string></resources>\n"
        let imported = try importAndroid(w, "plain", plain.data(using: .utf16)!)
        XCTAssertEqual(imported.status, 0, imported.output)
        XCTAssertEqual(try packStrings(w, "en-US@1")["a"], "xğy")
    }

    /// A catalog over `--max-catalog-bytes` (64 MiB unless raised) is refused from its size, before
    /// it is read; one at the limit is read.
    func testACatalogOverItsLimitIsRefusedBeforeItIsRead() throws {
        let w = try Workspace()
        XCTAssertEqual(try w.rollout("init").status, 0)
        let tip = try w.stateTip()
        let body = Data(strings("").replacingOccurrences(of: "x&e;y", with: "xy").utf8)
        let limit = String(body.count)
        let past = try importAndroid(w, "past", body, ["--max-catalog-bytes", String(body.count - 1)])
        XCTAssertEqual(past.status, 65, past.output)
        XCTAssertTrue(
            past.stderr.contains("is \(body.count) bytes, over the limit of \(body.count - 1) (\(body.count - 1) B)"),
            past.stderr)
        XCTAssertTrue(past.stderr.contains("raise it with --max-catalog-bytes"), past.stderr)
        XCTAssertEqual(try w.stateTip(), tip)
        XCTAssertEqual(try importAndroid(w, "at", body, ["--max-catalog-bytes", limit]).status, 0)

        // The default: a sparse file of 64 MiB and one byte is refused without being read.
        let big = w.scratch.path("big.xcstrings")
        FileManager.default.createFile(atPath: big, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: big))
        try handle.truncate(atOffset: UInt64(64 << 20) + 1)
        try handle.close()
        let (refused, seconds) = try timed {
            try w.rollout("pack", "import", big, "--content-version", "2", "--min-app-version", "4.0")
        }
        XCTAssertEqual(refused.status, 65, refused.output)
        XCTAssertTrue(
            refused.stderr.contains("is 67108865 bytes, over the limit of 67108864 (64 MiB)"), refused.stderr)
        XCTAssertLessThan(seconds, 2)
        let ceiling = try w.rollout(
            "pack", "import", big, "--content-version", "2", "--max-catalog-bytes", String((1 << 30) + 1))
        XCTAssertEqual(ceiling.status, 64, ceiling.output)
    }

    /// `--reason` goes into a commit of the shared history: 4096 bytes at most, for every command,
    /// refused before the command runs and with nothing written.
    func testAReasonIsBoundedForEveryCommand() throws {
        let w = try Workspace()
        XCTAssertEqual(try w.rollout("init").status, 0)
        let tip = try w.stateTip()
        for command in [["revert", "tr-TR"], ["pause", "tr-TR"], ["promote", "tr-TR@1", "--to", "5%"]] {
            let over = try w.rollout(
                command + ["--reason", String(repeating: "r", count: InputLimits.reasonBytes + 1)])
            XCTAssertEqual(over.status, 64, over.output)
            XCTAssertTrue(over.stderr.contains("--reason is 4097 bytes, over the limit of 4096"), over.output)
            let at = try w.rollout(command + ["--reason", String(repeating: "r", count: InputLimits.reasonBytes)])
            XCTAssertFalse(at.stderr.contains("--reason is"), "at the limit the command itself answers: \(at.output)")
        }
        XCTAssertEqual(try w.stateTip(), tip, "nothing written")
    }
}
