import RolloutCLI

RolloutCLI.main()
