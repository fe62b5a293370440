//go:build unix && !linux

package pathpolicy

// procRootIno is unused where there is no procfs.
const procRootIno = 1

// isProcfs: only Linux has procfs's magic links.
func isProcfs(string) bool { return false }
