/// A text file compiled into the binary by SwiftPM's `embedInCode` (its bytes), as a string without the line
/// end that closes the file.
package func embeddedText(_ bytes: [UInt8]) -> String {
    String(decoding: bytes.last == UInt8(ascii: "\n") ? bytes.dropLast() : bytes[...], as: UTF8.self)
}
