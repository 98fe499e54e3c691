import Audio
@testable import EventLog
import Foundation
@testable import Ingest
import Migrations
import SessionModel

/// The parsers of bytes from outside, each a libFuzzer target: it may throw (bad input is expected),
/// but it must never crash, hang or touch memory it does not own.
enum FuzzTarget: String, CaseIterable {
    /// The JSON parser of ingest lines.
    case json
    /// One NDJSON ingest line into a session event.
    case ndjsonLine = "ndjson-line"
    /// A stored record: header, leaf hash, AEAD, decompression, body.
    case record
    /// The protobuf wire form of every event type (the first byte picks the type).
    case wire
    /// A FLAC chunk as stored.
    case flac
    /// A fixture script (JSON) for `record --script`.
    case fixture
    /// An audio file for `record` (WAV, FLAC, OGG and the rest libsndfile reads).
    case audioFile = "audio-file"

    func run(_ bytes: [UInt8]) {
        switch self {
        case .json:
            _ = try? JSONParser.parse(Data(bytes))
        case .ndjsonLine:
            _ = Self.lineParser.parse(Data(bytes), line: 1)
        case .record:
            RecordFuzzing.shared.run(bytes)
        case .wire:
            guard let first = bytes.first else { return }
            let types = EventType.allCases
            let event = RecordedEvent(id: UUID(), stream: StreamID(), streamNumber: 0, position: 0,
                                      type: types[Int(first) % types.count].rawValue, data: Array(bytes.dropFirst()),
                                      recordedAtMilliseconds: 0)
            _ = try? SessionMigrations.codec.decode(event)
        case .flac:
            _ = try? FLACChunkCodec.decode(bytes)
        case .fixture:
            Self.throughFile(bytes, named: "script.json") { _ = try? FixtureScript.load($0) }
        case .audioFile:
            Self.throughFile(bytes, named: "audio") { _ = try? AudioFile.read($0) }
        }
    }

    private static let lineParser = IngestLineParser(hashIdentifier: { Array(SHA256.hash(Array($0.utf8))) },
                                                     codec: SessionMigrations.codec)

    /// Readers that take a path get the input as a file in a directory of this process's own.
    private static func throughFile(_ bytes: [UInt8], named name: String, _ read: (String) -> Void) {
        let path = scratch.appendingPathComponent(name).path
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        read(path)
    }

    static let scratch: URL = {
        let base = FileManager.default.fileExists(atPath: "/dev/shm") ? URL(fileURLWithPath: "/dev/shm") : FileManager.default.temporaryDirectory
        let url = base.appendingPathComponent("sessionstore-fuzz-\(getpid())")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(at: FuzzTarget.scratch) }
        return url
    }()
}
