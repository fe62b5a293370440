package shellpolicy

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/guard-sh/guard/rule"
)

// Position is a place in the command: a 1-based line and a 1-based column
// counted in bytes, as the shell parser reports them.
type Position struct {
	Line int `json:"line"`
	Col  int `json:"col"`
}

// String is "line:col".
func (p Position) String() string { return strconv.Itoa(p.Line) + ":" + strconv.Itoa(p.Col) }

// MarshalText writes the position as "line:col" in JSON.
func (p Position) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// Word is one word of a segment after quote removal. Parts whose value is
// known only when the shell runs ($X, $(...), an unquoted glob or ~, a brace
// expansion) are unknown spans of Text.
type Word struct {
	Text rule.Text
	// Split is set for a word with an unquoted expansion: the shell may split
	// it into several words, or drop it when it expands to nothing.
	Split bool
	// tildeHome is set when the word is ~ or ~/... (the user's home, not
	// reassigned by the command) and the rest is known: its path is then
	// known too.
	tildeHome bool
}

// Literal returns the word's value when it is wholly known.
func (w Word) Literal() (string, bool) {
	if len(w.Text) == 1 && !w.Text[0].Unknown {
		return w.Text[0].Lit, true // the common case
	}
	if w.Text.HasUnknown() {
		return "", false
	}
	return w.Text.String(), true
}

// Path returns the file path the word names, with ~ taken as home. ok is
// false when the path is known only at run time.
func (w Word) Path(home string) (p string, ok bool) {
	if s, ok := w.Literal(); ok {
		return s, true
	}
	if !w.tildeHome || home == "" || len(w.Text) == 0 {
		return "", false
	}
	rest := Word{Text: w.Text[1:]}
	r, ok := rest.Literal()
	if !ok {
		return "", false
	}
	return strings.TrimSuffix(home, "/") + r, true
}

// String is the word for display: unknown spans appear as their source.
func (w Word) String() string { return w.Text.String() }

func known(s string) Word { return Word{Text: rule.Known(s)} }

// Assign is an assignment written before a command (NAME=value cmd) or on its
// own (NAME=value).
type Assign struct {
	Name   string
	Value  Word
	Append bool // NAME+=value
	Array  bool // NAME=(...)
}

// String is the assignment as it reads: NAME=value.
func (a Assign) String() string {
	op := "="
	if a.Append {
		op = "+="
	}
	return a.Name + op + a.Value.String()
}

// Dirs are the directories a command may run in. After "cd a || cd b" there
// are several; after "cd $X" the directory is unknown.
type Dirs struct {
	Known   []string `json:"known,omitempty"`
	Unknown bool     `json:"unknown,omitempty"`
}

func knownDir(d string) Dirs {
	if d == "" {
		return Dirs{Unknown: true}
	}
	return Dirs{Known: []string{path.Clean(d)}}
}

var unknownDirs = Dirs{Unknown: true}

// union is the directories of either of two paths of control.
func (d Dirs) union(o Dirs) Dirs {
	if d.Unknown || o.Unknown {
		return unknownDirs
	}
	if d.contains(o) {
		return d
	}
	if o.contains(d) {
		return o
	}
	out := Dirs{Known: append(make([]string, 0, len(d.Known)+len(o.Known)), d.Known...)}
	for _, x := range o.Known {
		if !containsString(out.Known, x) {
			out.Known = append(out.Known, x)
		}
	}
	if len(out.Known) > maxDirs {
		return unknownDirs
	}
	return out
}

// join is where "cd rel" leads from each of d.
func (d Dirs) join(rel string) Dirs {
	if d.Unknown {
		return unknownDirs
	}
	out := Dirs{}
	if len(d.Known) > 0 {
		out.Known = make([]string, 0, len(d.Known))
	}
	for _, x := range d.Known {
		j := path.Join(x, rel)
		if !containsString(out.Known, j) {
			out.Known = append(out.Known, j)
		}
	}
	return out
}

// contains reports whether every directory of o is one of d's (both known).
func (d Dirs) contains(o Dirs) bool {
	for _, x := range o.Known {
		if !containsString(d.Known, x) {
			return false
		}
	}
	return true
}

