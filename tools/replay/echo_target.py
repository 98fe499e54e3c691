#!/usr/bin/env python3
"""A tiny deterministic system under test for `sessionstore replay --drive … --with-transcript`.

It reads the session's events (NDJSON, the `events --with-audio` shape) on standard input and, for each
transcript.committed event it is sent, writes a transcript.partial and a transcript.committed of its own
on standard output (the ingest shape, with session, id and at left out for the driver to fill), with the
same text and span: a perfect transcriber. Options make it imperfect in known ways, for tests:

  --drop-word N      leave out the Nth word (1-based) of the whole transcript
  --drop-every N     leave out every Nth word of the whole transcript (a deletion each)
  --replace-every N  write "uh" for every Nth word (a substitution each)
  --repeat-every N   write every Nth word twice (an insertion each)
  --crash-after N    exit with status 3 after reading N events
  --hang-after N     stop reading (and writing) after N events, forever
  --garbage-after N  write a line that is not JSON after N events
  --silent           write nothing, and exit 0 at the end of the input
  --linger S         after the input ends, wait S seconds before exiting
Everything it reads or does not understand it ignores; it says what it did on standard error.
"""
import argparse, json, sys, time

def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--drop-word", type=int)
    parser.add_argument("--drop-every", type=int)
    parser.add_argument("--replace-every", type=int)
    parser.add_argument("--repeat-every", type=int)
    parser.add_argument("--crash-after", type=int)
    parser.add_argument("--hang-after", type=int)
    parser.add_argument("--garbage-after", type=int)
    parser.add_argument("--silent", action="store_true")
    parser.add_argument("--linger", type=float, default=0)
    options = parser.parse_args()
    read = 0
    words_written = 0
    for line in sys.stdin:
        read += 1
        if options.crash_after is not None and read > options.crash_after:
            print(f"echo_target: crashing after {options.crash_after} events", file=sys.stderr)
            sys.exit(3)
        if options.hang_after is not None and read > options.hang_after:
            print(f"echo_target: hanging after {options.hang_after} events", file=sys.stderr, flush=True)
            while True:
                time.sleep(3600)
        if options.garbage_after is not None and read > options.garbage_after:
            print("this is not an event", flush=True)
            options.garbage_after = None
        event = json.loads(line)
        if event["type"] != "transcript.committed" or options.silent:
            continue
        words = event["text"].split()
        if options.drop_word is not None and words_written < options.drop_word <= words_written + len(words):
            del words[options.drop_word - words_written - 1]
            words_written += 1
        changed = []
        for word in words:
            words_written += 1
            if options.drop_every and words_written % options.drop_every == 0:
                continue
            if options.replace_every and words_written % options.replace_every == 0:
                word = "uh"
            changed.append(word)
            if options.repeat_every and words_written % options.repeat_every == 0:
                changed.append(word)
        text = " ".join(changed)
        span = {"start_ms": event["start_ms"], "end_ms": event["end_ms"]}
        segment = "echo-" + event["segment"]
        print(json.dumps({"type": "transcript.partial", "segment": segment, "revision": 0, "text": text, **span}))
        print(json.dumps({"type": "transcript.committed", "segment": segment, "text": text, **span}), flush=True)
    time.sleep(options.linger)
    print(f"echo_target: read {read} events", file=sys.stderr)

if __name__ == "__main__":
    main()
