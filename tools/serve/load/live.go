package main

// A WebSocket writer for `run -live`: the client side of RFC 6455 that the live route needs (a handshake through
// net/http, masked text frames out, unmasked frames in, pings answered), since Go's standard library has none.

import (
	"bufio"
	"crypto/rand"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

type liveConnection struct {
	stream io.ReadWriteCloser
	reader *bufio.Reader
}

// dialLive opens GET /v1/sessions/{session}/live as a WebSocket and reads the server's first message.
func dialLive(client *http.Client, url, token, session string) (*liveConnection, error) {
	nonce := make([]byte, 16)
	rand.Read(nonce)
	key := base64.StdEncoding.EncodeToString(nonce)
	request, _ := http.NewRequest("GET", url+"/v1/sessions/"+session+"/live", nil)
	request.Header.Set("Authorization", "Bearer "+token)
	request.Header.Set("Connection", "Upgrade")
	request.Header.Set("Upgrade", "websocket")
	request.Header.Set("Sec-WebSocket-Version", "13")
	request.Header.Set("Sec-WebSocket-Key", key)
	response, err := client.Do(request)
	if err != nil {
		return nil, err
	}
	if response.StatusCode != http.StatusSwitchingProtocols {
		body, _ := io.ReadAll(response.Body)
		response.Body.Close()
		return nil, fmt.Errorf("%d: %s", response.StatusCode, body)
	}
	digest := sha1.Sum([]byte(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
	if response.Header.Get("Sec-WebSocket-Accept") != base64.StdEncoding.EncodeToString(digest[:]) {
		response.Body.Close()
		return nil, fmt.Errorf("the server's Sec-WebSocket-Accept does not match the key")
	}
	stream, ok := response.Body.(io.ReadWriteCloser)
	if !ok {
		return nil, fmt.Errorf("the upgraded connection cannot be written")
	}
	connection := &liveConnection{stream: stream, reader: bufio.NewReader(stream)}
	if _, err := connection.receive(); err != nil { // the hello: what the store holds of the session
		stream.Close()
		return nil, err
	}
	return connection, nil
}

// send writes one masked frame (RFC 6455 §5.2).
func (c *liveConnection) send(opcode byte, payload []byte) error {
	frame := []byte{0x80 | opcode}
	switch n := len(payload); {
	case n < 126:
		frame = append(frame, 0x80|byte(n))
	case n <= 0xFFFF:
		frame = append(frame, 0x80|126, byte(n>>8), byte(n))
	default:
		frame = append(frame, 0x80|127)
		frame = binary.BigEndian.AppendUint64(frame, uint64(n))
	}
	mask := make([]byte, 4)
	rand.Read(mask)
	frame = append(frame, mask...)
	for i, b := range payload {
		frame = append(frame, b^mask[i%4])
	}
	_, err := c.stream.Write(frame)
	return err
}

// receive returns the next text message, answering pings on the way.
func (c *liveConnection) receive() ([]byte, error) {
	var message []byte
	for {
		var head [2]byte
		if _, err := io.ReadFull(c.reader, head[:]); err != nil {
			return nil, err
		}
		length := uint64(head[1] & 0x7F)
		switch length {
		case 126:
			var extended [2]byte
			if _, err := io.ReadFull(c.reader, extended[:]); err != nil {
				return nil, err
			}
			length = uint64(binary.BigEndian.Uint16(extended[:]))
		case 127:
			var extended [8]byte
			if _, err := io.ReadFull(c.reader, extended[:]); err != nil {
				return nil, err
			}
			length = binary.BigEndian.Uint64(extended[:])
		}
		payload := make([]byte, length)
		if _, err := io.ReadFull(c.reader, payload); err != nil {
			return nil, err
		}
		switch opcode := head[0] & 0x0F; opcode {
		case 0x9: // ping
			if err := c.send(0xA, payload); err != nil {
				return nil, err
			}
			continue
		case 0xA: // pong
			continue
		case 0x8:
			return nil, fmt.Errorf("the server closed the stream: %q", payload)
		}
		message = append(message, payload...)
		if head[0]&0x80 != 0 {
			return message, nil
		}
	}
}

// appendLive sends one event as a message and waits for its acknowledgement: its position.
func (c *liveConnection) appendLive(line string) (uint64, error) {
	if err := c.send(0x1, []byte(strings.TrimSuffix(line, "\n"))); err != nil {
		return 0, err
	}
	message, err := c.receive()
	if err != nil {
		return 0, err
	}
	var answer struct {
		Position *uint64        `json:"position"`
		Problem  map[string]any `json:"problem"`
	}
	if err := json.Unmarshal(message, &answer); err != nil {
		return 0, err
	}
	if answer.Position == nil {
		return 0, fmt.Errorf("refused: %s", message)
	}
	return *answer.Position, nil
}

func (c *liveConnection) close() {
	c.send(0x8, []byte{0x03, 0xE8}) // 1000: normal closure
	c.stream.Close()
}
