package shellpolicy

import (
	"strings"

	"github.com/guard-sh/guard/rule"
)

// operandRole is what a command does with its operands.
type operandRole uint8

const (
	opsRead     operandRole = iota // reads every operand
	opsCopy                        // reads all but the last, writes the last (cp)
	opsMove                        // deletes all but the last, writes the last (mv)
	opsWrite                       // writes every operand (tee, touch)
	opsDelete                      // deletes every operand (rm)
	opsLastOut                     // reads the first, writes a second if given (uniq, xxd)
	opsLinkLast                    // writes the last only (ln)
	opsNone                        // operands are not files
)

// fileCommand says which arguments of a command name files it reads, writes
// or deletes. The file rules are checked against them before the command
// runs, so that a read(~/.ssh/*) deny refuses "cat ~/.ssh/id_rsa" at once,
// naming the rule. This is early and clear refusal, not the enforcement:
// the sandbox blocks denied reads by any route, so the table need not be
// complete, and a misread option only adds a check.
type fileCommand struct {
	name string
	opts *optSpec // nil: it takes no options
	ops  operandRole
	// script: the first operand is a pattern or program, not a file,
	// unless one of scriptOpts gave it (grep -e, sed -e, awk -f).
	script     bool
	scriptOpts []string
	// optFiles: options whose value names a file, and what is done to it.
	optFiles []fileOpt
	// keyFiles: key=value operands naming files (dd if= of=).
	keyFiles []fileOpt
	// atFiles: options whose value names a file when it starts with @
	// (curl -d @file).
	atFiles []string
	// remote: operands with host: are on another machine (scp).
	remote bool
	why    string
}

// fileOpt is an option (or a key of key=value) whose value names a file,
// and what the command does to that file.
type fileOpt struct {
	name string
	op   rule.Kind
}

// fileOptOf is what is done to the file an option names, if it names one.
func fileOptOf(list []fileOpt, name string) (rule.Kind, bool) {
	for _, f := range list {
		if f.name == name {
			return f.op, true
		}
	}
	return "", false
}

