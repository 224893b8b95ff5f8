// Package objfile is the object-file model shared by the LANai assembler,
// linker, disassembler and emulator loader.
//
// A [File] holds sections (with their contents and RELA relocations) and a
// symbol table. It can be read from and written to ELF32 big-endian files
// with e_machine EM_LANAI (244), the format produced by LLVM's Lanai target
// (llvm-mc -triple=lanai -filetype=obj, clang --target=lanai -c), and read
// from the big-endian System V COFF executables and relocatable objects
// (magic 0x1300) that Myricom's lanai-gcc toolchain produced for LANai
// 4/7/9 firmware, and split `ar` archives ([ReadArchive]).
//
// Conventions of the model:
//
//   - In relocatable files (Kind REL) a defined symbol's Value is an offset
//     into its Section; in executables (Kind EXEC) it is an absolute address,
//     as in ELF.
//   - A Section's Data holds its contents; for SHT_NOBITS sections Data is nil
//     and Size gives the size in memory.
//   - Relocations belong to the section they patch ([Section.Relocs]); the
//     .rela.<name> sections, .symtab, .strtab and .shstrtab of an ELF file are
//     not represented as Sections: the reader folds them into the model and
//     the writer regenerates them.
//   - All Lanai relocations are absolute; [RelocType.Apply] implements the
//     patch formulas of the six relocation types.
//
// The readers never panic on malformed input and never allocate more than a
// small multiple of the input size: every offset, count and size is checked
// against the input before use.
package objfile

import (
	"errors"
	"fmt"
)

// Kind distinguishes relocatable objects from executables.
type Kind int

const (
	// REL is a relocatable object file (ELF ET_REL): section addresses are
	// zero and symbol values are section offsets.
	REL Kind = iota
	// EXEC is an executable image (ELF ET_EXEC or a LANai COFF file):
	// sections have their load addresses and symbol values are absolute.
	EXEC
)

