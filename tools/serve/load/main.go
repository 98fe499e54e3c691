// Command load drives `sessionstore serve` with many concurrent writers and readers, as a fleet of app
// backends would, and checks what the server acknowledged against what it stores. Go's standard
// library only: a client nobody here wrote the HTTP stack of.
//
//	load run    -url URL -token INGEST -read-token READ [-writers 64] [-readers 16] [-duration 60s] [-batch 1] [-live] [-acked FILE]
//	            [-read-path /v1/sessions?limit=50] [-interval 0] [-pad 0]
//	load verify -url URL -read-token READ -acked FILE
//
// run: each writer starts a session of its own and appends transcript.committed events, -batch per
// request, each with a fresh id; a request that fails is sent again, byte for byte, until it is
// answered (a resend is idempotent). With -live each writer sends its events through the session's live
// WebSocket instead, one event per message, each awaited before the next; with -interval each writer starts an event
// no sooner than that after the one before (an app recording 100 ms chunks: -interval 100ms), and -pad adds that many
// bytes to each event's text (a chunk's line is about 4.3 KB). Readers page the session list (or GET -read-path). At the end
// it prints one JSON object: events and requests acknowledged, events per second, p50/p99 latency of
// an acknowledgement (and p95), reads per second and p50/p99 latency of a read. With -writers 0
// the readers read alone for -duration (the idle baseline). With -acked it appends each acknowledged event
// (id, position) to FILE as it is acknowledged, so that a test may kill the server mid-load and verify
// afterwards.
//
// verify: reads the log's tail from the start up to the highest acknowledged position and checks that
// every acknowledged event is there, at its position, exactly once, and that no position repeats.
package main

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

func uuid4() string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

type answer struct {
	Positions []uint64 `json:"positions"`
}

type acked struct {
	id       string
	position uint64
}

func post(client *http.Client, url, token string, body []byte) (answer, int, error) {
	request, _ := http.NewRequest("POST", url+"/v1/events", bytes.NewReader(body))
	request.Header.Set("Authorization", "Bearer "+token)
	request.Header.Set("Content-Type", "application/x-ndjson")
	response, err := client.Do(request)
	if err != nil {
		return answer{}, 0, err
	}
	defer response.Body.Close()
	data, err := io.ReadAll(response.Body)
	if err != nil {
		return answer{}, response.StatusCode, err
	}
	if response.StatusCode != 200 {
		return answer{}, response.StatusCode, fmt.Errorf("%d: %s", response.StatusCode, data)
	}
	var parsed answer
	err = json.Unmarshal(data, &parsed)
	return parsed, 200, err
}

// committed is the ingest line of writer w's segment-th committed transcript segment.
func committed(session, id string, segment, w, pad int) string {
	ms := segment * 10
	return fmt.Sprintf(`{"type":"transcript.committed","session":"%s","id":"%s","at":"2026-11-26T10:%02d:%02d.%03dZ","segment":"s%d","text":"word %d of writer %d%s","start_ms":%d,"end_ms":%d}`+"\n",
		session, id, ms/60000%60, ms/1000%60, ms%1000, segment, segment, w, strings.Repeat(" x", pad/2), ms, ms+5)
}

