package sandbox

import (
	"reflect"
	"testing"
)

const sampleMountinfo = `22 1 254:0 / / rw,relatime - ext4 /dev/vda rw
23 22 0:5 / /dev rw,relatime - devtmpfs devtmpfs rw
30 22 254:0 /home /mnt/home rw,relatime - ext4 /dev/vda rw
31 22 254:0 /home/u/proj /work rw,relatime - ext4 /dev/vda rw
32 22 254:0 /srv /mnt/with\040space rw - ext4 /dev/vda rw
33 30 0:40 / /mnt/home/u/.ssh rw - tmpfs none rw
40 22 254:1 /home /other rw - ext4 /dev/vdb rw
`

func TestParseMountinfo(t *testing.T) {
	got, err := parseMountinfo([]byte(sampleMountinfo))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 7 {
		t.Fatalf("want 7 entries, got %d", len(got))
	}
	want := mountEntry{ID: 32, Parent: 22, Dev: "254:0", Root: "/srv", Point: "/mnt/with space"}
	if got[4] != want {
		t.Fatalf("escaped path: got %+v, want %+v", got[4], want)
	}
}

func TestParseMountinfoRejectsGarbage(t *testing.T) {
	for _, bad := range []string{"1 2 3\n", "x 1 254:0 / / rw\n", "1 2 nocolon / / rw\n", "1 2 0:1 /\\04 / rw\n", "1 2 0:1 /\\999 / rw\n"} {
		if _, err := parseMountinfo([]byte(bad)); err == nil {
			t.Errorf("%q: want an error", bad)
		}
	}
}

func TestAliases(t *testing.T) {
	mounts, err := parseMountinfo([]byte(sampleMountinfo))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		path string
		want []string
	}{
		{"a bind mount of a parent leads to it", "/home/u/.aws", []string{"/mnt/home/u/.aws"}},
		{"a path covered by another mount there is no alias", "/home/u/.ssh", nil},
		{"a bind mount of a subdirectory leads to what is inside it", "/home/u/proj/.env", []string{"/mnt/home/u/proj/.env", "/work/.env"}},
		{"from the alias back to the path", "/work/.env", []string{"/home/u/proj/.env", "/mnt/home/u/proj/.env"}},
		{"an escaped mount point", "/srv/x", []string{"/mnt/with space/x"}},
		{"a path on no bind mount has none", "/etc/passwd", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := aliases(mounts, tc.path); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("aliases(%s) = %q, want %q", tc.path, got, tc.want)
			}
		})
	}
}

func FuzzParseMountinfo(f *testing.F) {
	f.Add([]byte(sampleMountinfo))
	f.Add([]byte("1 2 0:1 /a\\134b /x\\011y rw\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		mounts, err := parseMountinfo(data)
		if err != nil {
			return
		}
		for _, m := range mounts {
			if m.Point == "" || m.Point[0] != '/' {
				continue
			}
			// aliases must not panic on any table, and every alias it
			// gives is on a mount of the same device.
			on, _ := mountOf(mounts, m.Point)
			for _, a := range aliases(mounts, m.Point) {
				top, ok := mountOf(mounts, a)
				if !ok || top.Dev != on.Dev {
					t.Fatalf("alias %q of %q is on another device", a, m.Point)
				}
			}
		}
	})
}
