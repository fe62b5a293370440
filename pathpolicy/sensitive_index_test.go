package pathpolicy

import (
	"strings"
	"testing"
)

// scanSensitive is sensitiveEntry the long way: every entry of the list, in
// its order, against every component of each form.
func scanSensitive(home string, forms ...string) *SensitiveEntry {
	lhome := strings.ToLower(strings.TrimSuffix(home, "/"))
	for _, f := range forms {
		lf := strings.ToLower(f)
		for i, e := range sensitive {
			le := strings.ToLower(e.Path)
			if e.Home {
				if lhome != "" && within(lhome, lf) && hasPathPrefix(strings.TrimPrefix(lf[len(lhome):], "/"), le) {
					return &sensitive[i]
				}
				continue
			}
			for at := 0; at < len(lf); at++ {
				if (at == 0 || lf[at-1] == '/') && lf[at] != '/' && hasPathPrefix(lf[at:], le) {
					return &sensitive[i]
				}
			}
		}
	}
	return nil
}

// TestSensitiveIndexAsScan: the index, made on first use, finds for every
// entry's path, in home, in the workspace, nested, with a file inside and in
// another case, the entry a scan of the list finds first.
func TestSensitiveIndexAsScan(t *testing.T) {
	const home = "/home/u"
	for _, e := range sensitive {
		for _, p := range []string{
			home + "/" + e.Path, home + "/" + e.Path + "/x", "/w/" + e.Path, "/w/sub/" + e.Path + "/x",
			strings.ToUpper(home + "/" + e.Path), home + "/" + e.Path + "x", "/" + e.Path,
		} {
			got, want := sensitiveEntry(home, p), scanSensitive(home, p)
			if got != want {
				t.Errorf("%s: index finds %v, a scan %v", p, got, want)
			}
		}
	}
	if got := sensitiveEntry(home, "/w/src/main.go"); got != nil {
		t.Errorf("an ordinary file is sensitive: %v", got)
	}
}
