#!/usr/bin/env python3
"""Reads a `sessionstore report` page as a check independent of the code that wrote it.

    read_report.py REPORT.html [RECORDING.wav]

Python's HTML parser reads the page; the timeline's SVG is parsed as XML (it must be well-formed);
the embedded recording is decoded with soundfile and, given a WAV (from `sessionstore audio`),
compared sample for sample. Prints one JSON object; exits 1 when the page cannot be read.
"""
import base64
import hashlib
import html.parser
import io
import json
import sys
import xml.etree.ElementTree as ElementTree


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids, self.external, self.audio_src, self.title = [], [], None, ""
        self.segments, self.scripts = [], 0
        self._in_title, self._title_read, self._segment, self._text_depth = False, False, None, 0

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if "id" in attributes:
            self.ids.append(attributes["id"])
        for name in ("src", "href"):
            value = attributes.get(name) or ""
            if value.startswith(("http:", "https:", "//")):
                self.external.append(value)
        if tag == "link" or (tag == "script" and "src" in attributes):
            self.external.append(f"<{tag}>")
        if tag == "script":
            self.scripts += 1
        if tag == "audio":
            self.audio_src = attributes.get("src")
        if tag == "title" and not self._title_read:
            self._in_title = True
        if tag == "li" and (attributes.get("id") or "").startswith("segment-"):
            self._segment = {"id": attributes["id"], "text": "", "speaker": None, "start_ms": None}
            self.segments.append(self._segment)
        if self._segment is not None and tag == "a" and "data-start-ms" in attributes:
            self._segment["start_ms"] = int(attributes["data-start-ms"])
        if self._segment is not None and tag == "span":
            self._text_depth = {"text": 1, "speaker": 2}.get(attributes.get("class"), 0)

    def handle_endtag(self, tag):
        if tag == "title" and self._in_title:
            self._in_title, self._title_read = False, True
        if tag == "span":
            self._text_depth = 0
        if tag == "li" and self._segment is not None and self._text_depth == 0:
            self._segment = None

    def handle_data(self, data):
        if self._in_title:
            self.title += data
        if self._segment is not None and self._text_depth == 1:
            self._segment["text"] += data
        if self._segment is not None and self._text_depth == 2:
            self._segment["speaker"] = (self._segment["speaker"] or "") + data


def main():
    text = open(sys.argv[1], encoding="utf-8").read()
    page = Page()
    page.feed(text)
    page.close()
    start, end = text.index("<svg"), text.index("</svg>") + len("</svg>")
    svg = ElementTree.fromstring(text[start:end])
    ns = "{http://www.w3.org/2000/svg}"
    result = {
        "title": page.title,
        "segments": page.segments,
        "duplicate_ids": sorted({i for i in page.ids if page.ids.count(i) > 1}),
        "external": page.external,
        "scripts": page.scripts,
        "svg": {
            "width": svg.get("width"),
            "paths": len(svg.findall(f".//{ns}path")),
            "segment_rects": len([r for r in svg.iter(f"{ns}rect") if r.get("class") == "segment"]),
            "revision_lines": len([r for r in svg.iter(f"{ns}line") if r.get("class") == "revision"]),
            "pauses": len([r for r in svg.iter(f"{ns}rect") if r.get("class") == "pause"]),
            "markers": [g.get("class").split(" ", 1)[1] for g in svg.iter(f"{ns}g") if (g.get("class") or "").startswith("marker ")],
        },
        "audio": None,
    }
    if page.audio_src:
        import numpy
        import soundfile
        header, _, payload = page.audio_src.partition(",")
        samples, rate = soundfile.read(io.BytesIO(base64.b64decode(payload, validate=True)), dtype="int16", always_2d=True)
        result["audio"] = {"mime": header, "frames": len(samples), "channels": samples.shape[1], "rate": rate,
                           "sha256": hashlib.sha256(samples.tobytes()).hexdigest()}
        if len(sys.argv) > 2:
            wav, wav_rate = soundfile.read(sys.argv[2], dtype="int16", always_2d=True)
            result["audio"]["matches_wav"] = bool(wav_rate == rate and numpy.array_equal(wav, samples))
    json.dump(result, sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    main()
