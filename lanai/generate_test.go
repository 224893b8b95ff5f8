package lanai

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// exec_gen.go and run_gen_amd64.s are what go generate makes from
// semantics.go and the templates: regenerating gives the same bytes.
func TestGeneratedCodeIsCurrent(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	dir := t.TempDir()
	cmd := exec.Command(goTool, "run", "./internal/opgen", "-o", filepath.Join(dir, "exec_gen.go"), "-asm", filepath.Join(dir, "run_gen_amd64.s"))
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("opgen: %v\n%s", err, msg)
	}
	for _, name := range []string{"exec_gen.go", "run_gen_amd64.s"} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not what semantics.go and internal/opgen's templates make: run go generate ./lanai", name)
		}
	}
}
