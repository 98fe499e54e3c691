// Command tlogproof verifies C2SP tlog-proof@v1 files written by `sessionstore prove SESSION --bundle DIR`
// with the Go checksum database's own packages (golang.org/x/mod/sumdb/note and sumdb/tlog), code that
// shares nothing with SessionStore. For each file: the checkpoint's signed note must verify with the
// store's verifier key (`sessionstore anchor --public-key`), and the inclusion proof must lead from the
// record hash of the extra data (RFC 6962: SHA-256(0x00 || data)) at the index to the checkpoint's root.
//
//	GO111MODULE=off GOPATH=/usr/share/gocode go run tools/format-reader/tlogproof/main.go KEY FILE...
//
// It prints one line per file and exits 0 when every proof holds, 1 when any does not.
package main

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

func verify(key string, file []byte) (string, error) {
	verifier, err := note.NewVerifier(key)
	if err != nil {
		return "", fmt.Errorf("the verifier key: %v", err)
	}
	proof, checkpoint, found := bytes.Cut(file, []byte("\n\n"))
	if !found {
		return "", errors.New("no blank line before the checkpoint")
	}
	lines := strings.Split(string(proof), "\n")
	if len(lines) < 2 || lines[0] != "c2sp.org/tlog-proof@v1" {
		return "", errors.New("not a c2sp.org/tlog-proof@v1 file")
	}
	lines = lines[1:]
	var extra []byte
	if strings.HasPrefix(lines[0], "extra ") {
		if extra, err = base64.StdEncoding.DecodeString(strings.TrimPrefix(lines[0], "extra ")); err != nil {
			return "", fmt.Errorf("the extra line: %v", err)
		}
		lines = lines[1:]
	}
	if !strings.HasPrefix(lines[0], "index ") {
		return "", errors.New("no index line")
	}
	index, err := strconv.ParseInt(strings.TrimPrefix(lines[0], "index "), 10, 64)
	if err != nil {
		return "", fmt.Errorf("the index: %v", err)
	}
	var path tlog.RecordProof
	for _, line := range lines[1:] {
		hash, err := base64.StdEncoding.DecodeString(line)
		if err != nil || len(hash) != tlog.HashSize {
			return "", fmt.Errorf("a proof hash is not 32 bytes of base64: %q", line)
		}
		var h tlog.Hash
		copy(h[:], hash)
		path = append(path, h)
	}
	signed, err := note.Open(checkpoint, note.VerifierList(verifier))
	if err != nil {
		return "", fmt.Errorf("the checkpoint: %v", err)
	}
	body := strings.Split(signed.Text, "\n")
	if len(body) < 3 {
		return "", errors.New("the checkpoint has no origin, size and root")
	}
	size, err := strconv.ParseInt(body[1], 10, 64)
	if err != nil {
		return "", fmt.Errorf("the checkpoint's size: %v", err)
	}
	root, err := base64.StdEncoding.DecodeString(body[2])
	if err != nil || len(root) != tlog.HashSize {
		return "", errors.New("the checkpoint's root is not 32 bytes of base64")
	}
	var rootHash tlog.Hash
	copy(rootHash[:], root)
	if err := tlog.CheckRecord(path, size, rootHash, index, tlog.RecordHash(extra)); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s record %d of %d: included", body[0], index, size), nil
}

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: tlogproof VERIFIER_KEY FILE...")
		os.Exit(2)
	}
	failed := false
	for _, name := range os.Args[2:] {
		file, err := os.ReadFile(name)
		if err == nil {
			var line string
			if line, err = verify(os.Args[1], file); err == nil {
				fmt.Println(line)
				continue
			}
		}
		fmt.Printf("%s: NOT PROVEN: %v\n", name, err)
		failed = true
	}
	if failed {
		os.Exit(1)
	}
}
