package parse

import "bytes"

// NormalizeNewlines returns data with every line ending as "\n": "\r\n"
// (Windows) and a lone "\r" (classic Mac OS) too. CommonMark counts all
// three as line endings but goldmark only "\n", so a CR-only file read as
// one line and a phase in it ran no steps. Whatever shows a file's lines
// by number (the parser, lint's source snippets) reads it through this,
// so that positions agree. A leading UTF-8 byte order mark is dropped too:
// editors on Windows write one, and before it the front matter's opening
// --- is not at the start of line 1.
func NormalizeNewlines(data []byte) []byte {
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	if bytes.IndexByte(data, '\r') < 0 {
		return data
	}
	data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	return bytes.ReplaceAll(data, []byte("\r"), []byte("\n"))
}