func run(args []string) {
	flags := flag.NewFlagSet("run", flag.ExitOnError)
	url := flags.String("url", "", "the server")
	token := flags.String("token", "", "an ingest token")
	readToken := flags.String("read-token", "", "a read token")
	writers := flags.Int("writers", 64, "concurrent writers")
	readers := flags.Int("readers", 16, "concurrent readers")
	duration := flags.Duration("duration", 60*time.Second, "how long to write")
	batch := flags.Int("batch", 1, "events per request")
	giveUp := flags.Duration("give-up", 30*time.Second, "after the deadline, how long a writer keeps resending a request that fails")
	ackedPath := flags.String("acked", "", "append each acknowledged event here")
	live := flags.Bool("live", false, "write through each session's live WebSocket, one event per message")
	readPath := flags.String("read-path", "/v1/sessions?limit=50", "what each reader GETs")
	interval := flags.Duration("interval", 0, "with -live, the least time from one event's start to the next's")
	pad := flags.Int("pad", 0, "bytes added to each event's text")
	flags.Parse(args)
	if *live && *batch != 1 {
		fmt.Fprintln(os.Stderr, "-live sends one event per message: -batch must be 1")
		os.Exit(64)
	}

	var ackedFile *os.File
	var ackedLock sync.Mutex
	if *ackedPath != "" {
		var err error
		ackedFile, err = os.OpenFile(*ackedPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			panic(err)
		}
		defer ackedFile.Close()
	}
	transport := &http.Transport{MaxIdleConnsPerHost: *writers + *readers}
	client := &http.Client{Transport: transport, Timeout: 60 * time.Second}
	deadline := time.Now().Add(*duration)
	var events, requests, reads, failures, resends int64
	latencies := make([][]time.Duration, *writers)
	readLatencies := make([][]time.Duration, *readers)
	var wait sync.WaitGroup
	for w := 0; w < *writers; w++ {
		wait.Add(1)
		go func(w int) {
			defer wait.Done()
			session := uuid4()
			first := fmt.Sprintf(`{"type":"session.started","session":"%s","id":"%s","at":"2026-11-26T10:00:00.000Z","subject":"load-%d","locale":"en-US"}`+"\n", session, uuid4(), w)
			pending := []byte(first)
			ids := []string{strings.Split(strings.Split(first, `"id":"`)[1], `"`)[0]}
			segment := 0
			note := func(positions []uint64) {
				atomic.AddInt64(&requests, 1)
				atomic.AddInt64(&events, int64(len(positions)))
				if ackedFile != nil {
					var lines strings.Builder
					for i, position := range positions {
						fmt.Fprintf(&lines, "%s %d\n", ids[i], position)
					}
					ackedLock.Lock()
					ackedFile.WriteString(lines.String())
					ackedLock.Unlock()
				}
			}
			if *live {
				// No Client.Timeout: it wraps a body in one that cannot be written, and the upgraded connection is its body.
				connection, err := dialLive(&http.Client{Transport: transport}, *url, *token, session)
				if err != nil {
					atomic.AddInt64(&failures, 1)
					fmt.Fprintln(os.Stderr, "live:", err)
					return
				}
				defer connection.close()
				line := first
				for {
					started := time.Now()
					position, err := connection.appendLive(line)
					if err != nil {
						atomic.AddInt64(&failures, 1)
						fmt.Fprintln(os.Stderr, "live:", err)
						return
					}
					latencies[w] = append(latencies[w], time.Since(started))
					note([]uint64{position})
					if time.Now().After(deadline) {
						return
					}
					segment++
					ids[0] = uuid4()
					line = committed(session, ids[0], segment, w, *pad)
					time.Sleep(time.Until(started.Add(*interval)))
				}
			}
			for {
				started := time.Now()
				got, status, err := post(client, *url, *token, pending)
				if err != nil {
					atomic.AddInt64(&failures, 1)
					if status == 0 && time.Now().After(deadline.Add(*giveUp)) {
						return // the server is gone for good (killed by the test)
					}
					if status == 422 {
						fmt.Fprintln(os.Stderr, "refused:", err)
						return
					}
					atomic.AddInt64(&resends, 1)
					time.Sleep(20 * time.Millisecond)
					continue
				}
				latencies[w] = append(latencies[w], time.Since(started))
				note(got.Positions)
				if time.Now().After(deadline) {
					return
				}
				var body bytes.Buffer
				ids = ids[:0]
				for i := 0; i < *batch; i++ {
					segment++
					id := uuid4()
					ids = append(ids, id)
					body.WriteString(committed(session, id, segment, w, *pad))
				}
				pending = body.Bytes()
			}
		}(w)
	}
	stopReaders := make(chan struct{})
	var readerWait sync.WaitGroup
	for r := 0; r < *readers; r++ {
		readerWait.Add(1)
		go func(r int) {
			defer readerWait.Done()
			for {
				select {
				case <-stopReaders:
					return
				default:
				}
				started := time.Now()
				request, _ := http.NewRequest("GET", *url+*readPath, nil)
				request.Header.Set("Authorization", "Bearer "+*readToken)
				response, err := client.Do(request)
				if err != nil {
					time.Sleep(20 * time.Millisecond)
					continue
				}
				io.Copy(io.Discard, response.Body)
				response.Body.Close()
				if response.StatusCode == 200 {
					atomic.AddInt64(&reads, 1)
					readLatencies[r] = append(readLatencies[r], time.Since(started))
				}
			}
		}(r)
	}
	began := time.Now()
	wait.Wait()
	if *writers == 0 {
		time.Sleep(time.Until(deadline))
	}
	elapsed := time.Since(began)
	close(stopReaders)
	readerWait.Wait()

	percentile := func(each [][]time.Duration) func(float64) float64 {
		var all []time.Duration
		for _, l := range each {
			all = append(all, l...)
		}
		sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
		return func(p float64) float64 {
			if len(all) == 0 {
				return 0
			}
			return float64(all[int(p*float64(len(all)-1))].Microseconds()) / 1000
		}
	}
	appendPercentile, readPercentile := percentile(latencies), percentile(readLatencies)
	report, _ := json.Marshal(map[string]interface{}{
		"writers": *writers, "readers": *readers, "batch": *batch, "seconds": elapsed.Seconds(),
		"events": events, "requests": requests, "events_per_second": float64(events) / elapsed.Seconds(),
		"p50_ms": appendPercentile(0.50), "p95_ms": appendPercentile(0.95), "p99_ms": appendPercentile(0.99), "reads": reads,
		"read_p50_ms": readPercentile(0.50), "read_p99_ms": readPercentile(0.99),
		"reads_per_second": float64(reads) / elapsed.Seconds(), "failures": failures, "resends": resends,
	})
	fmt.Println(string(report))
}

