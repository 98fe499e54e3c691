import EventLog
import Foundation
import TestSupport
import Testing

@Suite struct ViewTests {
    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func rowsAndTheCheckpointAreWrittenTogetherAndReadBackInKeyOrder() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            try log.updateView("sessions") { view throws in
                try view.put(bytes("b"), bytes("second"))
                try view.put(bytes("a"), bytes("first"))
                try view.setCheckpoint(42)
            }
            try log.updateView("other") { view in try view.put(bytes("a"), bytes("elsewhere")) }
            try log.readView("sessions") { view throws in
                #expect(try view.checkpoint() == 42)
                #expect(try view.row(bytes("a")) == bytes("first"))
                #expect(try view.row(bytes("zz")) == nil)
                var rows: [String] = []
                try view.forEachRow { key, value in rows.append("\(String(decoding: key, as: UTF8.self))=\(String(decoding: value, as: UTF8.self))") }
                #expect(rows == ["a=first", "b=second"])
            }
            #expect(try log.readView("other") { try $0.row(bytes("a")) } == bytes("elsewhere"))
            #expect(try log.readView("never") { try $0.checkpoint() } == nil)
        }
    }

    @Test func anUpdateThatThrowsChangesNeitherRowsNorCheckpoint() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            try log.updateView("v") { view throws in
                try view.put(bytes("k"), bytes("before"))
                try view.setCheckpoint(1)
            }
            struct Interrupted: Error {}
            #expect(throws: Interrupted.self) {
                try log.updateView("v") { view throws in
                    try view.put(bytes("k"), bytes("after"))
                    try view.setCheckpoint(2)
                    throw Interrupted()
                }
            }
            try log.readView("v") { view throws in
                #expect(try view.row(bytes("k")) == bytes("before"))
                #expect(try view.checkpoint() == 1)
            }
        }
    }

    @Test func droppingAViewRemovesItsRowsAndCheckpointOnly() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            try log.updateView("a") { view throws in
                try view.put(bytes("1"), bytes("x"))
                try view.put(bytes("2"), bytes("y"))
                try view.setCheckpoint(9)
            }
            try log.updateView("ab") { view in try view.put(bytes("1"), bytes("kept")) }
            try log.dropView("a")
            try log.readView("a") { view throws in
                var count = 0
                try view.forEachRow { _, _ in count += 1 }
                #expect(count == 0)
                #expect(try view.checkpoint() == nil)
            }
            #expect(try log.readView("ab") { try $0.row(bytes("1")) } == bytes("kept"))
        }
    }

    @Test func viewRowsAreEncryptedOnDisk() async throws {
        try await withTemporaryStore { store in
            let marker = "VIEWROWMARKER"
            do {
                let log = try store.create()
                try log.updateView("sessions") { try $0.put(bytes("k"), bytes("text with \(marker) inside")) }
                try log.close()
            }
            for (name, contents) in try store.storedContents() {
                #expect(contents.range(of: Data(marker.utf8)) == nil, "found in \(name)")
            }
            #expect(try store.open().readView("sessions") { try $0.row(bytes("k")) } == bytes("text with \(marker) inside"))
        }
    }

    @Test func identifierHashesAreStablePerStoreAndDifferAcrossStores() async throws {
        try await withTemporaryStore { store in
            let first: [UInt8]
            do {
                let log = try store.create()
                first = log.identifierHash("user-1234")
                #expect(first.count == 32)
                #expect(log.identifierHash("user-1234") == first)
                #expect(log.identifierHash("user-1235") != first)
                try log.close()
            }
            #expect(try store.open().identifierHash("user-1234") == first)
            let otherKey = store.root.appendingPathComponent("other.key").path
            try MasterKeyFile.create(at: otherKey)
            let other = try EventLog.create(at: store.root.appendingPathComponent("other").path, key: .keyFile(otherKey), options: .testing)
            #expect(other.identifierHash("user-1234") != first)
        }
    }
}
