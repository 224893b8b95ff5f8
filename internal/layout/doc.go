// Package layout holds the test that README.md's layout table and the
// module's tree agree: every top-level folder and every Go package is
// named in the table, and every name in the table exists. It has no Go
// API.
package layout
