/// `--listen HOST:PORT` of the commands that serve (`serve`, `witness serve`); nil when it is not that.
func listenAddress(_ listen: String) -> (host: String, port: Int)? {
    guard let colon = listen.lastIndex(of: ":"), let port = Int(listen[listen.index(after: colon)...]), (0...65535).contains(port) else {
        return nil
    }
    return (String(listen[..<colon]), port)
}
