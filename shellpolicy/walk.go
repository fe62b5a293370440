package shellpolicy

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/guard-sh/guard/rule"
)

// walker turns a syntax tree into segments, tracking what earlier commands do
// to later ones: the directory they run in, and whether their names still
// mean what they say.
type walker struct {
	opts        Options
	script      *Script
	nestedBytes int
	full        bool // MaxSegments reached: stop
	deep        bool // MaxDepth reached (reported once)

	// taint, when set, is why the commands from here on may not be what
	// their names say (an alias was defined, PATH was set, ...): they are
	// unverifiable.
	taint         string
	homeChanged   bool // HOME was set: ~ is no longer known
	cdpathChanged bool // CDPATH was set: a relative cd may go elsewhere
	lastpipe      bool // shopt -s lastpipe: a pipeline's last command runs in this shell
	funcs         map[string]*funcInfo

	// spanBuf and wordBuf are where the spans and words of segments are
	// carved from, a block at a time, instead of a small allocation each.
	// What is carved has its capacity cut to its length, so that appending
	// to it copies rather than writes over its neighbour.
	spanBuf            []rule.Span
	wordBuf            []Word
	spanNext, wordNext int // the size of the next block of each
	// parsers are reused for the strings parsed again (bash -c, eval, ...),
	// one per dialect: a parser is a few KiB, and may be used again once
	// its Parse has returned.
	parsers map[syntax.LangVariant]*syntax.Parser

	// The state of the walk of the top level (see top).
	rootFrame frame
	reader    depthReader
	topIn     Dirs
	stopped   bool
	dir       [1]string // the starting directory's Dirs
}

// Sizes of the walker's buffers. The first of each, and room for the first
// segments, come with the walker in one allocation, and hold a typical
// command (BenchmarkTypicalPipeline: 6 segments, 17 words, 23 spans). Later
// blocks double, up to the largest, so that a long script takes a few
// allocations per thousand words rather than one per dozen.
const (
	firstSegments = 8
	spanBlock     = 32
	wordBlock     = 24
	maxBlock      = 1024
)

// text returns n spans, carved from the walker's buffer.
func (w *walker) text(n int) rule.Text {
	if n > len(w.spanBuf) {
		w.spanNext = min(2*max(w.spanNext, spanBlock), maxBlock)
		w.spanBuf = make([]rule.Span, max(n, w.spanNext))
	}
	t := w.spanBuf[:n:n]
	w.spanBuf = w.spanBuf[n:]
	return t
}

// knownText is rule.Known(s), carved from the walker's buffer.
func (w *walker) knownText(s string) rule.Text {
	t := w.text(1)
	t[0].Lit = s
	return t
}

// words returns room for n words (length 0), carved from the walker's
// buffer.
func (w *walker) words(n int) []Word {
	if n > len(w.wordBuf) {
		w.wordNext = min(2*max(w.wordNext, wordBlock), maxBlock)
		w.wordBuf = make([]Word, max(n, w.wordNext))
	}
	ws := w.wordBuf[:0:n]
	w.wordBuf = w.wordBuf[n:]
	return ws
}

type funcInfo struct{ changesDir bool }

// shellState is what a command can change for the commands after it in the
// same shell. What runs in a subshell or another process (a pipeline
// element, $(...), bash -c, the command of a wrapper) is walked between
// state() and restore(): what it does does not outlive it.
type shellState struct {
	taint                     string
	homeChanged, cdpathChange bool
	lastpipe                  bool
}

func (w *walker) state() shellState {
	return shellState{w.taint, w.homeChanged, w.cdpathChanged, w.lastpipe}
}

func (w *walker) restore(st shellState) {
	w.taint, w.homeChanged, w.cdpathChanged, w.lastpipe = st.taint, st.homeChanged, st.cdpathChange, st.lastpipe
}

func newWalker(opts Options) *walker {
	// One allocation for the walker, its script and the room a typical
	// command needs.
	a := &struct {
		w     walker
		s     Script
		segs  [firstSegments]Segment
		words [wordBlock]Word
		spans [spanBlock]rule.Span
	}{}
	a.w.opts, a.w.script = opts, &a.s
	a.s.Segments = a.segs[:0]
	a.w.wordBuf, a.w.spanBuf = a.words[:], a.spans[:]
	return &a.w
}

// knownDir is knownDir(d), using the walker's room for its one directory.
func (w *walker) knownDir(d string) Dirs {
	if d == "" {
		return Dirs{Unknown: true}
	}
	w.dir[0] = path.Clean(d)
	return Dirs{Known: w.dir[:1:1]}
}

