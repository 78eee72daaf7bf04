import Foundation
import XCTest

/// Issue 31, item 4: a damaged repository is not a bug. Each way an object store breaks (a loose
/// blob, tree or commit deleted; after `rollout gc`, a pack cut short, bytes changed inside it, its
/// `.idx` deleted) is made on a copy of one repository, and every command runs on it: none exits 70,
/// each that fails exits 65 naming what it could not read and `rollout verify`, and `verify` exits
/// 1 listing the damage (docs/reliability.md, "A damaged repository").
final class DamagedRepositoryTests: XCTestCase {
    /// One way to damage the repository, and what every message about it must name.
    private struct Damage {
        let name: String
        /// Whether the repository is packed (`rollout gc`) first.
        let packed: Bool
        /// Damages the repository at the path; returns the text the messages must name.
        let apply: (_ repository: String, _ w: Workspace) throws -> String
    }

    private func object(_ w: Workspace, _ repository: String, _ spec: String) throws -> String {
        try w.git("rev-parse", spec, repository: repository).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func deleteLoose(_ spec: String) -> (String, Workspace) throws -> String {
        { repository, w in
            let id = try self.object(w, repository, spec)
            let path = "\(repository)/objects/\(id.prefix(2))/\(id.dropFirst(2))"
            try FileManager.default.removeItem(atPath: path)
            return String(id.prefix(12))
        }
    }

    private func thePack(_ repository: String) throws -> String {
        let directory = repository + "/objects/pack"
        let packs = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".pack") }
        XCTAssertEqual(packs.count, 1, "\(packs)")
        return directory + "/" + (try XCTUnwrap(packs.first))
    }

    private var damages: [Damage] {
        [
            Damage(name: "loose blob deleted", packed: false, apply: deleteLoose("main:packs/tr-TR/0/18.json")),
            Damage(name: "loose tree deleted", packed: false, apply: deleteLoose("main:packs")),
            Damage(name: "loose commit deleted", packed: false, apply: deleteLoose("main")),
            Damage(name: "pack cut short", packed: true) { repository, w in
                let pack = try self.thePack(repository)
                let size = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: pack)[.size] as? Int)
                XCTAssertEqual(truncate(pack, off_t(size / 2)), 0)
                return String(try self.object(w, repository, "main").prefix(12))
            },
            Damage(name: "bytes flipped in a pack", packed: true) { repository, w in
                // Inside the tip commit's compressed bytes: found where `git verify-pack` places it.
                let pack = try self.thePack(repository)
                let tip = try self.object(w, repository, "main")
                let listing = try Processes.run(
                    "/usr/bin/env", ["git", "verify-pack", "-v", String(pack.dropLast(5)) + ".idx"], in: w.root,
                    environment: w.environment)
                let line = try XCTUnwrap(listing.stdout.split(separator: "\n").first { $0.hasPrefix(tip) })
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                let (packed, offset) = (try XCTUnwrap(Int(fields[3])), try XCTUnwrap(Int(fields[4])))
                chmod(pack, 0o644)
                var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: pack)))
                for index in (offset + packed / 3)..<(offset + packed / 3 + 16) { bytes[index] ^= 0xFF }
                try Data(bytes).write(to: URL(fileURLWithPath: pack))
                return String(tip.prefix(12))
            },
            Damage(name: "pack index deleted", packed: true) { repository, w in
                try FileManager.default.removeItem(atPath: String(try self.thePack(repository).dropLast(5)) + ".idx")
                return String(try self.object(w, repository, "main").prefix(12))
            },
        ]
    }

    /// The commands a release manager runs, each against the damaged copy.
    private func commands(_ w: Workspace, site: String) -> [[String]] {
        [
            ["status"], ["pack", "show", "tr-TR@18"], ["pack", "diff", "tr-TR@17", "tr-TR@18"], ["pack", "list"],
            ["publish", "--out", site, "--key", w.scratch.path("signing.key")],
            ["promote", "tr-TR@18", "--to", "20%", "--force", "--reason", "damage test"],
            ["revert", "tr-TR", "--reason", "damage test"], ["log"], ["gc"],
        ]
    }

    func testADamagedRepositoryIsNamedNeverABug() throws {
        let w = try Workspace(process: true)
        try w.initWithExamples()
        XCTAssertEqual(try w.rollout("promote", "tr-TR@17", "--to", "100%").status, 0)
        XCTAssertEqual(try w.rollout("promote", "tr-TR@18", "--to", "10%").status, 0)
        XCTAssertEqual(try w.rollout("keys", "generate", "--out", w.scratch.path("signing.key")).status, 0)
        XCTAssertEqual(
            try w.rollout("publish", "--out", w.scratch.path("site"), "--key", w.scratch.path("signing.key")).status, 0)
        let fm = FileManager.default
        var failures = 0
        for (number, damage) in damages.enumerated() {
            let copy = w.scratch.path("damaged-\(number)")
            try fm.copyItem(atPath: w.work, toPath: copy)
            try fm.copyItem(atPath: w.scratch.path("site"), toPath: copy + "/site")
            let repository = copy + "/.rollout"
            if damage.packed { XCTAssertEqual(try w.rollout(["gc"], in: copy).status, 0, damage.name) }
            let named = try damage.apply(repository, w)

            let verify = try w.rollout(["verify"], in: copy)
            XCTAssertEqual(verify.status, 1, "\(damage.name): \(verify.output)")
            XCTAssertTrue(verify.stdout.contains(named), "\(damage.name): verify names \(named): \(verify.output)")
            XCTAssertTrue(verify.stdout.contains("missing or damaged"), "\(damage.name): \(verify.output)")
            let json = try w.json(try w.rollout(["verify", "--json"], in: copy))
            XCTAssertEqual(json["ok"] as? Bool, false, damage.name)

            for command in commands(w, site: copy + "/site") {
                let result = try w.rollout(command, in: copy)
                let what = "\(damage.name): rollout \(command.joined(separator: " ")) exited \(result.status)"
                XCTAssertNotEqual(result.status, 70, "\(what): \(result.output)")
                XCTAssertFalse(result.output.contains("this is a bug"), "\(what): \(result.output)")
                guard result.status != 0 else { continue }
                failures += 1
                XCTAssertEqual(result.status, 65, "\(what): \(result.output)")
                XCTAssertTrue(result.stderr.contains("is damaged"), "\(what): \(result.output)")
                XCTAssertTrue(result.stderr.contains("run rollout verify"), "\(what): \(result.output)")
                // gc walks the history with libgit2's revwalk, whose zlib failure names no object:
                // it names the damage and verify, which lists the object.
                if command != ["gc"] {
                    XCTAssertTrue(result.stderr.contains(named), "\(what): names \(named): \(result.output)")
                }
            }
            // Reading the damaged pack is what every one of these needs.
            let show = try w.rollout(["pack", "show", "tr-TR@18"], in: copy)
            XCTAssertEqual(show.status, 65, "\(damage.name): \(show.output)")
        }
        XCTAssertGreaterThan(failures, 30)
    }

    /// An intact repository still verifies, through the new object check, with its counts.
    func testAnIntactPackedRepositoryVerifies() throws {
        let w = try Workspace()
        try w.initWithExamples()
        XCTAssertEqual(try w.rollout("gc").status, 0)
        let verify = try w.rollout("verify")
        XCTAssertEqual(verify.status, 0, verify.output)
        XCTAssertTrue(verify.stdout.contains("repository intact"), verify.output)
        XCTAssertTrue(verify.stdout.contains("5 pack(s)"), verify.output)
    }
}
