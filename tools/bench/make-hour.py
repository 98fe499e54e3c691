#!/usr/bin/env python3
"""Writes one dictation session of an hour as ingest NDJSON, the shape of a real client's upload:
36,000 chunks of 100 ms of 16 kHz mono speech (the bundled fixtures, read with python-soundfile, looped),
36,000 transcript partials, 720 commits with word timings, and the session, consent and recording
events around them (72,726 lines, about 170 MB). Deterministic.
   make-hour.py OUT.ndjson [MINUTES=60] [--speech flite|espeak]
--speech espeak speaks the dictation text with espeak-ng instead (Debian's espeak-ng and sox, resampled
to 16 kHz): its buzzier voice codes less well as FLAC than flite's, and both are real cases."""
import base64, json, os, random, sys, time, uuid
import soundfile

arguments = [a for a in sys.argv[1:] if not a.startswith("--speech")]
voice = next((a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--speech=")), "flite")
if "--speech" in sys.argv:
    voice = sys.argv[sys.argv.index("--speech") + 1]
    arguments.remove(voice)
out = arguments[0]
minutes = int(arguments[1]) if len(arguments) > 1 else 60
if voice == "flite":
    fixtures = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Fixtures", "audio")
    speech = b"".join(  # the fixtures are flite speech, 16 kHz mono 16-bit already
        soundfile.read(os.path.join(fixtures, name), dtype="int16")[0].astype("<i2").tobytes()
        for name in sorted(os.listdir(fixtures)) if name.endswith(".flac"))
elif voice == "espeak":
    import subprocess, tempfile
    text = ("Please schedule a follow up visit for next Tuesday morning and send the lab results to doctor Patel. "
            "The patient reports mild pain in the left knee after running, blood pressure is normal, continue the "
            "current medication and review in two weeks. No known allergies. Refer to physiotherapy.")
    speech = b""
    with tempfile.TemporaryDirectory() as scratch:
        for variant in ["en-gb", "en-us", "en-gb-scotland", "en-gb-x-rp"]:
            wav, raw = os.path.join(scratch, "s.wav"), os.path.join(scratch, "s.raw")
            subprocess.run(["espeak-ng", "-v", variant, "-w", wav, text], check=True)
            subprocess.run(["sox", "-D", wav, "-r", "16000", "-c", "1", "-b", "16", "-e", "signed-integer", "-L",
                            "-t", "raw", raw], check=True)
            speech += open(raw, "rb").read()
else:
    sys.exit("make-hour.py: --speech is flite or espeak")
rng = random.Random(11)
words = ("please schedule a follow up visit for next tuesday morning and send the lab results to doctor patel "
         "the patient reports mild pain in the left knee blood pressure is normal").split()
session = str(uuid.UUID(int=rng.getrandbits(128), version=4))
start_ms = 1_764_000_000_000

def at(ms):
    seconds, millis = divmod(start_ms + ms, 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + ".%03dZ" % millis

def line(f, kind, ms, **fields):
    f.write(json.dumps({"type": kind, "session": session, "at": at(ms), **fields}, ensure_ascii=False) + "\n")

chunks = minutes * 600
with open(out, "w") as f:
    line(f, "session.started", 0, subject="hour-user", locale="en-GB", device="bench", app_version="1.0")
    line(f, "consent.granted", 1, subject="hour-user", consent_type="audio_recording", method="in_app_prompt")
    line(f, "consent.granted", 2, subject="hour-user", consent_type="transcription", method="in_app_prompt")
    line(f, "recording.started", 3, recording="r1", sample_rate=16000, channels=1)
    for n in range(chunks):
        offset = n * 3200 % (len(speech) - 3200)
        offset -= offset % 2
        line(f, "recording.chunk", 100 * n + 100, recording="r1", index=n,
             pcm=base64.b64encode(speech[offset:offset + 3200]).decode())
        segment = n // 50
        text = " ".join(rng.choice(words) for _ in range(1 + n % 50 // 5))
        line(f, "transcript.partial", 100 * n + 101, segment=str(segment), revision=n % 50, text=text,
             start_ms=segment * 5000, end_ms=100 * n + 100, stability=round((n % 50) / 50, 2))
        if n % 50 == 49:
            said = [rng.choice(words) for _ in range(12)]
            line(f, "transcript.committed", 100 * n + 150, segment=str(segment), text=" ".join(said),
                 start_ms=segment * 5000, end_ms=segment * 5000 + 5000, confidence=0.93,
                 words=[{"word": w, "start_ms": segment * 5000 + i * 400, "end_ms": segment * 5000 + i * 400 + 380}
                        for i, w in enumerate(said)])
    line(f, "recording.stopped", 100 * chunks + 200, recording="r1")
    line(f, "session.ended", 100 * chunks + 300)
