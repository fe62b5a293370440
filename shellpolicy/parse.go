package shellpolicy

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"

	"github.com/guard-sh/guard/rule"
)

// Parse reads src as the shell would and returns every simple command it
// would run. It never fails: what it cannot read is in Script.Problems, and
// the segments it found up to there are kept.
func Parse(src string, opts Options) *Script {
	w := newWalker(opts)
	w.top(src)
	w.parsers = nil // the script outlives the walker's work
	return w.script
}

// Segments returns the rendered text of every segment of src (the reading
// that runs), for `guard rules test`. The error describes the first problem,
// if any, with its line:col; the segments found before it are returned too.
func Segments(src string) ([]rule.Text, error) {
	s := Parse(src, Options{})
	out := make([]rule.Text, len(s.Segments))
	for i := range s.Segments {
		out[i] = s.Segments[i].Text
	}
	if len(s.Problems) > 0 {
		p := s.Problems[0]
		return out, fmt.Errorf("%s: %s", p.Pos, p.Msg)
	}
	return out, nil
}

func (o Options) lang() syntax.LangVariant {
	if o.Dialect == "sh" || o.Dialect == "posix" || o.Dialect == "dash" {
		return syntax.LangPOSIX
	}
	return syntax.LangBash
}

// top parses the whole command statement by statement, so that walking stops
// as soon as a limit is reached.
func (w *walker) top(src string) {
	if len(src) > MaxInputBytes {
		w.problem(Position{1, 1}, ReasonLimit, fmt.Sprintf("the command is %d bytes long; guard reads at most %d", len(src), MaxInputBytes))
		return
	}
	// The frame, reader and loop state live in the walker: the loop's body
	// is a function the parser's iterator calls, so whatever it uses would
	// otherwise be allocated on its own.
	w.rootFrame = frame{src: src, lang: w.opts.lang(), ctrl: hasControl(src)}
	f := &w.rootFrame
	if !utf8.ValidString(src) {
		w.problem(offsetPosition(src, invalidUTF8At(src)), ReasonControlCharacter,
			"the command is not valid UTF-8; guard cannot be sure it reads it as bash does")
	}
	w.topIn = w.knownDir(w.opts.Dir)
	w.reader = depthReader{s: src}
	r := &w.reader
	p := newParser(f.lang)
	// The parser's iterator must be drained (it yields a final error even
	// after the loop stops), so stopping early is done by starving it of
	// input instead.
	for stmt, err := range p.StmtsSeq(r) {
		switch {
		case w.stopped:
		case err != nil:
			w.parseError(err, r, f)
			w.stopped = true
		default:
			w.topIn = w.stmt(stmt, w.topIn, f).any()
			if w.full {
				w.stopped, r.halt = true, true
			}
		}
	}
	if f.ctrl && !w.full {
		w.controlChars(f)
	}
}

// newParser is a parser of the dialect. A parser reads bash unless told
// otherwise, and each syntax.Variant option is a new closure: bash, by far
// the most common, is asked for with no option at all.
func newParser(lang syntax.LangVariant) *syntax.Parser {
	if lang == syntax.LangBash {
		return syntax.NewParser()
	}
	return syntax.NewParser(syntax.Variant(lang))
}

// parseError records why the parser stopped.
func (w *walker) parseError(err error, r *depthReader, f *frame) {
	if r.tooDeep {
		w.problem(offsetPosition(f.src, r.off), ReasonLimit,
			fmt.Sprintf("the command nests deeper than guard follows (%d levels)", MaxDepth))
		return
	}
	pos, msg := errorPosition(err)
	w.problem(pos, ReasonParseError, msg+": guard cannot read this command as bash would")
}

// errorPosition splits a parser error into its position and message.
func errorPosition(err error) (Position, string) {
	var pe syntax.ParseError
	if errors.As(err, &pe) {
		return Position{int(pe.Pos.Line()), int(pe.Pos.Col())}, pe.Text
	}
	var le syntax.LangError
	if errors.As(err, &le) {
		return Position{int(le.Pos.Line()), int(le.Pos.Col())}, strings.TrimPrefix(le.Error(), le.Pos.String()+": ")
	}
	return Position{1, 1}, err.Error()
}

