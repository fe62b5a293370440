// Package shellpolicy reads a shell command the way bash would and judges it
// by guard's shell rules.
//
// [Parse] finds every simple command the shell would run (a segment): across
// lists and pipelines, in subshells and groups, in command and process
// substitutions, in the bodies of compound commands and functions, inside the
// commands that run other commands (env, sudo, xargs, find -exec, timeout,
// ...), and inside the strings given to bash -c, eval, trap and the like. Each
// segment keeps its words after quote removal, with every part whose value is
// known only when the shell runs marked as unknown, its position in the input,
// the directory it would run in, and the files its redirections and its known
// readers and writers touch.
//
// [Evaluate] judges the segments: by the shell rules of a [rule.Set] (a deny or
// ask rule matches any reading of a segment, an allow rule only the reading
// that runs), by the file rules on what they read and write (through
// [Paths]), and by the built-in read-only defaults and their guards. The
// result is a [Verdict]: data for guard's gate, not text for a terminal.
//
// Where guard cannot read a command as bash would (a parse error, a control
// character, a command name known only at run time, a limit), the command is
// never allowed by default: it asks.
package shellpolicy
