// Package doccheck holds a test that keeps the repository self-contained: its code and
// docs cite only the project's own files (docs/method.md for the method, docs/scripting.md
// for the scripting contract) and the papers by title, never a file outside the
// repository, and every relative link in its Markdown files leads to a file that exists.
package doccheck
