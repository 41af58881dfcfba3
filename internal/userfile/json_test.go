package userfile

import "testing"

func TestCheckJSON(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"httpMethod": "GET"}`, ""},
		{"  [1, 2]\n", ""},
		{"", "it is empty"},
		{" \n\t", "it is empty"},
		{`{"httpMethod":`, "line 1, column 15: unexpected end of input: a closing brace, bracket or quote is missing"},
		{"{\n  \"a\": 1,\n  \"b\": tru\n}", "line 3, column 11: invalid character '\\n' in literal true (expecting 'e')"},
		{"not json", "line 1, column 2: invalid character 'o' in literal null (expecting 'u')"},
		{`{} {}`, "line 1, column 4: invalid character '{' after top-level value"},
		{`{"é": x}`, "line 1, column 7: invalid character 'x' looking for beginning of value"},
	} {
		err := CheckJSON([]byte(tc.in))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("CheckJSON(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
