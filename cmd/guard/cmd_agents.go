package main

func agentCommands() []command { return nil }
