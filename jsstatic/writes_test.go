package jsstatic

import (
	"fmt"
	"strings"
	"testing"
)

func TestStateWrites(t *testing.T) {
	src := "updateState({ status: 'cancelled', ctx: { mode: 'x' } });\n" +
		"this.setState({ n: 1 });\n" +
		"state = { ...state, done: true };\n" +
		"Object.assign(state, { items: [] });\n" +
		"state.a.b = null;\n" +
		"state[k] = 1;\n" +
		"other.x = 2;\n" +
		"state.count += 1;\n"
	p, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, u := range p.StateWrites() {
		got = append(got, fmt.Sprintf("%s=%s@%d:%d/%d:%d", u.Key, u.Kind, u.Line, u.Col, u.ValueLine, u.ValueCol))
	}
	want := []string{
		"status=string@1:15/1:23", "ctx=object@1:36/1:41", "ctx.mode=string@1:43/1:49",
		"n=number@2:17/2:20", "done=boolean@3:21/3:27", "items=array@4:24/4:31", "a.b=null@5:1/5:13",
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("StateWrites\n%s\nwant\n%s", strings.Join(got, " "), strings.Join(want, " "))
	}
}

func TestInitialObject(t *testing.T) {
	for src, want := range map[string]string{
		"const initialState = { status: 'idle', n: 0 };": "status n",
		"{ a: 1 }": "",
		"const x = make({ a: 1 });\nconst s = { b: 2 };": "b",
		"let s;": "",
	} {
		p, err := Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		us, _ := p.InitialObject()
		var keys []string
		for _, u := range us {
			keys = append(keys, u.Key)
		}
		if got := strings.Join(keys, " "); got != want {
			t.Errorf("InitialObject(%q) = %q, want %q", src, got, want)
		}
	}
}
