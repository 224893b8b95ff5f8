package link

import (
	"fmt"

	"lanaiemu/objfile"
)

// Input is one input of a link as named on a command line: a relocatable
// object, or an `ar` archive whose members are linked only when needed.
type Input struct {
	// Name names the input in messages.
	Name string
	// Object is the object (nil for an archive).
	Object *objfile.File
	// Members are the archive's members (for an archive).
	Members []objfile.ArchiveMember
}

// SelectMembers returns the objects to link, with their names: every
// object input, and, at the position of each archive, the members that
// define a global symbol still undefined at that point, as Unix linkers
// choose them: a member is taken when it defines (not merely as common) a
// symbol that an object before it, or an earlier-taken member, references
// without defining; the archive is scanned again until no member is taken.
// A member is named "archive(member)". A member that is not a readable
// object is an error.
func SelectMembers(inputs []Input) ([]*objfile.File, []string, error) {
	var objs []*objfile.File
	var names []string
	defined := map[string]bool{}
	undefined := map[string]bool{}
	add := func(f *objfile.File, name string) {
		objs = append(objs, f)
		names = append(names, name)
		for _, s := range f.Symbols {
			if s.Bind == objfile.STB_LOCAL {
				continue
			}
			switch {
			case s.IsUndefined():
				if !defined[s.Name] {
					undefined[s.Name] = true
				}
			case !s.IsCommon():
				defined[s.Name] = true
				delete(undefined, s.Name)
			}
		}
	}
	for _, in := range inputs {
		if in.Object != nil {
			add(in.Object, in.Name)
			continue
		}
		members := make([]*objfile.File, len(in.Members))
		for i, m := range in.Members {
			f, err := objfile.Read(m.Data)
			if err != nil {
				return nil, nil, fmt.Errorf("%s(%s): %w", in.Name, m.Name, err)
			}
			members[i] = f
		}
		taken := make([]bool, len(members))
		for more := true; more; {
			more = false
			for i, f := range members {
				if !taken[i] && definesAny(f, undefined) {
					taken[i], more = true, true
					add(f, in.Name+"("+in.Members[i].Name+")")
				}
			}
		}
	}
	return objs, names, nil
}

// definesAny reports whether f defines (not as common) a global symbol in
// names.
func definesAny(f *objfile.File, names map[string]bool) bool {
	for _, s := range f.Symbols {
		if definesGlobal(s) && names[s.Name] {
			return true
		}
	}
	return false
}

// definesGlobal reports whether s is a global (or weak) definition that
// can take a member out of an archive: not local, not undefined, not
// common.
func definesGlobal(s *objfile.Symbol) bool {
	return s.Bind != objfile.STB_LOCAL && s.IsDefined() && !s.IsCommon()
}

// archiveDefinitions maps each global symbol that a member of an archive
// among inputs defines to the first such member, named "archive(member)".
// Members that do not read as objects are skipped (SelectMembers reports
// them).
func archiveDefinitions(inputs []Input) map[string]string {
	defs := map[string]string{}
	for _, in := range inputs {
		for _, m := range in.Members {
			f, err := objfile.Read(m.Data)
			if err != nil {
				continue
			}
			for _, s := range f.Symbols {
				if _, seen := defs[s.Name]; !seen && definesGlobal(s) {
					defs[s.Name] = in.Name + "(" + m.Name + ")"
				}
			}
		}
	}
	return defs
}
