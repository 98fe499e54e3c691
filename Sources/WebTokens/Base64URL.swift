import Foundation

/// base64url without padding (RFC 7515 §2): what every part of a JWS and every JWK number is written in.
enum Base64URL {
    static func decode(_ text: some StringProtocol) -> [UInt8]? {
        guard !text.contains("=") else { return nil }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        switch standard.count % 4 {
        case 0: break
        case 2: standard += "=="
        case 3: standard += "="
        default: return nil
        }
        return Data(base64Encoded: standard).map { [UInt8]($0) }
    }
}
