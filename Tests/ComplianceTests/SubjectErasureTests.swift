import Compliance
@testable import EventLog
import Foundation
import Ingest
import Projections
import SessionLog
import SessionModel
import Testing
import TestSupport

@Suite struct SubjectErasureTests {
    static let erasedWords = ["zebracorn", "quillfeather", "marmalade"]

    /// Three sessions of `erase-me` and two of `keep-me`, each consented, with two commits.
    static func ingestSessions(into log: EventLog) async throws -> (erased: [UUID], kept: [UUID]) {
        let erased = (0..<3).map { _ in UUID() }
        let kept = (0..<2).map { _ in UUID() }
        var lines: [String] = []
        for (session, subject) in erased.map({ ($0, "erase-me") }) + kept.map({ ($0, "keep-me") }) {
            let id = session.uuidString.lowercased()
            let words = subject == "erase-me" ? erasedWords : ["ordinary", "words", "here"]
            lines.append(#"{"type":"session.started","session":"\#(id)","at":"2026-11-21T10:00:00.000Z","subject":"\#(subject)","locale":"en"}"#)
            lines.append(#"{"type":"consent.granted","session":"\#(id)","at":"2026-11-21T10:00:00.100Z","subject":"\#(subject)","consent_type":"transcription","method":"in_app_prompt"}"#)
            lines.append(#"{"type":"transcript.partial","session":"\#(id)","at":"2026-11-21T10:00:01.000Z","segment":"s1","revision":1,"text":"\#(words[0])","start_ms":0,"end_ms":500}"#)
            lines.append(#"{"type":"transcript.committed","session":"\#(id)","at":"2026-11-21T10:00:02.000Z","segment":"s1","text":"\#(words.joined(separator: " "))","start_ms":0,"end_ms":900}"#)
            lines.append(#"{"type":"session.ended","session":"\#(id)","at":"2026-11-21T10:00:03.000Z"}"#)
        }
        _ = try await SessionIngest(log: log).ingest(Data(lines.joined(separator: "\n").utf8))
        try ProjectionRunner(log: log).catchUp()
        return (erased, kept)
    }

    /// The stored bytes of the `keys` entries of `sessions` and of every view row that belongs to them or to `subject`.
    static func storedBytes(of sessions: [UUID], subject: SubjectHash, in log: EventLog) throws -> [[UInt8]] {
        try log.reading { txn in
            var found: [[UInt8]] = []
            for session in sessions {
                let keyID = try StreamIndex.keyID(of: SessionStreams.session(session), in: txn)!
                found.append(Array(try txn.get(StoreLayout.keys, [UInt8](bigEndian: keyID))!))
            }
            try txn.withCursor(StoreLayout.views) { cursor in
                var entry = try cursor.first()
                while let (key, value) = entry {
                    let key = Array(key)
                    if sessions.contains(where: { key.contains(subsequence: $0.wireBytes) }) || key.contains(subsequence: subject.bytes) {
                        found.append(Array(value))
                    }
                    entry = try cursor.next()
                }
            }
            return found
        }
    }

    /// Every 72-byte window of `file` that opens as a wrapped data key `ids` under the store's key-wrapping sub-key.
    static func unwrappableKeys(in file: [UInt8], ids: [UInt32], storeID: UUID, master: String) throws -> Int {
        let hierarchy = KeyHierarchy(master: try MasterKeyFile.read(at: master))
        let boxBytes = AEAD.nonceBytes + AEAD.keyBytes + AEAD.tagBytes
        var opened = 0
        file.withUnsafeBytes { bytes in
            for id in ids {
                let additionalData = Array("key".utf8) + storeID.wireBytes + [UInt8](bigEndian: id)
                for offset in 0...(bytes.count - boxBytes) {
                    let window = UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + boxBytes)])
                    if AEAD.openBox(window, additionalData: additionalData, key: hierarchy.keyWrapping) != nil { opened += 1 }
                }
            }
        }
        return opened
    }

    @Test(.enabled(if: TestBackend.canReadStoreFiles, "reads the server's data directory (SESSIONSTORE_TEST_POSTGRES_DATA)"))
    func erasingASubjectLeavesNoCopyOfTheirKeysOrViewRowsInTheStoreFile() async throws {
        try await withTemporaryStore { store in
            let (erased, kept, keyIDs, before, fileBefore, subject, anchor, storeID) = try await {
                let log = try store.create()
                let (erased, kept) = try await Self.ingestSessions(into: log)
                let subject = SubjectHash(bytes: log.identifierHash("erase-me"))!
                let keyIDs = try erased.map { try log.streamMetadata(SessionStreams.session($0))!.keyID }
                let before = try Self.storedBytes(of: erased, subject: subject, in: log)
                let fileBefore = try store.storedFileBytes()
                let anchor = try log.signedCheckpoint()
                try log.close()
                return (erased, kept, keyIDs, before, fileBefore, subject, anchor, log.storeID)
            }()
            // One call erases and compacts; the store is closed again when it returns.
            var stages: [String] = []
            let done = try await SubjectErasure.erase(userID: "erase-me", reference: "T-1", at: 1_000,
                                                      in: StoreReference(location: store.storePath, key: store.key, options: .testing),
                                                      waitingUpTo: TestBackend.compactionWait) { stages.append($0) }
            #expect(Set(done.erasure.erased) == Set(erased) && done.erasure.alreadyErased.isEmpty && done.erasure.eventPosition != nil)
            #expect(done.erasure.subject == subject)
            #expect(done.compaction.bytesAfter <= done.compaction.bytesBefore)
            #expect(stages.last == "compacting the store file")

            let file = try store.storedFileBytes()
            #expect(before.count >= 3 + 3 + 3)  // keys, session rows, transcript rows (and the consent-trail rows)
            for bytes in before { #expect(file.firstRange(of: bytes) == nil, "a byte string of the subject's keys or view rows survived") }
            #expect(try Self.unwrappableKeys(in: file, ids: keyIDs, storeID: storeID, master: store.keyPath) == 0)
            // The same scan finds every one of those keys in the file as it was before the erasure.
            #expect(try Self.unwrappableKeys(in: fileBefore, ids: keyIDs, storeID: storeID, master: store.keyPath) >= keyIDs.count)
            for bytes in before { #expect(fileBefore.firstRange(of: bytes) != nil) }

            let log = try store.open()
            for session in erased {
                #expect(throws: EventLogError.self) { try log.readStream(SessionStreams.session(session)) }
                #expect(try log.isErased(SessionStreams.session(session)) == true)
            }
            for session in kept { #expect(try log.readStream(SessionStreams.session(session)).count == 5) }
            let runner = ProjectionRunner(log: log)
            try runner.catchUp()
            let summaries = Dictionary(uniqueKeysWithValues: try runner.sessions().map { ($0.session, $0) })
            #expect(erased.allSatisfy { summaries[$0] == .shredded($0, status: .erased, subject: subject) })
            #expect(kept.allSatisfy { summaries[$0]?.status == .ended && summaries[$0]?.segments == 1 })
            #expect(try erased.allSatisfy { try runner.transcript(of: $0) == nil })
            #expect(try runner.consentTrail(of: subject).entries.count == 3)
            let verification = try log.verify(anchor: anchor)
            #expect(verification.isIntact && verification.erasedRecords == 15)
            #expect(verification.anchorConsistent == true, "the checkpoint taken before the erasure still holds")

            let incremental = try runner.sessions().sorted { $0.session.uuidString < $1.session.uuidString }
            try runner.rebuild()
            #expect(try runner.sessions().sorted { $0.session.uuidString < $1.session.uuidString } == incremental)
        }
    }
}

extension Array where Element == UInt8 {
    func contains(subsequence: [UInt8]) -> Bool { firstRange(of: subsequence) != nil }
    func ends(with suffix: [UInt8]) -> Bool { count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix }
}
