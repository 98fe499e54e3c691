import Reports
import Testing

@Suite struct WaveformTests {
    @Test func eachColumnHoldsTheExtremesOfItsShareOfTheFramesAcrossChannels() {
        // Two channels, eight frames, four columns of two frames each.
        let samples: [Int16] = [1, -1, 5, 2, -7, 3, 0, 0, 9, -9, 4, 4, -32768, 32767, 6, 6]
        let waveform = Waveform(samples: samples, channels: 2, columns: 4)
        #expect(waveform.maximums == [5, 3, 9, 32767])
        #expect(waveform.minimums == [-1, -7, -9, -32768])
    }

    @Test func thereAreNeverMoreColumnsThanFramesAndNoneWithoutFrames() {
        #expect(Waveform(samples: [1, 2, 3], channels: 1, columns: 100).columns == 3)
        #expect(Waveform(samples: [], channels: 1, columns: 100).columns == 0)
        #expect(Waveform(samples: [], channels: 1, columns: 100).path(height: 100).isEmpty)
    }

    @Test func silenceIsDrawnOnTheMiddleLineAndFullScaleAtTheEdges() {
        #expect(Waveform(samples: [0, 0], channels: 1, columns: 2).path(height: 100) == "M0,50.0L1,50.0L1,50.0L0,50.0Z")
        #expect(Waveform(samples: [32767, -32767], channels: 1, columns: 1).path(height: 100) == "M0,0.0L0,100.0Z")
    }
}
