module github.com/skillkit/skillkit

go 1.26
