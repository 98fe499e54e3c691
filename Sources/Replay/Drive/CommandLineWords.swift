/// Splits a command line into words as a POSIX shell does, without running one: blanks separate
/// words; 'single quotes' keep everything; "double quotes" keep everything but `\"`, `\\`, `\$` and
/// `` \` ``; a backslash outside quotes keeps the next character. No expansion of any kind.
enum CommandLineWords {
    struct Unparseable: Error, Equatable {
        var reason: String
    }

    static func split(_ line: String) throws(Unparseable) -> [String] {
        var words: [String] = []
        var word = "", inWord = false
        var characters = line.makeIterator()
        while let character = characters.next() {
            switch character {
            case " ", "\t", "\n":
                if inWord { words.append(word) }
                word = ""
                inWord = false
            case "'":
                inWord = true
                while true {
                    guard let next = characters.next() else { throw Unparseable(reason: "a single quote is not closed") }
                    if next == "'" { break }
                    word.append(next)
                }
            case "\"":
                inWord = true
                while true {
                    guard let next = characters.next() else { throw Unparseable(reason: "a double quote is not closed") }
                    if next == "\"" { break }
                    if next == "\\" {
                        guard let escaped = characters.next() else { throw Unparseable(reason: "a double quote is not closed") }
                        if !"\"\\$`".contains(escaped) { word.append("\\") }
                        word.append(escaped)
                    } else {
                        word.append(next)
                    }
                }
            case "\\":
                inWord = true
                guard let escaped = characters.next() else { throw Unparseable(reason: "it ends with a backslash") }
                word.append(escaped)
            default:
                inWord = true
                word.append(character)
            }
        }
        if inWord { words.append(word) }
        guard !words.isEmpty else { throw Unparseable(reason: "it is empty") }
        return words
    }
}
