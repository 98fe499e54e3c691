import Audio
import EventLog
import Foundation
import HexCoding
import Projections
import SessionModel
import SessionStoreTesting

/// Sessions as a folder an app's test target bundles (`sessionstore pack`, docs/APP-TESTING.md): for each, its
/// recording as 16-bit PCM WAV, bit-identical to `sessionstore audio`'s, and an expectation (``FixtureExpectation``);
/// and a manifest with every file's SHA-256. The same sessions give the same bytes.
public enum FixturePack {
    /// Writes `sessions` (in the order of their ids) from `log` into `directory`, which must not exist or be empty.
    /// The pack is written beside it and renamed into place: a pack that fails leaves nothing.
    /// - Parameter maxWordEdits: the tolerance of every expectation; nil for a tenth of each transcript's words.
    /// - Throws: ``ExportError``: a session without exactly one recording, or whose recording misses a chunk; an
    ///   unusable `directory`.
    public static func write(_ sessions: [UUID], from log: EventLog, to directory: URL, maxWordEdits: Int? = nil,
                             generator: String = SessionStoreRelease.generator) throws -> FixturePackManifest {
        let manager = FileManager.default
        if let contents = try? manager.contentsOfDirectory(atPath: directory.path), !contents.isEmpty {
            throw ExportError(.cannotWrite, "\(directory.path) exists and is not empty; a pack goes into a new or empty directory")
        }
        var isDirectory: ObjCBool = false
        if manager.fileExists(atPath: directory.path, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw ExportError(.cannotWrite, "\(directory.path) is a file, not a directory")
        }
        let staging = directory.deletingLastPathComponent().appendingPathComponent(".\(directory.lastPathComponent).partial-\(UUID().uuidString)")
        do {
            try manager.createDirectory(at: staging, withIntermediateDirectories: true)
        } catch {
            throw ExportError(.cannotWrite, "cannot create \(staging.path): \(error.localizedDescription)")
        }
        defer { try? manager.removeItem(at: staging) }
        let runner = ProjectionRunner(log: log)
        try runner.catchUp()
        var entries: [FixturePackManifest.Session] = [], files: [FixturePackManifest.File] = []
        for session in sessions.sorted(by: { $0.uuidString < $1.uuidString }) {
            let name = Hex.uuid(session)
            let audio = try RecordingExport.file(of: session, recording: nil, as: .wav, from: log)
            let view = try runner.transcript(of: session) ?? TranscriptView(session: session)
            let summary = try runner.session(session)
            let recording = FixtureExpectation.Recording(
                file: "\(name).wav", id: audio.recording, sampleRate: Int(audio.format.sampleRate), channels: Int(audio.format.channels),
                frames: audio.frames, durationMilliseconds: audio.frames * 1000 / max(Int(audio.format.sampleRate), 1), chunkFrames: audio.chunkFrames)
            let segments = view.segments.map {
                FixtureExpectation.Segment(id: $0.id, text: $0.currentText, startMilliseconds: Int($0.startMilliseconds),
                                           endMilliseconds: Int($0.endMilliseconds), speaker: $0.speaker)
            }
            let expectation = FixtureExpectation(session: session, recording: recording, segments: segments, maxWordEdits: maxWordEdits,
                                                 labels: summary?.labels ?? [:])
            files.append(try put(Data(audio.bytes), named: recording.file, in: staging))
            files.append(try put(try expectation.encoded(), named: "\(name).expectation.json", in: staging))
            entries.append(.init(session: session, recording: recording.file, expectation: "\(name).expectation.json"))
        }
        let manifest = FixturePackManifest(generator: generator, sessions: entries, files: files)
        _ = try put(try manifest.encoded(), named: "manifest.json", in: staging)
        try? manager.removeItem(at: directory)  // empty, as checked
        do {
            try manager.moveItem(at: staging, to: directory)
        } catch {
            throw ExportError(.cannotWrite, "cannot move the pack into \(directory.path): \(error.localizedDescription)")
        }
        return manifest
    }

    private static func put(_ data: Data, named name: String, in directory: URL) throws -> FixturePackManifest.File {
        do {
            try data.write(to: directory.appendingPathComponent(name))
        } catch {
            throw ExportError(.cannotWrite, "cannot write \(name) into \(directory.path): \(error.localizedDescription)")
        }
        return .init(path: name, bytes: data.count, sha256: Hex.string(SHA256.hash(Array(data))))
    }
}