// String returns "REL" or "EXEC".
func (k Kind) String() string {
	switch k {
	case REL:
		return "REL"
	case EXEC:
		return "EXEC"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Format names used in File.Format.
const (
	// FormatELF is the Format of files read from (or meant for) ELF.
	FormatELF = "elf32-lanai"
	// FormatCOFF is the Format of files read from LANai COFF.
	FormatCOFF = "coff-lanai"
)

// EM_LANAI is the ELF e_machine value of the Lanai architecture.
const EM_LANAI = 244

// Section types (ELF sh_type values).
const (
	SHT_NULL          = 0          // unused section header
	SHT_PROGBITS      = 1          // contents stored in the file
	SHT_SYMTAB        = 2          // symbol table
	SHT_STRTAB        = 3          // string table
	SHT_RELA          = 4          // relocations with explicit addends
	SHT_HASH          = 5          // symbol hash table
	SHT_DYNAMIC       = 6          // dynamic linking information
	SHT_NOTE          = 7          // notes
	SHT_NOBITS        = 8          // zero-initialised, occupies no file space
	SHT_REL           = 9          // relocations with implicit addends
	SHT_INIT_ARRAY    = 14         // array of constructor addresses
	SHT_FINI_ARRAY    = 15         // array of destructor addresses
	SHT_PREINIT_ARRAY = 16         // array of pre-constructor addresses
	SHT_GROUP         = 17         // section group (COMDAT)
	SHT_SYMTAB_SHNDX  = 18         // extended section indices of symbols
	SHT_LLVM_ADDRSIG  = 0x6fff4c03 // LLVM address-significance table
)

// Section flags (ELF sh_flags bits).
const (
	SHF_WRITE      = 0x1        // writable at run time
	SHF_ALLOC      = 0x2        // occupies memory at run time
	SHF_EXECINSTR  = 0x4        // contains instructions
	SHF_MERGE      = 0x10       // elements may be merged
	SHF_STRINGS    = 0x20       // contains NUL-terminated strings
	SHF_INFO_LINK  = 0x40       // sh_info holds a section index
	SHF_LINK_ORDER = 0x80       // ordering requirement
	SHF_GROUP      = 0x200      // member of a section group
	SHF_TLS        = 0x400      // thread-local storage
	SHF_EXCLUDE    = 0x80000000 // excluded from links (LLVM)
)

// Symbol bindings (ELF STB_* values, the high nibble of st_info).
const (
	STB_LOCAL  = 0 // local to the object
	STB_GLOBAL = 1 // visible to all objects
	STB_WEAK   = 2 // global with lower precedence
)

// Symbol types (ELF STT_* values, the low nibble of st_info).
const (
	STT_NOTYPE  = 0 // unspecified (labels)
	STT_OBJECT  = 1 // data object
	STT_FUNC    = 2 // function
	STT_SECTION = 3 // the section itself
	STT_FILE    = 4 // source file name
	STT_TLS     = 6 // thread-local data object
)

// Symbol visibilities (ELF STV_* values, the low two bits of st_other).
const (
	STV_DEFAULT   = 0 // as the binding says
	STV_INTERNAL  = 1 // hidden, and not called from outside
	STV_HIDDEN    = 2 // not visible outside the linked image
	STV_PROTECTED = 3 // visible, but not preemptible
)

// Special section indices (ELF st_shndx values).
const (
	SHN_UNDEF  = 0      // undefined symbol
	SHN_ABS    = 0xfff1 // absolute value, not relocated
	SHN_COMMON = 0xfff2 // common block: Value is the alignment, Size the size
	SHN_XINDEX = 0xffff // index held in SHT_SYMTAB_SHNDX (not supported)
)

// File is an object file: a relocatable object or an executable image.
type File struct {
	// Kind is REL or EXEC.
	Kind Kind
	// Entry is the entry-point address (executables).
	Entry uint32
	// Sections lists the content sections in file order. Relocation,
	// symbol and string table sections are not included (see the package
	// documentation).
	Sections []*Section
	// Symbols is the symbol table without ELF's null symbol 0.
	Symbols []*Symbol
	// Format is FormatELF or FormatCOFF for files produced by a reader;
	// writers ignore it.
	Format string
	// Addrsig, when not nil in a relocatable file, makes the ELF writer
	// add LLVM's address-significance table (.llvm_addrsig), as llvm-mc
	// does for the .addrsig directive. Readers leave it nil (they keep a
	// .llvm_addrsig they read as a Section, which the writer drops).
	Addrsig *Addrsig
}

// Addrsig is LLVM's address-significance table: the symbols whose address
// is taken, written as their symbol-table indices in ULEB128.
type Addrsig struct {
	// Syms are the address-significant symbols, in order.
	Syms []*Symbol
}

// Section is one section of a File.
type Section struct {
	// Name is the section name, such as ".text" or ".rodata.str1.1".
	Name string
	// Type is the ELF section type (SHT_PROGBITS, SHT_NOBITS, ...).
	Type uint32
	// Flags is the set of ELF SHF_* flags.
	Flags uint32
	// Addr is the load address (zero in relocatable files).
	Addr uint32
	// Align is the required alignment (0 or 1 mean none; otherwise a
	// power of two).
	Align uint32
	// EntSize is the size of fixed-size entries (mergeable sections).
	EntSize uint32
	// Data is the section contents; nil for SHT_NOBITS.
	Data []byte
	// Size is the size in memory: len(Data) except for SHT_NOBITS.
	Size uint32
	// Relocs are the relocations that patch this section.
	Relocs []Reloc
	// COFFLines are the line-number entries of a section read from COFF
	// (nil otherwise; writers ignore them).
	COFFLines []COFFLineno
}

// Symbol is a symbol table entry.
type Symbol struct {
	// Name is the symbol name (empty for STT_SECTION symbols as written
	// by LLVM; use DisplayName for messages).
	Name string
	// Value is the section offset (REL), absolute address (EXEC or
	// SHN_ABS) or alignment (SHN_COMMON).
	Value uint32
	// Size is the object or function size in bytes.
	Size uint32
	// Bind is STB_LOCAL, STB_GLOBAL or STB_WEAK.
	Bind uint8
	// Type is STT_NOTYPE, STT_OBJECT, STT_FUNC, STT_SECTION, STT_FILE or
	// STT_TLS.
	Type uint8
	// Other is the ELF st_other byte (visibility).
	Other uint8
	// Section is the section that defines the symbol, or nil when the
	// symbol is undefined, absolute or common.
	Section *Section
	// Shndx is SHN_UNDEF, SHN_ABS or SHN_COMMON when Section is nil;
	// otherwise informational (the index the reader saw; writers
	// recompute it).
	Shndx uint16
}

// Reloc is one relocation: patch the word at Offset in its section with
// the value of Sym plus Addend, as Type prescribes.
type Reloc struct {
	// Offset is the byte offset of the patched 32-bit word in the section.
	Offset uint32
	// Type is the relocation type.
	Type RelocType
	// Sym is the symbol whose value is used (nil means the value 0).
	Sym *Symbol
	// Addend is added to the symbol value.
	Addend int32
}

// IsDefined reports whether the symbol is defined (in a section, absolute,
// or common).
func (s *Symbol) IsDefined() bool {
	return s.Section != nil || s.Shndx == SHN_ABS || s.Shndx == SHN_COMMON
}

// IsUndefined reports whether the symbol is an undefined reference.
func (s *Symbol) IsUndefined() bool { return !s.IsDefined() }

// IsCommon reports whether the symbol is a common block (SHN_COMMON).
func (s *Symbol) IsCommon() bool { return s.Section == nil && s.Shndx == SHN_COMMON }

// IsAbs reports whether the symbol is absolute (SHN_ABS).
func (s *Symbol) IsAbs() bool { return s.Section == nil && s.Shndx == SHN_ABS }

// DisplayName returns the name to use in messages: the section name for
// unnamed section symbols, otherwise Name.
func (s *Symbol) DisplayName() string {
	if s.Name == "" && s.Type == STT_SECTION && s.Section != nil {
		return s.Section.Name
	}
	return s.Name
}

// Section returns the first section called name, or nil.
func (f *File) Section(name string) *Section {
	for _, s := range f.Sections {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// Symbol returns the first symbol called name, preferring a global or weak
// one over locals, or nil.
func (f *File) Symbol(name string) *Symbol {
	var local *Symbol
	for _, s := range f.Symbols {
		if s.Name != name {
			continue
		}
		if s.Bind != STB_LOCAL {
			return s
		}
		if local == nil {
			local = s
		}
	}
	return local
}

// SectionSymbol returns the STT_SECTION symbol of sec, adding a local one
// (named "" as LLVM writes it) to f.Symbols if there is none yet. Use it to
// make relocations against a section plus offset.
func (f *File) SectionSymbol(sec *Section) *Symbol {
	for _, s := range f.Symbols {
		if s.Type == STT_SECTION && s.Section == sec {
			return s
		}
	}
	s := &Symbol{Type: STT_SECTION, Bind: STB_LOCAL, Section: sec}
	f.Symbols = append(f.Symbols, s)
	return s
}

// RelocType is an ELF relocation type of the Lanai architecture.
type RelocType uint32

// The Lanai relocation types (LLVM ELFRelocs/Lanai.def). All are absolute;
// V below is S+A (symbol value plus addend) and W the big-endian word at
// the relocated offset.
const (
	// R_LANAI_NONE does nothing.
	R_LANAI_NONE RelocType = 0
	// R_LANAI_21 patches the 21-bit SLS/SLI address: V < 2^21,
	// W = W&^0x007CFFFF | (V>>16)<<18 | V&0xFFFF.
	R_LANAI_21 RelocType = 1
	// R_LANAI_21_F is R_LANAI_21 keeping W's low two bits (mask 0x007CFFFC).
	R_LANAI_21_F RelocType = 2
	// R_LANAI_25 patches a branch target: V word-aligned and < 2^25,
	// W = W&0xFE000003 | V.
	R_LANAI_25 RelocType = 3
	// R_LANAI_32 stores V as a whole word.
	R_LANAI_32 RelocType = 4
	// R_LANAI_HI16 patches the low half-word with V>>16.
	R_LANAI_HI16 RelocType = 5
	// R_LANAI_LO16 patches the low half-word with V&0xFFFF.
	R_LANAI_LO16 RelocType = 6
)

var relocNames = [...]string{
	R_LANAI_NONE: "R_LANAI_NONE",
	R_LANAI_21:   "R_LANAI_21",
	R_LANAI_21_F: "R_LANAI_21_F",
	R_LANAI_25:   "R_LANAI_25",
	R_LANAI_32:   "R_LANAI_32",
	R_LANAI_HI16: "R_LANAI_HI16",
	R_LANAI_LO16: "R_LANAI_LO16",
}

// String returns the relocation name, such as "R_LANAI_HI16", or
// "R_LANAI_(n)" for unknown types.
func (r RelocType) String() string {
	if int(r) < len(relocNames) {
		return relocNames[r]
	}
	return fmt.Sprintf("R_LANAI_(%d)", uint32(r))
}

// Known reports whether r is one of the seven defined Lanai types.
func (r RelocType) Known() bool { return int(r) < len(relocNames) }

// ErrRelocRange is wrapped by the errors Apply returns when the value does
// not fit the relocated field.
var ErrRelocRange = errors.New("relocation value out of range")

// Apply returns word patched with value (the symbol value plus addend, S+A)
// as relocation type r prescribes. It returns an error wrapping
// ErrRelocRange, naming the type and value, when the value does not fit:
// R_LANAI_25 needs a word-aligned value below 2^25 and R_LANAI_21/21_F a
// value below 2^21; R_LANAI_32, HI16 and LO16 accept any value. Unknown
// types are an error.
func (r RelocType) Apply(word uint32, value uint32) (uint32, error) {
	switch r {
	case R_LANAI_NONE:
		return word, nil
	case R_LANAI_21:
		if value >= 1<<21 {
			return word, fmt.Errorf("%v: value 0x%x does not fit in 21 bits: %w", r, value, ErrRelocRange)
		}
		return word&^0x007CFFFF | (value>>16)<<18 | value&0xFFFF, nil
	case R_LANAI_21_F:
		if value >= 1<<21 {
			return word, fmt.Errorf("%v: value 0x%x does not fit in 21 bits: %w", r, value, ErrRelocRange)
		}
		return word&^0x007CFFFC | (value>>16)<<18 | value&0xFFFC, nil
	case R_LANAI_25:
		if value&3 != 0 {
			return word, fmt.Errorf("%v: branch target 0x%x is not word-aligned: %w", r, value, ErrRelocRange)
		}
		if value >= 1<<25 {
			return word, fmt.Errorf("%v: branch target 0x%x is beyond the 25-bit (32 MiB) range: %w", r, value, ErrRelocRange)
		}
		return word&0xFE000003 | value, nil
	case R_LANAI_32:
		return value, nil
	case R_LANAI_HI16:
		return word&0xFFFF0000 | value>>16, nil
	case R_LANAI_LO16:
		return word&0xFFFF0000 | value&0xFFFF, nil
	}
	return word, fmt.Errorf("unknown relocation type %v", r)
}

// Read parses an ELF or LANai COFF file, choosing the reader from the
// file's magic number.
func Read(data []byte) (*File, error) {
	switch {
	case len(data) >= 4 && string(data[:4]) == "\x7fELF":
		return ReadELF(data)
	case len(data) >= 2 && data[0] == 0x13 && data[1] == 0x00:
		return ReadCOFF(data)
	case len(data) < 4:
		return nil, fmt.Errorf("file too short (%d bytes) to be an object file", len(data))
	}
	return nil, fmt.Errorf("unrecognised object file format (magic % x)", data[:4])
}
