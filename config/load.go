package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/guard-sh/guard/rule"
)

// Load reads every source of settings and merges them.
//
// Rules keep their order by source: managed, flag, global, workspace,
// project. A single setting is taken from the most specific source that
// sets it: flag, workspace, the project's settings.local.toml, its
// settings.toml, global, managed. On top of that, managed settings are
// limits no other source can loosen, and a project's loosening settings
// apply only while the project is trusted (see docs/settings.md).
//
// A settings file that does not parse, or holds a value of the wrong type,
// is a *FileError; a flag that is invalid or forbidden is a *FlagError.
// Anything guard left out is in Settings.Warnings.
func Load(o LoadOptions) (*Settings, error) {
	if !filepath.IsAbs(o.Home) {
		return nil, fmt.Errorf("home directory %q is not absolute", o.Home)
	}
	if !filepath.IsAbs(o.Workspace) {
		return nil, fmt.Errorf("workspace %q is not absolute", o.Workspace)
	}
	o.Workspace = filepath.Clean(o.Workspace)
	if o.ConfigFile != "" && !filepath.IsAbs(o.ConfigFile) {
		return nil, fmt.Errorf("--config %q is not an absolute path", o.ConfigFile)
	}
	s := &Settings{
		Paths:            DefaultPaths(o),
		Mode:             ModeDefault,
		ModeFrom:         "default",
		ReadOnlyDefaults: true,
		UI:               UI{DiffLines: defaultDiffLines},
	}
	ld := &loader{o: o, s: s}
	if err := ld.read(); err != nil {
		return nil, err
	}
	if err := ld.merge(); err != nil {
		return nil, err
	}
	return s, nil
}

type loader struct {
	o LoadOptions
	s *Settings

	managed, global, workspace *layer
	project                    []*layer // settings.toml, settings.local.toml
	trusted                    bool
	// realWorkspace is the workspace with its symlinks resolved, once a
	// project file needs it.
	realWorkspace string
}

// read reads and decodes every file, and works out the project's trust.
func (ld *loader) read() error {
	p := ld.s.Paths
	var err error
	if ld.managed, err = ld.layer(rule.SourceManaged, p.ManagedFile, false); err != nil {
		return err
	}
	if ld.o.ManagedFile != "" && filepath.Clean(ld.o.ManagedFile) != p.ManagedFile {
		ld.warn(Warning{File: p.ManagedFile, Msg: fmt.Sprintf("GUARD_MANAGED_SETTINGS=%s is ignored: the administrator's managed settings are in force", ld.o.ManagedFile)})
	}
	if ld.global, err = ld.layer(rule.SourceGlobal, p.GlobalFile, ld.o.ConfigFile != ""); err != nil {
		return err
	}
	if ld.workspace, err = ld.layer(rule.SourceWorkspace, p.WorkspaceFile, false); err != nil {
		return err
	}
	var files []projectFile
	for _, f := range p.ProjectFiles {
		l, err := ld.layer(rule.SourceProject, f, false)
		if err != nil {
			return err
		}
		ld.project = append(ld.project, l)
		rel, _ := filepath.Rel(p.Workspace, f)
		files = append(files, projectFile{name: rel, data: l.data, exists: l.exists})
		if l.exists {
			ld.s.Project.Files = append(ld.s.Project.Files, f)
		}
	}
	for _, l := range append([]*layer{ld.managed, ld.global, ld.workspace}, ld.project...) {
		ld.s.Files = append(ld.s.Files, SourceFile{Source: l.source, Path: l.file, Exists: l.exists})
		ld.s.Warnings = append(ld.s.Warnings, l.warnings...)
	}
	pr := &ld.s.Project
	for _, l := range ld.project {
		pr.Loosening = append(pr.Loosening, projectLoosening(l)...)
	}
	if len(pr.Files) == 0 {
		pr.Trust = TrustNone
		return nil
	}
	pr.Digest = projectDigest(files)
	recs, err := readTrust(p.TrustFile)
	if err != nil {
		// Without its records guard cannot know what was trusted, so
		// nothing is: the project's loosening parts wait.
		ld.warn(Warning{File: p.TrustFile, Msg: fmt.Sprintf("%v; treating the project's settings as untrusted", errorText(err))})
		pr.Trust = TrustUntrusted
		return nil
	}
	pr.Trust, pr.TrustedAt = trustOf(recs, p.Workspace, pr.Digest)
	ld.trusted = pr.Trust == TrustTrusted
	return nil
}

