#!/usr/bin/env python3
"""Decodes session event payloads and view rows with Google's protobuf library and docs/session-events.proto
and docs/views.proto alone.

Input, one per line: `event type <TAB> payload hex`, or `view:NAME <TAB> row hex` for a row of a persisted
view (docs/FORMAT.md §8: sessions, transcript-parts, consent-trail, access-policy, runs, rule-events; transcripts, the layout before). Output, one JSON line per input: the message as
protobuf's JSON mapping (field names as in the .proto), and `"canonical": true` when the payload
parses with no unknown fields and re-serialises to exactly the same bytes, i.e. every field has the
number and wire type the schema gives it. An audio chunk stored as FLAC is also decoded (with
python-soundfile, when installed) and `"flac_pcm_sha256"` gives the SHA-256 of its samples as int16
little-endian bytes, to compare with the chunk's `pcm_sha256`.

    pip install protobuf grpcio-tools soundfile
    python3 decode_payloads.py < payloads.tsv
"""
import hashlib
import importlib
import io
import json
import os
import sys
import tempfile

from google.protobuf import json_format
from google.protobuf.unknown_fields import UnknownFieldSet
from grpc_tools import protoc

MESSAGES = {
    "session.started": "SessionStarted", "session.paused": "SessionPaused", "session.resumed": "SessionResumed",
    "session.ended": "SessionEnded", "consent.granted": "ConsentChange", "consent.revoked": "ConsentChange",
    "recording.started": "RecordingStarted", "recording.chunk": "RecordingChunk",
    "recording.stopped": "RecordingStopped", "transcript.partial": "TranscriptPartial",
    "transcript.committed": "TranscriptCommitted", "transcript.corrected": "TranscriptCorrected",
    "playback.started": "PlaybackStarted", "playback.paused": "PlaybackPosition", "playback.seeked": "PlaybackSeeked",
    "playback.stopped": "PlaybackPosition", "playback.completed": "PlaybackCompleted",
    "retention.purged": "RetentionPurged", "subject.erased": "SubjectErased", "export.performed": "ExportPerformed",
    "retention.policy_set": "RetentionPolicySet",
    "replay.run": "ReplayRun", "hold.placed": "HoldPlaced", "hold.released": "HoldReleased",
    "access.read": "AccessRead", "access.policy_set": "AccessPolicySet",
    "token.created": "TokenCreated", "token.revoked": "TokenRevoked",
    "integrity.verified": "IntegrityVerified", "checkpoint.issued": "CheckpointIssued",
}
VIEWS = {"view:sessions": "SessionRow", "view:transcripts": "TranscriptRow", "view:transcript-parts": "TranscriptRow", "view:consent-trail": "ConsentTrailRow",
         "view:access-policy": "AccessPolicyRow", "view:runs": "RunRow",
         "view:rule-events": "RuleEventsRow"}


def load_schema(name):
    docs = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs")
    out = tempfile.mkdtemp()
    if protoc.main(["protoc", f"-I{docs}", f"--python_out={out}", os.path.join(docs, name + ".proto")]) != 0:
        sys.exit(f"decode_payloads: protoc failed on docs/{name}.proto")
    sys.path.insert(0, out)
    return importlib.import_module(name.replace("-", "_") + "_pb2")


def has_unknown_fields(message):
    if len(UnknownFieldSet(message)) > 0:
        return True
    for field, value in message.ListFields():
        if field.message_type is not None:
            repeated = field.is_repeated if hasattr(field, "is_repeated") else field.label == field.LABEL_REPEATED
            items = value if repeated else [value]
            if any(has_unknown_fields(item) for item in items):
                return True
    return False


def main():
    schema, views = load_schema("session-events"), load_schema("views")
    for line in sys.stdin:
        event_type, payload_hex = line.rstrip("\n").split("\t")
        payload = bytes.fromhex(payload_hex)
        message = getattr(views, VIEWS[event_type])() if event_type in VIEWS else getattr(schema, MESSAGES[event_type])()
        message.ParseFromString(payload)
        canonical = not has_unknown_fields(message) and message.SerializeToString() == payload
        decoded = json_format.MessageToDict(message, preserving_proto_field_name=True)
        line = {"type": event_type, "canonical": canonical, "message": decoded}
        if event_type == "recording.chunk" and message.WhichOneof("audio") == "flac":
            line["flac_pcm_sha256"] = flac_pcm_sha256(message.flac)
        print(json.dumps(line, ensure_ascii=False))


def flac_pcm_sha256(flac):
    try:
        import soundfile
    except ImportError:
        return None
    samples, _ = soundfile.read(io.BytesIO(flac), dtype="int16", always_2d=False)
    return hashlib.sha256(samples.astype("<i2").tobytes()).hexdigest()


if __name__ == "__main__":
    main()
