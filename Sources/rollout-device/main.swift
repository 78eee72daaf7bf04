import RolloutCLI
import RolloutDevice

// What `rollout device` runs (docs/install.md, "What is linked how").
RolloutCLI.main(commands: RolloutDevice.commands)
