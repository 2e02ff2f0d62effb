package lint

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// WriteGitHub writes findings as GitHub Actions workflow commands, which
// GitHub shows as annotations on the pull request:
//
//	::error file=path,line=3,col=5,endColumn=9,title=rule-id::message
//
// Info findings become notices.
func WriteGitHub(w io.Writer, r *Result) error {
	bw := bufio.NewWriter(w)
	for _, f := range r.Findings {
		level := "notice"
		switch f.Severity {
		case "error":
			level = "error"
		case "warning":
			level = "warning"
		}
		props := []string{"file=" + escapeProperty(f.File)}
		if f.Line > 0 {
			props = append(props, fmt.Sprintf("line=%d", f.Line))
		}
		if f.Col > 0 {
			props = append(props, fmt.Sprintf("col=%d", f.Col))
		}
		if f.EndCol > f.Col && f.Col > 0 {
			props = append(props, fmt.Sprintf("endColumn=%d", f.EndCol))
		}
		props = append(props, "title="+escapeProperty(f.Rule))
		fmt.Fprintf(bw, "::%s %s::%s\n", level, strings.Join(props, ","), escapeData(f.Message))
	}
	return bw.Flush()
}

// escapeData escapes a workflow command's message, as the Actions toolkit
// does.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a workflow command's property value.
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