// frame is the source being walked and what the commands in it are inside.
type frame struct {
	src   string
	lang  syntax.LangVariant
	depth int
	via   string    // what runs these commands ("" at the top level)
	pos   *Position // inside a nested string: where the string is in the command
	ctrl  bool      // src holds control characters: track quoted text
	// quoted are the byte ranges of quoted text (and here-document bodies),
	// recorded only when ctrl is set, in the frame that owns src.
	quoted [][2]int
	parent *frame // the frame that owns src, for a nested construct in it
}

// nest is the frame of a nested construct: one level deeper, run via via
// (empty: as before).
func (f *frame) nest(via string) *frame {
	g := &frame{src: f.src, lang: f.lang, depth: f.depth + 1, via: f.via, pos: f.pos, ctrl: f.ctrl, parent: f}
	if via != "" {
		g.via = via
	}
	return g
}

func (f *frame) root() *frame {
	for f.parent != nil {
		f = f.parent
	}
	return f
}

func (f *frame) markQuoted(from, to uint) {
	if !f.ctrl {
		return
	}
	r := f.root()
	r.quoted = append(r.quoted, [2]int{int(from), int(to)})
}

func (f *frame) inQuoted(off int) bool {
	q := f.root().quoted
	sort.Slice(q, func(i, j int) bool { return q[i][0] < q[j][0] })
	for _, r := range q {
		if r[0] > off {
			break
		}
		if off < r[1] {
			return true
		}
	}
	return false
}

// slice is the source text of a node.
func (f *frame) slice(n syntax.Node) string {
	a, b := n.Pos().Offset(), n.End().Offset()
	if a > b || b > uint(len(f.src)) {
		return ""
	}
	return f.src[a:b]
}

// position is where a node is, or inside a nested string, where the string is.
func (f *frame) position(n syntax.Node) Position {
	if f.pos != nil {
		return *f.pos
	}
	p := n.Pos()
	return Position{int(p.Line()), int(p.Col())}
}

// cmdCtx gathers what is found while reading one command's words.
type cmdCtx struct {
	in     Dirs
	f      *frame
	unv    string // the first reason the command cannot be verified
	pipeIn bool   // its standard input is a pipe
}

func (c *cmdCtx) unverifiable(why string) {
	if c.unv == "" {
		c.unv = why
	}
}

// flow is where a command leaves the shell: the directories after it
// succeeded and after it failed ("cd x" that fails stays where it was).
type flow struct{ ok, fail Dirs }

func same(d Dirs) flow { return flow{d, d} }

func (fl flow) any() Dirs { return fl.ok.union(fl.fail) }

func (w *walker) problem(pos Position, reason, msg string) {
	w.script.Problems = append(w.script.Problems, Problem{Pos: pos, Reason: reason, Msg: msg})
}

// add appends a finished segment, computing its readings and its read-only
// standing. It returns the segment's index, or -1 past MaxSegments.
func (w *walker) add(s *Segment) int {
	if w.full {
		return -1
	}
	if len(w.script.Segments) >= MaxSegments {
		w.full = true
		w.problem(s.Pos, ReasonLimit, fmt.Sprintf("more than %d commands; guard judges at most %d", MaxSegments, MaxSegments))
		return -1
	}
	w.finishSegment(s)
	w.script.Segments = append(w.script.Segments, *s)
	return len(w.script.Segments) - 1
}

func (w *walker) tooDeep(pos Position) {
	if !w.deep {
		w.deep = true
		w.problem(pos, ReasonLimit, fmt.Sprintf("the command nests deeper than guard follows (%d levels)", MaxDepth))
	}
}

// stmts walks a list of statements run one after another.
func (w *walker) stmts(list []*syntax.Stmt, in Dirs, f *frame) flow {
	fl := same(in)
	for i, s := range list {
		if i > 0 {
			in = fl.any()
		}
		fl = w.stmt(s, in, f)
		if w.full {
			break
		}
	}
	return fl
}

// stmt walks one statement: a command with its redirections, negation and
// background marker.
func (w *walker) stmt(s *syntax.Stmt, in Dirs, f *frame) flow {
	return w.stmtIn(s, in, f, false)
}

