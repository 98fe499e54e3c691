import Foundation

/// Where an event's payload writes its fields, under the names docs/OUTPUT.md gives them: the output layer's rows
/// implement it (the `EventRows` module), so that the vocabulary knows no output format. Absent values are nil.
public protocol PayloadFieldWriter {
    mutating func field(_ key: String, _ value: String?)
    mutating func field(_ key: String, _ value: Int64?)
    mutating func field(_ key: String, _ value: UInt64?)
    mutating func field(_ key: String, _ value: Int?)
    mutating func field(_ key: String, _ value: UInt32?)
    mutating func field(_ key: String, _ value: Double?)
    mutating func field(_ key: String, _ value: Bool?)
    /// Bytes, written as base64.
    mutating func field(_ key: String, base64 bytes: [UInt8]?)
    /// Milliseconds since 1970, written as an RFC 3339 time.
    mutating func field(_ key: String, time milliseconds: Int64?)
    /// An id, written lowercase and hyphenated.
    mutating func field(_ key: String, id: UUID?)
    mutating func field(_ key: String, strings: [String]?)
    /// A committed segment's words with their times.
    mutating func field(_ key: String, words: [TranscriptWord]?)
    /// A session's labels.
    mutating func field(labels: [String: String])
}
