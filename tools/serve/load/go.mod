module sessionstore/tools/serve/load

go 1.19
