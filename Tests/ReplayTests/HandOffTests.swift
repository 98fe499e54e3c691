import Synchronization
import Testing
@testable import Replay

/// The limits are generous: beside the blocking suites of the first pass, a test's tasks have waited minutes
/// for a thread of the cooperative pool (these tests take a tenth of a second alone).
@Suite struct HandOffTests {
    @Test(.timeLimit(.minutes(10)))
    func aSendReturnsOnlyOnceItsValueIsTakenAndValuesArriveInOrder() async throws {
        let handOff = HandOff<Int>()
        let sent = Atomic<Int>(0)
        let sender = Task {
            for value in 1...3 {
                await handOff.send(value)
                sent.store(value, ordering: .sequentiallyConsistent)
            }
            handOff.finish()
        }
        try await Task.sleep(for: .milliseconds(100))
        #expect(sent.load(ordering: .sequentiallyConsistent) == 0, "nothing was taken, so no send returned")
        var received: [Int] = []
        while let value = await handOff.next() {
            received.append(value)
        }
        await sender.value
        #expect(received == [1, 2, 3])
        #expect(sent.load(ordering: .sequentiallyConsistent) == 3)
        #expect(await handOff.next() == nil, "a finished hand-off stays finished")
    }

    @Test(.timeLimit(.minutes(10)))
    func finishingReleasesAWaitingSenderAndAWaitingReceiver() async {
        let toSender = HandOff<Int>()
        let sender = Task { await toSender.send(1) }
        let toReceiver = HandOff<Int>()
        let receiver = Task { await toReceiver.next() }
        try? await Task.sleep(for: .milliseconds(50))
        toSender.finish()
        toReceiver.finish()
        await sender.value
        #expect(await receiver.value == nil)
        #expect(await toSender.next() == nil, "the value of a send that was not taken is dropped")
    }

    @Test(.timeLimit(.minutes(10)))
    func cancellingAWaitingSenderOrReceiverEndsItsWaitBeforeOrAfterItBegan() async {
        for delay in [0, 50] {
            let handOff = HandOff<Int>()
            let sender = Task { await handOff.send(1) }
            let other = HandOff<Int>()
            let receiver = Task { await other.next() }
            if delay > 0 { try? await Task.sleep(for: .milliseconds(delay)) }
            sender.cancel()
            receiver.cancel()
            await sender.value
            #expect(await receiver.value == nil)
        }
    }
}
