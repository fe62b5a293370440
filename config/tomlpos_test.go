package config

import (
	"regexp"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// humanPath turns "a.b[1].c" into a tpath (bare keys only, for tests).
func humanPath(s string) tpath {
	var p tpath
	for _, part := range strings.Split(s, ".") {
		name, idx, _ := strings.Cut(part, "[")
		p = p.key(name)
		for idx != "" {
			n, rest, _ := strings.Cut(idx, "]")
			i := 0
			for _, c := range n {
				i = i*10 + int(c-'0')
			}
			p = p.index(i)
			idx = strings.TrimPrefix(rest, "[")
		}
	}
	return p
}

func TestLayoutLines(t *testing.T) {
	tests := []struct {
		name string
		src  string
		path string
		line int
	}{
		{"top-level key", "a = 1\nb = 2\n", "b", 2},
		{"table header", "\n\n[guard]\nx = 1\n", "guard", 3},
		{"key in table", "[guard]\n# c\npermission_mode = \"plan\"\n", "guard.permission_mode", 3},
		{"dotted key", "permissions.deny = [\"x\"]\n", "permissions.deny", 1},
		{"dotted key defines its table", "\npermissions.deny = [\"x\"]\n", "permissions", 2},
		{"implicit parent of a header", "a = 1\n[permissions.auto]\n", "permissions", 2},
		{"multi-line array elements", "deny = [\n  \"a\",\n\n  'b', # why\n  \"c\"\n]\n", "deny[2]", 5},
		{"comment holding brackets and quotes", "deny = [ # \"x\", ]\n  \"a\", # ] '\n  \"b\"\n]\n", "deny[1]", 3},
		{"string holding # and ]", "deny = [\"a # ]\", \n \"b\"]\n", "deny[1]", 2},
		{"escaped quote in a string", "deny = [\"a \\\" ]\",\n\"b\"]\n", "deny[1]", 2},
		{"literal string with backslash", "deny = ['a\\', \n'b']\n", "deny[1]", 2},
		{"multi-line basic string", "x = \"\"\"\nline \"\" two\n\"\"\"\"\ny = 1\n", "y", 4},
		{"multi-line literal string", "x = '''\n[not a table]\n'''\ny = 1\n", "y", 4},
		{"inline table field", "auto = { command = [\"r\"],\n timeout = \"2m\" }\n", "auto.timeout", 2},
		{"array of inline tables", "w = [\n {path = \"a\"},\n {path = \"b\", dangerous = true},\n]\n", "w[1].dangerous", 3},
		{"array of tables index", "[[hooks.pre_tool_use]]\ncommand = \"a\"\n\n[[hooks.pre_tool_use]]\ncommand = \"b\"\n", "hooks.pre_tool_use[1].command", 5},
		{"table under array of tables", "[[h]]\nx = 1\n[[h]]\n[h.sub]\ny = 2\n", "h[1].sub.y", 5},
		{"nested arrays", "a = [[1, 2],\n [3]]\nb = 1\n", "b", 3},
		{"CRLF line ends", "[guard]\r\nx = 1\r\ny = 2\r\n", "guard.y", 3},
		{"date-time with a blank", "d = 1979-05-27 07:32:00Z\ne = 1\n", "e", 2},
		{"quoted key", "[\"guard\"]\n'permission_mode' = \"plan\"\n", "guard.permission_mode", 2},
		{"key after a trailing comma", "a = [1,\n2,\n]\nb = 3\n", "b", 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var m map[string]any
			if _, err := toml.Decode(tc.src, &m); err != nil {
				t.Fatalf("test input is not TOML: %v", err)
			}
			if got := layout(tc.src).line(humanPath(tc.path)); got != tc.line {
				t.Fatalf("line of %s = %d, want %d", tc.path, got, tc.line)
			}
		})
	}
}

func TestLayoutQuotedKeyWithDot(t *testing.T) {
	src := "[sandbox]\n\"a.b\" = 1\na.b = 2\n"
	l := layout(src)
	quoted := tpath("").key("sandbox").key("a.b")
	dotted := tpath("").key("sandbox").key("a").key("b")
	if l.line(quoted) != 2 || l.line(dotted) != 3 {
		t.Fatalf("quoted key at %d, dotted at %d; want 2 and 3", l.line(quoted), l.line(dotted))
	}
}

func TestLayoutPosColumns(t *testing.T) {
	l := layout("a = 1\n\"é\" = \"x\"\n")
	if line, col := l.valuePos(tpath("").key("é")); line != 2 || col != 7 {
		t.Fatalf("value of é at %d:%d, want 2:7 (columns count characters)", line, col)
	}
}

func TestPathString(t *testing.T) {
	p := tpath("").key("hooks").key("pre_tool_use").index(1).key("a b")
	if got, want := p.String(), `hooks.pre_tool_use[1]."a b"`; got != want {
		t.Fatalf("String() = %q, want %q", got, want)
	}
}

var indexRE = regexp.MustCompile(`\x01[0-9]+`)

// FuzzLayout checks the scanner against the decoder: on any text the
// decoder accepts, every key it reports has a line; on any text at all,
// the scanner ends without panicking.
func FuzzLayout(f *testing.F) {
	for _, s := range []string{
		"a = 1\n[b]\nc = [\n 1, # x\n 2,\n]\n",
		"[[h.p]]\ncommand = ['a', \"b\"]\n[[h.p]]\ntimeout = \"1s\"\n",
		"x = \"\"\"\na\"\"\"\"\ny = '''b'''\n",
		"t = { a = { b = [1, {c = 2}] } }\n",
		"\"q.k\".'l' = 1979-05-27 07:32:00\n",
		"a = [\n]\nb = []\n",
		"[a]\nb.c.d = 1\n[a.e]\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		l := layout(src)
		var m map[string]any
		md, err := toml.Decode(src, &m)
		if err != nil {
			return
		}
		have := map[string]bool{}
		for p := range l.first {
			have[indexRE.ReplaceAllString(string(p), "")] = true
		}
		for _, k := range md.Keys() {
			var p tpath
			for _, seg := range k {
				p = p.key(seg)
			}
			if !have[string(p)] {
				t.Fatalf("key %s has no position in\n%s", k, src)
			}
		}
	})
}