func (w *walker) stmtIn(s *syntax.Stmt, in Dirs, f *frame, pipeIn bool) flow {
	if w.full {
		return same(unknownDirs)
	}
	if f.depth > MaxDepth {
		w.tooDeep(f.position(s))
		return same(unknownDirs)
	}
	if s.Background || s.Coprocess || s.Disown {
		// Run in the background, in a subshell: nothing it does to the
		// shell or its directory stays.
		bg := *s
		bg.Background, bg.Coprocess, bg.Disown = false, false, false
		w.stmtSub(&bg, in, f, pipeIn)
		return same(in)
	}
	var fl flow
	switch x := s.Cmd.(type) {
	case *syntax.CallExpr:
		fl = w.call(s, x, in, f, pipeIn)
	case nil:
		// Only redirections ("> file"): the shell opens the files and runs
		// nothing.
		c := &cmdCtx{in: in, f: f, pipeIn: pipeIn}
		files, _ := w.redirects(s.Redirs, c)
		seg := Segment{Pos: f.position(s), Via: f.via, Dirs: in, Files: files, kind: segAssign, Unverifiable: c.unv}
		if seg.Unverifiable == "" {
			seg.Unverifiable = w.taint
		}
		w.add(&seg)
		fl = same(in)
	default:
		// A compound command: its redirections apply to every command in it.
		c := &cmdCtx{in: in, f: f, pipeIn: pipeIn}
		files, _ := w.redirects(s.Redirs, c)
		start := len(w.script.Segments)
		fl = w.compound(s.Cmd, in, f, pipeIn)
		if len(files) > 0 || c.unv != "" {
			for i := start; i < len(w.script.Segments); i++ {
				seg := &w.script.Segments[i]
				seg.Files = append(seg.Files, files...)
				if seg.Unverifiable == "" {
					seg.Unverifiable = c.unv
				}
			}
		}
	}
	if s.Negated {
		fl.ok, fl.fail = fl.fail, fl.ok
	}
	return fl
}

// stmtSub walks a statement that runs in a subshell.
func (w *walker) stmtSub(s *syntax.Stmt, in Dirs, f *frame, pipeIn bool) {
	st := w.state()
	w.stmtIn(s, in, f, pipeIn)
	w.restore(st)
}

// compound walks a command other than a simple command.
func (w *walker) compound(cmd syntax.Command, in Dirs, f *frame, pipeIn bool) flow {
	switch x := cmd.(type) {
	case *syntax.BinaryCmd:
		return w.binary(x, in, f, pipeIn)
	case *syntax.Block:
		return w.stmts(x.Stmts, in, f.nest(""))
	case *syntax.Subshell:
		st := w.state()
		w.stmts(x.Stmts, in, f.nest(""))
		w.restore(st)
		return same(in)
	case *syntax.IfClause:
		return w.ifClause(x, in, f.nest(""))
	case *syntax.WhileClause:
		g := f.nest("")
		// The body may run many times: a directory change in it leaves the
		// directory of every later pass unknown.
		loopIn := in
		if changesDir(x.Cond) || changesDir(x.Do) {
			loopIn = unknownDirs
		}
		cond := w.stmts(x.Cond, loopIn, g)
		body := w.stmts(x.Do, cond.ok, g)
		return same(in.union(body.any()).union(cond.any()))
	case *syntax.ForClause:
		g := f.nest("")
		c := &cmdCtx{in: in, f: g}
		switch loop := x.Loop.(type) {
		case *syntax.WordIter:
			for _, item := range loop.Items {
				w.word(item, c)
			}
			w.assigned(loop.Name.Value, c)
		case *syntax.CStyleLoop:
			w.arithSegment(loop, "for", []syntax.ArithmExpr{loop.Init, loop.Cond, loop.Post}, c)
		}
		loopIn := in
		if changesDir(x.Do) {
			loopIn = unknownDirs
		}
		if c.unv != "" {
			w.markFrom(len(w.script.Segments), c.unv)
		}
		body := w.stmts(x.Do, loopIn, g)
		return same(in.union(body.any()))
	case *syntax.CaseClause:
		g := f.nest("")
		c := &cmdCtx{in: in, f: g}
		w.word(x.Word, c)
		out := in
		start := len(w.script.Segments)
		for _, item := range x.Items {
			for _, pat := range item.Patterns {
				w.word(pat, c)
			}
			out = out.union(w.stmts(item.Stmts, in, g).any())
		}
		if c.unv != "" {
			w.markFrom(start, c.unv)
		}
		return same(out)
	case *syntax.FuncDecl:
		return w.funcDecl(x, in, f)
	case *syntax.ArithmCmd:
		c := &cmdCtx{in: in, f: f}
		w.arithSegment(x, "((", []syntax.ArithmExpr{x.X}, c)
		return same(in)
	case *syntax.LetClause:
		c := &cmdCtx{in: in, f: f}
		w.arithSegment(x, "let", x.Exprs, c)
		return same(in)
	case *syntax.TestClause:
		return w.testClause(x, in, f)
	case *syntax.DeclClause:
		return w.declClause(x, in, f, pipeIn)
	case *syntax.TimeClause:
		if x.Stmt == nil {
			return same(in)
		}
		return w.stmtIn(x.Stmt, in, f.nest(""), pipeIn)
	case *syntax.CoprocClause:
		g := f.nest("coproc")
		if x.Name != nil {
			w.word(x.Name, &cmdCtx{in: in, f: g})
		}
		w.stmtSub(x.Stmt, in, g, false)
		return same(in)
	}
	// A construct guard does not know (another dialect's): it cannot be
	// judged.
	seg := Segment{Pos: f.position(cmd), Via: f.via, Dirs: in, kind: segCommand,
		Words:        []Word{{Text: rule.Text{{Lit: f.slice(cmd), Unknown: true}}, Split: true}},
		Unverifiable: fmt.Sprintf("guard does not read %T commands", cmd)}
	w.add(&seg)
	return same(unknownDirs)
}

