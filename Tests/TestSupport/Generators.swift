import Foundation
import PropertyBased

/// Text that breaks naive code: combining marks, right-to-left scripts, emoji and joiners, CJK,
/// quotes, commas, newlines and other control characters, mixed with plain ASCII.
public let hostileText = Gen<Character>.oneOf(
    Gen.character(in: " "..."~"),
    Gen.character(in: "\u{0300}"..."\u{036F}"),   // combining diacritics
    Gen.character(in: "\u{0590}"..."\u{05FF}"),   // Hebrew
    Gen.character(in: "\u{0600}"..."\u{06FF}"),   // Arabic
    Gen.character(in: "\u{1F300}"..."\u{1F64F}"), // emoji
    Gen.character(in: "\u{4E00}"..."\u{4E80}"),   // CJK
    Gen.character(in: "\u{0000}"..."\u{001F}"),   // control characters, newline and tab among them
    Gen.character(in: "\u{200B}"..."\u{200F}")    // zero-width joiner and direction marks
).string(of: 0...60)

public let milliseconds = Gen<UInt64>.value(in: 0...UInt64(Int64.max))
public let fraction = Gen<Double>.value(in: 0...1).optional()
