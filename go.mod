module github.com/vpbench/vpbench

go 1.26.8
