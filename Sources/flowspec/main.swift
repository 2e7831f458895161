import FlowCLI

await FlowspecCommand.main()
