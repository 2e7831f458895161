import FlowCLI
FlowspecCommand.main()
