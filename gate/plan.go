package gate

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// maxPlans bounds the search for a free plan number.
const maxPlans = 10000

// PlansDir is where approved plans are kept, inside the workspace.
const PlansDir = ".guard/plans"

// SavePlan writes an approved plan to <workspace>/.guard/plans/<session>-<n>.md
// (seed APR-41: the session id made file-safe, n the first free number) and
// returns its path. It never overwrites a file and never writes outside the
// workspace, even when .guard or .guard/plans is a symlink planted there.
func SavePlan(workspace, session, text string) (string, error) {
	ws, err := filepath.EvalSymlinks(workspace)
	if err != nil {
		return "", fmt.Errorf("saving the plan: workspace: %w", err)
	}
	dir := filepath.Join(ws, PlansDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("saving the plan: %w", err)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", fmt.Errorf("saving the plan: %w", err)
	}
	if real != dir {
		return "", fmt.Errorf("saving the plan: %s leads to %s, not a directory of the workspace's own; remove the symlink", dir, real)
	}
	base := FileSafe(session)
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	for n := 1; n <= maxPlans; n++ {
		path := filepath.Join(dir, base+"-"+strconv.Itoa(n)+".md")
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o644)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("saving the plan: %w", err)
		}
		_, werr := f.WriteString(text)
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			os.Remove(path)
			return "", fmt.Errorf("saving the plan: %w", werr)
		}
		return path, nil
	}
	return "", fmt.Errorf("saving the plan: %s holds %d plans of session %q already", dir, maxPlans, session)
}

// maxFileSafe bounds a file-safe name.
const maxFileSafe = 64

// FileSafe makes a session id usable as a file name: letters, digits, '.',
// '_' and '-' stay, anything else becomes '_'; an empty id is "no-session".
func FileSafe(id string) string {
	var b strings.Builder
	for _, r := range id {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		case r == '.' && b.Len() > 0:
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
		if b.Len() >= maxFileSafe {
			break
		}
	}
	if b.Len() == 0 {
		return "no-session"
	}
	return b.String()
}