func (d Dirs) equal(o Dirs) bool {
	if d.Unknown || o.Unknown {
		return d.Unknown == o.Unknown
	}
	if len(d.Known) != len(o.Known) {
		return false
	}
	for _, x := range d.Known {
		if !containsString(o.Known, x) {
			return false
		}
	}
	return true
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// FileAccess is a file a segment reads, writes or deletes: the target of a
// redirection, or a file argument of a command known to read or write it.
type FileAccess struct {
	Op   rule.Kind // rule.Read, rule.Write or rule.Delete
	Path Word      // as written, after quote removal
	// Redirect is set for a redirection. A write by redirection is allowed
	// only by a write allow rule; other writes are checked against deny and
	// ask rules only (the command's own allow rule covers them).
	Redirect bool
	By       string // the redirection operator (">", "<", ...) or the command ("cat", "tee", ...)
	Pos      Position
}

// Segment is one simple command the shell would run.
type Segment struct {
	Pos Position // where it starts; inside a nested string, where the string starts

	Words   []Word
	Assigns []Assign // NAME=value written before the command, or alone

	// Text is the reading that will run: the assignments that change how the
	// command behaves and the words, joined by single blanks. An allow rule
	// must match it.
	Text rule.Text
	// Readings are further readings a deny or ask rule may match: without
	// the assignments, by base name for a command given by path, with the
	// global options of git, npm, go, cargo, docker and kubectl skipped, and
	// with empty words dropped.
	Readings []rule.Text

	// Via says what runs the command: "" at the top level, else the
	// construct or command it was found in ("$(...)", "bash -c", "xargs",
	// "function f", ...).
	Via string
	// Wrapper is set for a command that runs another command (env, sudo,
	// xargs, bash -c, ...): the command it runs is a segment of its own.
	Wrapper string

	Dirs  Dirs         // where it runs
	Files []FileAccess // what its redirections and its file arguments touch

	// Unverifiable says why the command that runs cannot be known before it
	// runs (a dynamic command name, eval of a dynamic string, ...); empty
	// when it can.
	Unverifiable string

	kind segKind
	// readOnly is the built-in read-only entry and guard, computed at parse
	// time from the structured words.
	ro roResult
	// info is what the tables say of its command name (nil: not looked up).
	info *commandInfo
}

// command is what the tables say of the segment's command name, which must
// be known.
func (s *Segment) command(name string) *commandInfo {
	if s.info == nil {
		s.info = lookupCommand(name)
	}
	return s.info
}

// Name is the command name when it is known.
func (s *Segment) Name() (string, bool) {
	if len(s.Words) == 0 {
		return "", false
	}
	return s.Words[0].Literal()
}

type segKind uint8

const (
	segCommand segKind = iota // a simple command with words
	segAssign                 // assignments only
	segTest                   // [[ ... ]]
	segArith                  // (( ... )), let, for ((...))
	segDecl                   // declare, local, export, readonly, typeset
)

// Problem is a reason guard could not read the whole command as bash would.
type Problem struct {
	Pos    Position `json:"pos"`
	Reason string   `json:"reason"` // parse-error, control-character, limit
	Msg    string   `json:"message"`
}

func (p Problem) String() string { return fmt.Sprintf("%s: %s", p.Pos, p.Msg) }

// The reasons of a Problem.
const (
	ReasonParseError       = "parse-error"
	ReasonControlCharacter = "control-character"
	ReasonLimit            = "limit"
)

// Script is a parsed command: its segments, in the order the shell would
// reach them, and anything that kept guard from reading it fully.
type Script struct {
	Segments []Segment
	Problems []Problem
}

// Options say where a command runs, for resolving relative paths, ~ and cd.
type Options struct {
	Dir       string // the directory the command starts in
	Home      string // the user's home directory
	Workspace string // the workspace (git -C inside it stays read-only)
	// Dialect is the shell that will run the command: "bash" (the default)
	// or "sh" (POSIX, as dash reads it).
	Dialect string
}

// reason is an entry of a small table of names: the name, and why it is
// there. The tables are short and static, so they are slices the compiler
// lays out, looked up by a scan, rather than maps built when the package
// starts.
type reason struct{ name, why string }

// reasonFor is why name is in list, if it is.
func reasonFor(list []reason, name string) (string, bool) {
	for i := range list {
		if list[i].name == name {
			return list[i].why, true
		}
	}
	return "", false
}
