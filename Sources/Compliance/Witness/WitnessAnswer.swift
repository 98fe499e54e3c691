import Foundation

/// A witness's answer to `add-checkpoint`, as C2SP tlog-witness gives each case its HTTP status.
public struct WitnessAnswer: Hashable, Sendable {
    /// 200 cosigned, 400 malformed or smaller than the old size, 403 no trusted signature, 404 unknown
    /// origin, 409 the old size is not the one cosigned last (or the same size with another root), 422
    /// the consistency proof does not verify.
    public var status: Int
    /// `text/x.tlog.size` for a 409 giving the size cosigned last; `text/plain` otherwise.
    public var contentType: String
    /// The cosignature lines (200), the size cosigned last (409), or one sentence naming what is wrong.
    public var body: String

    static func cosigned(_ lines: String) -> WitnessAnswer { WitnessAnswer(status: 200, contentType: "text/plain; charset=utf-8", body: lines) }

    static func conflict(size: UInt64) -> WitnessAnswer { WitnessAnswer(status: 409, contentType: "text/x.tlog.size", body: "\(size)\n") }

    static func refused(_ status: Int, _ sentence: String) -> WitnessAnswer {
        WitnessAnswer(status: status, contentType: "text/plain; charset=utf-8", body: sentence + "\n")
    }
}
