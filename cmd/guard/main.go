package main
import (
 _ "github.com/landlock-lsm/go-landlock/landlock"
 _ "github.com/seccomp/libseccomp-golang"
 _ "golang.org/x/sys/unix"
 _ "mvdan.cc/sh/v3/syntax"
 _ "mvdan.cc/sh/v3/expand"
 _ "github.com/BurntSushi/toml"
 _ "github.com/spf13/pflag"
 _ "github.com/creack/pty"
 _ "github.com/rogpeppe/go-internal/testscript"
 _ "golang.org/x/net/bpf"
)
func main(){}
