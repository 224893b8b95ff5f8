// Package libgcc runs Myricom's own compiled code on the core: the
// arithmetic routines of lanai-gcc 2.95's libgcc.a (__mulsi3, __divsi3,
// the 64-bit shifts, compares and divisions, ...), called by lanai-gcc's
// calling convention from src/harness.s, on thousands of inputs, compared with
// Go's operators. It has no Go API.
//
// Myricom's objects never enter the repository: the tests read them from
// the folder that the LANAI_MYRICOM_LIB environment variable names
// (docs/coff.md says where they come from) and skip without it.
// docs/runtime.md describes the calling convention and what each routine
// does, including division by zero.
package libgcc
