package lanai

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// exec_gen.go is what go generate makes from semantics.go and the loop's
// template: regenerating gives the same bytes.
func TestGeneratedCodeIsCurrent(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	out := filepath.Join(t.TempDir(), "exec_gen.go")
	cmd := exec.Command(goTool, "run", "./internal/opgen", "-o", out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("opgen: %v\n%s", err, msg)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("exec_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("exec_gen.go is not what semantics.go and internal/opgen/exec.tmpl make: run go generate ./lanai")
	}
}