// markFrom marks the segments from index start unverifiable, for a reason
// found in the words of the compound command that holds them.
func (w *walker) markFrom(start int, why string) {
	for i := start; i < len(w.script.Segments); i++ {
		if w.script.Segments[i].Unverifiable == "" {
			w.script.Segments[i].Unverifiable = why
		}
	}
}

// binary walks a chain of &&, || and pipes. The parser nests such chains to
// the left, so they are walked as a list: a long chain costs no stack.
func (w *walker) binary(x *syntax.BinaryCmd, in Dirs, f *frame, pipeIn bool) flow {
	var buf [8]*syntax.BinaryCmd // most chains are short: no allocation
	chain := append(buf[:0], x)
	for {
		inner, ok := chain[len(chain)-1].X.Cmd.(*syntax.BinaryCmd)
		xs := chain[len(chain)-1].X
		if !ok || xs.Negated || xs.Background || len(xs.Redirs) > 0 {
			break
		}
		chain = append(chain, inner)
	}
	first := chain[len(chain)-1]
	var fl flow
	if first.Op == syntax.Pipe || first.Op == syntax.PipeAll {
		w.stmtSub(first.X, in, f, pipeIn)
		fl = same(in)
	} else {
		fl = w.stmtIn(first.X, in, f, pipeIn)
	}
	for i := len(chain) - 1; i >= 0 && !w.full; i-- {
		b := chain[i]
		switch b.Op {
		case syntax.AndStmt:
			y := w.stmt(b.Y, fl.ok, f)
			fl = flow{ok: y.ok, fail: fl.fail.union(y.fail)}
		case syntax.OrStmt:
			y := w.stmt(b.Y, fl.fail, f)
			fl = flow{ok: fl.ok.union(y.ok), fail: y.fail}
		default: // | and |&: each side runs in a subshell of its own
			if w.lastpipe {
				fl = w.stmtIn(b.Y, in, f, true)
			} else {
				w.stmtSub(b.Y, in, f, true)
				fl = same(in)
			}
		}
	}
	return fl
}

func (w *walker) ifClause(x *syntax.IfClause, in Dirs, f *frame) flow {
	cond := w.stmts(x.Cond, in, f)
	then := w.stmts(x.Then, cond.ok, f)
	var els flow
	switch {
	case x.Else == nil:
		els = same(cond.fail)
	case len(x.Else.Cond) == 0 && x.Else.ThenPos == (syntax.Pos{}):
		els = w.stmts(x.Else.Then, cond.fail, f)
	default:
		els = w.ifClause(x.Else, cond.fail, f)
	}
	return flow{ok: then.ok.union(els.ok), fail: then.fail.union(els.fail)}
}

// funcDecl walks a function body: its commands are segments whether or not
// the function is called, run from a directory that is not known.
func (w *walker) funcDecl(x *syntax.FuncDecl, in Dirs, f *frame) flow {
	name := ""
	if x.Name != nil {
		name = x.Name.Value
	}
	fn := &funcInfo{}
	if name != "" {
		if w.funcs == nil {
			w.funcs = map[string]*funcInfo{}
		}
		w.funcs[name] = fn
	}
	fn.changesDir = changesDirStmt(x.Body)
	w.stmt(x.Body, unknownDirs, f.nest("function "+name))
	return same(in)
}

// changesDir reports whether any simple command in list is literally cd,
// pushd or popd, anywhere inside it.
func changesDir(list []*syntax.Stmt) bool {
	for _, s := range list {
		if changesDirStmt(s) {
			return true
		}
	}
	return false
}