func errorText(err error) string {
	var fe *FileError
	if errors.As(err, &fe) {
		return fe.Msg
	}
	return err.Error()
}

// layer reads one file. must: the user named it (--config), so a missing
// file is an error rather than no settings.
func (ld *loader) layer(src rule.Source, path string, must bool) (*layer, error) {
	empty := &layer{source: src, file: path}
	if path == "" {
		return empty, nil
	}
	within := ""
	if src == rule.SourceProject {
		// Compare like with like: the workspace as the kernel names it.
		if ld.realWorkspace == "" {
			ld.realWorkspace = ld.s.Paths.Workspace
			if real, err := filepath.EvalSymlinks(ld.realWorkspace); err == nil {
				ld.realWorkspace = real
			}
		}
		within = ld.realWorkspace
	}
	data, ok, err := readSettingsWithin(path, within)
	if err != nil {
		return nil, err
	}
	if !ok {
		if must {
			return nil, &FileError{File: path, Msg: "no such settings file"}
		}
		return empty, nil
	}
	return decodeLayer(src, path, data)
}

func (ld *loader) warn(w Warning) { ld.s.Warnings = append(ld.s.Warnings, w) }

func (ld *loader) warnAt(l *layer, line int, format string, args ...any) {
	ld.warn(Warning{File: l.file, Line: line, Msg: fmt.Sprintf(format, args...)})
}

// applies reports whether the loosening settings of layer l apply: always
// for the user's and managed files, for a project's only while it is
// trusted. What a project loosens is listed by [projectLoosening].
func (ld *loader) applies(l *layer) bool {
	return l.source != rule.SourceProject || ld.trusted
}

// projectLoosening lists every loosening setting of a project file: what
// `guard trust` shows and what waits for it. Everything else a project can
// say only tightens (deny and ask rules, env_deny, network = "off",
// read_only_defaults = false, share_caches = false, auto_approve = false)
// or is refused outright (permission_mode, [permissions.auto]).
func projectLoosening(l *layer) []Loosening {
	var out []Loosening
	add := func(line int, format string, args ...any) {
		out = append(out, Loosening{File: l.file, Line: line, What: fmt.Sprintf(format, args...)})
	}
	if v := l.autoApprove; v != nil && v.v {
		add(v.line, "auto_approve = true (start in bypass)")
	}
	for i, r := range l.rules {
		if r.Action == rule.Allow {
			add(r.Line, "allow %s", r)
			out[len(out)-1].Rule = &l.rules[i]
		}
	}
	if v := l.readOnly; v != nil && v.v {
		add(v.line, "read_only_defaults = true")
	}
	for _, r := range l.autoCommands {
		add(r.Line, "auto-approve %s", r)
	}
	for _, h := range l.hooks {
		args := make([]string, len(h.Command))
		for i, a := range h.Command {
			args[i] = shown(a)
		}
		add(lineOf(h.From), "run the hook %s", strings.Join(args, " "))
	}
	for _, r := range l.unattended {
		add(r.Line, "unattended runs may %s", r)
	}
	if v := l.network; v != nil && v.v {
		add(v.line, `network = "on"`)
	}
	for _, r := range l.networkFor {
		add(r.Line, "network for %s", r)
	}
	for _, p := range l.tcp {
		add(p.line, "TCP connections to port %d", p.v)
	}
	for _, e := range l.writes {
		add(e.line, "writable %s", shown(e.raw))
	}
	for _, e := range l.sockets {
		add(e.line, "Unix socket %s", shown(e.raw))
	}
	if v := l.shareCaches; v != nil && v.v {
		add(v.line, "share_caches = true")
	}
	for _, e := range l.envKeep {
		add(e.line, "keep $%s in the environment", e.v)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Line < out[j].Line })
	return out
}

// shown is a string from a project file as the user reviewing it should
// see it: as written when it is plain, quoted otherwise, so that a newline
// or a terminal escape in it cannot forge what 'guard trust' shows.
func shown(s string) string {
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("_./:=@%+,-~$", c)) {
			return strconv.Quote(s)
		}
	}
	if s == "" {
		return `""`
	}
	return s
}

