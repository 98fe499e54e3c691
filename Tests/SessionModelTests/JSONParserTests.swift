import Foundation
import PropertyBased
@testable import SessionModel
import Testing
import TestSupport

@Suite struct JSONParserTests {
    private func parse(_ text: String) throws -> JSONValue {
        try JSONParser.parse(Data(text.utf8))
    }

    @Test func anObjectKeepsItsMembersInOrderWithTheirTypes() throws {
        let value = try parse(#" { "b" : [1, -2.5, 1e3, true, false, null], "a": {"x": "y"} } "#)
        guard case .object(let object) = value else { Issue.record("not an object"); return }
        #expect(object.members.map(\.key) == ["b", "a"])
        #expect(object["a"] == .object(JSONObject(members: [("x", .string("y"))])))
        guard case .array(let array)? = object["b"] else { Issue.record("not an array"); return }
        #expect(array == [.number(JSONNumber(double: 1, integer: 1)), .number(JSONNumber(double: -2.5, integer: nil)),
                          .number(JSONNumber(double: 1000, integer: 1000)), .bool(true), .bool(false), .null])
    }

    @Test func integersAreExactToTheEndsOfInt64AndLargerOnesAreNotIntegers() throws {
        #expect(try parse("9223372036854775807") == .number(JSONNumber(double: 9.223372036854775807e18, integer: .max)))
        #expect(try parse("-9223372036854775808") == .number(JSONNumber(double: -9.223372036854775808e18, integer: .min)))
        guard case .number(let big) = try parse("9223372036854775808") else { Issue.record("not a number"); return }
        #expect(big.integer == nil)
        #expect(big.double == 9.223372036854775808e18)
    }

    @Test func escapesAndSurrogatePairsDecodeToTheCharactersTheyName() throws {
        #expect(try parse(#""a\"b\\c\/d\b\f\n\r\t""#) == .string("a\"b\\c/d\u{8}\u{C}\n\r\t"))
        #expect(try parse(#""\u00e9\u05D0\ud83d\ude00""#) == .string("é\u{05D0}😀"))
        #expect(try parse("\"e\u{301} שלום 👩‍👩‍👧\"") == .string("e\u{301} שלום 👩‍👩‍👧"))
    }

    @Test(arguments: [
        "", "{", "{\"a\":1,}", "[1,]", "[1 2]", "01", "-", "1.", "1e", "+1", ".5", "tru", "nul", "\"abc",
        "\"a\u{1}b\"", #""\x""#, #""\ud800""#, #""\udc00""#, #""\ud800\u0041""#, #""\u12""#, "{\"a\":1}x",
        "{\"a\":1,\"a\":2}", "{a:1}", "[1]]", "1e999", "NaN", "Infinity",
    ])
    func textsThatAreNotJSONAreRefused(_ text: String) {
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(Data(text.utf8)) }
    }

    @Test func invalidUTF8InAStringIsRefused() {
        let bytes: [UInt8] = [0x22, 0x61, 0xC3, 0x28, 0x22]
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(Data(bytes)) }
    }

    @Test func nestingDeeperThanTheLimitIsRefusedWithoutExhaustingTheStack() throws {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(Data(deep.utf8)) }
        let allowed = String(repeating: "[", count: JSONParser.maximumDepth) + String(repeating: "]", count: JSONParser.maximumDepth)
        _ = try JSONParser.parse(Data(allowed.utf8))
    }

    @Test func theErrorNamesTheByteWhereTheTextWentWrong() {
        #expect(throws: JSONSyntaxError(offset: 9, reason: "expected ',' or '}' in an object")) {
            try JSONParser.parse(Data(#"{"a": 1  "b": 2}"#.utf8))
        }
    }

    @Test func anyStringFoundationEncodesParsesBackUnchanged() async {
        await propertyCheck(count: 200, input: hostileText) { text in
            let encoded = try JSONSerialization.data(withJSONObject: [text], options: [])
            #expect(try JSONParser.parse(encoded) == .array([.string(text)]))
        }
    }

    @Test func anyNumberFoundationEncodesParsesBackToTheSameDouble() async {
        await propertyCheck(count: 200, input: Gen<Double>.value(in: -1e300...1e300)) { number in
            let encoded = try JSONSerialization.data(withJSONObject: [number], options: [])
            guard case .array(let array) = try JSONParser.parse(encoded), case .number(let parsed)? = array.first else {
                Issue.record("not a number array: \(String(decoding: encoded, as: UTF8.self))")
                return
            }
            #expect(parsed.double == number)
        }
    }

    @Test func arbitraryBytesAndDamagedLinesAreAnsweredNeverCrashedOn() async {
        // Bytes drawn mostly from JSON's own alphabet, so that deep and odd structures come up.
        let alphabet = Array(#"{}[]",:0123456789.eE+-\u"truefalsenull ab"#.utf8) + [0x00, 0x1F, 0x80, 0xC3, 0xFF, 0xED, 0xA0]
        let byte = Gen<Int>.int(in: 0...(alphabet.count - 1)).map { alphabet[$0] }
        await propertyCheck(count: 2000, input: byte.array(of: 0...120)) { bytes in
            do throws(JSONSyntaxError) {
                _ = try JSONParser.parse(Data(bytes))
            } catch {
                #expect(error.offset >= 0 && error.offset <= bytes.count)
                #expect(!error.reason.isEmpty)
            }
        }
        let valid = Array(#"{"type":"transcript.partial","text":"h\u00e9llo \ud83d\ude00","n":[1,-2.5e3,true,null]}"#.utf8)
        await propertyCheck(count: 1000, input: Gen<Int>.int(in: 0...(valid.count - 1)), byte) { index, replacement in
            var damaged = valid
            damaged[index] = replacement
            _ = try? JSONParser.parse(Data(damaged))
            _ = try? JSONParser.parse(Data(damaged.prefix(index)))
        }
    }
}
