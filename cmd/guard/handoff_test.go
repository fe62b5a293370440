package main

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/guard-sh/guard/gate"
)

func TestHandoffIsSingleUseExactAndShortLived(t *testing.T) {
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	h := newHandoff(t.TempDir())
	h.now = func() time.Time { return now }
	if err := h.put("s1", "/w", "make deploy"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name             string
		session, ws, cmd string
		after            time.Duration
		want             bool
	}{
		{"another session", "s2", "/w", "make deploy", 0, false},
		{"another workspace", "s1", "/x", "make deploy", 0, false},
		{"another command", "s1", "/w", "make deploy; rm -rf ~", 0, false},
		{"the approved command", "s1", "/w", "make deploy", 0, true},
		{"a second time", "s1", "/w", "make deploy", 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := h.take(tc.session, tc.ws, tc.cmd); got != tc.want {
				t.Fatalf("take = %v, want %v", got, tc.want)
			}
		})
	}
	// An approval nobody used expires.
	if err := h.put("s1", "/w", "make deploy"); err != nil {
		t.Fatal(err)
	}
	now = now.Add(handoffTTL + time.Second)
	if h.take("s1", "/w", "make deploy") {
		t.Fatal("an expired approval was taken")
	}
	// Records live in a private directory.
	fi, err := os.Stat(h.dir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("handoff dir mode = %v, %v", fi.Mode(), err)
	}
}

type refusingApprover struct{ asked int }

func (r *refusingApprover) Approve(context.Context, gate.Prompt) (gate.Answer, error) {
	r.asked++
	return gate.Answer{Choice: gate.No}, nil
}

func TestHandoffApproverAnswersOnlyItsCommand(t *testing.T) {
	h := newHandoff(t.TempDir())
	if err := h.put("s1", "/w", "make deploy"); err != nil {
		t.Fatal(err)
	}
	inner := &refusingApprover{}
	x := &handoffApprover{inner: inner, h: h, session: "s1", workspace: "/w"}
	ask := func(cmd string) gate.Choice {
		ans, err := x.Approve(context.Background(), gate.Prompt{Request: &gate.Request{Kind: gate.RunCommand, Detail: cmd}})
		if err != nil {
			t.Fatal(err)
		}
		return ans.Choice
	}
	if c := ask("make other"); c != gate.No || inner.asked != 1 {
		t.Fatalf("another command: %c, terminal asked %d times", c, inner.asked)
	}
	if c := ask("make deploy"); c != gate.Once || inner.asked != 1 {
		t.Fatalf("the approved command: %c, terminal asked %d times", c, inner.asked)
	}
	if c := ask("make deploy"); c != gate.No || inner.asked != 2 {
		t.Fatalf("again: %c, terminal asked %d times", c, inner.asked)
	}
}