var fileTable = []fileCommand{
	{name: "cat", opts: &optSpec{flags: "AbeEnstTuv"}, why: "prints its files"},
	{name: "tac", opts: &optSpec{flags: "br", args: "s"}, why: "prints its files"},
	{name: "nl", opts: &optSpec{flags: "p", args: "bdfhilnsvw"}, why: "prints its files"},
	{name: "head", opts: &optSpec{flags: "qvz", args: "cn", numeric: true}, why: "prints its files"},
	{name: "tail", opts: &optSpec{flags: "fFqvzr", args: "cns", numeric: true, longArg: []string{"pid", "sleep-interval", "max-unchanged-stats", "bytes", "lines"}, longOpt: []string{"follow"}}, why: "prints its files"},
	{name: "less", opts: &optSpec{args: "bhjkoOpPTtxyz#"}, optFiles: []fileOpt{{"-o", rule.Write}, {"-O", rule.Write}, {"-k", rule.Read}}, why: "shows its files"},
	{name: "more", opts: &optSpec{args: "n"}, why: "shows its files"},
	{name: "base64", opts: &optSpec{flags: "dil", args: "w"}, why: "encodes its file"},
	{name: "base32", opts: &optSpec{flags: "dil", args: "w"}, why: "encodes its file"},
	{name: "xxd", opts: &optSpec{flags: "abeEiprRuCdh", args: "cglosn"}, ops: opsLastOut, why: "dumps its file, and writes a second operand"},
	{name: "od", opts: &optSpec{flags: "bcdfhilosxv", args: "AjNSTtw"}, why: "dumps its files"},
	{name: "hexdump", opts: &optSpec{flags: "bcCdovx", args: "efns"}, optFiles: []fileOpt{{"-f", rule.Read}}, why: "dumps its files"},
	{name: "strings", opts: &optSpec{flags: "afwdsU", args: "neotT", numeric: true}, why: "prints the text in its files"},
	{name: "wc", opts: &optSpec{flags: "cmlLw"}, why: "counts its files"},
	{name: "md5sum", opts: &optSpec{flags: "bctwz"}, why: "hashes its files"},
	{name: "sha1sum", opts: &optSpec{flags: "bctwz"}, why: "hashes its files"},
	{name: "sha256sum", opts: &optSpec{flags: "bctwz"}, why: "hashes its files"},
	{name: "sha512sum", opts: &optSpec{flags: "bctwz"}, why: "hashes its files"},
	{name: "b2sum", opts: &optSpec{flags: "bctwz", args: "l"}, why: "hashes its files"},
	{name: "cksum", opts: &optSpec{flags: "bctwz", args: "al"}, why: "hashes its files"},
	{name: "sort", opts: &optSpec{flags: "bcCdfghiMnrRsuVz", args: "kotST", longArg: []string{"output", "key", "field-separator", "buffer-size", "temporary-directory", "parallel", "files0-from", "random-source", "compress-program", "sort", "batch-size"}},
		optFiles: []fileOpt{{"-o", rule.Write}, {"--output", rule.Write}, {"--files0-from", rule.Read}, {"--random-source", rule.Read}}, why: "sorts its files"},
	{name: "uniq", opts: &optSpec{flags: "cdDiuz", args: "fsw"}, ops: opsLastOut, why: "reads its input, and writes a second operand"},
	{name: "cut", opts: &optSpec{flags: "nsz", args: "bcdf"}, why: "prints parts of its files"},
	{name: "paste", opts: &optSpec{flags: "sz", args: "d"}, why: "joins its files"},
	{name: "diff", opts: &optSpec{flags: "abBdeEfHilnNpqrsStTuwy", args: "CDFIlLSUWxX", numeric: true}, optFiles: []fileOpt{{"-X", rule.Read}, {"--exclude-from", rule.Read}}, why: "compares its files"},
	{name: "cmp", opts: &optSpec{flags: "blsv", args: "in"}, why: "compares its files"},
	{name: "comm", opts: &optSpec{flags: "123iz"}, why: "compares its files"},
	{name: "zcat", opts: &optSpec{flags: "fhlLqrtvV"}, why: "prints its compressed files"},
	{name: "bzcat", opts: &optSpec{flags: "sv"}, why: "prints its compressed files"},
	{name: "xzcat", opts: &optSpec{flags: "fhqQvV", args: "T"}, why: "prints its compressed files"},
	{name: "grep", opts: &grepOpts, script: true, scriptOpts: []string{"-e", "-f", "--regexp", "--file"},
		optFiles: []fileOpt{{"-f", rule.Read}, {"--file", rule.Read}, {"--exclude-from", rule.Read}}, why: "searches its files"},
	{name: "egrep", opts: &grepOpts, script: true, scriptOpts: []string{"-e", "-f", "--regexp", "--file"},
		optFiles: []fileOpt{{"-f", rule.Read}, {"--file", rule.Read}}, why: "searches its files"},
	{name: "fgrep", opts: &grepOpts, script: true, scriptOpts: []string{"-e", "-f", "--regexp", "--file"},
		optFiles: []fileOpt{{"-f", rule.Read}, {"--file", rule.Read}}, why: "searches its files"},
	{name: "rg", opts: &optSpec{flags: "aBbcFhHiIlLnNoOpqsSuUvVwxz.0", args: "ABCeEfgjmMrtTd", exact: true,
		longArg: []string{"regexp", "file", "glob", "iglob", "type", "type-not", "max-count", "max-depth", "context", "after-context", "before-context", "replace", "pre", "pre-glob", "ignore-file", "encoding", "engine", "sort", "sortr", "threads", "color", "colors", "path-separator", "type-add", "type-clear", "max-filesize", "dfa-size-limit", "regex-size-limit", "field-context-separator", "field-match-separator", "context-separator", "hostname-bin", "hyperlink-format", "max-columns", "generate"}},
		script: true, scriptOpts: []string{"-e", "-f", "--regexp", "--file"},
		optFiles: []fileOpt{{"-f", rule.Read}, {"--file", rule.Read}, {"--ignore-file", rule.Read}}, why: "searches its files"},
	{name: "sed", opts: &optSpec{flags: "nrEsuzi", args: "efl", optArgs: "", long: []string{"quiet", "silent", "regexp-extended", "separate", "unbuffered", "null-data", "posix", "debug", "sandbox", "follow-symlinks"}, longArg: []string{"expression", "file", "line-length"}, longOpt: []string{"in-place"}},
		script: true, scriptOpts: []string{"-e", "-f", "--expression", "--file"}, optFiles: []fileOpt{{"-f", rule.Read}, {"--file", rule.Read}}, why: "edits its files' text"},
	{name: "awk", opts: &optSpec{args: "fvF"}, script: true, scriptOpts: []string{"-f"}, optFiles: []fileOpt{{"-f", rule.Read}}, why: "runs its program over its files"},
	{name: "jq", opts: &optSpec{flags: "ncrjaSCMseh0", args: "fL", exact: true, long: []string{"null-input", "compact-output", "raw-output", "join-output", "ascii-output", "sort-keys", "color-output", "monochrome-output", "slurp", "exit-status", "tab", "raw-input", "seq", "stream"}, longArg: []string{"from-file", "arg", "argjson", "slurpfile", "rawfile", "indent", "args", "jsonargs"}},
		script: true, scriptOpts: []string{"-f", "--from-file"}, optFiles: []fileOpt{{"-f", rule.Read}, {"--from-file", rule.Read}}, why: "filters its JSON files"},
	{name: "cp", opts: &optSpec{flags: "aAbdfHilLnPprRsTuvxZ", args: "St", longArg: []string{"target-directory", "suffix", "backup", "sparse", "reflink", "preserve", "no-preserve"}},
		ops: opsCopy, optFiles: []fileOpt{{"-t", rule.Write}, {"--target-directory", rule.Write}}, why: "copies its sources to its target"},
	{name: "scp", opts: &optSpec{flags: "346ABCdOpqRrTv", args: "cDFiJlopPSX"}, ops: opsCopy, remote: true,
		optFiles: []fileOpt{{"-F", rule.Read}, {"-i", rule.Read}}, why: "copies its sources to its target"},
	{name: "mv", opts: &optSpec{flags: "bfinTuvZ", args: "St", longArg: []string{"target-directory", "suffix", "backup"}},
		ops: opsMove, optFiles: []fileOpt{{"-t", rule.Write}, {"--target-directory", rule.Write}}, why: "moves its sources to its target"},
	{name: "rm", opts: &optSpec{flags: "dfiIrRv"}, ops: opsDelete, why: "deletes its files"},
	{name: "rmdir", opts: &optSpec{flags: "pv"}, ops: opsDelete, why: "deletes its directories"},
	{name: "unlink", ops: opsDelete, why: "deletes its file"},
	{name: "shred", opts: &optSpec{flags: "fuvxz", args: "ns"}, ops: opsDelete, why: "overwrites and deletes its files"},
	{name: "tee", opts: &optSpec{flags: "aip"}, ops: opsWrite, why: "writes its files"},
	{name: "touch", opts: &optSpec{flags: "acfhm", args: "drt"}, ops: opsWrite, optFiles: []fileOpt{{"-r", rule.Read}}, why: "creates its files"},
	{name: "mkdir", opts: &optSpec{flags: "pvZ", args: "m"}, ops: opsWrite, why: "creates its directories"},
	{name: "truncate", opts: &optSpec{flags: "co", args: "rs"}, ops: opsWrite, optFiles: []fileOpt{{"-r", rule.Read}}, why: "resizes its files"},
	{name: "ln", opts: &optSpec{flags: "bdfFinLPrsTv", args: "St"}, ops: opsLinkLast, optFiles: []fileOpt{{"-t", rule.Write}}, why: "creates a link"},
	{name: "install", opts: &optSpec{flags: "bcCdDpsTv", args: "gmoStZ"}, ops: opsCopy, optFiles: []fileOpt{{"-t", rule.Write}}, why: "copies its sources to its target"},
	{name: "dd", ops: opsNone, keyFiles: []fileOpt{{"if", rule.Read}, {"of", rule.Write}}, why: "copies if= to of="},
	{name: "curl", opts: &optSpec{flags: "0123456aBfgGIijJkLlnNOpqsSvVZ", args: "AbcCdDeEFHKmortTuUwxXyYz", exact: true},
		ops: opsNone, optFiles: []fileOpt{{"-o", rule.Write}, {"--output", rule.Write}, {"-T", rule.Read}, {"--upload-file", rule.Read}, {"-K", rule.Read}, {"--config", rule.Read}, {"-c", rule.Write}, {"--cookie-jar", rule.Write}, {"-D", rule.Write}, {"--dump-header", rule.Write}},
		atFiles: []string{"-d", "--data", "--data-binary", "--data-urlencode", "-F", "--form", "--json"}, why: "transfers URLs; its options name the files it uploads and saves"},
	{name: "wget", opts: &optSpec{flags: "46bcdEFhkKmNnpqrSvVx", args: "aAdeiIlOoPQRTtUwXD", longArg: []string{"output-document", "post-file", "body-file", "input-file", "output-file", "append-output", "directory-prefix"}},
		ops: opsNone, optFiles: []fileOpt{{"-O", rule.Write}, {"--output-document", rule.Write}, {"--post-file", rule.Read}, {"--body-file", rule.Read}, {"-i", rule.Read}, {"--input-file", rule.Read}, {"-o", rule.Write}, {"--output-file", rule.Write}, {"-a", rule.Write}, {"--append-output", rule.Write}},
		why: "downloads URLs; its options name the files it saves and uploads"},
}