// specific lists the files in the order a single setting is taken from.
func (ld *loader) specific() []*layer {
	out := []*layer{ld.workspace}
	for i := len(ld.project) - 1; i >= 0; i-- {
		out = append(out, ld.project[i])
	}
	return append(out, ld.global, ld.managed)
}

// ordered lists the files in the order their lists are joined.
func (ld *loader) ordered() []*layer {
	return append([]*layer{ld.managed, ld.global, ld.workspace}, ld.project...)
}

func (ld *loader) merge() error {
	steps := []func() error{
		ld.mergeRules,
		ld.mergeMode,
		ld.mergeReadOnly,
		ld.mergeNetwork,
		ld.mergeWrites,
		ld.mergeSockets,
		ld.mergeShareCaches,
		ld.mergeEnv,
		ld.mergeLists,
		ld.mergeReviewer,
		ld.mergeUI,
	}
	for _, f := range steps {
		if err := f(); err != nil {
			return err
		}
	}
	ld.trustWarning()
	return nil
}

func (ld *loader) mergeRules() error {
	s := ld.s
	s.Rules = append(s.Rules, ld.managed.rules...)
	for _, f := range []struct {
		action rule.Action
		texts  []string
	}{{rule.Deny, ld.o.Flags.Deny}, {rule.Allow, ld.o.Flags.Allow}} {
		for _, text := range f.texts {
			r, err := rule.New(f.action, text)
			if err != nil {
				return &FlagError{Flag: string(f.action), Msg: fmt.Sprintf("invalid rule %q: %v", text, err)}
			}
			r.Source = rule.SourceFlag
			s.Rules = append(s.Rules, r)
		}
	}
	s.Rules = append(s.Rules, ld.global.rules...)
	s.Rules = append(s.Rules, ld.workspace.rules...)
	for _, l := range ld.project {
		for _, r := range l.rules {
			// Deny and ask rules only tighten: they apply trusted or not.
			if r.Action == rule.Allow && !ld.applies(l) {
				continue
			}
			s.Rules = append(s.Rules, r)
		}
	}
	return nil
}

func (ld *loader) mergeMode() error {
	s := ld.s
	m := ld.managed
	if m.mode != nil {
		s.ModeFloor = m.mode.v
	}
	if m.disableBypass != nil {
		s.DisableBypass = m.disableBypass.v
	}
	for _, l := range append([]*layer{ld.global, ld.workspace}, ld.project...) {
		if l.disableBypass != nil {
			ld.warnAt(l, l.disableBypass.line, "disable_bypass is read from the managed settings only; ignored here")
		}
	}
	for _, l := range ld.project {
		if l.mode != nil {
			ld.warnAt(l, l.mode.line, "a project's settings may not set permission_mode; ignored (set this workspace's mode with 'guard mode MODE')")
		}
	}
	// why returns why managed settings refuse mode, or "".
	why := func(mode Mode) string {
		if mode == ModeBypass && s.DisableBypass {
			return fmt.Sprintf("managed settings forbid bypass (disable_bypass = true at %s:%d)", m.file, m.disableBypass.line)
		}
		if s.ModeFloor != "" && !mode.AtLeastAsStrict(s.ModeFloor) {
			return fmt.Sprintf("managed settings allow no mode less strict than %s (%s:%d)", s.ModeFloor, m.file, m.mode.line)
		}
		return ""
	}
	if f := ld.o.Flags.Mode; f != "" {
		mode, err := ParseMode(f)
		if err != nil {
			return &FlagError{Flag: "mode", Msg: err.Error()}
		}
		if w := why(mode); w != "" {
			return &FlagError{Flag: "mode", Msg: fmt.Sprintf("%s: %s", mode, w)}
		}
		s.Mode, s.ModeFrom = mode, "flag"
		return nil
	}
	for _, c := range []struct {
		l    *layer
		from string
	}{{ld.workspace, "workspace"}, {ld.global, "global"}} {
		if c.l.mode == nil {
			continue
		}
		if w := why(c.l.mode.v); w != "" {
			ld.warnAt(c.l, c.l.mode.line, "permission_mode = %q ignored: %s", c.l.mode.v, w)
			continue
		}
		s.Mode, s.ModeFrom = c.l.mode.v, c.from
		s.ModeWhere = fmt.Sprintf("%s:%d", c.l.file, c.l.mode.line)
		return nil
	}
	for _, l := range ld.specific() {
		a := l.autoApprove
		if a == nil || a.v && !ld.applies(l) {
			continue
		}
		if a.v {
			if w := why(ModeBypass); w != "" {
				ld.warnAt(l, a.line, "auto_approve = true ignored: %s", w)
				break
			}
			s.Mode, s.ModeFrom = ModeBypass, "auto_approve"
			s.ModeWhere = fmt.Sprintf("%s:%d", l.file, a.line)
			return nil
		}
		break
	}
	if s.ModeFloor != "" && !s.Mode.AtLeastAsStrict(s.ModeFloor) {
		s.Mode, s.ModeFrom = s.ModeFloor, "managed"
		s.ModeWhere = fmt.Sprintf("%s:%d", ld.managed.file, ld.managed.mode.line)
	}
	return nil
}