func changesDirStmt(s *syntax.Stmt) bool {
	found := false
	syntax.Walk(s, func(n syntax.Node) bool {
		if found {
			return false
		}
		if ce, ok := n.(*syntax.CallExpr); ok && len(ce.Args) > 0 {
			switch ce.Args[0].Lit() {
			case "cd", "pushd", "popd", "source", ".", "eval":
				found = true
			}
		}
		return true
	})
	return found
}

// arithSegment adds a segment for an arithmetic command ((( ... )), let, the
// header of for ((...))): unverifiable when it reads a variable.
func (w *walker) arithSegment(node syntax.Node, name string, exprs []syntax.ArithmExpr, c *cmdCtx) {
	for _, e := range exprs {
		if e != nil {
			w.arith(e, c)
		}
	}
	text := c.f.slice(node)
	seg := Segment{Pos: c.f.position(node), Via: c.f.via, Dirs: c.in, kind: segArith,
		Words: []Word{known(name), known(strings.TrimSpace(strings.TrimPrefix(text, name)))}, Unverifiable: c.unv}
	if seg.Unverifiable == "" {
		seg.Unverifiable = w.taint
	}
	w.add(&seg)
}

// testClause adds a segment for [[ ... ]]. Its words are walked for
// substitutions; -v and -R, and the arithmetic comparisons, evaluate a
// variable's value in a way that can run commands.
func (w *walker) testClause(x *syntax.TestClause, in Dirs, f *frame) flow {
	c := &cmdCtx{in: in, f: f}
	words := []Word{known("[[")}
	var walk func(e syntax.TestExpr)
	walk = func(e syntax.TestExpr) {
		switch e := e.(type) {
		case *syntax.Word:
			words = append(words, w.word(e, c))
		case *syntax.UnaryTest:
			words = append(words, known(e.Op.String()))
			if e.Op == syntax.TsVarSet || e.Op == syntax.TsRefVar {
				if wd, ok := e.X.(*syntax.Word); !ok || !isName(wd.Lit()) {
					c.unverifiable("[[ -v ]] and [[ -R ]] evaluate an array subscript in the name they test, and a[$(cmd)] runs cmd")
				}
			}
			walk(e.X)
		case *syntax.BinaryTest:
			walk(e.X)
			words = append(words, known(e.Op.String()))
			walk(e.Y)
			switch e.Op {
			case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
				for _, side := range []syntax.TestExpr{e.X, e.Y} {
					if wd, ok := side.(*syntax.Word); !ok || !isArithNumber(wd.Lit()) {
						c.unverifiable(whyArithVar)
					}
				}
			}
		case *syntax.ParenTest:
			words = append(words, known("("))
			walk(e.X)
			words = append(words, known(")"))
		}
	}
	walk(x.X)
	words = append(words, known("]]"))
	seg := Segment{Pos: f.position(x), Via: f.via, Dirs: in, kind: segTest, Words: words, Unverifiable: c.unv}
	if seg.Unverifiable == "" {
		seg.Unverifiable = w.taint
	}
	w.add(&seg)
	return flow{ok: in, fail: in}
}

// call walks a simple command.
func (w *walker) call(s *syntax.Stmt, x *syntax.CallExpr, in Dirs, f *frame, pipeIn bool) flow {
	c := &cmdCtx{in: in, f: f, pipeIn: pipeIn}
	assigns := make([]Assign, 0, len(x.Assigns))
	for _, a := range x.Assigns {
		assigns = append(assigns, w.assign(a, c))
	}
	words := w.words(len(x.Args))
	// The segment's Text, when its words are plain and the source reads
	// as the Text would (see sourceText), is a slice of the source.
	var text sourceText
	for _, a := range x.Args {
		if lit, ok := plainLit(a); ok {
			words = append(words, Word{Text: w.knownText(lit.Value)})
			text.add(lit, f.src)
			continue
		}
		text.bad = true
		words = append(words, w.word(a, c))
	}
	files, stdin := w.redirects(s.Redirs, c)
	cmd := &command{words: words, assigns: assigns, files: files, stdin: stdin, pos: f.position(s)}
	if len(assigns) == 0 {
		cmd.text = text.text(f.src)
	}
	return w.run(cmd, c)
}

// sourceText finds the text of a command of plain words (see plainWord) as
// its segment's Text reads it, the words joined by single blanks, when the
// source already reads so: then it is a slice of the source and costs
// nothing to build. The source of each word must be its value (the parser
// drops some bytes from a word's value: a backslash and newline, a NUL), and
// the words must be one blank apart.
type sourceText struct {
	from, to uint // the source of the words so far
	n        int  // how many
	bad      bool // a word does not read as it should
}

