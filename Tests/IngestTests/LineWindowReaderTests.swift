import Foundation
import Testing
import TestSupport
@testable import Ingest

@Suite struct LineWindowReaderTests {
    static let text = "first\r\n\n  \t\nsecond line, longer than a block\nthird\r\nlast without a line end"

    func lines(of source: IngestSource, blockSize: Int = 4 << 20, maxLines: Int = 4096) throws -> [[String]] {
        var reader = try LineWindowReader(source, blockSize: blockSize)
        var windows: [[String]] = []
        while let window = try reader.next(maxLines: maxLines) {
            windows.append(window.map { "\($0.number):" + String(decoding: $0.bytes, as: UTF8.self) })
        }
        #expect(reader.bytesRead == Self.text.utf8.count)
        return windows
    }

    @Test func linesKeepTheirNumbersLoseTheirLineEndsAndBlankLinesAreLeftOut() async throws {
        let expected = ["1:first", "4:second line, longer than a block", "5:third", "6:last without a line end"]
        #expect(try lines(of: .bytes(Data(Self.text.utf8))).flatMap { $0 } == expected)
        try await withTemporaryStore { scratch in
            let file = scratch.root.appendingPathComponent("lines.ndjson")
            try Data(Self.text.utf8).write(to: file)
            // Small blocks split every line, and the CRLF, across reads somewhere.
            for blockSize in [1, 2, 3, 7, 64] {
                #expect(try lines(of: .file(file), blockSize: blockSize).flatMap { $0 } == expected, "blocks of \(blockSize)")
            }
            #expect(try lines(of: .file(file), blockSize: 5, maxLines: 2) == [["1:first", "4:second line, longer than a block"],
                                                                              ["5:third", "6:last without a line end"]])
        }
    }

    @Test func aMissingFileIsNamedInTheError() throws {
        let error = #expect(throws: IngestSourceError.self) { _ = try LineWindowReader(.file(URL(fileURLWithPath: "/nonexistent/x.ndjson"))) }
        #expect(error?.description == "cannot read /nonexistent/x.ndjson: No such file or directory")
    }
}