// offForbidden applies a managed "false" that no other file may turn to
// true: it warns about every other file that tries, and reports whether the
// managed file set it.
func (ld *loader) offForbidden(get func(*layer) *val[bool], name string) bool {
	m := get(ld.managed)
	if m == nil || m.v {
		return false
	}
	for _, l := range ld.specific() {
		if v := get(l); l != ld.managed && v != nil && v.v {
			ld.warnAt(l, v.line, "%s = true ignored: managed settings keep it off (%s:%d)", name, ld.managed.file, m.line)
		}
	}
	return true
}

// pickBool takes a boolean from the most specific file that sets it; a
// project's true is loosening and waits for trust.
func (ld *loader) pickBool(get func(*layer) *val[bool], def bool) bool {
	for _, l := range ld.specific() {
		v := get(l)
		if v == nil || v.v && !ld.applies(l) {
			continue
		}
		return v.v
	}
	return def
}

func (ld *loader) mergeReadOnly() error {
	get := func(l *layer) *val[bool] { return l.readOnly }
	if ld.offForbidden(get, "read_only_defaults") {
		ld.s.ReadOnlyDefaults = false
		return nil
	}
	ld.s.ReadOnlyDefaults = ld.pickBool(get, true)
	return nil
}

func (ld *loader) mergeShareCaches() error {
	get := func(l *layer) *val[bool] { return l.shareCaches }
	if ld.offForbidden(get, "share_caches") {
		ld.s.Sandbox.ShareCaches = false
		return nil
	}
	ld.s.Sandbox.ShareCaches = ld.pickBool(get, false)
	return nil
}

func (ld *loader) mergeNetwork() error {
	sb := &ld.s.Sandbox
	m := ld.managed
	forbidden := m.network != nil && !m.network.v
	sb.NetworkForbidden = forbidden
	managedWhere := ""
	if forbidden {
		managedWhere = fmt.Sprintf("%s:%d", m.file, m.network.line)
	}
	switch ld.o.Flags.Network {
	case "":
	case "off":
		sb.Network = false
	case "on":
		if forbidden {
			return &FlagError{Flag: "network", Msg: fmt.Sprintf("managed settings keep the network off (%s)", managedWhere)}
		}
		sb.Network = true
	default:
		return &FlagError{Flag: "network", Msg: fmt.Sprintf("%q: want on or off", ld.o.Flags.Network)}
	}
	if ld.o.Flags.Network == "" {
		for _, l := range ld.specific() {
			v := l.network
			if v == nil {
				continue
			}
			if v.v && l != m && forbidden {
				ld.warnAt(l, v.line, "network = \"on\" ignored: managed settings keep the network off (%s)", managedWhere)
				continue
			}
			if v.v && !ld.applies(l) {
				continue
			}
			sb.Network = v.v
			break
		}
	}
	for _, l := range ld.ordered() {
		if forbidden && l != m && (len(l.networkFor) > 0 || len(l.tcp) > 0) {
			line := 0
			if len(l.networkFor) > 0 {
				line = l.networkFor[0].Line
			} else {
				line = l.tcp[0].line
			}
			ld.warnAt(l, line, "allow_network_for and allow_tcp_connect ignored: managed settings keep the network off (%s)", managedWhere)
			continue
		}
		for _, r := range l.networkFor {
			if ld.applies(l) {
				sb.NetworkFor = append(sb.NetworkFor, r)
			}
		}
		for _, p := range l.tcp {
			if ld.applies(l) && !containsPort(sb.TCPConnect, p.v) {
				sb.TCPConnect = append(sb.TCPConnect, p.v)
			}
		}
	}
	return nil
}

