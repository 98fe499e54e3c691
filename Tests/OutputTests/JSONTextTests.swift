import Foundation
@testable import Output
import Testing
import TestSupport

@Suite struct JSONTextTests {
    @Test(arguments: [
        "", "plain", "quote \" backslash \\ slash /", "line\nfeed\rreturn\ttab", "\u{0}\u{1}\u{1F}\u{7F}",
        "emoji 👩‍⚕️ and RTL שלום مرحبا", "combining e\u{301}", "\u{2028}\u{2029}", "zero width \u{FEFF} no-break",
    ])
    func stringsRoundTripThroughFoundationsParser(_ text: String) throws {
        var out: [UInt8] = []
        JSONText.appendString(text, to: &out)
        let parsed = try JSONSerialization.jsonObject(with: Data(out), options: .fragmentsAllowed) as? String
        #expect(parsed == text)
        #expect(!out.contains { $0 < 0x20 }, "control characters are escaped")
    }

    @Test(arguments: [Int64.min, -1, 0, 7, 10, 99, 100, 1_764_000_000_250, Int64.max])
    func signedIntegersPrintAsSwiftDoes(_ value: Int64) {
        var out: [UInt8] = []
        JSONText.appendInteger(value, to: &out)
        #expect(String(decoding: out, as: UTF8.self) == String(value))
    }

    @Test(arguments: [UInt64(0), 9, 10, 1_000_000, UInt64.max])
    func unsignedIntegersPrintAsSwiftDoes(_ value: UInt64) {
        var out: [UInt8] = []
        JSONText.appendInteger(value, to: &out)
        #expect(String(decoding: out, as: UTF8.self) == String(value))
    }

    @Test func doublesThatJSONCannotHoldAreNull() {
        for value in [Double.nan, .infinity, -.infinity] {
            var out: [UInt8] = []
            JSONText.appendDouble(value, to: &out)
            #expect(out == Array("null".utf8))
        }
        var out: [UInt8] = []
        JSONText.appendDouble(0.1, to: &out)
        #expect(out == Array("0.1".utf8))
    }
}

@Suite struct OutputSinkTests {
    @Test func aFileAppearsOnlyWhenTheSinkClosesAndAnAbandonedSinkLeavesNothing() throws {
        let directory = Scratch.url("sink-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("out.txt").path
        try Data("before\n".utf8).write(to: URL(fileURLWithPath: path))
        do {
            let abandoned = try OutputSink.file(path)
            abandoned.write(String(repeating: "x", count: 3 * OutputSink.bufferCapacity))
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "before\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["out.txt"])
        let sink = try OutputSink.file(path)
        sink.write("after\n")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "before\n")
        try sink.close()
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "after\n")
    }

    @Test func aFileThatCannotBeCreatedIsAnErrorNamingIt() {
        #expect {
            _ = try OutputSink.file("/nonexistent-directory/out.txt")
        } throws: { error in
            (error as? OutputError)?.code == .cannotCreate && "\(error)".contains("/nonexistent-directory/out.txt")
        }
    }
}
