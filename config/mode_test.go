package config

import "testing"

func TestParseMode(t *testing.T) {
	tests := []struct {
		in   string
		want Mode
		ok   bool
	}{
		{"default", ModeDefault, true},
		{"accept-edits", ModeAcceptEdits, true},
		{"acceptEdits", ModeAcceptEdits, true},
		{"auto", ModeAuto, true},
		{"plan", ModePlan, true},
		{"dont-ask", ModeDontAsk, true},
		{"dontAsk", ModeDontAsk, true},
		{"bypass", ModeBypass, true},
		{"bypassPermissions", ModeBypass, true},
		{"Bypass", "", false},
		{"", "", false},
		{"yolo", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseMode(tc.in)
			if (err == nil) != tc.ok || got != tc.want {
				t.Fatalf("ParseMode(%q) = %q, %v; want %q ok=%v", tc.in, got, err, tc.want, tc.ok)
			}
		})
	}
}

func TestManagedModeFloor(t *testing.T) {
	if ModeBypass.AtLeastAsStrict(ModeDefault) {
		t.Fatal("bypass is not as strict as default")
	}
	if !ModePlan.AtLeastAsStrict(ModeDefault) || !ModeDefault.AtLeastAsStrict(ModeAcceptEdits) {
		t.Fatal("plan and default are floors above accept-edits")
	}
}