func containsPort(ps []uint16, p uint16) bool {
	for _, q := range ps {
		if q == p {
			return true
		}
	}
	return false
}

// expandPath turns an allow_write or allow_unix_sockets entry into an
// absolute, clean path: "~" is the home directory, $VAR and ${VAR} come
// from the environment, and a relative path is relative to the workspace.
// A variable that is unset or empty is an error: "$UNSET/x" must not
// become "/x".
func (ld *loader) expandPath(raw string) (string, error) {
	var missing string
	p := os.Expand(raw, func(name string) string {
		var v string
		ok := false
		if ld.o.LookupEnv != nil {
			v, ok = ld.o.LookupEnv(name)
		}
		if !ok || v == "" {
			if missing == "" {
				missing = name
			}
			return ""
		}
		return v
	})
	switch {
	case missing != "":
		return "", fmt.Errorf("$%s is not set", missing)
	case strings.ContainsRune(p, 0):
		return "", errors.New("a path cannot hold a NUL byte")
	case p == "~" || strings.HasPrefix(p, "~/"):
		p = filepath.Join(ld.s.Paths.Home, p[1:])
	case strings.HasPrefix(p, "~"):
		return "", errors.New("~user is not supported; write the home directory's path")
	case !filepath.IsAbs(p):
		p = filepath.Join(ld.s.Paths.Workspace, p)
	}
	return filepath.Clean(p), nil
}

// grant expands a path entry and checks it against a table of dangerous
// places, both as written and with its symlinks resolved (a harmless name
// may be a link to ~). It returns the path to use, or why it is refused.
func (ld *loader) grant(raw string, marked bool, table []dangerous) (string, error) {
	p, err := ld.expandPath(raw)
	if err != nil {
		return "", err
	}
	home, rt := ld.s.Paths.Home, ld.o.RuntimeDir
	if real, err := filepath.EvalSymlinks(home); err == nil {
		home = real
	}
	if real, err := filepath.EvalSymlinks(rt); err == nil && rt != "" {
		rt = real
	}
	use := p
	why := dangerReason(table, p, ld.s.Paths.Home, ld.o.RuntimeDir)
	if real, err := filepath.EvalSymlinks(p); err == nil {
		use = real
		if why == "" {
			why = dangerReason(table, real, home, rt)
		}
	}
	if why != "" && !marked {
		return "", fmt.Errorf("%s is dangerous to open: %s; if you mean it, write {path = %q, dangerous = true}", use, why, raw)
	}
	return use, nil
}

func (ld *loader) mergeWrites() error {
	sb := &ld.s.Sandbox
	for _, raw := range ld.o.Flags.AllowWrite {
		p, err := ld.grant(raw, false, dangerousWrites)
		if err != nil {
			return &FlagError{Flag: "allow-write", Msg: fmt.Sprintf("%s (in a settings file, not with a flag)", err)}
		}
		sb.Writable = append(sb.Writable, Writable{Path: p, From: "flag"})
	}
	for _, l := range ld.ordered() {
		for _, e := range l.writes {
			if !ld.applies(l) {
				continue
			}
			p, err := ld.grant(e.raw, e.dangerous, dangerousWrites)
			if err != nil {
				ld.warnAt(l, e.line, "allow_write %q dropped: %v", e.raw, err)
				continue
			}
			sb.Writable = append(sb.Writable, Writable{Path: p, Dangerous: e.dangerous, From: fmt.Sprintf("%s:%d", l.file, e.line)})
		}
	}
	for _, w := range sb.Writable {
		sb.AllowWrite = append(sb.AllowWrite, w.Path)
	}
	return nil
}

func (ld *loader) mergeSockets() error {
	sb := &ld.s.Sandbox
	for _, l := range ld.ordered() {
		for _, e := range l.sockets {
			if !ld.applies(l) {
				continue
			}
			p, err := ld.grant(e.raw, e.dangerous, dangerousSockets)
			if err != nil {
				ld.warnAt(l, e.line, "allow_unix_sockets %q dropped: %v", e.raw, err)
				continue
			}
			sb.UnixSockets = append(sb.UnixSockets, UnixSocket{Path: p, Dangerous: e.dangerous, From: fmt.Sprintf("%s:%d", l.file, e.line)})
		}
	}
	return nil
}

