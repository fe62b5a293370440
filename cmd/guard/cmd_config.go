package main

func configCommands() []command { return nil }
