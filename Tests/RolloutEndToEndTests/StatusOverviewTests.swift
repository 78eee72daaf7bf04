import Foundation
import XCTest

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Every locale at a glance (docs/targeting.md, "rollout status"; docs/report.md, "Every locale on
/// one page"): one repository whose locales are each in another state, read through the real
/// `status` and `report --all`.
final class StatusOverviewTests: XCTestCase {
    static let staging = ["ROLLOUT_NOW": "2026-11-25T08:00:00Z"]
    static let now = ["ROLLOUT_NOW": "2026-11-28T09:00:00Z"]

    /// de-DE unhealthy, en-US a baseline alone, es-ES staged without metrics, fr-FR held by a sample
    /// ratio mismatch, it-IT a paused ramp, nl-NL under the kill switch, tr-TR healthy, vi-VN reverted,
    /// and tr with packs but nothing promoted.
    static func locales() throws -> Workspace {
        let w = try Workspace()
        try w.initWithExamples()
        for locale in ["de-DE", "fr-FR", "es-ES", "it-IT", "nl-NL"] { try addPacks(w, locale: locale, [17, 18]) }
        XCTAssertEqual(try w.rollout("pack", "add", try w.packVariant(of: "vi-VN@3", version: 4)).status, 0)
        let baselines = ["en-US@1", "tr-TR@17", "de-DE@17", "fr-FR@17", "es-ES@17", "it-IT@17", "nl-NL@17", "vi-VN@3"]
        for id in baselines {
            let done = try w.rollout(["promote", id, "--to", "100%"], env: ["ROLLOUT_NOW": "2026-11-24T00:00:00Z"])
            XCTAssertEqual(done.status, 0, done.output)
        }
        for locale in ["tr-TR", "de-DE", "fr-FR", "es-ES"] {
            let staged = try w.rollout(
                ["promote", "\(locale)@18", "--to", "10%", "--region", "TR", "--app-version", ">=4.8"], env: staging)
            XCTAssertEqual(staged.status, 0, staged.output)
        }
        let steps: [[String]] = [
            ["promote", "it-IT@18", "--ramp", "1,5,10"], ["pause", "it-IT", "--reason", "waiting for QA"],
            ["promote", "vi-VN@4", "--to", "10%"], ["revert", "vi-VN", "--reason", "wrong plural forms"],
            ["revert", "nl-NL", "--to", "bundled", "--reason", "legal hold"],
        ]
        for step in steps { XCTAssertEqual(try w.rollout(step, env: staging).status, 0, "\(step)") }
        for day in ["2026-11-25", "2026-11-26", "2026-11-27"] {
            try ingest(w, "tr-TR", day: day, share: 0.10, candidateCrashesPer: 500)
            try ingest(w, "fr-FR", day: day, share: 0.20, candidateCrashesPer: 500)
            try ingest(w, "de-DE", day: day, share: 0.10, candidateCrashesPer: 50)
        }
        return w
    }

    /// `locales()` built once for the class (about five seconds): its tests only read the repository;
    /// `report --all` writes beside it, into the work directory.
    private static let shared = Result { try locales() }

    /// `locale@version` for each of `versions`, made from tr-TR@17 (pack add computes the checksum).
    static func addPacks(_ w: Workspace, locale: String, _ versions: [Int]) throws {
        let template = try String(contentsOfFile: Fixtures.examplePack("tr-TR@17"), encoding: .utf8)
        let files = try versions.map { version in
            let text = template.replacingOccurrences(of: "\"locale\": \"tr-TR\"", with: "\"locale\": \"\(locale)\"")
                .replacingOccurrences(of: "\"contentVersion\": 17", with: "\"contentVersion\": \(version)")
                .split(separator: "\n").filter { !$0.contains("\"checksum\"") }.joined(separator: "\n")
            return try w.scratch.write("\(locale)@\(version).json", text)
        }
        let added = try w.rollout(["pack", "add"] + files)
        XCTAssertEqual(added.status, 0, added.output)
    }

    /// One day of crash counts in TR on 4.8 and 4.9: the staged @18 carrying `share` of 200,000
    /// sessions a segment, one crash per 500 sessions on @17 and per `candidateCrashesPer` on @18.
    static func ingest(_ w: Workspace, _ locale: String, day: String, share: Double, candidateCrashesPer: Int) throws {
        var csv = "date,pack,region,app_version,sessions,crashes\n"
        for version in ["4.8.1", "4.9.0"] {
            let candidate = Int(200_000 * share)
            csv += "\(day),\(locale)@18,TR,\(version),\(candidate),\(candidate / candidateCrashesPer)\n"
            csv += "\(day),\(locale)@17,TR,\(version),\(200_000 - candidate),\((200_000 - candidate) / 500)\n"
        }
        let path = try w.scratch.write("crashes-\(locale)-\(day).csv", csv)
        let ingested = try w.rollout("metrics", "ingest", "--kind", "crash", path)
        XCTAssertEqual(ingested.status, 0, ingested.output)
    }

    func testEveryLocaleShowsItsHealthWhatHoldsItAndHowOldItsMetricsAre() throws {
        let w = try Self.shared.get()
        let status = try w.rollout(["status"], env: Self.now)
        XCTAssertEqual(status.status, 0, status.output)
        let lines = status.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(
            lines.first?.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " "),
            "LOCALE BASELINE STAGED HEALTH HELD BLOCKED NEWEST METRICS LAST CHANGE")
        func row(_ locale: String) -> String { lines.first { $0.hasPrefix(locale + " ") } ?? "no row for \(locale)" }
        let expected: [(String, [String])] = [
            ("de-DE", ["@17", "@18 10% TR >=4.8", "unhealthy", "2026-11-27 (1 day ago)"]),
            ("en-US", ["@1", "none", "complete by"]),
            ("es-ES", ["@18 10% TR >=4.8", "insufficient-data", "none"]),
            ("fr-FR", ["healthy", "sample ratio mismatch in TR/4.8, TR/4.9"]),
            ("it-IT", ["@18 1% * *", "ramp paused", "pause by"]),
            ("nl-NL", ["bundled (kill switch)", "kill switch", "revert by"]),
            ("tr-TR", ["@18 10% TR >=4.8", "healthy", "2026-11-27 (1 day ago)", "promote by"]),
            ("vi-VN", ["@3", "@4", "revert by"]),
        ]
        for (locale, cells) in expected {
            for cell in cells { XCTAssertTrue(row(locale).contains(cell), "\(locale) shows \(cell): \(row(locale))") }
        }
        XCTAssertFalse(row("tr-TR").contains("mismatch"), "the planned share is not held: \(row("tr-TR"))")
        XCTAssertEqual(lines.count, 1 + expected.count + 1, status.stdout)
        XCTAssertEqual(lines.last, "Packs but nothing promoted: tr (rollout status LOCALE says how to start).")
    }

    func testTheJSONCarriesTheSameColumnsAsData() throws {
        let w = try Self.shared.get()
        let json = try w.json(try w.rollout(["status", "--json"], env: Self.now))
        let rows = try XCTUnwrap(json["locales"] as? [[String: Any]])
        XCTAssertEqual(
            rows.map { $0["locale"] as? String },
            ["de-DE", "en-US", "es-ES", "fr-FR", "it-IT", "nl-NL", "tr-TR", "vi-VN"])
        let byLocale = Dictionary(uniqueKeysWithValues: rows.map { ($0["locale"] as! String, $0) })
        XCTAssertEqual(
            byLocale.mapValues { $0["health"] as? String },
            [
                "de-DE": "unhealthy", "en-US": "nothing-staged", "es-ES": "insufficient-data", "fr-FR": "healthy",
                "it-IT": "insufficient-data", "nl-NL": "nothing-staged", "tr-TR": "healthy", "vi-VN": "nothing-staged",
            ])
        XCTAssertEqual(
            byLocale.filter { $0.value["held"] as? Bool == true }.keys.sorted(), ["fr-FR", "it-IT", "nl-NL"])
        let mismatch = try XCTUnwrap((byLocale["fr-FR"]?["holds"] as? [[String: Any]])?.first)
        XCTAssertEqual(mismatch["hold"] as? String, "sample-ratio-mismatch")
        XCTAssertEqual(mismatch["segments"] as? [String], ["TR/4.8", "TR/4.9"])
        XCTAssertEqual((byLocale["it-IT"]?["holds"] as? [[String: Any]])?.first?["hold"] as? String, "ramp-paused")
        XCTAssertEqual((byLocale["nl-NL"]?["holds"] as? [[String: Any]])?.first?["hold"] as? String, "kill-switch")
        XCTAssertEqual(byLocale["vi-VN"]?["blocked"] as? [String], ["vi-VN@4"])
        XCTAssertEqual(byLocale["tr-TR"]?["staged"] as? String, "tr-TR@18")
        XCTAssertEqual(byLocale["tr-TR"]?["newestMetrics"] as? String, "2026-11-27")
        XCTAssertEqual(byLocale["tr-TR"]?["metricsAgeDays"] as? Int, 1)
        XCTAssertTrue(byLocale["en-US"]?["newestMetrics"] is NSNull)
        XCTAssertEqual(
            ((byLocale["vi-VN"]?["plan"] as? [String: Any])?["lastChange"] as? [String: Any])?["action"] as? String,
            "revert")
        XCTAssertEqual((json["plans"] as? [Any])?.count, 8, "the plan documents, as before")
        XCTAssertEqual(json["unpromoted"] as? [String], ["tr"])
    }

    func testARepositoryWithNoPlanSaysHowToStart() throws {
        let w = try Workspace()
        XCTAssertEqual(try w.rollout("init").status, 0)
        let empty = try w.rollout("status")
        XCTAssertEqual(empty.status, 0, empty.output)
        XCTAssertEqual(
            empty.stdout, "Nothing promoted yet. Stage a pack with rollout promote LOCALE@VERSION --to 1%.\n")
        XCTAssertEqual(try w.rollout(["pack", "add"] + Fixtures.allExamplePacks).status, 0)
        let json = try w.json(try w.rollout("status", "--json"))
        XCTAssertEqual((json["locales"] as? [Any])?.count, 0)
        XCTAssertEqual(json["unpromoted"] as? [String], ["en-US", "tr", "tr-TR", "vi-VN"])
        let report = try w.rollout("report", "--all", "--out", "reports")
        XCTAssertEqual(report.status, 0, report.output)
        let page = try String(contentsOfFile: w.work + "/reports/index.html", encoding: .utf8)
        XCTAssertTrue(page.contains("Packs but nothing promoted: en-US, tr, tr-TR, vi-VN."), page)
    }

    func testReportAllAsksForLocaleOrAllAndADirectory() throws {
        let w = try Workspace()
        try w.initWithExamples()
        let both = try w.rollout("report", "tr-TR", "--all", "--out", "reports")
        XCTAssertEqual(both.status, 64, both.output)
        XCTAssertEqual(both.stderr, "rollout: rollout report takes LOCALE or --all, not both\n")
        let neither = try w.rollout("report", "--out", "reports")
        XCTAssertEqual(neither.status, 64, neither.output)
        XCTAssertEqual(neither.stderr, "rollout: rollout report needs LOCALE, or --all for every locale\n")
        _ = try w.scratch.write("work/taken", "a file where the directory would go")
        let blocked = try w.rollout("report", "--all", "--out", "taken")
        XCTAssertEqual(blocked.status, 64, blocked.output)
        XCTAssertEqual(blocked.stderr, "rollout: --out \(w.work)/taken exists and is not a directory\n")
    }

    /// `report --all` writes a page per planned locale and the overview; headless Chromium opens the
    /// overview, follows every link to the page written beside it, and lays the overview out at a
    /// phone's width and a desktop's.
    func testTheAllLocalesPageLinksToEveryLocalesPageInABrowser() throws {
        let w = try Self.shared.get()
        let written = try w.rollout(["report", "--all", "--out", "reports", "--json"], env: Self.now)
        XCTAssertEqual(written.status, 0, written.output)
        let json = try w.json(written)
        let pages = try XCTUnwrap(json["pages"] as? [[String: Any]])
        let planned = ["de-DE", "en-US", "es-ES", "fr-FR", "it-IT", "nl-NL", "tr-TR", "vi-VN"]
        XCTAssertEqual(pages.map { $0["locale"] as? String }, planned)
        XCTAssertEqual(json["path"] as? String, w.work + "/reports/index.html")
        let index = try String(contentsOfFile: w.work + "/reports/index.html", encoding: .utf8)
        XCTAssertFalse(index.contains("<script"), "self-contained")
        XCTAssertTrue(index.contains("<tr class=\"locale verdict-unhealthy\">"), "de-DE is marked")
        XCTAssertTrue(index.contains("sample ratio mismatch in TR/4.8, TR/4.9"))
        let parser = XMLParser(data: Data(index.utf8))
        XCTAssertTrue(parser.parse(), "well-formed: \(String(describing: parser.parserError))")

        for locale in planned {
            let page = try String(contentsOfFile: w.work + "/reports/\(locale).html", encoding: .utf8)
            XCTAssertTrue(page.contains("<a href=\"index.html\">Every locale</a>"), "\(locale) links back")
        }
        let alone = try w.rollout(["report", "tr-TR", "--out", "alone.html"], env: Self.now)
        XCTAssertEqual(alone.status, 0, alone.output)
        let page = try String(contentsOfFile: w.work + "/alone.html", encoding: .utf8)
        XCTAssertFalse(page.contains("index.html"), "a page on its own links to no overview")

        let lines = try BrowserLinks.follow(index: w.work + "/reports/index.html")
        XCTAssertEqual(
            lines.filter { $0.hasPrefix("page ") }.sorted(), planned.map { "page \($0).html \($0)" },
            "every link opens the page of its locale: \(lines)")
        for width in ["375", "1280"] {
            let measured = lines.first { $0.hasPrefix("width \(width) ") }
            XCTAssertEqual(measured, "width \(width) \(width)", "the page fits a \(width) px window: \(lines)")
        }
    }
}

