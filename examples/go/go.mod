module github.com/darkroad/darkroad-go-example

go 1.19

require github.com/darkroad/darkroad-go v0.0.0

// The client generated from openapi/openapi.json into ./darkroad-go (see README.md).
replace github.com/darkroad/darkroad-go => ./darkroad-go