func verify(args []string) {
	flags := flag.NewFlagSet("verify", flag.ExitOnError)
	url := flags.String("url", "", "the server")
	readToken := flags.String("read-token", "", "a read token")
	ackedPath := flags.String("acked", "", "the acknowledged events")
	flags.Parse(args)

	data, err := os.ReadFile(*ackedPath)
	if err != nil {
		panic(err)
	}
	want := map[string]uint64{}
	var highest uint64
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		fields := strings.Fields(line)
		if len(fields) != 2 {
			continue
		}
		position, _ := strconv.ParseUint(fields[1], 10, 64)
		if earlier, seen := want[fields[0]]; seen && earlier != position {
			fail("event %s was acknowledged at %d and at %d", fields[0], earlier, position)
		}
		want[fields[0]] = position
		if position > highest {
			highest = position
		}
	}
	request, _ := http.NewRequest("GET", *url+"/v1/events", nil)
	request.Header.Set("Authorization", "Bearer "+*readToken)
	response, err := (&http.Client{Timeout: 300 * time.Second}).Do(request)
	if err != nil {
		fail("cannot read the tail: %v", err)
	}
	defer response.Body.Close()
	found := map[string]uint64{}
	positions := map[uint64]bool{}
	scanner := bufio.NewScanner(response.Body)
	scanner.Buffer(make([]byte, 1<<20), 16<<20)
	var position uint64
	for scanner.Scan() {
		line := scanner.Text()
		switch {
		case strings.HasPrefix(line, "id: "):
			position, _ = strconv.ParseUint(line[4:], 10, 64)
			if positions[position] {
				fail("position %d came twice", position)
			}
			positions[position] = true
		case strings.HasPrefix(line, "data: "):
			var event struct {
				ID string `json:"id"`
			}
			json.Unmarshal([]byte(line[6:]), &event)
			if earlier, seen := found[event.ID]; seen {
				fail("event %s is stored twice, at %d and %d", event.ID, earlier, position)
			}
			found[event.ID] = position
		}
		if position >= highest && len(found) > 0 && strings.HasPrefix(line, "data: ") {
			break
		}
	}
	for id, position := range want {
		got, stored := found[id]
		if !stored {
			fail("acknowledged event %s (position %d) is not stored", id, position)
		}
		if got != position {
			fail("acknowledged event %s is at %d, not %d", id, got, position)
		}
	}
	report, _ := json.Marshal(map[string]interface{}{"acknowledged": len(want), "stored_through": highest, "verified": true})
	fmt.Println(string(report))
}

func fail(format string, values ...interface{}) {
	fmt.Fprintf(os.Stderr, "verify: "+format+"\n", values...)
	os.Exit(1)
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: load run|verify [flags]")
		os.Exit(64)
	}
	switch os.Args[1] {
	case "run":
		run(os.Args[2:])
	case "verify":
		verify(os.Args[2:])
	default:
		fmt.Fprintln(os.Stderr, "usage: load run|verify [flags]")
		os.Exit(64)
	}
}
