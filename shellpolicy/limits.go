package shellpolicy

// Limits on the work done for one command. Input past a limit is not judged
// further: the command asks (reason "limit"), and since a deny rule could not
// be proven not to match it, the ask is not folded into allow by bypass when
// shell deny or ask rules exist. No command a person or an agent writes by hand
// comes near them.
const (
	// MaxInputBytes is the longest command guard parses (1 MiB). Parsing and
	// judging are linear in the input, so this bounds the time spent on one
	// command.
	MaxInputBytes = 1 << 20

	// MaxSegments is the most simple commands guard judges in one command.
	// Past it, guard stops reading.
	MaxSegments = 1000

	// MaxDepth is the deepest nesting guard follows: subshells, groups,
	// compound commands, substitutions, function bodies, the commands run by
	// wrappers, and the strings of bash -c, eval and the like, counted
	// together.
	MaxDepth = 64

	// MaxNestedBytes bounds the bytes of nested strings (bash -c, eval, trap,
	// ...) parsed for one command, all together. Each nested string is
	// parsed again, so without it "eval eval eval ... x" would cost time
	// quadratic in its length; with it, judging costs at most about twice
	// the parsing of the longest command.
	MaxNestedBytes = MaxInputBytes

	// maxParserFrames bounds the call stack of the shell parser, which
	// recurses once per nesting level: input such as a million "(" would
	// otherwise overflow the Go stack, a crash that cannot be recovered. The
	// parser reads its input through [depthReader], which stops it at this
	// depth; between two reads it consumes at most its 1 KiB buffer, so the
	// stack grows past the bound by at most some ten thousand frames (a few
	// MiB).
	maxParserFrames = 10000

	// maxDirs is how many possible working directories are tracked for a
	// command (after "cd a || cd b" there are several); past it, the
	// directory is unknown and relative paths ask.
	maxDirs = 8
)
