import Foundation
import RolloutConformance
import RolloutModel

/// `rollout conformance write DIR`: the test vectors a client port proves itself with (docs/conformance.md).
enum ConformanceCommand {
    static let write = CommandSpec(
        path: ["conformance", "write"],
        summary: "write the JSON test vectors a client port (Kotlin, JavaScript) must pass",
        discussion: """
            Bucketing, versions and ranges, resolution, the chain of a device, signatures, index and
            manifest parsing, formatting, lookup order, refresh rounds and trust (key lists, publishing
            keys, expiry), one JSON file each. The same
            rollout always writes the same bytes; Tests/Fixtures/conformance holds them. See docs/conformance.md.
            """,
        options: NoOptions.self, arguments: .exactly("DIR"),
        effects: .writesFiles,
        run: { invocation, context in
            let directory = context.absolutePath(invocation.positionals[0])
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw RolloutError.fileFailure("create", directory, error: error)
            }
            let files = try ConformanceVectors.files()
            for (name, bytes) in files.sorted(by: { $0.key < $1.key }) {
                try context.writeFile(directory + "/" + name, bytes)
            }
            let names = files.keys.sorted()
            return CommandOutput(
                json: ["directory": .string(directory), "files": .array(names.map { .string($0) })],
                text: "Wrote \(names.count) vector file(s) to \(directory): \(names.joined(separator: ", "))\n")
        })
}
