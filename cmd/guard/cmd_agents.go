package main

// agentCommands are the commands that put guard in front of an agent: its
// hook, a starter settings file, and the import of an agent's permissions.
func agentCommands() []command {
	return []command{
		{name: "hook", summary: "a PreToolUse hook for Claude Code (or Codex): judges each tool call, answers allow, deny or ask", run: runHook},
		{name: "init", summary: "write a commented starter settings file, and print how to put guard in front of an agent", run: runInit},
		{name: "import", summary: "turn a Claude Code settings.json's permissions into guard settings", run: runImport},
	}
}