/// Opens an overview page in headless Chromium (as ReportInBrowserTests does) inside a page of
/// iframes, measures it at 375 and 1280 px, and loads every link in an iframe of its own.
enum BrowserLinks {
    static let script = #"""
        window.addEventListener('load', function () {
          var out = [], frames = document.querySelectorAll('iframe.index');
          frames.forEach(function (f) {
            out.push('width ' + f.id + ' ' + f.contentDocument.documentElement.scrollWidth);
          });
          var links = Array.prototype.map.call(frames[0].contentDocument.querySelectorAll('a[href]'),
            function (a) { return a.href; });
          var pending = links.length;
          var done = function () {
            var pre = document.createElement('pre');
            pre.id = 'findings';
            pre.textContent = 'measured\n' + out.join('\n');
            document.body.appendChild(pre);
          };
          if (!pending) done();
          links.forEach(function (href) {
            var f = document.createElement('iframe');
            f.onload = function () {
              var h = f.contentDocument && f.contentDocument.querySelector('h1');
              out.push('page ' + href.split('/').pop() + ' ' + (h ? h.textContent : 'none'));
              if (--pending === 0) done();
            };
            f.src = href;
            document.body.appendChild(f);
          });
        });
        """#

    static func follow(index: String) throws -> [String] {
        let chromium = try XCTUnwrap(
            ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first {
                FileManager.default.isExecutableFile(atPath: $0)
            },
            "chromium is not installed: `make deps` installs it (Debian's chromium package)")
        let directory = (index as NSString).deletingLastPathComponent
        let source = URL(fileURLWithPath: index).absoluteString
        let frames = ["375", "1280"].map {
            "<iframe class=\"index\" id=\"\($0)\" style=\"display:block;border:0;width:\($0)px;height:600px\" src=\"\(source)\"></iframe>"
        }
        let wrapper =
            "<!DOCTYPE html><html><head><meta charset=\"utf-8\"/></head><body style=\"margin:0\">"
            + frames.joined() + "<script>\(script)</script></body></html>"
        let file = URL(fileURLWithPath: directory + "/../links-wrapper.html").standardized
        try Data(wrapper.utf8).write(to: file)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: chromium)
        process.arguments = [
            "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--allow-file-access-from-files",
            "--user-data-dir=\(directory)/../chromium-profile", "--window-size=1400,1000",
            "--virtual-time-budget=10000", "--dump-dom", file.absoluteString,
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let timer = DispatchWorkItem { process.terminate() }
        DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: timer)
        let dom = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        timer.cancel()
        guard let start = dom.range(of: "<pre id=\"findings\">measured\n"),
            let end = dom.range(of: "</pre>", range: start.upperBound..<dom.endIndex)
        else {
            XCTFail("chromium did not run the script (exit \(process.terminationStatus)): \(dom.prefix(300))")
            return []
        }
        return dom[start.upperBound..<end.lowerBound].split(separator: "\n").map(String.init)
    }
}

/// A locale whose metrics cannot be read is listed with `error` and the reason, and the others still are.
final class StatusOverviewErrorTests: XCTestCase {
    func testALocaleWhoseHealthCannotBeEvaluatedIsListedWithWhyAndTheOthersStillAre() throws {
        let w = try Workspace()
        try w.initWithExamples()
        XCTAssertEqual(try w.rollout("promote", "en-US@1", "--to", "100%").status, 0)
        XCTAssertEqual(try w.rollout("promote", "tr-TR@17", "--to", "100%").status, 0)
        XCTAssertEqual(try w.rollout("promote", "tr-TR@18", "--to", "10%", "--region", "TR").status, 0)
        try OldVersion.ingest(w, locale: "tr-TR", counts: ["18|TR|4.8.1": "18014398509481984", "17|TR|4.8.1": "100"])

        let status = try w.rollout("status")
        XCTAssertEqual(status.status, 0, "status only reads: \(status.output)")
        let row = status.stdout.split(separator: "\n").first { $0.hasPrefix("tr-TR ") } ?? ""
        XCTAssertTrue(row.contains(" error "), String(row))
        XCTAssertTrue(
            status.stdout.contains(
                "tr-TR: health could not be evaluated: metrics/crash/tr-TR/2026-11-20.json: 18|TR|4.8.1 holds"),
            status.stdout)
        XCTAssertTrue(status.stdout.contains("rollout metrics retract sha256:"), status.stdout)
        XCTAssertTrue(status.stdout.hasPrefix("LOCALE"), status.stdout)
        let json = try w.json(try w.rollout("status", "--json"))
        let rows = try XCTUnwrap(json["locales"] as? [[String: Any]])
        XCTAssertEqual(rows.map { $0["health"] as? String }, ["nothing-staged", "error"])
        XCTAssertTrue((rows[1]["error"] as? String ?? "").contains("metrics/crash/tr-TR/2026-11-20.json"))
        XCTAssertEqual(rows[1]["newestMetrics"] as? String, "2026-11-20")

        // report --all writes the pages it can and says why tr-TR has none, instead of failing them all.
        let report = try w.rollout("report", "--all", "--out", "reports")
        XCTAssertEqual(report.status, 0, report.output)
        XCTAssertTrue(
            report.stdout.contains(
                "tr-TR has no page: health could not be evaluated: metrics/crash/tr-TR/2026-11-20.json"),
            report.stdout)
        let files = try FileManager.default.contentsOfDirectory(atPath: w.work + "/reports").sorted()
        XCTAssertEqual(files, ["en-US.html", "index.html"])
        let index = try String(contentsOfFile: w.work + "/reports/index.html", encoding: .utf8)
        XCTAssertTrue(index.contains("href=\"en-US.html\""), index)
        XCTAssertFalse(index.contains("href=\"tr-TR.html\""), "no link to a page that was not written")
        XCTAssertTrue(index.contains("tr-TR: health could not be evaluated, so it has no page: metrics/crash/tr-TR"))
        XCTAssertEqual(
            (try w.json(try w.rollout("report", "--all", "--out", "reports", "--json"))["unreadable"]
                as? [String: String])?
                .keys.sorted(), ["tr-TR"])
    }
}
