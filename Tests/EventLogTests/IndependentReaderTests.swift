import EventLog
import Foundation
import TestSupport
import Testing

/// tools/format-reader/read_store.py reads stores from docs/FORMAT.md alone, sharing no code with
/// EventLog; it must decode exactly what the library reads back. In tools/test's PostgreSQL pass the store
/// is a database, which the reader reads as FORMAT.md §11 lays it out.
@Suite(.enabled(if: TestBackend.isSharedBetweenProcesses, "a Python reader opens the store")) struct IndependentReaderTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let reader = packageRoot.appendingPathComponent("tools/format-reader/read_store.py").path

    static let modules = (TestBackend.isLMDB ? "lmdb" : "psycopg") + ", nacl.bindings, zstandard"
    /// Skipped only outside CI: with `CI` set, missing modules fail the test.
    static let pythonReaderEnabled = pythonTestEnabled(modules)

    @Test(.enabled(if: pythonReaderEnabled, "needs python3 with pynacl, zstandard and lmdb (psycopg on PostgreSQL)"))
    func anIndependentReaderDecodesEveryEventAsTheLibraryDoes() async throws {
        try requirePython(Self.modules)
        try await withTemporaryStore { store in
            let log = try store.create()
            let samples = (0..<300).map { event("{\"segment\":\($0),\"text\":\"sample dictation number \($0)\"}", type: "transcript.partial") }
            try await log.append([event("before any dictionary")], to: StreamID())
            // A stream whose key is destroyed below, its records before and after others' (the reader keeps
            // each key it looked up, the destroyed one included).
            let erased = StreamID()
            try await log.append([event("erased 0"), event("erased 1")], to: erased)
            try log.installDictionary(try EventLog.trainDictionary(samples: samples))
            try await log.append(Array(samples.prefix(20)), to: StreamID())
            try await log.append([ProposedEvent(type: "recording.chunk", data: (0..<3200).map { _ in UInt8.random(in: 0...255) })],
                                 to: StreamID())
            try await log.append([event(String(repeating: "long text ", count: 300), type: "transcript.committed")], to: StreamID())
            try await log.append([event("consent ✓ مرحبا", type: "consent.granted")], to: StreamID(), keyScope: .audit)
            try await log.append([ProposedEvent(type: "empty", data: [])], to: StreamID())
            // Enough events in one more stream to fold part of the log into the index, leaving a tail.
            let long = StreamID()
            for chunk in 0..<5 { try await log.append((0..<500).map { event("long \(chunk) \($0)") }, to: long) }
            try await log.append([event("in the tail")], to: StreamID())
            try await log.append([event("erased 2")], to: erased)
            try log.destroyKeys(of: [erased])
            let expected = try log.readAll(skippingErased: true)
            let erasedPositions = try log.positions(of: erased)
            let streams = Set(expected.map(\.stream)).union([erased])
            let metadata = try Dictionary(uniqueKeysWithValues: streams.map { ($0.description, try #require(try log.streamMetadata($0))) })
            // Read the store as it is on disk now (a tail included): the log stays open until the end.

            let run = try runPython([Self.reader, store.storePath, store.keyPath])
            #expect(run.status == 0, "\(run.stderr)")

            let lines = try String(decoding: run.stdout, as: UTF8.self).split(separator: "\n").map { line in
                try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            }
            let eventCount = expected.count + erasedPositions.count
            #expect(lines.count == eventCount + metadata.count)
            for json in lines.dropFirst(eventCount) {
                let name = try #require(json["stream"] as? String)
                let stream = try #require(metadata[name])
                #expect(json["version"] as? Int == Int(stream.version))
                #expect(json["key_id"] as? Int == Int(stream.keyID))
                #expect(json["created_at_ms"] as? Int == Int(stream.createdAtMilliseconds))
                #expect(json["first_position"] as? Int == Int(stream.firstPosition))
                #expect(json["last_position"] as? Int == Int(stream.lastPosition))
            }
            let eventLines = lines.prefix(eventCount)
            let erasedLines = eventLines.filter { $0["erased"] as? Bool == true }
            #expect(erasedLines.compactMap { $0["position"] as? Int } == erasedPositions.map { Int($0) })
            #expect(erasedLines.allSatisfy { $0["stream"] as? String == erased.description && $0["type"] == nil })
            let decodedLines = eventLines.filter { $0["erased"] == nil }
            #expect(decodedLines.count == expected.count)
            for (json, event) in zip(decodedLines, expected) {
                #expect(json["position"] as? Int == Int(event.position))
                #expect(json["stream"] as? String == event.stream.description)
                #expect(json["number"] as? Int == Int(event.streamNumber))
                #expect((json["event_id"] as? String)?.uppercased() == event.id.uuidString)
                #expect(json["recorded_at_ms"] as? Int == Int(event.recordedAtMilliseconds))
                #expect(json["type"] as? String == event.type)
                #expect(json["data_hex"] as? String == event.data.map { String(format: "%02x", $0) }.joined())
            }
        }
    }

    /// FORMAT.md §2 and §3: after a rotation the subject-hashing and signing keys come from
    /// meta/stable-keys, so a reader following the text finds the verifier key and subject hashes the
    /// store gives, before and after.
    @Test(.enabled(if: pythonReaderEnabled, "needs python3 with pynacl, zstandard and lmdb (psycopg on PostgreSQL)"))
    func anIndependentReaderFindsTheVerifierKeyAndSubjectHashesBeforeAndAfterARotation() async throws {
        try requirePython(Self.modules)
        try await withTemporaryStore { store in
            let (verifierKey, subjectHash) = try {
                let log = try store.create()
                return (log.checkpointVerifierKey, log.identifierHash("alice@example.com").map { String(format: "%02x", $0) }.joined())
            }()
            func readKeys(_ keyPath: String) throws -> [String: String] {
                let run = try runPython([Self.reader, "--keys", store.storePath, keyPath, "alice@example.com"])
                #expect(run.status == 0, "\(run.stderr)")
                return try #require(try JSONSerialization.jsonObject(with: run.stdout) as? [String: String])
            }
            #expect(try readKeys(store.keyPath) == ["verifier_key": verifierKey, "subject_hash": subjectHash])

            let newKey = store.root.appendingPathComponent("rotated.key").path
            try MasterKeyFile.create(at: newKey)
            try EventLog.rotateMasterKey(at: store.storePath, from: store.key, to: .keyFile(newKey), waitingUpTo: TestBackend.compactionWait,
                options: .testing)
            let rotated = try EventLog.open(at: store.storePath, key: .keyFile(newKey), options: .testing)
            #expect(rotated.checkpointVerifierKey == verifierKey, "the store keeps its verifier key")
            #expect(try readKeys(newKey) == ["verifier_key": verifierKey, "subject_hash": subjectHash])
        }
    }
}
