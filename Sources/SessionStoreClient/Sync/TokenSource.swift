/// The app's token provider, asked once and again only after the server refused the token it gave (401); sessions
/// that meet the same 401 together cause one request.
actor TokenSource {
    private let provider: SessionStoreClient.TokenProvider
    private var token: String?
    private var fetching: Task<String, any Error>?

    init(_ provider: @escaping SessionStoreClient.TokenProvider) {
        self.provider = provider
    }

    func current() async throws -> String {
        if let token { return token }
        return try await fetch(rejecting: nil)
    }

    /// A token other than `rejected`, asking the provider when none is at hand.
    func replacing(_ rejected: String) async throws -> String {
        if let token, token != rejected { return token }
        token = nil
        return try await fetch(rejecting: rejected)
    }

    private func fetch(rejecting rejected: String?) async throws -> String {
        if let fetching { return try await fetching.value }
        let task = Task { [provider] in try await provider(rejected) }
        fetching = task
        defer { fetching = nil }
        let fresh = try await task.value
        token = fresh
        return fresh
    }
}