// add takes the next word, one plain literal.
func (t *sourceText) add(lit *syntax.Lit, src string) {
	from, to := lit.ValuePos.Offset(), lit.ValueEnd.Offset()
	switch {
	case t.bad:
	case from >= to || to > uint(len(src)) || src[from:to] != lit.Value:
		t.bad = true
	case t.n == 0:
		t.from, t.to = from, to
	case from != t.to+1 || src[t.to] != ' ':
		t.bad = true
	default:
		t.to = to
	}
	t.n++
}

// text is the text, or "" when the source does not read as it.
func (t *sourceText) text(src string) string {
	if t.n == 0 || t.bad {
		return ""
	}
	return src[t.from:t.to]
}

// assign renders NAME=value (or NAME[i]=value, NAME=(...)).
func (w *walker) assign(a *syntax.Assign, c *cmdCtx) Assign {
	out := Assign{Append: a.Append}
	if a.Name != nil {
		out.Name = a.Name.Value
	}
	if a.Index != nil {
		w.arith(a.Index, c)
		out.Name += "[" + c.f.slice(a.Index) + "]"
	}
	switch {
	case a.Array != nil:
		out.Array = true
		for _, el := range a.Array.Elems {
			if el.Index != nil {
				w.arith(el.Index, c)
			}
			if el.Value != nil {
				w.word(el.Value, c)
			}
		}
		out.Value = Word{Text: rule.Text{{Lit: c.f.slice(a.Array), Unknown: true}}}
	case a.Value != nil:
		out.Value = w.assignValue(a.Value, c)
	case a.Naked:
		out.Value = Word{}
	default:
		out.Value = known("")
	}
	return out
}

// substitution walks the commands of $(...), `...`, <(...) or >(...): they run
// in a subshell of the current directory.
func (w *walker) substitution(list []*syntax.Stmt, via string, c *cmdCtx) {
	if c.f.depth+1 > MaxDepth {
		if len(list) > 0 {
			w.tooDeep(c.f.position(list[0]))
		}
		return
	}
	st := w.state()
	w.stmts(list, c.in, c.f.nest(via))
	w.restore(st)
}

// stdinText is what a command reads on standard input when the command says
// so itself: a here-document or here-string.
type stdinText struct {
	text    string
	dynamic bool // it holds expansions: its text is known only at run time
}

// redirects renders a command's redirections into the files they touch and
// the text they feed on standard input.
func (w *walker) redirects(rs []*syntax.Redirect, c *cmdCtx) ([]FileAccess, *stdinText) {
	var files []FileAccess
	var stdin *stdinText
	for _, r := range rs {
		pos := c.f.position(r)
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			if r.Hdoc == nil {
				stdin = &stdinText{}
				continue
			}
			st := &stdinText{}
			var b strings.Builder
			// With an unquoted delimiter the body expands: \$, \` and \\
			// lose their backslash (so "\$(cmd)" feeds "$(cmd)" to whatever
			// reads it).
			expands := !quotedDelimiter(r.Word)
			for _, part := range r.Hdoc.Parts {
				if lit, ok := part.(*syntax.Lit); ok {
					c.f.markQuoted(lit.Pos().Offset(), lit.End().Offset())
					if expands {
						b.WriteString(hdocLit(lit))
					} else {
						b.WriteString(lit.Value)
					}
					continue
				}
				w.dynamicPart(part, c)
				st.dynamic = true
			}
			st.text = b.String()
			stdin = st
			continue
		case syntax.WordHdoc:
			v := w.word(r.Word, c)
			lit, ok := v.Literal()
			stdin = &stdinText{text: lit + "\n", dynamic: !ok}
			continue
		}
		target := w.word(r.Word, c)
		lit, isLit := target.Literal()
		switch r.Op {
		case syntax.DplOut, syntax.DplIn:
			// >&N and <&N duplicate a descriptor; >&- closes one. bash takes
			// >&word with any other word as &>word: a file.
			if isLit && (lit == "-" || isDigits(strings.TrimSuffix(lit, "-"))) {
				continue
			}
		}
		if isLit && harmlessDevice(lit) {
			continue
		}
		switch r.Op {
		case syntax.RdrIn, syntax.DplIn:
			files = append(files, FileAccess{Op: rule.Read, Path: target, Redirect: true, By: r.Op.String(), Pos: pos})
		case syntax.RdrInOut:
			files = append(files,
				FileAccess{Op: rule.Read, Path: target, Redirect: true, By: r.Op.String(), Pos: pos},
				FileAccess{Op: rule.Write, Path: target, Redirect: true, By: r.Op.String(), Pos: pos})
		default:
			files = append(files, FileAccess{Op: rule.Write, Path: target, Redirect: true, By: r.Op.String(), Pos: pos})
		}
	}
	return files, stdin
}