var grepOpts = optSpec{flags: "abcEFGhHiIlLnoPqrRsTuUvVwxzZ", args: "ABCdDefm", numeric: true,
	longArg: []string{"regexp", "file", "max-count", "after-context", "before-context", "context", "label", "include", "exclude", "exclude-from", "exclude-dir", "binary-files", "devices", "directories", "color", "colour"}}

// accesses lists the files a command's arguments name.
func (fc *fileCommand) accesses(args []Word, pos Position) []FileAccess {
	var sc optScratch
	r := fc.opts.parseIn(&sc, args, false, false)
	var out []FileAccess
	add := func(op rule.Kind, w Word) {
		if s, ok := w.Literal(); ok && (s == "-" || s == "") {
			return // standard input or output
		}
		out = append(out, FileAccess{Op: op, Path: w, By: fc.name, Pos: pos})
	}
	scriptGiven := false
	for _, o := range r.opts {
		if containsString(fc.scriptOpts, o.name) {
			scriptGiven = true
		}
		if op, ok := fileOptOf(fc.optFiles, o.name); ok && o.has {
			add(op, o.value)
		}
		if containsString(fc.atFiles, o.name) && o.has {
			if head, _ := literalHead(o.value); strings.HasPrefix(head, "@") {
				add(rule.Read, Word{Text: sliceText(o.value.Text, 1)})
			}
		}
	}
	operands := r.operands
	if fc.script && !scriptGiven && len(operands) > 0 {
		operands = operands[1:]
	}
	var buf [8]Word // room for the usual few operands, without an allocation
	files := buf[:0]
	for _, i := range operands {
		w := args[i]
		if len(fc.keyFiles) > 0 {
			head, _ := literalHead(w)
			if k, _, ok := strings.Cut(head, "="); ok {
				if op, ok := fileOptOf(fc.keyFiles, k); ok {
					add(op, Word{Text: sliceText(w.Text, len(k)+1)})
				}
			}
			continue
		}
		if fc.remote {
			if head, _ := literalHead(w); strings.Contains(head, ":") && !strings.HasPrefix(head, "/") && !strings.HasPrefix(head, "./") {
				continue
			}
		}
		files = append(files, w)
	}
	switch fc.ops {
	case opsRead:
		for _, w := range files {
			add(rule.Read, w)
		}
	case opsWrite:
		for _, w := range files {
			add(rule.Write, w)
		}
	case opsDelete:
		for _, w := range files {
			add(rule.Delete, w)
		}
	case opsCopy, opsMove:
		srcOp := rule.Read
		if fc.ops == opsMove {
			srcOp = rule.Delete
		}
		targetGiven := len(r.values("-t", "--target-directory")) > 0
		for i, w := range files {
			if i == len(files)-1 && !targetGiven && len(files) > 1 {
				add(rule.Write, w)
				continue
			}
			add(srcOp, w)
			if fc.ops == opsMove {
				add(rule.Read, w)
			}
		}
	case opsLastOut:
		for i, w := range files {
			if i == 0 {
				add(rule.Read, w)
			} else {
				add(rule.Write, w)
			}
		}
	case opsLinkLast:
		if len(files) > 1 {
			add(rule.Write, files[len(files)-1])
		}
	}
	return out
}