// depthReader feeds the parser its input as a strings.Reader would (the
// parser reads into a buffer of 1 KiB: smaller reads would change how its
// lexer looks ahead) and, at each read, stops it if its call stack has grown
// past maxParserFrames. The parser recurses once per nesting level and a
// goroutine's stack overflow is a crash that cannot be recovered, so this
// bounds it from outside.
type depthReader struct {
	s       string
	off     int
	tooDeep bool
	halt    bool // the caller has read enough: end the input here
	pc      [1]uintptr
}

// readError is an error of depthReader: a constant, made by the compiler
// rather than when the package starts.
type readError string

func (e readError) Error() string { return string(e) }

const errTooDeep readError = "nesting too deep"

// shallowInput is the length under which input cannot make the parser
// recurse maxParserFrames deep: each level of nesting takes at least one byte
// and fewer than ten frames.
const shallowInput = maxParserFrames / 10

func (r *depthReader) Read(p []byte) (int, error) {
	if r.tooDeep {
		return 0, errTooDeep
	}
	if r.off >= len(r.s) || r.halt {
		return 0, io.EOF
	}
	// Is there a frame maxParserFrames below this one? Walking the stack
	// costs as much as it is deep, which is little for any real command;
	// input shorter than shallowInput cannot nest deep enough to matter.
	if len(r.s) >= shallowInput && runtime.Callers(maxParserFrames, r.pc[:]) > 0 {
		r.tooDeep = true
		return 0, errTooDeep
	}
	if len(p) == 0 {
		// The parser would ask again forever.
		return 0, errNoBuffer
	}
	n := copy(p, r.s[r.off:])
	r.off += n
	return n, nil
}

const errNoBuffer readError = "the parser offered no buffer to read into"

// hasControl reports whether s holds a control character other than tab and
// newline.
func hasControl(s string) bool {
	for i := 0; i < len(s); i++ {
		if isControlByte(s[i]) {
			return true
		}
	}
	return false
}

func isControlByte(c byte) bool { return (c < 0x20 && c != '\t' && c != '\n') || c == 0x7f }

// controlChars reports control characters outside quoted text. The parser
// library takes a carriage return for a blank and bash does not, and other
// control characters are where such differences hide: guard asks rather than
// guess. Inside quotes (and here-document bodies) they are only data.
func (w *walker) controlChars(f *frame) {
	for i := 0; i < len(f.src); i++ {
		if !isControlByte(f.src[i]) || f.inQuoted(i) {
			continue
		}
		w.problem(offsetPosition(f.src, i), ReasonControlCharacter,
			fmt.Sprintf("unquoted control character %q: bash and guard's parser may read it differently", f.src[i]))
		return
	}
}

// offsetPosition is the line:col of a byte offset.
func offsetPosition(src string, off int) Position {
	if off > len(src) {
		off = len(src)
	}
	line := 1 + strings.Count(src[:off], "\n")
	col := off - strings.LastIndexByte(src[:off], '\n')
	return Position{line, col}
}

func invalidUTF8At(s string) int {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return 0
}

// parseCode parses a string that a command runs as shell code (bash -c,
// eval, trap, ...). It returns the reason it cannot be judged, if any.
func (w *walker) parseCode(code string, lang syntax.LangVariant) ([]*syntax.Stmt, string) {
	w.nestedBytes += len(code)
	if w.nestedBytes > MaxNestedBytes {
		return nil, fmt.Sprintf("more than %d bytes of nested shell strings", MaxNestedBytes)
	}
	if hasControl(code) {
		// Inside a string that is itself parsed, guard does not track
		// quoting: any control character asks.
		return nil, "the string holds a control character, which bash and guard's parser may read differently"
	}
	r := &depthReader{s: code}
	p := w.parsers[lang]
	if p == nil {
		if w.parsers == nil {
			w.parsers = map[syntax.LangVariant]*syntax.Parser{}
		}
		p = newParser(lang)
		w.parsers[lang] = p
	}
	file, err := p.Parse(r, "")
	if r.tooDeep {
		return nil, fmt.Sprintf("the string nests deeper than guard follows (%d levels)", MaxDepth)
	}
	if err != nil {
		pos, msg := errorPosition(err)
		return nil, fmt.Sprintf("the string does not parse (%s: %s)", pos, msg)
	}
	return file.Stmts, ""
}
