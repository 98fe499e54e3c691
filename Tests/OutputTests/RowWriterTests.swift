import Foundation
@testable import Output
import Testing
import TestSupport

/// A row with every kind of field, for the writers' tests.
struct SampleRow: OutputRow {
    static let columns = ["id", "text", "count", "ratio", "flag", "at", "tags", "words"]

    var id: UUID? = UUID(uuidString: "3F2C8A1E-5B7D-4C9E-8F10-2A3B4C5D6E7F")
    var text: String? = "plain"
    var count: Int64? = -42
    var ratio: Double? = 0.25
    var flag: Bool? = true
    var at: Int64? = 1_764_000_000_250
    var tags: [String]? = ["a", "b"]
    var words: [SampleWord]? = [SampleWord(word: "hi", startMilliseconds: 0)]

    func write(to fields: inout Fields) {
        fields.field("id", id: id)
        fields.field("text", text)
        fields.field("count", count)
        fields.field("ratio", ratio)
        fields.field("flag", flag)
        fields.field("at", time: at)
        fields.field("tags", strings: tags)
        fields.field("words", rows: words)
    }
}

struct SampleWord: OutputRow {
    static let columns = ["word", "start_ms"]
    var word: String
    var startMilliseconds: UInt64

    func write(to fields: inout Fields) {
        fields.field("word", word)
        fields.field("start_ms", startMilliseconds)
    }
}

/// Everything a sink wrote, read back from a file.
func written(_ body: (OutputSink) throws -> Void) throws -> String {
    let path = Scratch.url("out-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    let sink = try OutputSink.file(path)
    try body(sink)
    try sink.close()
    return try String(contentsOfFile: path, encoding: .utf8)
}

func rows(_ rows: [SampleRow], as format: OutputFormat, header: Bool = true) throws -> String {
    try written { sink in
        var writer = RowWriter<SampleRow>(format: format, sink: sink, header: header)
        for row in rows { try writer.write(row) }
        try writer.finish()
    }
}

@Suite struct RowWriterTests {
    @Test func ndjsonWritesEveryFieldInOrderWithAbsentValuesAsNull() throws {
        var empty = SampleRow()
        (empty.id, empty.text, empty.count, empty.ratio, empty.flag, empty.at, empty.tags, empty.words) =
            (nil, nil, nil, nil, nil, nil, nil, nil)
        let out = try rows([SampleRow(), empty], as: .ndjson)
        #expect(out == """
            {"id":"3f2c8a1e-5b7d-4c9e-8f10-2a3b4c5d6e7f","text":"plain","count":-42,"ratio":0.25,"flag":true,\
            "at":"2025-11-24T16:00:00.250Z","tags":["a","b"],"words":[{"word":"hi","start_ms":0}]}
            {"id":null,"text":null,"count":null,"ratio":null,"flag":null,"at":null,"tags":null,"words":null}

            """)
    }

    @Test func jsonIsOneArrayWithARowPerLineAndAnEmptyListIsAnEmptyArray() throws {
        #expect(try rows([], as: .json) == "[]\n")
        let out = try rows([SampleRow(), SampleRow()], as: .json)
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [[String: Any]])
        #expect(parsed.count == 2)
        #expect(out.split(separator: "\n").count == 4)
    }

    @Test func csvHasAHeaderQuotesWhatNeedsItAndLeavesAbsentCellsEmpty() throws {
        var hostile = SampleRow()
        hostile.text = "a, \"b\"\r\nc"
        hostile.ratio = nil
        hostile.tags = nil
        let out = try rows([hostile], as: .csv)
        #expect(out == "id,text,count,ratio,flag,at,tags,words\r\n"
            + "3f2c8a1e-5b7d-4c9e-8f10-2a3b4c5d6e7f,\"a, \"\"b\"\"\r\nc\",-42,,true,2025-11-24T16:00:00.250Z,,"
            + "\"[{\"\"word\"\":\"\"hi\"\",\"\"start_ms\"\":0}]\"\r\n")
    }

    @Test func aCSVRowWrittenOutOfColumnOrderGivesTheSameLineAsOneInOrder() throws {
        struct Shuffled: OutputRow {
            static let columns = SampleRow.columns
            var row: SampleRow
            func write(to fields: inout Fields) {  // the same fields, last first
                fields.field("words", rows: row.words)
                fields.field("id", id: row.id)
                fields.field("text", row.text)
                fields.field("count", row.count)
                fields.field("ratio", row.ratio)
                fields.field("flag", row.flag)
                fields.field("at", time: row.at)
                fields.field("tags", strings: row.tags)
            }
        }
        var sparse = SampleRow()
        (sparse.text, sparse.ratio, sparse.words) = ("a, \"b\"", nil, nil)
        for row in [SampleRow(), sparse] {
            let shuffled = try written { sink in
                var writer = RowWriter<Shuffled>(format: .csv, sink: sink)
                try writer.write(Shuffled(row: row))
                try writer.finish()
            }
            #expect(shuffled == (try rows([row], as: .csv)))
        }
    }

    @Test func aTableAlignsColumnsWithoutTrailingSpaces() throws {
        var long = SampleRow()
        long.text = "a much longer text"
        long.tags = nil
        let out = try rows([SampleRow(), long], as: .table)
        let lines = out.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        try #require(lines.count == 4)
        #expect(lines[3].isEmpty)
        let column = try #require(lines[0].range(of: "count")).lowerBound.utf16Offset(in: lines[0])
        #expect(lines[1].dropFirst(column).hasPrefix("-42"))
        #expect(lines[2].dropFirst(column).hasPrefix("-42"))
        #expect(lines.allSatisfy { !$0.hasSuffix(" ") })
        #expect(try rows([SampleRow()], as: .table, header: false).split(separator: "\n").count == 1)
    }

    @Test func aTableSizesItsColumnsFromItsFirstRowsAndStillWritesLaterWiderOnes() throws {
        var rowsToWrite = Array(repeating: SampleRow(), count: TextTable.sampleRows + 10)
        rowsToWrite[rowsToWrite.count - 1].text = String(repeating: "w", count: 40)
        let out = try rows(rowsToWrite, as: .table)
        let lines = out.split(separator: "\n")
        #expect(lines.count == rowsToWrite.count + 1)
        #expect(lines.last?.contains(String(repeating: "w", count: 40) + "  -42") == true)
    }

    @Test func encodedRowsMatchRowsWrittenDirectly() throws {
        for format in [OutputFormat.json, .ndjson, .csv] {
            let encoder = RowEncoder<SampleRow>(format: format)
            let encoded = try written { sink in
                var writer = RowWriter<SampleRow>(format: format, sink: sink)
                for row in [SampleRow(), SampleRow()] { try writer.write(encoder.encode(row)) }
                try writer.finish()
            }
            #expect(encoded == (try rows([SampleRow(), SampleRow()], as: format)), "\(format)")
        }
    }

    @Test func rowsLongerThanTheBufferAreWrittenWhole() throws {
        var big = SampleRow()
        big.text = String(repeating: "é", count: OutputSink.bufferCapacity)
        let out = try rows(Array(repeating: big, count: 3), as: .ndjson)
        let lines = out.split(separator: "\n")
        #expect(lines.count == 3)
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object["text"] as? String == big.text)
        }
    }
}