func (ld *loader) mergeEnv() error {
	sb := &ld.s.Sandbox
	seen := map[string]bool{}
	add := func(g string) {
		if !seen[g] {
			seen[g] = true
			sb.EnvDeny = append(sb.EnvDeny, g)
		}
	}
	var managedDeny []string
	if ld.managed.envDeny != nil {
		for _, e := range ld.managed.envDeny.v {
			add(e.v)
			managedDeny = append(managedDeny, e.v)
		}
	}
	// The user's own env_deny replaces the built-in list.
	if ld.global.envDeny != nil || ld.workspace.envDeny != nil {
		for _, l := range []*layer{ld.global, ld.workspace} {
			if l.envDeny != nil {
				for _, e := range l.envDeny.v {
					add(e.v)
				}
			}
		}
	} else {
		for _, g := range DefaultEnvDeny() {
			add(g)
		}
	}
	// A project's entries only add: keeping a variable out tightens.
	for _, l := range ld.project {
		if l.envDeny != nil {
			for _, e := range l.envDeny.v {
				add(e.v)
			}
		}
	}
	for _, l := range ld.ordered() {
		for _, e := range l.envKeep {
			if l != ld.managed && matchesAny(managedDeny, e.v) {
				ld.warnAt(l, e.line, "env_keep %q ignored: managed settings deny it", e.v)
				continue
			}
			if !ld.applies(l) {
				continue
			}
			sb.EnvKeep = append(sb.EnvKeep, e.v)
		}
	}
	return nil
}

func (ld *loader) mergeLists() error {
	s := ld.s
	for _, l := range ld.ordered() {
		for _, r := range l.autoCommands {
			if ld.applies(l) {
				s.AutoApproveCommands = append(s.AutoApproveCommands, r)
			}
		}
		for _, h := range l.hooks {
			if ld.applies(l) {
				s.Hooks = append(s.Hooks, h)
			}
		}
	}
	if len(ld.o.Flags.Permit) > 0 {
		for _, text := range ld.o.Flags.Permit {
			r, err := rule.New(rule.Allow, text)
			if err != nil {
				return &FlagError{Flag: "permit", Msg: fmt.Sprintf("invalid rule %q: %v", text, err)}
			}
			r.Source = rule.SourceFlag
			s.Unattended = append(s.Unattended, r)
		}
		return nil
	}
	for _, l := range ld.ordered() {
		for _, r := range l.unattended {
			if ld.applies(l) {
				s.Unattended = append(s.Unattended, r)
			}
		}
	}
	return nil
}

func lineOf(from string) int {
	i := strings.LastIndexByte(from, ':')
	n := 0
	if i >= 0 {
		fmt.Sscanf(from[i+1:], "%d", &n)
	}
	return n
}

func (ld *loader) mergeReviewer() error {
	for _, l := range append([]*layer{ld.managed}, ld.project...) {
		if l.reviewer != nil {
			ld.warnAt(l, l.reviewerLine, "[permissions.auto] is read from the user's own settings only; ignored here")
		}
	}
	for _, l := range []*layer{ld.workspace, ld.global} {
		if l.reviewer != nil {
			ld.s.Reviewer = l.reviewer
			break
		}
	}
	return nil
}

func (ld *loader) mergeUI() error {
	for _, l := range ld.specific() {
		if l.diffLines != nil {
			ld.s.UI.DiffLines = l.diffLines.v
			break
		}
	}
	return nil
}

// trustWarning says, once, what an untrusted or changed project lost.
func (ld *loader) trustWarning() {
	pr := &ld.s.Project
	if ld.trusted || len(pr.Loosening) == 0 {
		return
	}
	pr.Ignored = true
	var what []string
	for i, l := range pr.Loosening {
		if i == 3 {
			what = append(what, fmt.Sprintf("and %d more", len(pr.Loosening)-3))
			break
		}
		what = append(what, l.What)
	}
	state := "not trusted"
	if pr.Trust == TrustChanged {
		state = "changed since you trusted them on " + pr.TrustedAt.Format("2006-01-02")
	}
	dir := filepath.Join(ld.s.Paths.Workspace, ".guard")
	ld.warn(Warning{File: dir, Code: WarnUntrusted, Msg: fmt.Sprintf("the project's settings are %s, so their loosening parts are ignored (%s); review them with 'guard trust --show', then run 'guard trust'",
		state, strings.Join(what, ", "))})
}
