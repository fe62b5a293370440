package main

func sandboxCommands() []command { return nil }

// sandboxInit runs the sandbox's init step when this process is one; it
// returns handled=false in every ordinary run of guard.
func sandboxInit() (handled bool, code int) { return false, 0 }
