// Package pathpolicy decides file reads, writes and deletes on the path the
// kernel would open, and plans which concrete paths the sandbox must block.
//
// Paths lie: symlinks, "..", /proc/self/root, bind mounts, hard links,
// relative paths and files that do not exist yet all let one file answer to
// many names. [Policy.Resolve] turns a path into its canonical form the way
// the kernel resolves it (a ".." after a symlink goes up from the link's
// target; a path that does not exist yet is resolved through its nearest
// existing ancestor); [Policy.Check] decides a request on it: the permission
// rules first (a deny or ask rule matches the path as given or its canonical
// form, an allow rule only the canonical form), then guard's protected paths,
// the sensitive paths whose change runs code later, and the location
// defaults. [NewPlan] turns the read deny and ask rules into the concrete
// paths the sandbox blocks, saying for each rule how it is enforced.
//
// What a check on paths cannot see, the sandbox must cover: see
// docs/pathpolicy.md, "What a path check cannot see".
package pathpolicy
