// Package layout holds the tests that the documentation matches the
// tree: README.md's layout table names every top-level folder and every
// Go package, every name in it exists, and its importer counts are what
// go list gives; every relative link of every Markdown file resolves
// (file and #anchor); docs/README.md lists every page of docs/. It has no
// Go API.
package layout
