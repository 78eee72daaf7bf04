import Foundation
import RolloutCLI
import RolloutDevice

// What `rollout device` runs (docs/install.md, "What is linked how"), and what posts rollout's
// webhooks (docs/notifications.md): rollout links no HTTP client, this program does.
if CommandLine.arguments.dropFirst().first == WebhookWire.helperWord {
    let input = FileHandle.standardInput.readDataToEndOfFile()
    FileHandle.standardOutput.write(Data(WebhookSender.serve(input: [UInt8](input))))
    exit(0)
}
RolloutCLI.main(commands: RolloutDevice.commands)