// quotedDelimiter reports whether a here-document's delimiter is quoted in
// any way, which keeps its body from expanding.
func quotedDelimiter(w *syntax.Word) bool {
	if w == nil {
		return false
	}
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if strings.Contains(p.Value, `\`) {
				return true
			}
		default:
			return true
		}
	}
	return false
}

// hdocLit resolves the escapes of literal text in an expanding
// here-document, through the shell library.
func hdocLit(lit *syntax.Lit) string {
	if !strings.Contains(lit.Value, `\`) {
		return lit.Value
	}
	v, err := expand.Document(&expand.Config{}, &syntax.Word{Parts: []syntax.WordPart{lit}})
	if err != nil {
		return lit.Value
	}
	return v
}

// harmlessDevice reports whether a redirection target is a device that
// stands for a stream, not a file: writing to it changes nothing on disk.
func harmlessDevice(p string) bool {
	switch p {
	case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/tty":
		return true
	}
	if rest, ok := strings.CutPrefix(p, "/dev/fd/"); ok {
		return isDigits(rest)
	}
	return false
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// command is a simple command ready to be judged: its rendered words, and
// what its syntax added.
type command struct {
	words   []Word
	assigns []Assign
	files   []FileAccess
	stdin   *stdinText
	pos     Position
	// text, when set, is the segment's Text as a string, taken from the
	// source (see plainSource).
	text string
}

// run makes the segment of a command, then follows what it runs.
func (w *walker) run(cmd *command, c *cmdCtx) flow {
	seg := Segment{Pos: cmd.pos, Words: cmd.words, Assigns: cmd.assigns, Via: c.f.via, Dirs: c.in, Files: cmd.files}
	if cmd.text != "" {
		seg.Text = w.knownText(cmd.text)
	}
	seg.Unverifiable = c.unv
	if seg.Unverifiable == "" {
		seg.Unverifiable = w.taint
	}
	p := &plan{flow: same(c.in)}
	for _, a := range cmd.assigns {
		w.assignCode(a, p)
		if v, ok := shellVarOf(baseName(a.Name)); ok && v.lookup && len(cmd.words) > 0 && !appendsToPath(a.Value) {
			p.setUnv(fmt.Sprintf("%s=... changes which program the command name runs", a.Name))
		}
	}
	switch name, known := "", false; {
	case len(cmd.words) == 0:
		seg.kind = segAssign
	default:
		if name, known = cmd.words[0].Literal(); !known {
			p.setUnv("the command name is known only at run time")
			// It may be cd, export PATH=..., anything: what follows can
			// no longer be read with certainty.
			p.taint = "an earlier command's name is known only at run time, so what it did to the shell is not known"
			p.flow = same(unknownDirs)
			break
		}
		seg.info = lookupCommand(name)
		w.dispatch(name, seg.info, cmd, c, p)
		if fn := w.funcs[name]; w.funcs != nil && fn != nil && !strings.Contains(name, "/") && fn.changesDir {
			// A function defined in the command (its body was judged where
			// it was defined) that may change the directory. It is also
			// followed as the command of that name, which it may not be at
			// run time.
			p.flow = same(unknownDirs)
		}
	}
	setUnv(&seg, p.unv)
	if len(seg.Files) == 0 {
		seg.Files = p.files // the plan's own: no one else holds it
	} else if len(p.files) > 0 {
		seg.Files = append(seg.Files, p.files...)
	}
	seg.Wrapper = p.wrapper
	w.add(&seg)
	p.runInner(w, &seg, c)
	if p.taint != "" {
		w.setTaint(p.taint)
	}
	// A bare assignment lasts; one before a command lasts too for special
	// builtins and in POSIX mode.
	for _, a := range cmd.assigns {
		w.assignedValue(a, c)
	}
	return p.flow
}

func setUnv(s *Segment, why string) {
	if s.Unverifiable == "" && why != "" {
		s.Unverifiable = why
	}
}

func (w *walker) setTaint(why string) {
	if w.taint == "" {
		w.taint = why
	}
}

// assigned notes an assignment to a variable that changes how the shell runs
// later commands.
func (w *walker) assigned(name string, c *cmdCtx) { w.assignedValue(Assign{Name: name}, c) }

// assignedValue is assigned, knowing the value: PATH=$PATH:dir only adds a
// directory searched last, so the names that resolved before still do.
func (w *walker) assignedValue(a Assign, c *cmdCtx) {
	name := a.Name
	v, ok := shellVarOf(baseName(name))
	if !ok {
		return
	}
	if baseName(name) == "PATH" && a.Value.Text != nil && appendsToPath(a.Value) {
		return
	}
	switch {
	case v.lookup || v.taint:
		w.setTaint(fmt.Sprintf("%s was set: %s", name, v.why))
	case v.home:
		w.homeChanged = true
	case v.cdpath:
		w.cdpathChanged = true
	}
}

// appendsToPath reports whether a PATH value is the old PATH followed by
// more directories: $PATH:dir or ${PATH}:dir.
func appendsToPath(v Word) bool {
	if len(v.Text) < 2 || !v.Text[0].Unknown || v.Text[1].Unknown {
		return false
	}
	if v.Text[0].Lit != "$PATH" && v.Text[0].Lit != "${PATH}" && v.Text[0].Lit != `"$PATH"` && v.Text[0].Lit != `"${PATH}"` {
		return false
	}
	return strings.HasPrefix(v.Text[1].Lit, ":")
}

// baseName is a variable name without its subscript.
func baseName(name string) string {
	if i := strings.IndexByte(name, '['); i >= 0 {
		return name[:i]
	}
	return name
}

// plan is what a command does beyond its own words: the files it touches,
// the commands and code it runs, and how it leaves the shell.
type plan struct {
	files   []FileAccess
	inner   []innerCmd
	code    []innerCode
	flow    flow
	unv     string
	taint   string
	wrapper string
}

// innerCmd is a command run by another (env, sudo, xargs, find -exec, ...).
type innerCmd struct {
	words   []Word
	assigns []Assign
	dirs    *Dirs // where it runs, when not where its wrapper runs
	via     string
	stdin   *stdinText
	pipeIn  bool
}

// innerCode is a string run as shell code (bash -c, eval, trap, ...).
type innerCode struct {
	stmts []*syntax.Stmt
	src   string
	lang  syntax.LangVariant
	via   string
	// sameShell: the code runs in the current shell (eval, source), so the
	// directory it leaves is the command's.
	sameShell bool
}

// code parses a string that runs as shell code, for plan p: a string that
// cannot be parsed makes the command unverifiable.
func (w *walker) code(p *plan, src string, lang syntax.LangVariant, via string, sameShell bool) {
	stmts, why := w.parseCode(src, lang)
	if why != "" {
		if p.unv == "" {
			p.unv = fmt.Sprintf("%s: %s", via, why)
		}
		if sameShell {
			p.flow = same(unknownDirs)
		}
		return
	}
	p.code = append(p.code, innerCode{stmts: stmts, src: src, lang: lang, via: via, sameShell: sameShell})
}

// runInner walks what the command runs, after the command's own segment.
func (p *plan) runInner(w *walker, seg *Segment, c *cmdCtx) {
	if len(p.inner) == 0 && len(p.code) == 0 {
		return
	}
	pos := seg.Pos
	for _, in := range p.inner {
		if w.full {
			return
		}
		g := c.f.nest(in.via)
		if g.depth > MaxDepth {
			w.tooDeep(pos)
			return
		}
		dirs := c.in
		if in.dirs != nil {
			dirs = *in.dirs
		}
		ic := &cmdCtx{in: dirs, f: g, pipeIn: in.pipeIn || c.pipeIn}
		st := w.state()
		w.run(&command{words: in.words, assigns: in.assigns, stdin: in.stdin, pos: pos}, ic)
		w.restore(st)
	}
	for _, code := range p.code {
		if w.full {
			return
		}
		if c.f.depth+1 > MaxDepth {
			w.tooDeep(pos)
			return
		}
		g := &frame{src: code.src, lang: code.lang, depth: c.f.depth + 1, via: code.via, pos: &pos}
		if code.sameShell {
			p.flow = w.stmts(code.stmts, c.in, g)
		} else {
			st := w.state()
			w.stmts(code.stmts, c.in, g)
			w.restore(st)
		}
	}
}

// joinWords is the words joined by blanks, and whether all were known: how
// eval, sudo -s and watch hand their arguments to a shell.
func joinWords(words []Word) (string, bool) {
	parts := make([]string, len(words))
	for i, wd := range words {
		s, ok := wd.Literal()
		if !ok {
			return "", false
		}
		parts[i] = s
	}
	return strings.Join(parts, " "), true
}

// commandName is the base name of a command given by path.
func commandName(name string) string {
	if strings.Contains(name, "/") {
		return path.Base(name)
	}
	return name
}
