#!/usr/bin/env python3
"""A real recognizer as a system under test for `sessionstore replay --drive` (docs/REPLAY.md).

Reads the session's events (NDJSON, the `events --with-audio` shape) on standard input, feeds the PCM of
its recording chunks to PyPI's pocketsphinx 5 (its bundled US English model) through pocketsphinx's
voice-activity endpointer (30 ms frames), and writes on standard output, in the ingest shape:
  - a transcript.partial each time the hypothesis of the utterance being spoken changes;
  - a transcript.committed when the endpointer hears the utterance end (a silence), or at the end of
    the recording or of the input.
Segment spans are the endpointer's speech start and end in the recording, in milliseconds. Each event's
`at` is the time of the chunk whose audio produced it, so the run's times follow the audio, whatever
the replay speed. Mono recordings at other rates are resampled to the model's 16 kHz (linear
interpolation, as a client app would before a 16 kHz recognizer), so a narrowband recording is heard as
the band it holds; recordings of several channels are skipped with a note on standard error. One
Decoder per session: nothing carries over between runs.

Any NAME=VALUE argument is a setting of pocketsphinx's decoder (its `config`): another configuration of
the same recognizer, such as `lw=2` (a lighter language weight) or `beam=1e-20`, is another version to
compare (`replay --label`, `compare --baseline --candidate`).

    python3 -m pip install pocketsphinx
    sessionstore replay SESSION --drive 'python3 tools/asr/pocketsphinx_target.py' --expect
    sessionstore replay --all --drive 'python3 tools/asr/pocketsphinx_target.py lw=2' --label lw2
"""
import array, base64, json, sys

from pocketsphinx import Decoder, Endpointer


def decoder_settings(arguments):
    """NAME=VALUE arguments as Decoder keyword arguments (numbers as numbers)."""
    settings = {}
    for argument in arguments:
        name, equals, value = argument.partition("=")
        if not equals or not name:
            sys.exit(f"pocketsphinx_target: {argument!r} is not a decoder setting NAME=VALUE (such as lw=2)")
        try:
            settings[name] = float(value) if any(c in value for c in ".e") else int(value)
        except ValueError:
            settings[name] = value
    return settings


class LinearResampler:
    """Streams 16-bit mono PCM from `source` Hz to `target` Hz by linear interpolation."""

    def __init__(self, source, target):
        self.step = source / target
        self.pending = array.array("h")
        self.position = 0.0  # of the next output sample, in samples of `pending`

    def feed(self, pcm):
        if self.step == 1:
            return pcm
        chunk = array.array("h")
        chunk.frombytes(pcm)
        if sys.byteorder != "little":
            chunk.byteswap()
        self.pending.extend(chunk)
        out = array.array("h")
        while self.position + 1 < len(self.pending):
            index = int(self.position)
            fraction = self.position - index
            out.append(int(round(self.pending[index] * (1 - fraction) + self.pending[index + 1] * fraction)))
            self.position += self.step
        keep = int(self.position)
        del self.pending[:keep]
        self.position -= keep
        if sys.byteorder != "little":
            out.byteswap()
        return out.tobytes()


class Recognizer:
    def __init__(self, settings, sample_rate=16000):
        self.endpointer = Endpointer(window=0.3, ratio=0.9)
        self.resampler = LinearResampler(sample_rate, self.endpointer.sample_rate)
        self.decoder = Decoder(samprate=self.endpointer.sample_rate, loglevel="FATAL", **settings)
        self.buffer = b""
        self.segment = 0
        self.revision = 0
        self.partial = None
        self.in_utterance = False

    def feed(self, pcm, at):
        self.buffer += self.resampler.feed(pcm)
        size = self.endpointer.frame_bytes
        while len(self.buffer) >= size:
            frame, self.buffer = self.buffer[:size], self.buffer[size:]
            self.frame(frame, at, last=False)

    def finish(self, at):
        if self.buffer:
            frame = self.buffer + b"\0" * (self.endpointer.frame_bytes - len(self.buffer))
            self.buffer = b""
            self.frame(frame, at, last=True)
        if self.in_utterance:
            self.commit(at, self.endpointer.speech_end)

    def frame(self, frame, at, last):
        speech = self.endpointer.end_stream(frame) if last else self.endpointer.process(frame)
        if speech is None:
            return
        if not self.in_utterance:
            self.in_utterance = True
            self.segment += 1
            self.revision = 0
            self.partial = None
            self.decoder.start_utt()
        self.decoder.process_raw(speech, False, False)
        hypothesis = self.decoder.hyp()
        text = hypothesis.hypstr if hypothesis is not None else ""
        if text and text != self.partial:
            self.partial = text
            emit({"type": "transcript.partial", "segment": f"asr-{self.segment}", "revision": self.revision, "text": text,
                  "start_ms": ms(self.endpointer.speech_start), "end_ms": max(ms(self.endpointer.speech_start), ms(self.endpointer.speech_end)),
                  "at": at})
            self.revision += 1
        if not self.endpointer.in_speech:
            self.commit(at, self.endpointer.speech_end)

    def commit(self, at, end):
        self.decoder.end_utt()
        self.in_utterance = False
        hypothesis = self.decoder.hyp()
        text = hypothesis.hypstr if hypothesis is not None else ""
        start = ms(self.endpointer.speech_start)
        if text:
            emit({"type": "transcript.committed", "segment": f"asr-{self.segment}", "text": text, "start_ms": start,
                  "end_ms": max(start, ms(end)), "at": at})


def ms(seconds):
    return max(0, int(round(seconds * 1000)))


def emit(event):
    sys.stdout.write(json.dumps(event, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def main():
    settings = decoder_settings(sys.argv[1:])
    recognizers = {}
    skipped = set()
    last_at = None
    for line in sys.stdin:
        event = json.loads(line)
        last_at = event.get("occurred_at", last_at)
        kind = event["type"]
        if kind == "recording.started":
            if event["channels"] == 1:
                recognizers[event["recording"]] = Recognizer(settings, event["sample_rate"])
            else:
                skipped.add(event["recording"])
                print(f"pocketsphinx_target: recording {event['recording']} has {event['channels']} channels; "
                      f"only mono is recognized", file=sys.stderr)
        elif kind == "recording.chunk" and event["recording"] in recognizers:
            recognizers[event["recording"]].feed(base64.b64decode(event["pcm"]), event["occurred_at"])
        elif kind == "recording.stopped" and event["recording"] in recognizers:
            recognizers.pop(event["recording"]).finish(event["occurred_at"])
    for recognizer in recognizers.values():
        recognizer.finish(last_at)


if __name__ == "__main__":
    main()
