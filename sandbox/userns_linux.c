// The user namespace of an unprivileged guard exec, made before the Go
// runtime starts any thread: a process with several threads cannot enter a
// new user namespace, and a Go program has several before main runs.
//
// Only a process that will launch a sandboxed command does this: guard exec
// (argv[1] is "exec"), or a program that sets GUARD_SANDBOX_USERNS=1 (the
// tests, the benchmark's launcher). Root needs none: it makes the mount
// namespace of the launching thread directly.
//
// The user's own user and group IDs are mapped to themselves, so files keep
// their owners; every other ID shows as the overflow ID (nobody). The
// process holds all capabilities inside the namespace, which the launching
// thread uses to make its private mount namespace and then drops.

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// guard_userns_errno is -1 when no namespace was tried, 0 when it was
// made, and the errno of the step that failed otherwise.
int guard_userns_errno = -1;
const char *guard_userns_step = "";

static int write_proc(const char *path, const char *text) {
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		return -1;
	}
	size_t n = strlen(text);
	ssize_t w = write(fd, text, n);
	int saved = errno;
	close(fd);
	errno = saved;
	return w == (ssize_t)n ? 0 : -1;
}

__attribute__((constructor)) static void guard_userns(int argc, char **argv, char **envp) {
	(void)envp;
	if (geteuid() == 0) {
		return;
	}
	const char *marker = getenv("GUARD_SANDBOX_USERNS");
	int wanted = (marker != NULL && strcmp(marker, "1") == 0) || (argc > 1 && argv[1] != NULL && strcmp(argv[1], "exec") == 0);
	if (!wanted) {
		return;
	}
	uid_t uid = geteuid();
	gid_t gid = getegid();
	char map[64];
	if (unshare(CLONE_NEWUSER) != 0) {
		guard_userns_step = "unshare(CLONE_NEWUSER)";
		guard_userns_errno = errno;
		return;
	}
	if (write_proc("/proc/self/setgroups", "deny") != 0) {
		guard_userns_step = "writing /proc/self/setgroups";
		guard_userns_errno = errno;
		return;
	}
	snprintf(map, sizeof map, "%u %u 1", (unsigned)uid, (unsigned)uid);
	if (write_proc("/proc/self/uid_map", map) != 0) {
		guard_userns_step = "writing /proc/self/uid_map";
		guard_userns_errno = errno;
		return;
	}
	snprintf(map, sizeof map, "%u %u 1", (unsigned)gid, (unsigned)gid);
	if (write_proc("/proc/self/gid_map", map) != 0) {
		guard_userns_step = "writing /proc/self/gid_map";
		guard_userns_errno = errno;
		return;
	}
	guard_userns_errno = 0;
}
