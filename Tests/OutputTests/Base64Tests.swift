import Foundation
@testable import Output
import Testing

@Suite struct Base64Tests {
    @Test(arguments: [0, 1, 2, 3, 4, 5, 6, 3200, 3201, 3202])
    func bytesEncodeAsFoundationEncodesThemAndDecodeBack(_ count: Int) throws {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
        var out: [UInt8] = [UInt8(ascii: "x")]
        Base64.append(bytes, to: &out)
        #expect(out.first == UInt8(ascii: "x"), "appended, not replaced")
        let text = String(decoding: out.dropFirst(), as: UTF8.self)
        #expect(text == Data(bytes).base64EncodedString())
        #expect(try #require(Data(base64Encoded: text)) == Data(bytes))
    }

    @Test func everyByteValueRoundTrips() throws {
        let bytes = (0...255).map(UInt8.init) + (0...255).reversed().map(UInt8.init)
        #expect(try #require(Data(base64Encoded: Base64.string(bytes))) == Data(bytes))
    }
}
