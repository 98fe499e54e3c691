import Audio
import EventLog
import Failures
import Foundation
import HexCoding
import Output
import Projections
import SessionLog
import SessionModel
import ZIPFoundation

/// A person's data as one ZIP: the answer to a data-access or portability request (GDPR Art. 15, 20).
///
/// The archive holds `manifest.json` (the subject hash, the time the data is as of, and every other
/// file with its size and SHA-256), `consent.json` (the subject's whole consent trail),
/// `sessions/SESSION.json` and `sessions/SESSION.vtt` for each session, and
/// `recordings/SESSION-RECORDING.flac` with each recording's samples, bit-identical. Entries are in
/// name order and dated with the as-of time, so the same store gives the same bytes.
public struct SubjectBundle {
    /// The exporter whose sessions and formats the bundle uses.
    public let exporter: Exporter
    /// The person whose data it is.
    public let subject: SubjectHash

    /// A bundle of `subject`'s data from `exporter`'s store.
    public init(exporter: Exporter, subject: SubjectHash) {
        self.exporter = exporter
        self.subject = subject
    }

    /// The subject's sessions, in export order.
    public var sessions: [UUID] { exporter.sessions(of: subject) }

    /// Writes the archive to `path` (replaced only when it is complete).
    /// - Parameter asOf: The time written as the export's; by default the latest event in the bundle
    ///   (client clock), so that exporting again, which adds only an audit event, gives the same bytes.
    /// - Returns: The files the archive holds, as the manifest lists them.
    @discardableResult
    public func write(to path: String, asOf: Int64? = nil) throws -> [ManifestFile] {
        let consent = try exporter.consentTrail(of: subject)
        let sessions = self.sessions
        guard !sessions.isEmpty || !consent.isEmpty else {
            throw ExportError(.unknownSubject, "the store has no sessions or consent events for that user id")
        }
        let staging = FileManager.default.temporaryDirectory.appendingPathComponent("sessionstore-bundle-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: staging) }
        var asOfTime = asOf ?? consent.map(\.occurredAt).max() ?? 0

        try write(staging, "consent.json") { sink in try sink.writeObject(ConsentDocument(subject: subject, entries: consent)) }
        for session in sessions {
            let name = Hex.uuid(session)
            try write(staging, "sessions/\(name).json") { try exporter.export([session], as: .json, to: $0) }
            try write(staging, "sessions/\(name).vtt") { try exporter.export([session], as: .vtt, to: $0) }
            if exporter.summary(of: session)?.isShredded == true { continue }  // erased or purged: no audio to give
            let events = try exporter.events(of: session)
            if asOf == nil, let last = events.last?.event.occurredAt { asOfTime = max(asOfTime, last) }
            for recording in RecordingExport.recordings(in: events) {
                let (samples, format) = try RecordingExport.samples(of: recording, in: events, session: name)
                let file = staging.appendingPathComponent("recordings/\(name)-\(Self.fileName(recording.recording)).flac")
                try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try AudioFile.write(samples, format: format, to: file.path)
            }
        }
        let files = try Self.files(in: staging)
        try write(staging, "manifest.json") { sink in
            try sink.writeObject(Manifest(subject: subject, asOf: asOfTime, files: files))
        }
        try Self.archive(staging, names: ["manifest.json"] + files.map(\.path), to: path, dated: asOfTime)
        return files
    }

    private func write(_ staging: URL, _ name: String, _ body: (OutputSink) throws -> Void) throws {
        let file = staging.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        let sink = try OutputSink.file(file.path)
        try body(sink)
        try sink.close()
    }

    /// A recording id as a file name: letters, digits, `.`, `_` and `-` kept, anything else `_`.
    static func fileName(_ id: String) -> String {
        String(id.unicodeScalars.map { scalar -> Character in
            CharacterSet.alphanumerics.contains(scalar) && scalar.isASCII || "._-".unicodeScalars.contains(scalar)
                ? Character(scalar) : "_"
        })
    }

    /// Every file under `staging`, by path, with its size and SHA-256.
    private static func files(in staging: URL) throws -> [ManifestFile] {
        let base = staging.standardizedFileURL.path + "/"
        let enumerator = FileManager.default.enumerator(at: staging, includingPropertiesForKeys: [.isRegularFileKey])
        var files: [ManifestFile] = []
        while let url = enumerator?.nextObject() as? URL {
            guard try url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true else { continue }
            let data = try Data(contentsOf: url)
            files.append(ManifestFile(path: String(url.standardizedFileURL.path.dropFirst(base.count)), bytes: data.count,
                                      sha256: Hex.string(SHA256.hash(Array(data)))))
        }
        return files.sorted { $0.path < $1.path }
    }

    /// The ZIP of `names` (deflated, dated `time`), built in `staging` and then written to `path` through an
    /// ``OutputSink`` (a regular file replaced when complete; a FIFO or device written in place).
    private static func archive(_ staging: URL, names: [String], to path: String, dated time: Int64) throws {
        let built = staging.appendingPathComponent(".bundle-\(UUID().uuidString).zip")
        let archive: Archive
        do { archive = try Archive(url: built, accessMode: .create) } catch {
            throw ExportError(.cannotWrite, "cannot create \(path): \(fileErrorReason(error))", underlying: error)
        }
        let date = Date(timeIntervalSince1970: Double(time / 1000))
        for name in names {
            let data = try Data(contentsOf: staging.appendingPathComponent(name))
            try archive.addEntry(with: name, type: .file, uncompressedSize: Int64(data.count), modificationDate: date,
                                 permissions: 0o644, compressionMethod: .deflate) { position, size in
                data.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        let sink = try OutputSink.file(path)
        let input = try FileHandle(forReadingFrom: built)
        defer { try? input.close() }
        while let chunk = try input.read(upToCount: OutputSink.bufferCapacity), !chunk.isEmpty {
            try sink.write(bytes: chunk)
        }
        try sink.close()
    }
}

/// A file in a bundle's manifest.
public struct ManifestFile: Hashable, Sendable, OutputRow {
    /// The manifest's fields of a file, in order.
    public static let columns = ["path", "bytes", "sha256"]

    /// The file's path inside the archive.
    public var path: String
    /// Its size.
    public var bytes: Int
    /// Its SHA-256, 64 lowercase hex digits.
    public var sha256: String

    /// Writes the file's entry of the manifest.
    public func write(to fields: inout Fields) {
        fields.field("path", path)
        fields.field("bytes", bytes)
        fields.field("sha256", sha256)
    }
}

/// `manifest.json`.
struct Manifest: OutputRow {
    static let columns = ["schema_version", "generator", "subject_hash", "as_of", "files"]

    var subject: SubjectHash
    var asOf: Int64
    var files: [ManifestFile]

    func write(to fields: inout Fields) {
        fields.field("schema_version", 1)
        fields.field("generator", SessionStoreRelease.generator)
        fields.field("subject_hash", subject.description)
        fields.field("as_of", time: asOf)
        fields.field("files", rows: files)
    }
}

/// `consent.json`: the subject's whole consent trail, in log order.
struct ConsentDocument: OutputRow {
    static let columns = ["subject_hash", "consent"]

    var subject: SubjectHash
    var entries: [ConsentTrail.Entry]

    func write(to fields: inout Fields) {
        fields.field("subject_hash", subject.description)
        fields.field("consent", rows: entries.map(ConsentEntryRow.init))
    }
}

/// A grant or revocation with its session and both clocks.
struct ConsentEntryRow: OutputRow {
    static let columns = ["session", "consent_type", "status", "method", "policy_version", "at", "recorded_at"]

    var entry: ConsentTrail.Entry

    func write(to fields: inout Fields) {
        fields.field("session", id: entry.session)
        ExportConsentRow(entry: entry).write(to: &fields)
        fields.field("recorded_at", time: entry.recordedAt)
    }
}
