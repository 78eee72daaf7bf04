import RolloutModel
import RolloutStore

enum SimulateCommand {
    static let spec = CommandSpec(
        path: ["simulate"],
        summary: "draw synthetic devices over a region/app-version mix and show the share of each pack per segment",
        discussion: """
            Without --mix the segments are the ones the plan names: each region its rules target, one
            region they do not, at every app version where resolution can change. A mix file is CSV with a
            header naming region, app_version and weight in any order, for example:

                region,app_version,weight
                TR,4.8.1,60
                TR,4.7.0,15
                DE,4.8.1,25

            EXPECTED is what the plan promises; SIMULATED is what the hashing gave the drawn devices.
            """,
        options: Options.self,
        arguments: .exactly("LOCALE"),
        effects: [.readsRepository, .readsFiles],
        run: run)

    struct Options: OptionGroup {
        let devices = Option.count(
            "devices", "N", "how many devices to draw (default 100000)", minimum: 1, maximum: 100_000_000)
        let mix = Option<Path>("mix", "FILE", "CSV of region, app_version, weight")
        let seed = Option.count(
            "seed", "N", "seed for the install ids (default 1): same seed, same devices", minimum: 1)

        static let declared = Options()
    }

    static func run(_ invocation: Invocation, _ context: CommandContext) throws -> CommandOutput {
        let locale = try LocaleTag.canonical(invocation.positionals[0])
        let options = Options.declared
        let devices = try invocation.value(options.devices) ?? 100_000
        let seed = UInt64(try invocation.value(options.seed) ?? 1)
        let snapshot = try context.repository(invocation).snapshot()
        guard let plan = try snapshot.plan(locale) else {
            throw RolloutError.missing(
                "\(locale) has no plan yet: nothing was promoted, every device uses its bundled strings")
        }
        let mix: [Simulation.Segment]
        if let path = try invocation.value(options.mix)?.text {
            mix = try parseMix(context.readFile(path, describedAs: "mix file"), source: path)
        } else {
            let named = Set(plan.rules.flatMap(\.regions))
            let other =
                ["US", "GB", "DE", "FR", "JP"].first { !named.contains($0) } ?? Region.assigned.sorted().first {
                    !named.contains($0)
                }!
            mix = Simulation.defaultMix(for: plan, otherRegion: other)
        }
        let results = Simulation.run(plan, mix: mix, devices: devices, seed: seed)
        var table = Table("SEGMENT", "DEVICES", "PACK", "EXPECTED", "SIMULATED")
        var json: [JSONValue] = []
        var totals: [Resolution.Outcome: Int] = [:]
        for result in results {
            let outcomes = Set(result.counts.keys).union(result.expected.keys).sorted()
            for (index, outcome) in outcomes.enumerated() {
                let count = result.counts[outcome] ?? 0
                totals[outcome, default: 0] += count
                let simulated = result.devices == 0 ? 0 : Double(count) * 100 / Double(result.devices)
                table.add(
                    index == 0 ? result.segment.label : "", index == 0 ? "\(result.devices)" : "",
                    outcome.label(locale: locale),
                    Percent(basisPoints: result.expected[outcome] ?? 0).description, format(simulated) + "%")
            }
            json.append([
                "region": .string(result.segment.region), "appVersion": .string(result.segment.appVersion.description),
                "devices": .integer(result.devices),
                "packs": .array(
                    outcomes.map { outcome in
                        [
                            "pack": .string(outcome.label(locale: locale)),
                            "expectedBasisPoints": .integer(result.expected[outcome] ?? 0),
                            "devices": .integer(result.counts[outcome] ?? 0),
                        ]
                    }),
            ])
        }
        var text = table.render(context.style(invocation))
        text +=
            "Overall: "
            + totals.sorted { $0.key < $1.key }.map { "\($0.key.label(locale: locale)) \($0.value) devices" }.joined(
                separator: ", ") + "\n"
        return CommandOutput(
            json: [
                "locale": .string(locale), "devices": .integer(devices), "seed": .integer(Int(seed)),
                "segments": .array(json),
            ], text: text)
    }

    static func format(_ value: Double) -> String {
        let scaled = (value * 100).rounded() / 100
        return scaled == scaled.rounded() ? "\(Int(scaled))" : "\(scaled)"
    }

    /// A small CSV: a header naming region, app_version and weight in any order, then one row per segment.
    static func parseMix(_ bytes: [UInt8], source: String) throws -> [Simulation.Segment] {
        var text = String(decoding: bytes, as: UTF8.self)
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        // Split on the scalar: in Swift "\r\n" is one Character, so splitting Characters on "\n" misses it.
        let lines = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            Substring(String(String.UnicodeScalarView(line.last == "\r" ? line.dropLast() : line[...])))
        }
        guard let header = lines.first, !header.isEmpty else {
            throw RolloutError.badInput("\(source): empty file; the first line must name region, app_version, weight")
        }
        let names = header.split(separator: ",", omittingEmptySubsequences: false).map {
            String($0).trimmingSpaces.lowercased()
        }
        func column(_ name: String) throws -> Int {
            guard let index = names.firstIndex(of: name) else {
                throw RolloutError.badInput(
                    "\(source):1: the header has no \(name) column (found: \(names.joined(separator: ", ")))")
            }
            return index
        }
        let (r, v, w) = (try column("region"), try column("app_version"), try column("weight"))
        var segments: [Simulation.Segment] = []
        for (offset, line) in lines.enumerated().dropFirst() where !String(line).trimmingSpaces.isEmpty {
            let number = offset + 1
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingSpaces }
            guard fields.count == names.count else {
                throw RolloutError.badInput(
                    "\(source):\(number): \(fields.count) fields, the header has \(names.count)")
            }
            let region: String
            do {
                region = try Region.parse(fields[r])
            } catch let error as RolloutError {
                throw RolloutError.badInput("\(source):\(number): \(error.message)")
            }
            guard region != Region.any else {
                throw RolloutError.badInput("\(source):\(number): a mix names real regions, not *")
            }
            guard let version = AppVersion(fields[v]) else {
                throw RolloutError.badInput(
                    "\(source):\(number): app_version \"\(fields[v])\" is not a numeric version")
            }
            guard let weight = Double(fields[w]), weight.isFinite, weight >= 0, weight <= 1e12 else {
                throw RolloutError.badInput(
                    "\(source):\(number): weight \"\(fields[w])\" is not a number from 0 to 10^12")
            }
            segments.append(Simulation.Segment(region: region, appVersion: version, weight: weight))
        }
        guard segments.contains(where: { $0.weight > 0 }) else {
            throw RolloutError.badInput("\(source): no segment has a positive weight")
        }
        return segments
    }
}
